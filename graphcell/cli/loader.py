"""Naming a model on the command line: `path/to/file.py:Name` or `package.module:Name`.

`Name` is a Cell class, a function returning a Cell, or a Cell instance; `--args` gives the
constructor's (or function's) arguments as JSON (an object for keywords, a list for
positions). Loading `file.py:Name` executes that one file, as a module named after it, and
nothing else the command chooses: the file's directory is not added to `sys.path`, no
package `__init__` around it runs, and its `if __name__ == "__main__":` block does not run
(its own imports do, as they would for `python file.py`).

Inputs: `--input-shape 3,1,32,32` once per model input (`batch` may stand for a dimension;
it takes `--batch-size`), `--input-dtype float32` once for all or once per input.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import json
import logging
import os
import re
import sys
from dataclasses import dataclass

import numpy as np

from .errors import UserError, missing, one_line

BATCH = "batch"


# -- the model --------------------------------------------------------------------------------

@dataclass
class ModelSpec:
    """What MODEL names, ready to build any number of fresh instances (ensemble members)."""
    text: str
    factory: object
    args: list
    kwargs: dict

    def build(self):
        from ..nn.cell import Cell
        if isinstance(self.factory, Cell):
            if self.args or self.kwargs:
                raise UserError(f"{self.text} is a Cell instance; --args applies to a class or function only")
            return self.factory
        try:
            net = self.factory(*self.args, **self.kwargs)
        except UserError:
            raise
        except Exception as e:  # the user's constructor failed: say whose and with what
            raise UserError(f"constructing {self.text} with --args {json.dumps(self.kwargs or self.args)} "
                            f"failed: {type(e).__name__}: {one_line(e)}") from e
        if not isinstance(net, Cell):
            raise UserError(f"{self.text} returned {type(net).__name__} {net!r:.40}, not a graphcell nn.Cell")
        return net

    def build_many(self, n: int, first=None) -> list:
        """`n` fresh models; `first`, one built already, is the first of them."""
        from ..nn.cell import Cell
        if isinstance(self.factory, Cell) and n > 1:
            raise UserError(f"{self.text} is a Cell instance: an ensemble needs a class or function "
                            "that builds a fresh Cell per member")
        return ([first] if first is not None else []) + [self.build() for _ in range(n - (first is not None))]


def load_model(text: str, args_json: str | None = None) -> ModelSpec:
    """Resolves `file.py:Name` or `package.module:Name` (see the module docstring)."""
    location, sep, name = text.rpartition(":")
    if not sep and text.endswith(".py") and os.path.isfile(text):   # which Cell? say what the file has
        cells = _cells_defined_in(_load_file(text))
        if not cells:
            raise UserError(f"{text} defines no nn.Cell class; name a Cell class or a function returning a Cell "
                            f"as {text}:Name")
        raise UserError(f"name the model to load: {', '.join(f'{text}:{c}' for c in cells)}")
    if not sep or not location or not name:
        raise UserError(f"model {text!r} must be written path/to/file.py:Name or package.module:Name")
    if location.endswith(".py") or os.sep in location or "/" in location:
        module = _load_file(location)
    else:
        try:
            module = importlib.import_module(location)
        except ModuleNotFoundError as e:
            if e.name and location.startswith(e.name):
                raise UserError(f"no module named {location!r} (for a file, write path/to/file.py:{name})") from e
            raise UserError(f"importing {location} failed: {one_line(e)}") from e
        except Exception as e:
            raise UserError(f"importing {location} failed: {type(e).__name__}: {one_line(e)}") from e
    factory = module
    for part in name.split("."):
        if not hasattr(factory, part):
            known = sorted(k for k, v in vars(module).items() if _is_model_like(v))
            hint = f"; it defines {', '.join(known)}" if known else ""
            raise UserError(f"{location} has no {name!r}{hint}")
        factory = getattr(factory, part)
    if not _is_model_like(factory):
        raise UserError(f"{text} is a {type(factory).__name__}, not a Cell class, a function returning "
                        "a Cell, or a Cell")
    args, kwargs = _parse_args(args_json)
    return ModelSpec(text, factory, args, kwargs)


def _load_file(path: str):
    if not os.path.isfile(path):
        raise UserError(f"model file {path} {missing(path)}")
    # A private, unique module name: the file is not importable by others under it and
    # never runs as __main__.
    digest = hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:8]
    mod_name = f"_graphcell_model_{os.path.splitext(os.path.basename(path))[0]}_{digest}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"cannot load {path} as Python source")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module   # dataclasses and pickling look modules up by name
    try:
        # A training script prints as it runs: on stderr, so the command's stdout holds only
        # its own output (`dump > net.ir`, `export --json | jq`).
        with contextlib.redirect_stdout(sys.stderr):
            spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[mod_name]
        where = ""
        tb = e.__traceback__
        while tb is not None:
            if os.path.abspath(tb.tb_frame.f_code.co_filename) == os.path.abspath(path):
                where = f" (line {tb.tb_lineno})"
            tb = tb.tb_next
        raise UserError(f"running {path}{where} failed: {type(e).__name__}: {one_line(e)}") from e
    return module


def _cells_defined_in(module) -> list[str]:
    """The Cell classes `module` itself defines (not those it imports), in source order."""
    from ..nn.cell import Cell
    return [k for k, v in vars(module).items()
            if isinstance(v, type) and issubclass(v, Cell) and v.__module__ == module.__name__]


def _is_model_like(obj) -> bool:
    from ..nn.cell import Cell
    return isinstance(obj, Cell) or (isinstance(obj, type) and issubclass(obj, Cell)) or \
        (callable(obj) and not isinstance(obj, type) and hasattr(obj, "__code__"))


def _parse_args(args_json):
    if not args_json:
        return [], {}
    try:
        value = json.loads(args_json)
    except json.JSONDecodeError as e:
        raise UserError(f"--args is not valid JSON ({e.msg} at column {e.colno}): {args_json}") from e
    if isinstance(value, dict):
        return [], value
    if isinstance(value, list):
        return value, {}
    raise UserError(f"--args must be a JSON object (keywords) or list (positions), got {args_json}")


# -- inputs -------------------------------------------------------------------------------------

@dataclass
class InputSpec:
    shape: tuple          # ints, or BATCH
    dtype: object         # a graphcell DType

    def concrete(self, batch: int) -> tuple:
        return tuple(batch if d == BATCH else d for d in self.shape)

    @property
    def batch_axes(self) -> list:
        return [i for i, d in enumerate(self.shape) if d == BATCH]


def parse_shape(text: str) -> tuple:
    """`3,1,32,32` (or `3x1x32x32`, `[3,1,32,32]`); `batch` may stand for a dimension."""
    body = text.strip().strip("[]()").replace("x", ",") if BATCH not in text else text.strip().strip("[]()")
    dims = []
    for part in body.split(","):
        part = part.strip()
        if part == BATCH:
            dims.append(BATCH)
        elif part.isdigit() and int(part) > 0:
            dims.append(int(part))
        elif part.isdigit():
            raise UserError(f"bad --input-shape {text!r}: dimensions must be positive")
        else:
            raise UserError(f"bad --input-shape {text!r}: expected comma-separated positive integers "
                            f"(or 'batch'), like 3,1,32,32")
    return tuple(dims)


def parse_inputs(shapes: list | None, dtypes: list | None) -> list[InputSpec]:
    from ..dtype import to_dtype
    if not shapes:
        raise UserError("give the model's input shape with --input-shape, e.g. --input-shape batch,1,32,32")
    dtypes = dtypes or ["float32"]
    if len(dtypes) not in (1, len(shapes)):
        raise UserError(f"{len(dtypes)} --input-dtype for {len(shapes)} --input-shape: give one for all "
                        "or one per input")
    specs = []
    for i, shape in enumerate(shapes):
        name = dtypes[i if len(dtypes) > 1 else 0]
        try:
            dtype = to_dtype(name)
        except Exception as e:
            raise UserError(f"unknown --input-dtype {name!r} (use float32, float16, int32, int64, bool, ...)") from e
        specs.append(InputSpec(parse_shape(shape), dtype))
    return specs


def random_inputs(specs: list[InputSpec], batch: int, seed: int = 0, lead: tuple = ()) -> list:
    """Random Tensors for `specs` (normal floats, small ints, random bools); `lead` dims
    (ensemble members with --in-axes 0) go in front."""
    from ..tensor import Tensor
    rng = np.random.default_rng(seed)
    out = []
    for spec in specs:
        shape = tuple(lead) + spec.concrete(batch)
        np_dtype = spec.dtype.np_dtype
        if spec.dtype.is_floating:
            a = rng.standard_normal(shape).astype(np_dtype)
        elif np.dtype(np_dtype) == np.bool_:
            a = rng.random(shape) < 0.5
        else:
            a = rng.integers(0, 10, shape).astype(np_dtype)
        out.append(Tensor(a))
    return out


# -- checkpoints --------------------------------------------------------------------------------

@contextlib.contextmanager
def _quiet(logger: logging.Logger):
    """`logger` says nothing inside the block."""
    was = logger.disabled
    logger.disabled = True
    try:
        yield
    finally:
        logger.disabled = was


def read_checkpoint(path: str, what: str) -> dict:
    """{name: Parameter} of a .ckpt/.safetensors; a missing or unreadable file is a user error."""
    from ..train import load_checkpoint
    if not os.path.isfile(path):
        raise UserError(f"checkpoint {path} {missing(path)}")
    try:
        return load_checkpoint(path)
    except Exception as e:
        raise UserError(f"cannot read {what}: {one_line(e)}") from e


def load_checkpoint_into(net, path: str, model_text: str, member: int | None = None, params: dict | None = None,
                         what: str | None = None) -> None:
    """Loads a .ckpt/.safetensors (or `params` read from it) into `net`; a file that does not
    fit is a user error, naming the ensemble `member` it was given for (when there are several
    checkpoints)."""
    from ..train import load_param_into_net, serialization
    what = what or f"checkpoint {path}" + ("" if member is None else f" (member {member})")
    if params is None:
        params = read_checkpoint(path, what)
    try:
        with _quiet(serialization.logger):  # a missing parameter is reported below, in one line
            not_loaded, unused = load_param_into_net(net, params)
    except Exception as e:
        raise UserError(f"{what} does not fit {model_text}: {one_line(e)}") from e
    if not_loaded:
        raise UserError(f"{what} does not fit {model_text}: it has no value for "
                        f"{', '.join(not_loaded[:5])}{' ...' if len(not_loaded) > 5 else ''}")
    # An ensemble's checkpoint (members' names prefixed 0., 1., ...) loads its member 0 by
    # prefix; the other members would be dropped without a word.
    names = {p.name for p in net.get_parameters()}
    others = sorted({key.split(".", 1)[0] for key in unused
                     if "." in key and key.split(".", 1)[0].isdigit() and key.split(".", 1)[1] in names})
    if others:
        raise UserError(f"{what} holds an ensemble (members {', '.join(['0'] + others)}), not one "
                        f"{model_text}: give it as the only --checkpoint (its members are read from it), or "
                        "split it with graphcell.train.extract_member")


def ensemble_size(params: dict, names: set) -> int | None:
    """The member count of an ensemble's checkpoint for a model whose Parameters are `names`:
    keys `0.<name>`, `1.<name>`, ... (what save_checkpoint(nn.CellList(nets)) and
    stack_checkpoints write). None for a single model's file (it has the names themselves)."""
    if any(name in params for name in names):
        return None
    members = {int(head) for head, _, rest in (key.partition(".") for key in params)
               if head.isdigit() and rest in names}
    return max(members) + 1 if members else None


def checkpoint_members(paths: list, net, model_text: str) -> list:
    """(label, path, member) for each member the --checkpoint files hold: a single model's file
    is one member (label: its path, member None); an ensemble's file, which must come alone,
    one per member (label `<file>#<i>`, member i), read straight from it."""
    if len(paths) != 1:
        return [(path, path, None) for path in paths]
    path = paths[0]
    size = ensemble_size(read_checkpoint(path, f"checkpoint {path}"), {p.name for p in net.get_parameters()})
    if size is None:
        return [(path, path, None)]
    return [(f"{path}#{i}", path, i) for i in range(size)]


def build_members(spec: ModelSpec, checkpoints: list | None, n: int | None = None,
                  inputs: list | None = None, sources: list | None = None) -> list:
    """`n` fresh models (default: one per checkpoint member, else one), each loaded from its
    checkpoint; a single model's checkpoint loads into every member. A checkpoint that holds
    a whole ensemble (save_checkpoint(nn.CellList(nets))) gives one member per model it holds.
    `inputs` (InputSpecs) must fit construct's arguments; `sources`, if given, receives each
    member's (checkpoint, index in it: None for a single model's file). Each is put in inference mode, as graphcell.export does, unless
    it is a training step: that one keeps the modes its factory gave (Dropout on after
    set_train())."""
    from ..compiler.export import is_training_step
    checkpoints = list(checkpoints or [])
    first = spec.build() if checkpoints else None   # its Parameter names tell an ensemble's file
    members = checkpoint_members(checkpoints, first, spec.text) if checkpoints else []
    stacked = any(member is not None for _, _, member in members)
    if n is None:
        n = max(1, len(members))
    if stacked and len(members) != n:
        raise UserError(f"checkpoint {checkpoints[0]} holds an ensemble of {len(members)} members, not {n}: "
                        f"ask for {len(members)} (dump: --vmap {len(members)}), or split it with "
                        "graphcell.train.extract_member")
    if len(members) not in (0, 1, n):
        raise UserError(f"{len(members)} checkpoints for {n} members: give one per member, or one for all")
    nets = spec.build_many(n, first)
    if inputs is not None:
        check_input_count(nets[0], len(inputs), spec.text)
    whole = {}   # an ensemble's file, read once
    for i, net in enumerate(nets):
        if members:
            label, path, member = members[i if len(members) > 1 else 0]
            if member is None:
                load_checkpoint_into(net, path, spec.text, i if len(members) > 1 else None)
            else:
                from ..train import extract_member
                if path not in whole:
                    whole[path] = read_checkpoint(path, f"checkpoint {path}")
                load_checkpoint_into(net, path, spec.text, params=extract_member(whole[path], member),
                                     what=f"checkpoint {label} (member {i})")
        if not is_training_step(net):
            net.set_train(False)
    if sources is not None:
        sources[:] = [(path, member) for _, path, member in members]
    return nets


def check_input_count(net, count: int, model_text: str) -> None:
    """One --input-shape per argument of construct (it was a TypeError from inside the trace)."""
    try:
        params = list(inspect.signature(net.construct).parameters.values())
    except (TypeError, ValueError):
        return
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if len(required) <= count <= len(positional):
        return
    names = ", ".join(p.name for p in positional)
    wanted = str(len(required)) if len(required) == len(positional) else f"{len(required)} to {len(positional)}"
    raise UserError(f"{model_text}: construct takes {wanted} input(s) ({names}), got {count} --input-shape: "
                    "give one per input")


def traced_user_call(what: str, fn, *args, **kwargs):
    """Runs `fn` (tracing or calling the user's model); an error in it is the user's: it
    becomes a one-line UserError naming `what`."""
    try:
        return fn(*args, **kwargs)
    except UserError:
        raise
    except Exception as e:
        message = one_line(e)
        cast = re.search(r"cast it with \S+\.astype\((?:graphcell|ms|mindspore)\.(\w+)\)", message)
        if cast:   # the Python API's fix; on the command line the inputs' dtype is an option
            message = message[:cast.start()] + f"pass --input-dtype {cast.group(1)}" + message[cast.end():]
        raise UserError(f"{what} failed: {type(e).__name__}: {message}") from e
