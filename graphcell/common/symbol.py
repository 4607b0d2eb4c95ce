"""MindSpore 2.10's dynamic-shape hints: `Symbol` (a dimension's range and divisibility) and
`enable_dynamic` (declares a jitted function's dynamic inputs).

graphcell compiles once per concrete input shape, so a dynamic dimension is a promise about the
shapes that will come, checked at each call: the rank and the fixed dimensions must match
(2.10's ValueError otherwise), and a Symbol's min/max/divisor/remainder must hold.
Measured on 2.10: Symbol(min=0) -> ValueError "For 'Symbol', the 'min' value should be positive,
but got 0"; Symbol(max=1.5) -> TypeError "For 'Symbol', the argument 'max' must be int, but got
<class 'float'>"; to_dict() holds the non-default fields only; Tensor(shape=[Symbol(...), 3])
reports shape [-1, 3].
"""
from __future__ import annotations

import functools
import inspect

_DEFAULTS = {"max": 0, "min": 1, "divisor": 1, "remainder": 0, "unique": False}


class Symbol:
    def __init__(self, max=0, min=1, divisor=1, remainder=0, unique=False, **kwargs):
        for name, value in (("max", max), ("min", min), ("divisor", divisor), ("remainder", remainder)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"For 'Symbol', the argument '{name}' must be int, but got {type(value)}")
        if not isinstance(unique, bool):
            raise TypeError(f"For 'Symbol', the argument 'unique' must be bool, but got {type(unique)}")
        for name, value in (("min", min), ("divisor", divisor)):
            if value <= 0:
                raise ValueError(f"For 'Symbol', the '{name}' value should be positive, but got {value}")
        self.max, self.min, self.divisor, self.remainder, self.unique = max, min, divisor, remainder, unique

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k, default in _DEFAULTS.items() if getattr(self, k) != default}

    def admits(self, size: int) -> bool:
        """Whether a dimension of `size` meets the hint (max 0: no upper bound)."""
        return (size >= self.min and (self.max <= 0 or size <= self.max)
                and size % self.divisor == self.remainder % self.divisor)

    def __repr__(self):
        return "Symbol(" + ", ".join(f"{k}={v}" for k, v in self.to_dict().items()) + ")"


def _signature_tensors(name: str, value) -> list:
    from ..tensor import SignatureOnly, Tensor
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    for item in items:
        if not isinstance(item, Tensor):   # 2.10's words
            raise TypeError(f"The decorator enable_dynamic only supports Tensor or a tuple/list of Tensor, but the "
                            f"argument : {name} is type of:{type(value)}.")
    if not any(isinstance(t._payload, SignatureOnly) for t in items):
        raise TypeError(f"When using decorator enable_dynamic, the shape of argument '{name}' at least have one None.")
    return items


def check_against_signature(tensor, signature) -> None:
    """A call's Tensor against a declared one (dynamic dims -1, Symbols checked)."""
    from ..tensor import SignatureOnly
    payload = signature._payload
    want = list(payload.shape) if isinstance(payload, SignatureOnly) else list(signature.shape)
    got = list(tensor.shape)
    symbols = getattr(payload, "symbols", None) or [None] * len(want)
    dims_ok = len(got) == len(want) and all(w in (-1, g) for w, g in zip(want, got))
    if dims_ok:
        dims_ok = all(s is None or s.admits(g) for s, g in zip(symbols, got))
    if not dims_ok:   # 2.10's words
        raise ValueError(f"When using decorator enable_dynamic, input tensor shape = {got}, dynamic tensor shape = "
                         f"{want}, tensor shapes are not the same.")


def enable_dynamic(**kwargs):
    """`@jit @enable_dynamic(x=Tensor(shape=[None, 3], dtype=...))`: `x`'s first dimension varies."""
    if not kwargs:
        raise ValueError("When using decorator enable_dynamic, the input cannot be empty!")
    declared = {name: _signature_tensors(name, value) for name, value in kwargs.items()}

    def decorator(fn):
        params = list(inspect.signature(fn).parameters)
        for name in declared:
            if name not in params:   # 2.10: "'y' is not in list"
                raise ValueError(f"'{name}' is not in list")

        @functools.wraps(fn)
        def checked(*args, **call_kwargs):
            bound = dict(zip(params, args), **call_kwargs)
            for name, signatures in declared.items():
                if name in bound:
                    values = bound[name] if isinstance(bound[name], (tuple, list)) else [bound[name]]
                    for value, signature in zip(values, signatures):
                        check_against_signature(value, signature)
            return fn(*args, **call_kwargs)
        return checked
    return decorator
