"""Nothing unsafe: no pickle (or other code-running deserialisation) on any loading path, loaders
that refuse pickled payloads without running them, and a CLI that executes only the model file the
user named.

The audit reads graphcell's source as Python tokens (so docstrings and comments do not count) and
fails naming file:line for each sink below that is not in ALLOWED with a reason.
"""
import builtins
import io
import sys
import tokenize

import numpy as np
import pytest

import graphcell as ms
from tests.conftest import ROOT

PACKAGE = ROOT / "graphcell"

# Modules whose loading runs code chosen by the data.
UNSAFE_MODULES = {"pickle", "cPickle", "_pickle", "cloudpickle", "dill", "marshal", "shelve", "joblib"}
# Calls that compile or run code or import modules by a computed name.
CODE_SINKS = {"eval", "exec", "compile", "__import__", "import_module", "exec_module", "spec_from_file_location",
              "run_path", "run_module"}
# Methods that share a sink's name but run nothing: re.compile, Metric.eval.
SAFE_METHODS = {"compile", "eval"}

# (file relative to the repository, sink) -> why it is safe. An entry that no longer matches fails too.
ALLOWED = {
    ("graphcell/cli/loader.py", "import_module"):
        "the CLI imports the module the user named on its command line (package.module:Name)",
    ("graphcell/cli/loader.py", "spec_from_file_location"):
        "the CLI runs the one file the user named (file.py:Name); documented in README's CLI section",
    ("graphcell/cli/loader.py", "exec_module"):
        "same: executes that user-named file, nothing else (test_cli_executes_only_the_named_file)",
    ("graphcell/__init__.py", "import_module"):
        "lazy import of graphcell's own submodules, names from a constant table",
    ("graphcell/nn/__init__.py", "import_module"):
        "lazy import of graphcell.nn's own submodules, names from a constant table",
    ("graphcell/ops/__init__.py", "import_module"):
        "lazy import of graphcell's own transforms and operator classes, module names from constants",
    ("graphcell/frontend/ast_transform.py", "compile"):
        "recompiles the source of the user's own function (already being run) after the control-flow "
        "rewrite; never data read from a file",
    ("graphcell/compiler/jax_locations.py", "compile"):
        "compiles the constant one-liner 'tb = get()' under a user file's name to give jax a source location; "
        "no data from any file",
    ("graphcell/train/metrics.py", "import_module"):
        "lazy import of graphcell's own metrics submodules, names from a constant table",
}


def _significant_tokens(source: str):
    return [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                              tokenize.DEDENT, tokenize.STRING)]


def _call_args(tokens, i):
    """The tokens between the '(' at tokens[i] and its matching ')'."""
    depth, j = 0, i
    while j < len(tokens):
        depth += {"(": 1, ")": -1}.get(tokens[j].string, 0) if tokens[j].type == tokenize.OP else 0
        if depth == 0:
            return tokens[i + 1:j]
        j += 1
    return tokens[i + 1:]


def _keyword_is_true(args, name: str) -> bool:
    s = [t.string for t in args]
    return any(s[k] == name and s[k + 1:k + 3] == ["=", "True"] for k in range(len(s) - 2))


def audit(source: str) -> list[tuple[int, str, str]]:
    """(line, sink, what) for every unsafe use in `source`."""
    toks = _significant_tokens(source)
    found = []
    for i, t in enumerate(toks):
        if t.type != tokenize.NAME:
            continue
        prev = toks[i - 1].string if i else ""
        nxt = toks[i + 1].string if i + 1 < len(toks) else ""
        line = t.start[0]
        if t.string in UNSAFE_MODULES and prev != ".":
            found.append((line, t.string, f"uses the {t.string} module (unpickling runs code)"))
        elif t.string == "allow_pickle" and nxt == "=" and toks[i + 2].string == "True":
            found.append((line, "allow_pickle", "allow_pickle=True unpickles object arrays"))
        elif t.string == "load" and prev == "." and i >= 2 and toks[i - 2].string == "torch" and nxt == "(" \
                and not _keyword_is_true(_call_args(toks, i + 1), "weights_only"):
            found.append((line, "torch.load", "torch.load without weights_only=True unpickles anything"))
        elif t.string in ("load", "unsafe_load") and prev == "." and i >= 2 and toks[i - 2].string == "yaml":
            found.append((line, "yaml.load", "yaml.load can construct arbitrary objects; use yaml.safe_load"))
        elif t.string in CODE_SINKS and nxt == "(" and prev != "def" \
                and not (prev == "." and t.string in SAFE_METHODS):
            found.append((line, t.string, f"{t.string}(...) runs or imports code"))
    return found


def test_audit_finds_every_kind_of_sink():
    """The audit itself can fail: each planted sink is reported on its line, the safe forms are not."""
    planted = "\n".join([
        "import pickle",                                    # 1
        "x = np.load(p, allow_pickle=True)",               # 2
        "sd = torch.load(p, map_location='cpu')",          # 3
        "ok = torch.load(p, weights_only=True)",           # 4 safe
        "value = eval(text)",                              # 5
        "exec(code)",                                      # 6
        "m = importlib.import_module(name)",               # 7
        "c = yaml.load(f)",                                # 8
        "r = re.compile('x'); m.eval(); metric.eval()",    # 9 safe: methods
        "s = 'pickle eval( exec('  # pickle in comments",  # 10 safe: strings and comments
        "from marshal import loads",                       # 11
        "def eval(self): pass",                            # 12 safe: a method definition
    ])
    got = {(line, sink) for line, sink, _ in audit(planted)}
    assert got == {(1, "pickle"), (2, "allow_pickle"), (3, "torch.load"), (5, "eval"), (6, "exec"),
                   (7, "import_module"), (8, "yaml.load"), (11, "marshal")}, sorted(got)


def test_no_pickle_or_code_execution_in_graphcell_sources():
    problems, used = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for line, sink, what in audit(path.read_text(encoding="utf-8")):
            if (rel, sink) in ALLOWED:
                used.add((rel, sink))
            else:
                problems.append(f"{rel}:{line}: {what}")
    assert not problems, "unsafe loading in graphcell (fix it, or allow-list it with a reason):\n" + \
        "\n".join(problems)
    stale = sorted(set(ALLOWED) - used)
    assert not stale, f"ALLOWED entries that match nothing any more (remove them): {stale}"


# -- loaders refuse pickled payloads without running them --------------------------------------------


class _Payload:
    """Unpickling this creates a file: proof that the payload ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return builtins.open, (self.marker, "w")


@pytest.fixture
def pickled_arrays(tmp_path):
    marker = tmp_path / "payload_ran"
    arr = np.array([_Payload(marker), 1], dtype=object)
    np.save(tmp_path / "obj.npy", arr, allow_pickle=True)
    np.savez(tmp_path / "obj.npz", x=arr)
    return tmp_path, marker


@pytest.fixture(scope="module")
def doubling_onnx(tmp_path_factory):
    path = tmp_path_factory.mktemp("onnx") / "double.onnx"
    return ms.export(lambda x: x * 2.0, ms.Tensor(np.zeros((1, 2), np.float32)), file_name=str(path))


def _cli_run(model, data, capsys):
    from graphcell.cli import main
    code = main(["run", model, "--input", str(data), "--provider", "cpu"])
    return code, capsys.readouterr().err


def test_cli_run_refuses_a_pickled_npy(pickled_arrays, doubling_onnx, capsys):
    folder, marker = pickled_arrays
    code, err = _cli_run(doubling_onnx, folder / "obj.npy", capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "obj.npy" in err and "Object arrays cannot be loaded when allow_pickle=False" in err
    assert not marker.exists()


def test_cli_run_refuses_a_pickled_npz(pickled_arrays, doubling_onnx, capsys):
    folder, marker = pickled_arrays
    code, err = _cli_run(doubling_onnx, folder / "obj.npz", capsys)
    assert not marker.exists()
    assert code == 2 and "obj.npz" in err and "allow_pickle=False" in err, err


def test_cli_run_never_unpickles_an_npz(pickled_arrays, doubling_onnx, capsys):
    folder, marker = pickled_arrays
    code, _ = _cli_run(doubling_onnx, folder / "obj.npz", capsys)
    assert code != 0 and not marker.exists()


def test_demo_digits_loader_refuses_a_pickled_npz(pickled_arrays):
    from graphcell.demo import load_digits
    folder, marker = pickled_arrays
    np.savez(folder / "digits.npz", images=np.array([_Payload(marker)], dtype=object), labels=np.zeros(1))
    with pytest.raises(ValueError, match="allow_pickle=False"):
        load_digits(folder / "digits.npz")
    assert not marker.exists()


# -- the CLI executes only the file the user named ---------------------------------------------------

_MODEL_FILE = '''
import os
from graphcell import nn
open(os.path.join(os.path.dirname(__file__), "ran_model"), "w").close()

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc(x)

if __name__ == "__main__":
    open(os.path.join(os.path.dirname(__file__), "ran_main"), "w").close()
'''

_SIDE_EFFECT = '''
import os
open(os.path.join(os.path.dirname(__file__), "ran_{name}"), "w").close()
'''


def test_cli_executes_only_the_named_file(tmp_path, capsys, monkeypatch):
    from graphcell.cli import main
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "model.py").write_text(_MODEL_FILE)
    # siblings a careless loader might run: the package __init__, a same-named helper, site hooks
    for name in ("__init__", "helper", "sitecustomize", "usercustomize", "conftest", "graphcell"):
        (folder / f"{name}.py").write_text(_SIDE_EFFECT.format(name=name))
    monkeypatch.chdir(tmp_path)
    path_before, modules_before = list(sys.path), set(sys.modules)

    assert main(["dump", "models/model.py:Net", "--input-shape", "1,4"]) == 0
    assert "dot_general" in capsys.readouterr().out        # the named file's Net was traced
    assert sorted(f.name for f in folder.iterdir() if f.name.startswith("ran_")) == ["ran_model"]
    assert sys.path == path_before                          # its folder was not put on sys.path
    new = set(sys.modules) - modules_before
    assert not {"helper", "sitecustomize", "usercustomize", "conftest", "models"} & new, new


def test_cli_loading_is_documented_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    cli = readme[readme.index("## The graphcell command"):readme.index("## Troubleshooting")]
    assert "executes that one file only" in cli and "sys.path" in cli and '__name__ == "__main__"' in cli
