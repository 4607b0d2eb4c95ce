"""The base of MindSpore's operator classes (`ops.ReduceSum(keep_dims=True)`), and the checks
their constructors run.

MindSpore 1.x programs create operators in `__init__` and call them in `construct`:

    self.reduce_sum = ops.ReduceSum(keep_dims=True)
    ...
    y = self.reduce_sum(x, (1,))

An `Operator` is that object: its constructor checks and records the attributes (`attrs`,
readable as attributes: `op.keep_dims`), and calling it runs graphcell's functional ops, so it
works eagerly, under `jit`, `vmap`, `grad` and in an ONNX export with no rules of its own.
(`graphcell.ops.Primitive` is the IR's primitive, a different thing: hence the name.)

    >>> ops.ReduceSum(keep_dims=True)
    Prim[ReduceSum]<keep_dims=True, skip_mode=False>
"""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..dtype import DType

# Attributes MindSpore records but leaves out of the repr.
_HIDDEN = frozenset({"input_names", "output_names"})


class Operator:
    """MindSpore's `Primitive` class: a callable operator with a name and attributes."""

    def __init__(self, **attrs):
        object.__setattr__(self, "attrs", {})
        for key, value in attrs.items():
            self.add_prim_attr(key, value)

    @property
    def name(self) -> str:
        """The operator's name, its class's (MindSpore's `Primitive.name`)."""
        return type(self).__name__

    def __getattr__(self, name):
        # `op.keep_dims` reads the attribute, as on MindSpore's primitives.
        attrs = self.__dict__.get("attrs")
        if attrs is not None and name in attrs:
            return attrs[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def add_prim_attr(self, name: str, value):
        """Sets attribute `name` and returns the operator (MindSpore's chaining form)."""
        self.attrs[name] = value
        return self

    def del_prim_attr(self, name: str):
        self.attrs.pop(name, None)
        return self

    def init_prim_io_names(self, inputs, outputs):
        """Records the input and output names (MindSpore keeps them as hidden attrs)."""
        self.attrs["input_names"] = list(inputs)
        self.attrs["output_names"] = list(outputs)

    def set_prim_instance_name(self, instance_name: str):
        object.__setattr__(self, "instance_name", instance_name)
        return self

    def configuration_key(self):
        """What decides this operator's graph: its class and attributes (Cell configurations
        compare it, so an ensemble of Cells holding equal operators traces once)."""
        return self.attrs

    def __call__(self, *args):
        raise NotImplementedError(f"{self.name} is not callable")

    def __repr__(self):
        shown = [f"{k}={_attr_text(v)}" for k, v in self.attrs.items() if k not in _HIDDEN]
        return f"Prim[{self.name}]" + (f"<{', '.join(shown)}>" if shown else "")


def _attr_text(value) -> str:
    return str(value)


# -- constructor checks, in MindSpore's wording ------------------------------------------------

def _type_name(value) -> str:
    return type(value).__name__


def is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_bool(op: str, arg: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{op}', the type of '{arg}' should be 'bool', but got type '{_type_name(value)}'.")
    return value


def check_int(op: str, arg: str, value, minimum=None) -> int:
    if not is_int(value):
        raise TypeError(f"For '{op}', the type of '{arg}' should be 'int', but got type '{_type_name(value)}'.")
    if minimum is not None and value < minimum:
        raise ValueError(f"For '{op}', the '{arg}' must be int and must >= {minimum}, but got '{value}'.")
    return int(value)


def check_positive_int(op: str, arg: str, value) -> int:
    if not is_int(value):
        raise TypeError(f"For '{op}', the type of '{arg}' should be 'int', but got type '{_type_name(value)}'.")
    if value <= 0:
        raise ValueError(f"For '{op}', the '{arg}' must be int and must > 0, but got '{value}'.")
    return int(value)


def check_float(op: str, arg: str, value, minimum=None, above=None, maximum=None) -> float:
    """A Python float (an int is taken too, as MindSpore's float checks take it)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"For '{op}', the type of '{arg}' should be 'float', but got type '{_type_name(value)}'.")
    value = float(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"For '{op}', the '{arg}' must be float and must >= {minimum}, but got '{value}'.")
    if above is not None and value <= above:
        raise ValueError(f"For '{op}', the '{arg}' must be float and must > {above}, but got '{value}'.")
    if maximum is not None and value > maximum:
        raise ValueError(f"For '{op}', the '{arg}' must be float and must <= {maximum}, but got '{value}'.")
    return value


def check_int_or_ints(op: str, arg: str, value, allow_list: bool = True) -> int | tuple:
    """An int or a tuple (list) of ints, returned as given (a list becomes a tuple)."""
    kinds = (tuple, list) if allow_list else (tuple,)
    if is_int(value):
        return int(value)
    if isinstance(value, kinds) and all(is_int(v) for v in value):
        return tuple(int(v) for v in value)
    expected = "[int, tuple of int" + (", list of int]" if allow_list else "]")
    raise TypeError(f"For '{op}', the type of '{arg}' should be one of '{expected}', but got "
                    f"{_type_name(value)} {value!r}.")


def check_ints(op: str, arg: str, value) -> tuple:
    """A tuple or list of ints, returned as a tuple."""
    if isinstance(value, (tuple, list)) and all(is_int(v) for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f"For '{op}', the type of '{arg}' should be one of '[tuple of int, list of int]', but got "
                    f"{_type_name(value)} {value!r}.")


def check_choice(op: str, arg: str, value, choices, upper: bool = False) -> str:
    """One of `choices` (compared in upper case when `upper`, and returned so)."""
    if not isinstance(value, str):
        raise TypeError(f"For '{op}', the type of '{arg}' should be 'str', but got type '{_type_name(value)}'.")
    key = value.upper() if upper else value
    if key not in choices:
        raise ValueError(f"For '{op}', the '{arg}' must be str and must be in '{list(choices)}', but got '{value}'.")
    return key


def check_dtype(op: str, arg: str, value, allowed=None) -> DType:
    try:
        dtype = mstype.to_dtype(value)
    except (TypeError, ValueError):
        raise TypeError(f"For '{op}', the '{arg}' should be a mindspore dtype, but got {value!r}.") from None
    if allowed is not None and dtype not in allowed:
        raise TypeError(f"For '{op}', the '{arg}' should be one of {[str(d) for d in allowed]}, but got {dtype}.")
    return dtype


def check_call_int(op: str, arg: str, value) -> int:
    """An int argument of a call (an axis, a depth): a Python int or a 0-d integer Tensor
    whose value is known (eagerly)."""
    from ..tensor import Tensor
    if isinstance(value, Tensor):
        if value.ndim == 0 and value.dtype.is_integer and not value.is_symbolic:
            return int(value.asnumpy())
        raise TypeError(f"For '{op}', '{arg}' must be a Python int (a constant of the graph), but got a "
                        f"{'traced ' if value.is_symbolic else ''}Tensor of shape {list(value.shape)} and "
                        f"dtype {value.dtype}.")
    if not is_int(value):
        raise TypeError(f"For '{op}', the type of '{arg}' should be 'int', but got type '{_type_name(value)}'.")
    return int(value)


def exporter(names: list):
    """An operator-class module's `@_export`: the class joins the module's `__all__` (`names`)."""
    def export(cls):
        names.append(cls.__name__)
        return cls
    return export
