"""Records MindSpore's `mindspore.ops` signatures for the names `graphcell.ops` defines (and
`mindspore.mint`'s, `mint.linalg`'s, `mint.special`'s and `mint.nn.functional`'s for the names
graphcell's modules of those names define: MODULES).

    python tools/mindspore_signatures.py --mindspore-python /path/to/venv/bin/python

Run it with graphcell's Python, from the repository root. It lists graphcell.ops' public
functions, asks MindSpore's own interpreter (a venv with MindSpore installed; graphcell never
imports MindSpore) for each name's signature, and writes them to
tests/data/mindspore_ops_signatures.json, which tests/test_ops_signatures.py compares
graphcell's signatures with. A name MindSpore lacks is recorded as null.

It records graphcell.Tensor's methods too, where MindSpore's Tensor method is a Python function
(most of MindSpore 2.10's are C++ methods with several overloads, whose signatures inspect
cannot read; their docstrings show one overload only, so they are recorded as "overloaded").

Where `inspect.signature` says nothing useful (a `(*args, **kwargs)` dispatcher, a Primitive
instance such as ops.tensor_scatter_update), the signature is read from the docstring: its
`name(args) -> ...` line, or a Primitive's `Inputs:` list; "source" says which.
"""
from __future__ import annotations

import argparse
import inspect
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "tests" / "data" / "mindspore_ops_signatures.json"

# Runs inside MindSpore's interpreter: names on stdin, JSON on stdout.
MINDSPORE_SIDE = r'''
import ast, inspect, json, re, sys
import mindspore
from mindspore import ops

def from_signature(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    kinds = {p.kind for p in sig.parameters.values()}
    if kinds <= {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
        return None                                  # a dispatcher: (*args, **kwargs)
    return [[p.name, p.kind.name, None if p.default is p.empty else repr(p.default)]
            for p in sig.parameters.values()]

def from_doc_line(name, doc):
    m = re.search(r"^\s*%s\((.*?)\)\s*->" % re.escape(name), doc, re.M)
    if not m:
        return None
    text = re.sub(r"(\*\w+\s*,\s*)\*\s*,\s*", r"\1", m.group(1))   # torch's "*size, *, dtype=None"
    try:
        args = ast.parse("def f(%s): pass" % text).body[0].args
    except SyntaxError:
        return None
    out = [[a.arg, "POSITIONAL_OR_KEYWORD", None] for a in args.args]
    for entry, d in zip(out[len(out) - len(args.defaults):], args.defaults):
        entry[2] = ast.unparse(d)
    if args.vararg is not None:
        out.append([args.vararg.arg, "VAR_POSITIONAL", None])
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append([a.arg, "KEYWORD_ONLY", None if d is None else ast.unparse(d)])
    return out

def from_inputs(doc):
    section = re.search(r"Inputs:\n(.*?)\n\s*\n\s*Outputs:", doc, re.S)
    if not section:
        return None
    names = re.findall(r"^\s*- \*\*(\w+)\*\*", section.group(1), re.M)
    return [[n, "POSITIONAL_OR_KEYWORD", None] for n in names] or None

def record_module(module, wanted):
    out = {}
    for name in wanted:
        fn = getattr(module, name, None)
        if fn is None or not callable(fn):
            out[name] = None
            continue
        doc = getattr(fn, "__doc__", None) or ""
        for source, params in (("signature", lambda: from_signature(fn)), ("docstring", lambda: from_doc_line(name, doc)),
                               ("primitive inputs", lambda: from_inputs(doc))):
            found = params()
            if found is not None:
                out[name] = {"source": source, "kind": type(fn).__name__, "params": found}
                break
        else:
            out[name] = {"source": "none", "kind": type(fn).__name__, "params": None}
    return out

names = json.load(sys.stdin)
out = record_module(ops, names["ops"])
modules = {}
for section, wanted in names["modules"].items():   # "mint.linalg" -> mindspore.mint.linalg
    import importlib
    modules[section] = record_module(importlib.import_module("mindspore." + section), wanted)
methods = {}
for name in names["tensor_methods"]:
    fn = getattr(mindspore.Tensor, name, None)
    if fn is None or not callable(fn):
        methods[name] = None
        continue
    params = from_signature(fn)
    if params is None or not params or params[0][0] != "self":   # a C++ method with overloads
        methods[name] = {"source": "overloaded", "kind": type(fn).__name__, "params": None}
    else:
        methods[name] = {"source": "signature", "kind": type(fn).__name__, "params": params[1:]}
json.dump({"mindspore_version": mindspore.__version__, "ops": out, "tensor_methods": methods, **modules}, sys.stdout)
'''


# The other namespaces recorded, each under its own key: graphcell.<key>'s public functions
# against mindspore.<key>'s.
MODULES = ("mint", "mint.linalg", "mint.special", "mint.nn.functional")


def public_functions(module) -> list:
    """The public functions (not classes, not submodules) a user calls as module.<name>."""
    return sorted(name for name in dir(module) if not name.startswith("_") and callable(getattr(module, name))
                  and not inspect.ismodule(getattr(module, name)) and not inspect.isclass(getattr(module, name)))


def graphcell_names() -> dict:
    """graphcell.ops' public functions (what a user can call as graphcell.ops.<name>),
    graphcell.Tensor's public methods, and each of MODULES' public functions."""
    sys.path.insert(0, str(ROOT))
    import graphcell.ops as ops
    from graphcell.tensor import Tensor
    # dir() lists the transforms (grad, vmap, ...) only once they are loaded: they are added by name
    candidates = set(dir(ops)) | set(getattr(ops, "_TRANSFORMS", ()))
    functions = [name for name in candidates if not name.startswith("_") and callable(getattr(ops, name))
                 and not inspect.ismodule(getattr(ops, name)) and not inspect.isclass(getattr(ops, name))]
    # Tensor's own methods and those it inherits (graphcell.tensor_methods.TensorMethods)
    members = {name: obj for cls in reversed(Tensor.__mro__[:-1]) for name, obj in vars(cls).items()}
    methods = [name for name, obj in members.items() if not name.startswith("_") and inspect.isfunction(obj)]
    import importlib
    modules = {key: public_functions(importlib.import_module("graphcell." + key)) for key in MODULES}
    return {"ops": sorted(functions), "tensor_methods": sorted(methods), "modules": modules}


def _one_op_a_line(record: dict) -> str:
    """The JSON with one op a line, so that a regenerated file's diff reads op by op."""
    def section(key):
        lines = [f"  {json.dumps(name)}: {json.dumps(entry, sort_keys=True)}" for name, entry in sorted(record[key].items())]
        return f' {json.dumps(key)}: {{\n' + ",\n".join(lines) + "\n }"
    keys = ["ops", "tensor_methods", *MODULES]
    return ('{\n "mindspore_version": ' + json.dumps(record["mindspore_version"]) + ",\n"
            + ",\n".join(section(k) for k in keys) + "\n}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mindspore-python", required=True, help="a Python interpreter with MindSpore installed")
    parser.add_argument("--output", default=str(OUTPUT))
    args = parser.parse_args()
    names = graphcell_names()
    run = subprocess.run([args.mindspore_python, "-c", MINDSPORE_SIDE], input=json.dumps(names),
                         capture_output=True, text=True, check=False)
    if run.returncode:
        sys.exit(f"MindSpore's side failed:\n{run.stderr[-3000:]}")
    record = json.loads(run.stdout)
    pathlib.Path(args.output).write_text(_one_op_a_line(record))
    found = sum(1 for v in record["ops"].values() if v is not None)
    plain = sum(1 for v in record["tensor_methods"].values() if v is not None and v["params"] is not None)
    print(f"wrote {args.output}: {found} of {len(names['ops'])} graphcell.ops names exist in MindSpore "
          f"{record['mindspore_version']}; {plain} of {len(names['tensor_methods'])} Tensor methods have a "
          "signature there that inspect reads (the others are C++ methods with overloads)")
    for key in MODULES:
        print(f"  {key}: {sum(1 for v in record[key].values() if v is not None)} of {len(names['modules'][key])} "
              f"graphcell.{key} names exist in mindspore.{key}")


if __name__ == "__main__":
    main()
