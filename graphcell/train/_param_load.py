"""Write many Parameters at once, all or nothing.

Both ``load_param_into_net`` and ``load_torch_state_dict`` end the same way: a list of
``(parameter, source name, new value)`` that must either all be written or none. A checkpoint that
half-loads (some layers new, some old) gives a network that runs and silently computes nonsense, so
:func:`assign_all` checks every pair first (shape, dtype), reports *every* problem in one error, converts
every value, and only then writes. The checks follow MindSpore's ``_update_param``:

* shapes must be equal, except that trailing size-1 dimensions in the checkpoint are dropped
  (``(12, 2048, 1, 1)`` loads into ``(12, 2048)``; MindSpore's GE backend writes such tensors);
* dtypes must be equal, except that with ``strict_load=False`` a float loads into any float
  (Float16/32/64, BFloat16) and a signed int into any signed int, cast to the parameter's dtype.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..dtype import bfloat16
from ..tensor import Parameter, host_to_device

__all__ = ["ParameterLoadError", "assign_all", "as_numpy"]


class ParameterLoadError(RuntimeError):
    """Values could not be loaded into a network; no parameter was changed.

    ``problems`` lists one line per offending parameter (its name, the network's shape/dtype and the
    source's). A RuntimeError, as in MindSpore, so code that catches MindSpore's error keeps working.
    """

    def __init__(self, what: str, problems: list[str], hint: str):
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{what}: {len(problems)} parameter(s) cannot be loaded, so none was changed:\n"
                         f"{lines}\n{hint}")


def as_numpy(value) -> np.ndarray:
    """A Parameter/Tensor/array-like as a numpy array (no copy when it already is one; a Tensor's
    is a read-only view of its buffer)."""
    return np.asarray(value)


def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype == bfloat16.np_dtype


def _is_signed_int(dtype: np.dtype) -> bool:
    return dtype.kind == "i"


@dataclass
class _Pending:
    param: Parameter
    source: str  # the key in the checkpoint / state dict, for messages
    value: np.ndarray


def _check(item: _Pending, strict_load: bool, source_label: str,
           exact_shape: bool) -> tuple[np.ndarray | None, str | None]:
    """The value to write (reshaped/cast as MindSpore would), or a problem description."""
    param, value = item.param, item.value
    want_shape, want_dtype = tuple(param.shape), param.dtype.np_dtype
    named = param.name if item.source == param.name else f"{param.name} (from '{item.source}')"
    if value.shape != want_shape:
        extra = value.shape[len(want_shape):]
        if exact_shape or not (value.ndim > len(want_shape) and value.shape[:len(want_shape)] == want_shape
                               and all(d == 1 for d in extra)):
            return None, (f"{named}: the network has shape {want_shape}, {source_label} has shape "
                          f"{tuple(value.shape)}")
        value = value.reshape(want_shape)
    if value.dtype != want_dtype:
        convertible = (_is_float(value.dtype) and _is_float(want_dtype)) or \
                      (_is_signed_int(value.dtype) and _is_signed_int(want_dtype))
        if strict_load or not convertible:
            why = "strict_load=True allows no dtype conversion" if convertible else \
                "only float<->float and int<->int are converted"
            return None, (f"{named}: the network has dtype {param.dtype}, {source_label} has "
                          f"{value.dtype} ({why})")
        value = value.astype(want_dtype)
    return value, None


def assign_all(items: Iterable[tuple[Parameter, str, object]], strict_load: bool, what: str,
               source_label: str = "the checkpoint", problems: Iterable[str] = (),
               exact_shape: bool = False) -> None:
    """Check every ``(param, source_name, value)``; raise one :class:`ParameterLoadError` naming all
    problems (the caller's ``problems`` first, e.g. missing names), or write them all. Nothing is
    written unless everything can be. ``exact_shape`` turns off the checkpoint rule that drops
    trailing size-1 dimensions (a torch state dict has no such tensors: there it hides a mismatch)."""
    from ..frontend.tracer import current_tracer
    if current_tracer() is not None:
        raise RuntimeError(f"{what}: parameters cannot be loaded while a graph is being traced (inside "
                           "jit/vmap/grad); load them before calling the compiled function")
    pending = [_Pending(p, source, as_numpy(v)) for p, source, v in items]
    ready, problems = [], list(problems)
    for item in pending:
        value, problem = _check(item, strict_load, source_label, exact_shape)
        if problem is not None:
            problems.append(problem)
        else:
            ready.append((item.param, value))
    if problems:
        raise ParameterLoadError(what, problems,
                                 f"Check that {source_label} was saved from the same network architecture.")
    # Convert everything before touching any parameter, so a failure here also changes nothing.
    arrays = [(param, host_to_device(value)) for param, value in ready]
    for param, array in arrays:
        param._payload = array  # Parameter routes this to an ensemble's stacked array when it has one
