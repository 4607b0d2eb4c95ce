"""`Cell.state_dict` / `load_state_dict`: MindSpore 2.10's torch-style state (measured).

Keys are attribute paths (`net.weight`), not Parameter names: a Parameter named 'pp' held as
`self.p` is 'p', one shared by two attributes appears under both. Each Cell gives its own
Parameters, then its persistent buffers (`register_buffer`), then its extra state when it
defines `get_extra_state`, then its children's, in attribute order. Loading copies into the
Parameters (set_data: their dtypes stay) and into the buffers in place.
"""
from __future__ import annotations

from collections import OrderedDict, namedtuple

from ..tensor import Parameter, Tensor, _to_array

EXTRA_STATE_KEY = "_extra_state"


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys it did not find, and those it did not expect."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"

    __str__ = __repr__


def local_state(cell) -> list:
    """(name, Parameter or buffer) pairs a Cell holds itself, in state_dict order."""
    pairs = [(name, p) for name, p in cell._params.items() if p is not None]
    buffers = cell.__dict__.get("_buffers") or {}
    transient = cell.__dict__.get("_non_persistent_buffers") or ()
    pairs += [(name, b) for name, b in buffers.items() if b is not None and name not in transient]
    return pairs


def _has_extra_state(cell) -> bool:
    from .cell import Cell
    return type(cell).get_extra_state is not Cell.get_extra_state


def state_dict(cell, destination=None, prefix: str = "") -> OrderedDict:
    destination = OrderedDict() if destination is None else destination
    for name, value in local_state(cell):
        destination[prefix + name] = value
    if _has_extra_state(cell):
        destination[prefix + EXTRA_STATE_KEY] = cell.get_extra_state()
    for name, child in cell._cells.items():
        if child is not None:
            state_dict(child, destination, prefix + name + ".")
    return destination


def load_state_dict(cell, state, strict: bool = True) -> IncompatibleKeys:
    missing, errors, expected = [], [], set()
    buffers_loaded = _load(cell, state, "", missing, errors, expected)
    unexpected = [key for key in state if key not in expected]
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
    if buffers_loaded:   # buffers are constants of the graphs that read them
        from ..compiler.jit import bump_config_epoch
        bump_config_epoch()
    if errors:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(cell).__name__,
                                                                                 "\n\t".join(errors)))
    return IncompatibleKeys(missing, unexpected)


def _load(cell, state, prefix, missing, errors, expected) -> bool:
    buffers_loaded = False
    for name, target in local_state(cell):
        key = prefix + name
        expected.add(key)
        if key not in state:
            missing.append(key)
            continue
        value = state[key]
        if not isinstance(value, Tensor):
            errors.append(f'While copying the parameter named "{key}", expected Tensor or Tensor-like object from '
                          f"checkpoint but received {type(value)}")
        elif tuple(value.shape) != tuple(target.shape):
            errors.append(f"size mismatch for {key}: copying a param with shape {tuple(value.shape)} from checkpoint, "
                          f"the shape in current model is {tuple(target.shape)}.")
        elif isinstance(target, Parameter):
            target.set_data(value)
        else:
            target._payload = _to_array(value._payload, target.dtype)   # in place: the attribute keeps its Tensor
            buffers_loaded = True
    if _has_extra_state(cell):
        key = prefix + EXTRA_STATE_KEY
        expected.add(key)
        if key in state:
            cell.set_extra_state(state[key])
        else:
            missing.append(key)
    for name, child in cell._cells.items():
        if child is not None:
            buffers_loaded |= _load(child, state, prefix + name + ".", missing, errors, expected)
    return buffers_loaded
