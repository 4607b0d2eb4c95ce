"""README.md's examples, run as a reader would run them and compared with the output the README
shows. The snippets are read from README.md at test time, so an edit there is checked here.

- Python blocks that are whole programs run as written; the output block that follows one is
  its expected output. Fragments (the Scaling out lines, which use names a real script would
  define) must compile and name only graphcell attributes that exist.
- `$ graphcell ...` sessions run in order through `graphcell.cli.main` in a folder holding what
  the reader has: `tests/models` and four LeNet5 checkpoints `net0.ckpt`..`net3.ckpt`,
  `minibatch.npy` of 3 images. `graphcell bench` runs with smaller grids (the README's takes
  ~15 s), its rows checked against the README's row format.

Matching: `...` in a line matches anything, a line that is only `...` any number of lines;
numbers match any number (timings, random inputs' differences), except the integers inside
`[...]` (shapes), and runs of spaces match any run of spaces (table widths follow the numbers).
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import io
import re
import runpy
import shlex
import shutil

import numpy as np
import pytest

import graphcell
from tests.conftest import GOLDEN, ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
NUMBER = r"[-+]?(?:\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?|\binf\b|\bnan\b)"


def fenced_blocks(text: str) -> list[tuple[str, str, int]]:
    """(language, body, index of the block's end) for every ``` block."""
    return [(m.group(1), m.group(2), m.end())
            for m in re.finditer(r"^```(\w*)\n(.*?)^```\s*$", text, flags=re.M | re.S)]


def python_examples() -> list[tuple[str, str | None]]:
    """(code, expected output or None) for each ```python block; a bare block right after one
    is its output."""
    blocks, out = fenced_blocks(README), []
    for i, (lang, body, end) in enumerate(blocks):
        if lang != "python":
            continue
        expected = None
        if i + 1 < len(blocks) and blocks[i + 1][0] == "":
            gap = README[end:README.index("```", end)]
            expected = blocks[i + 1][1] if not gap.strip() else None
        out.append((body, expected))
    return out


def cli_sessions() -> list[tuple[list[str], str]]:
    """(argv after `graphcell`, expected output) for each `$ graphcell ...` line, in order."""
    sessions = []
    for lang, body, _ in fenced_blocks(README):
        if lang or not body.startswith("$ graphcell"):
            continue
        lines = body.replace("\\\n", " ").splitlines()
        for line in lines:
            if line.startswith("$ "):
                sessions.append((shlex.split(line[2:])[1:], []))
            else:
                sessions[-1][1].append(line)
    return [(argv, "\n".join(expected)) for argv, expected in sessions]


def line_pattern(line: str) -> str:
    """A README output line as a regex (see the module docstring)."""
    parts = []
    # shapes keep their integers; anything else numeric may vary
    for token in re.split(r"(\.\.\.|\[[^\]]*\]|" + NUMBER + r"| +)", line):
        if not token:
            continue
        if token == "...":
            parts.append(".*?")
        elif token.startswith("["):
            inner = re.split(r"(\.\.\.|\d+\.\d+(?:e[-+]?\d+)?)", token)
            parts.append("".join(".*?" if t == "..." else NUMBER if re.fullmatch(r"\d+\.\d+(?:e[-+]?\d+)?", t)
                                 else re.escape(t) for t in inner))
        elif token.isspace():
            parts.append(" +")
        elif re.fullmatch(NUMBER, token):
            parts.append(NUMBER)
        else:
            parts.append(re.escape(token))
    return "".join(parts)


def assert_output_matches(actual: str, expected: str, what: str):
    pattern = "".join(r"(?:[^\n]*\n)*?" if line.strip() == "..." else r" *" + line_pattern(line.strip()) + r" *\n"
                      for line in expected.splitlines())
    # An expected block may end before the output does only where it ends in a `...` line.
    assert re.fullmatch(pattern, actual.rstrip("\n") + "\n"), \
        f"{what}: the output does not match README.md's\n--- README\n{expected}\n--- actual\n{actual}"


def test_the_matcher_is_strict_where_it_must_be():
    assert_output_matches("a 1.5 ms [2, 10]\n", "a 0.3 ms [2, 10]", "numbers vary")
    assert_output_matches("graph f(%x) {\n  %0 = a\n  %1 = b\n}\n", "graph f(...) {\n  ...", "wildcards")
    for actual in ("a 1.5 ms [2, 11]\n", "a 1.5 s [2, 10]\n", "a 1.5 ms [2, 10]\nextra\n"):
        with pytest.raises(AssertionError):
            assert_output_matches(actual, "a 0.3 ms [2, 10]", "must differ")


def test_the_readme_has_the_examples_this_file_runs():
    assert [expected is not None for _, expected in python_examples()][:1] == [True]
    assert [argv[0] for argv, _ in cli_sessions()] == ["dump", "dump", "export", "run", "check", "bench"]


def free_names(code: str) -> set[str]:
    """Names the code reads but neither binds nor imports (nor are builtins): a fragment's."""
    bound, read = set(dir(builtins)), set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return read - bound


def test_python_programs_print_what_the_readme_shows(tmp_path, capsys):
    programs = 0
    for i, (code, expected) in enumerate(python_examples()):
        if free_names(code):
            continue
        programs += 1
        script = tmp_path / f"readme_example_{i}.py"   # a file, as a reader runs it (graph mode reads
        script.write_text(code)                       # construct's source)
        runpy.run_path(str(script), run_name="__main__")
        if expected is not None:
            assert_output_matches(capsys.readouterr().out, expected, "README's Python example")
    assert programs >= 1


def test_python_fragments_compile_and_name_existing_graphcell_attributes():
    aliases = {"ms": graphcell, "graphcell": graphcell, "communication": graphcell.communication,
               "parallel": graphcell.parallel, "ds": graphcell.dataset, "nn": graphcell.nn, "ops": graphcell.ops}
    checked = 0
    for code, _ in python_examples():
        tree = ast.parse(code)
        for node in ast.walk(tree):
            chain = []
            while isinstance(node, ast.Attribute):
                chain.append(node.attr)
                node = node.value
            if isinstance(node, ast.Name) and node.id in aliases and chain:
                obj = aliases[node.id]
                for name in reversed(chain):
                    assert hasattr(obj, name), f"README names {node.id}.{'.'.join(reversed(chain))}: no {name!r}"
                    obj = getattr(obj, name)
                checked += 1
    assert checked >= 10


@pytest.fixture
def reader_folder(tmp_path, monkeypatch):
    """What a reader of the CLI section has at hand: the repository's tests/models, four LeNet5
    checkpoints and a minibatch of 3 images."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "models").symlink_to(ROOT / "tests" / "models")
    for i in range(4):
        shutil.copy(GOLDEN / f"net{i}.ckpt", tmp_path / f"net{i}.ckpt")
    np.save(tmp_path / "minibatch.npy", np.random.default_rng(0).normal(size=(3, 1, 32, 32)).astype(np.float32))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def smaller_bench(argv: list[str]) -> list[str]:
    argv = list(argv)
    for flag, value in (("--members", "1,2"), ("--batch", "1"), ("--repeat", "1")):
        argv[argv.index(flag) + 1] = value
    return argv


@pytest.mark.skipif("CUDAExecutionProvider" in __import__("onnxruntime").get_available_providers(),
                    reason="the README's `run --provider cuda,cpu` session shows the CPU fallback's note")
def test_cli_sessions_print_what_the_readme_shows(reader_folder):
    from graphcell.cli import main
    for argv, expected in cli_sessions():
        if argv[0] == "bench":   # the header as shown, then rows in the README's row format
            header, row = expected.splitlines()[:2], expected.splitlines()[2]
            expected = "\n".join(header + [row, row])
            argv = smaller_bench(argv)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
        assert status in (0, None), f"graphcell {' '.join(argv)} exited {status}\n{err.getvalue()}"
        # notes go to stderr, before the report
        assert_output_matches(err.getvalue() + out.getvalue(), expected, f"graphcell {' '.join(argv)}")
    assert (reader_folder / "dumps" / "summary.json").is_file() and (reader_folder / "probs.npy").is_file()


def test_every_benchmark_command_in_the_readmes_names_a_script_and_options_it_has():
    """README.md and bench/README.md run `bench/<script>.py [--option]` (and `--help` on every
    script): each script exists, parses its command line (so `--help` prints and exits rather
    than starting a benchmark) and defines each option named with it. Static: the scripts take
    minutes."""
    texts = README + (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    scripts = sorted((ROOT / "bench").glob("bench_*.py")) + [ROOT / "bench" / "run_all.py"]
    for script in scripts:
        assert ".parse_args()" in script.read_text(encoding="utf-8"), f"{script.name} ignores --help"
    named = re.findall(r"bench/(\w+\.py)((?: --[\w-]+)*)", texts)
    # bench/README's table names options beside the script: `bench_vmap.py` ... (`--conv`: ...)
    for row in re.findall(r"^\| `(\w+\.py)` \|(.*)$", texts, flags=re.M):
        named.append((row[0], " ".join(re.findall(r"`(--[\w-]+)", row[1]))))
    assert len(named) >= 10
    for name, options in named:
        source = (ROOT / "bench" / name).read_text(encoding="utf-8")
        for option in options.split():
            assert f'"{option}"' in source, f"bench/{name} has no {option}"
