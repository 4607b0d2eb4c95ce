"""The `graphcell` command answers --help and argument errors without importing jax or onnx
(graphcell/__init__.py defers its core when started as the command; cli.main loads it once the
arguments parse)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("jax", "jaxlib", "onnx", "onnxruntime")


def _imported(args):
    """Runs `python -X importtime ARGS` from the repository root; the modules it imported and its result."""
    done = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    mods = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return mods, done


@pytest.mark.parametrize("args", [["-m", "graphcell", "--help"], ["-m", "graphcell.cli", "dump", "--help"],
                                  ["-m", "graphcell", "export", "--help"], ["-m", "graphcell", "dump"],
                                  ["-m", "graphcell", "run", "m.onnx", "--repeat", "0", "--input", "x.npy"]],
                         ids=["help", "cli-dump-help", "export-help", "missing-model", "bad-repeat"])
def test_help_and_argument_errors_do_not_import_jax(args):
    mods, done = _imported(args)
    assert "graphcell.cli" in mods            # the check sees the command's imports at all
    assert not mods & set(HEAVY), sorted(mods & set(HEAVY))
    assert done.returncode == (0 if "--help" in args else 2)
    assert ("usage: graphcell" in done.stdout) if "--help" in args else ("error:" in done.stderr)


def test_installed_script_help_does_not_import_jax(tmp_path):
    # the console script runs `from graphcell.cli import main` with argv[0] = .../graphcell
    code = ("import sys; sys.argv = [sys.argv[1], '--help']\n"
            "from graphcell.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in %r))" % (HEAVY,))
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "graphcell")], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert "usage: graphcell" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_subcommand_still_loads_the_core():
    mods, done = _imported(["-m", "graphcell", "demo", "--members", "0"])
    assert "jax" in mods and "graphcell.nn" in mods   # the run function needed them: loaded after parsing
    assert done.returncode == 2 and "error" in done.stderr


def test_import_graphcell_still_loads_the_core():
    code = "import graphcell, sys; print(graphcell.Tensor(1).dtype, 'jax' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["Int64", "True"], done.stderr
