"""The `graphcell` command: `graphcell dump | export | run | check | bench | demo`.

One module per subcommand (`add_parser` + `run(args, out)`); `loader` turns MODEL and the
input options into Cells and Tensors. A `UserError` (or an error in the user's model while
loading or tracing it) prints one line on stderr and exits with status 2; `--debug` shows
the traceback instead. Started as the command, the package loads jax and its core only once
the arguments parse (graphcell/__init__.py), so the subcommand modules import graphcell's
core and onnx inside their run functions, not at their top. Output goes through `output.Reporter`: rich tables and progress bars
in a terminal, plain text otherwise, JSON with `--json`.
"""
from __future__ import annotations

import argparse
import os
import sys

from .errors import UserError, one_line

__all__ = ["main", "UserError"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and still exit status 2)."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    from . import bench, check, demo, dump, export, run
    parser = _Parser(prog="graphcell", description="graphcell: trace, transform, compile and export "
                     "MindSpore-style networks")
    from .. import __version__
    parser.add_argument("--version", action="version", version=f"graphcell {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for module in (dump, export, run, check, bench, demo):
        module.add_parser(sub, common)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    # jax and the core load only now: --help and argument errors answer without them
    from .. import _load_core
    _load_core()
    from .output import Reporter
    out = Reporter()
    try:
        return int(args.handler(args, out) or 0)
    except UserError as e:
        if args.debug:
            raise
        sys.stdout.flush()
        sys.stderr.write(f"graphcell {args.command}: error: {one_line(e)}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("graphcell: interrupted\n")
        return 130
    except BrokenPipeError:
        # the reader left (`graphcell dump ... | head`): nothing to report; stdout goes nowhere
        # from now on, so the interpreter's final flush does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a shell reports a process killed by SIGPIPE
    except Exception as e:  # a bug in graphcell: say so in one line, the traceback on request
        if args.debug:
            raise
        if isinstance(e, OSError) and e.filename is not None:
            # a file the system refused (permissions, a full disk): the user's to fix, not a bug
            sys.stdout.flush()
            sys.stderr.write(f"graphcell {args.command}: error: {e.filename}: {e.strerror or e}\n")
            return 2
        sys.stderr.write(f"graphcell {args.command}: internal error: {type(e).__name__}: {one_line(e)} "
                         "(rerun with --debug for the traceback, and please report it)\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
