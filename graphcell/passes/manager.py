"""The pass manager: named pipelines per backend, a verifier between passes in debug mode,
and a dump of the graph after every pass.

    >>> result = run_pipeline(graph, "xla", dump_dir="dumps")   # dumps/00-input.ir, 01-cse.ir, ...
    >>> result.graph, result.changed

Debug mode (`set_context(debug=True)` or the environment variable GRAPHCELL_VERIFY=1) runs
the verifier on the input and after every pass; a pass that breaks an IR invariant is named
in the error, with the printed graph and the bad line marked.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..ir.core import Graph
from ..ir.printer import format_graph
from ..ir.verify import VerificationError, verify
from .base import PassResult
from .cse import cse
from .dce import dce
from .fold import FoldConstants
from .fuse import fuse
from .merge_scans import merge_scans
from .simplify import simplify
from .tile_rows import tile_rows

# One readable list per backend: (name, pass), run in order, each dumpable.
PIPELINES: dict[str, list] = {
    "xla": [
        # Merge the duplicates that tracing, grad and vmap emit (repeated casts, constants,
        # broadcasts), so every later pass sees each value once.
        ("cse", cse),
        # A scan's vjp replays the forward loop for its carries: one loop does both (needs the
        # operands cse made identical).
        ("merge_scans", merge_scans),
        # Evaluate constant subexpressions next, so simplify sees their values (a select on a
        # computed predicate, a multiplication by computed ones).
        ("fold", FoldConstants(max_elements=100_000)),
        # Identities and layout clean-ups (vmap's reshape and transpose pairs); they bypass
        # nodes and may make two remaining nodes identical.
        ("simplify", simplify),
        # Merge what simplify made identical (two transposes of one value that now coincide).
        ("cse", cse),
        # Drop everything the passes above left unused (bypassed nodes, folded inputs).
        ("dce", dce),
        # Last, on the final graph: a row-wise graph over a large batch runs in cache-sized
        # tiles (inference; a no-op for anything that mixes rows, such as a training step).
        ("tile_rows", tile_rows),
    ],
    # What jit(backend="onnx") runs (and export, in step over its traces: compiler/export_passes.py):
    # only passes that change the model onnxruntime runs. The XLA list's fold and simplify and the
    # bias fusion (passes/fuse.py) are left out: the lowering fuses biases itself (find_fusions),
    # skips dead nodes and merges equal ones, and onnxruntime folds constants at session creation.
    # Measured (2 cores; onnxruntime's optimised models compared node for node; pass times the
    # minimum of 9 runs): with them, no optimised model changed (N=16 LeNet5 ensemble at batch 1
    # and 16, a small ResNet's inference and training step, an LSTM training step) but a 3-member
    # LeNet5 training ensemble's, by 3 Transposes of 150 elements, for 2-46 ms more in a first
    # call (ensemble at batch 16: 2.5 -> 33.5 ms; ResNet step 1.8 -> 32; ensemble step 16 -> 62;
    # LSTM step 7 -> 14), 5-10% of those first calls.
    "onnx": [
        ("cse", cse),
        # An RNN's forward scan and its gradient's replay become one loop: one Scan fewer
        # (a training step's Scan body runs once per step instead of twice).
        ("merge_scans", merge_scans),
        ("dce", dce),
    ],
}

# Every pass by name (for `graphcell dump --passes a,b`): the pipelines' and the bias fusion,
# which the ONNX lowering applies by itself (find_fusions) and no pipeline runs.
PASSES: dict = {**{name: p for pipeline in PIPELINES.values() for name, p in pipeline}, "fuse": fuse}


class PassError(RuntimeError):
    """A pass produced a graph that fails the verifier (a bug in the pass)."""


def debug_enabled() -> bool:
    """Whether to verify between passes: GRAPHCELL_VERIFY=1 or `set_context(debug=True)`."""
    if os.environ.get("GRAPHCELL_VERIFY", "") not in ("", "0"):
        return True
    from ..context import get_context
    try:
        return bool(get_context("debug"))
    except ValueError:  # the key was never set
        return False


def run_passes(graph: Graph, passes: list, dump_dir: str | os.PathLike | None = None,
               verify_each: bool | None = None, max_rounds: int = 1, on_pass=None) -> PassResult:
    """Runs `passes` ((name, pass) pairs) in order; returns the last graph and whether any
    pass changed it. With `dump_dir`, writes `00-input.ir`, `01-<name>.ir`, ... there;
    `on_pass(name, graph)` is called after every pass (save_graphs' writer, compiler/save_graphs.py).

    With `max_rounds` > 1 the list runs again while a round changes something (one pass can
    enable another that already ran: folding a predicate lets simplify drop a select, whose
    result can then fold), up to `max_rounds` rounds; dumps keep counting across rounds.
    """
    verify_each = debug_enabled() if verify_each is None else verify_each
    directory = None if dump_dir is None else Path(dump_dir)
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
        _dump(directory / "00-input.ir", graph)
    if verify_each:
        verify(graph)
    changed, step = False, 0
    for _ in range(max_rounds):
        round_changed = False
        for name, pass_ in passes:
            step += 1
            graph, step_changed = pass_(graph)
            round_changed |= step_changed
            if directory is not None:
                _dump(directory / f"{step:02d}-{name}.ir", graph)
            if on_pass is not None:
                on_pass(name, graph)
            if verify_each:
                try:
                    verify(graph)
                except VerificationError as e:
                    raise PassError(f"pass {step} ({name!r}) produced an invalid graph: {e}") from None
        changed |= round_changed
        if not round_changed:
            break
    return PassResult(graph, changed)


# How many times run_pipeline runs a pipeline at most (again while a round changes something).
PIPELINE_ROUNDS = 3


def run_pipeline(graph: Graph, name: str, dump_dir: str | os.PathLike | None = None,
                 verify_each: bool | None = None, max_rounds: int = PIPELINE_ROUNDS, on_pass=None) -> PassResult:
    """Runs the named pipeline of `PIPELINES` ("xla" or "onnx") on `graph`, repeating it
    while it still changes something (at most `max_rounds` times)."""
    passes = PIPELINES.get(name)
    if passes is None:
        raise ValueError(f"unknown pass pipeline {name!r}; known: {', '.join(sorted(PIPELINES))}")
    return run_passes(graph, passes, dump_dir, verify_each, max_rounds, on_pass)


def _dump(path: Path, graph: Graph) -> None:
    path.write_text(format_graph(graph, source=True) + "\n")
