"""MindSpore 2.10's `mutable`: Python numbers that `jit` takes as inputs, not as constants.

`jit` keys its cache on every Python number an argument holds, so `step(x, lr)` with a new
`lr` traces again. `mutable(lr)` marks the number: flattening an argument turns it into a 0-d
Tensor leaf (int -> Int64, float -> Float32, bool -> Bool, MindSpore's scalar types), so calls
with other values reuse the trace. Inside the traced function the value is that Tensor, a
`GraphScalar` (graph_scalar.py): MindSpore's variable scalar, handed back as a number. Called
eagerly, a marked number is just the number.

Containers (tuple, list, dict) are marked element by element; a Tensor is returned as it is
(it is always an input).
"""
from __future__ import annotations

from ..dtype import bool_, float32, int64

_KINDS = "(bool, int, float, Tensor, tuple, list, dict)"


class MutableScalar:
    """Mixin of the marked number types; `dtype` is the Tensor leaf's dtype."""
    __slots__ = ()
    dtype = None

    def as_tensor(self):
        from ..graph_scalar import mark
        from ..tensor import Tensor
        return mark(Tensor(self.real, self.dtype))   # .real: the plain number; a number in the graph


class _Int(MutableScalar, int):
    __slots__ = ()
    dtype = int64


class _Float(MutableScalar, float):
    __slots__ = ()
    dtype = float32


class _Bool(MutableScalar, int):  # bool cannot be subclassed: an int that prints as a bool
    __slots__ = ()
    dtype = bool_

    def __repr__(self):
        return repr(bool(self))

    __str__ = __repr__


def _mark(value, root):
    from ..tensor import Tensor
    if isinstance(value, Tensor):
        return value
    if isinstance(value, bool):
        return _Bool(value)
    if isinstance(value, int):
        return _Int(value)
    if isinstance(value, float):
        return _Float(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_mark(v, root) for v in value)
    if isinstance(value, dict):
        return {k: _mark(v, root) for k, v in value.items()}
    raise TypeError(f"For 'mutable', the 'input_data' should be one of {_KINDS} or their nested structures "
                    f"with no self-reference, but got {type(root).__name__}: {root}.")


def mutable(input_data, dynamic_len=False):
    """Marks `input_data`'s numbers as `jit` inputs. `dynamic_len=True` (a list or tuple whose
    length may change) is accepted; graphcell traces once per length anyway."""
    if dynamic_len and not isinstance(input_data, (tuple, list)):
        raise TypeError(f"For 'mutable', when the variable_len is True, the first input should be list or "
                        f"tuple, but got: {type(input_data).__name__}")
    return _mark(input_data, input_data)
