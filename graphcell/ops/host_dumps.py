"""Ops that hand values to the host while a graph runs: `ops.TensorDump`/`ops.tensordump` (a
Tensor to a .npy file), `ops.DumpGradient` (a gradient to a .npy file) and `ops.Assert`.

Each is a host_call node (ops/host_call.py) under a trace, so jit writes and checks too (2.10's
CPU build raises for TensorDump under jit: measured), and a direct call eagerly.

Measured on 2.10: a dump writes `<file_name without .npy>_<dtype>_<n>.npy`, n a counter shared
by every dump of the process (`a_float32_0.npy`, `g_float32_1.npy`, ...), creating the folder;
a bfloat16 Tensor is written as float32 under the name `bfloat16`. A failed Assert prints
"For 'Assert' condition is false." and up to `summarize` elements of each input, and raises
RuntimeError "assert failed".
"""
from __future__ import annotations

import itertools
import os
import threading

import numpy as np

from ..frontend.tracer import current_tracer
from ..tensor import Tensor
from .grad_sites import GradientSite, with_gradient
from .host_call import HostFunction, host_call
from .op_base import Operator, check_int

__all__ = ["TensorDump", "tensordump", "DumpGradient", "Assert"]

_COUNTER = itertools.count()
_COUNTER_LOCK = threading.Lock()


def _write(file_name: str, array) -> None:
    array = np.asarray(array)
    name = array.dtype.name
    if name == "bfloat16":   # numpy files hold no bfloat16: 2.10 writes float32 (measured)
        array = array.astype(np.float32)
    stem = file_name[:-4] if file_name.endswith(".npy") else file_name
    with _COUNTER_LOCK:
        n = next(_COUNTER)
    folder = os.path.dirname(stem)
    if folder:
        os.makedirs(folder, exist_ok=True)
    np.save(f"{stem}_{name}_{n}.npy", array)


class _Dump:
    """A host function writing its operand to `file_name` (see the module docstring)."""

    def __init__(self, file_name: str):
        self.file_name = file_name

    def __call__(self, array):
        _write(self.file_name, array)
        return ()


def _dump(file_name: str, tensor: Tensor) -> None:
    if current_tracer() is None and not tensor.is_symbolic:
        _write(file_name, tensor.asnumpy())
        return
    host_call.bind(tensor, fn=HostFunction(_Dump(file_name), (), f"tensordump '{file_name}'",
                                           key=("tensordump", file_name)))


def tensordump(file_name, tensor, mode="out"):
    """Writes `tensor` to `<file_name>_<dtype>_<n>.npy` when it runs (eagerly or in a graph)."""
    if not isinstance(file_name, str):   # 2.10's words (measured)
        raise TypeError(f"Parameter file_name should only be build_in str type but got: {type(file_name)}")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Parameter tensor should only be Tensor type, but got: {type(tensor)}")
    if mode not in ("out", "in"):
        raise ValueError(f"Parameter mode should in ['out', 'in'], but got {mode}")
    _dump(file_name, tensor)


class TensorDump(Operator):
    """`TensorDump(input_output='out')(file_name, x)`: ops.tensordump as an operator."""

    def __init__(self, input_output="out"):
        if input_output not in ("in", "out"):   # 2.10's words (measured)
            raise ValueError(f"The 'input_output' argument should be one of ['in', 'out'], but got: {input_output}")
        super().__init__(input_output=input_output, side_effect_io=True, channel_name="ms_tensor_dump")

    def __call__(self, file, input_x):
        tensordump(file, input_x, self.attrs["input_output"])


class DumpGradient(Operator):
    """`DumpGradient()(path, x, input_output)`: x unchanged; its gradient is written to
    `<path>_<dtype>_<n>.npy` when the backward pass runs (the dump counter of tensordump)."""

    def __call__(self, path, x, input_output="out"):
        if not isinstance(path, str):
            raise TypeError(f"For 'DumpGradient', 'path' must be a str, but got {type(path)}")
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'DumpGradient', 'x' must be a Tensor, but got {type(x)}")

        def rule(xs, outs, douts):
            _dump(path, douts[0])
            return douts
        (y,) = with_gradient((x,), (x,), GradientSite(rule, ("DumpGradient", path), f"DumpGradient '{path}'"))
        return y


class _Check:
    """The host function of a traced Assert: the condition and the inputs to print."""

    def __init__(self, summarize: int):
        self.summarize = summarize

    def __call__(self, condition, *data):
        _check(np.asarray(condition), data, self.summarize)
        return ()


def _check(condition, data, summarize: int) -> None:
    if bool(condition.reshape(())):
        return
    print("For 'Assert' condition is false.")
    for array in data:
        print(f"input data: {np.asarray(array).reshape(-1)[:summarize]}")
    raise RuntimeError("assert failed")


class Assert(Operator):
    """`Assert(summarize=3)(condition, input_data)`: when `condition` (a bool of one element) is
    False, prints up to `summarize` elements of each Tensor of `input_data` and raises
    RuntimeError "assert failed" (inside jit, once the run ends)."""

    def __init__(self, summarize=3):
        check_int("Assert", "summarize", summarize)
        super().__init__(summarize=summarize, side_effect_io=True)

    def __call__(self, condition, input_data):
        condition = condition if isinstance(condition, Tensor) else Tensor(bool(condition))
        if condition.size != 1:   # 2.10's words (measured for a condition of shape [2])
            raise ValueError(f"For 'Assert', the 'condition[0]' must be int and must = 1, but got "
                             f"'{condition.shape[0]}' with type 'int'.")
        data = tuple(input_data) if isinstance(input_data, (tuple, list)) else (input_data,)
        data = tuple(d if isinstance(d, Tensor) else Tensor(d) for d in data)
        summarize = self.attrs["summarize"]
        if current_tracer() is None and not any(t.is_symbolic for t in (condition, *data)):
            _check(condition.asnumpy(), [d.asnumpy() for d in data], summarize)
            return None
        host_call.bind(condition, *data, fn=HostFunction(_Check(summarize), (), "Assert", key=("Assert", summarize)))
        return None
