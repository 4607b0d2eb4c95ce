"""`ops.Custom`: a user's operator from a Python function, and what 2.10 registers one with
(`CustomRegOp`, `DataType`, `custom_info_register`) or writes its kernel in (`ops.kernel`, the
hybrid DSL).

func_type "pyfunc" (2.10's CPU one) is graphcell's: the function runs on numpy arrays through
the host_call primitive (ops/host_call.py), eagerly and under jit; `out_shape`/`out_dtype` are
fixed values or functions of the inputs' shapes (lists) and types (`Tensor[Float32]`), as 2.10
calls them (measured). `bprop(*inputs, out, dout)` gives the inputs' gradients, built of ops in
the backward graph (2.10 calls it with Tensors, in jit too: measured). Without one, a gradient
through the Custom is 2.10's error. The other func_types compile the function into a device
kernel (AKG, TBE, AICPU, a shared library), which graphcell cannot build: refused by name.

Measured on 2.10 and kept: a wrong output dtype raised "memcpy failed." and a wrong shape or an
int output gave garbage; graphcell names the Custom and the output instead. vmap of a Custom
raised in 2.10; graphcell runs the function once per member.
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from .. import dtype as mstype
from ..frontend.tracer import current_tracer
from ..tensor import Tensor
from .grad_sites import GradientSite, with_gradient
from .host_call import HostFunction, checked_outputs, host_call
from .op_base import Operator

__all__ = ["Custom", "CustomRegOp", "DataType", "custom_info_register", "kernel", "ms_kernel"]

_FUNC_TYPES = ["hybrid", "akg", "tbe", "aicpu", "aot", "pyfunc"]


def _func_name(func) -> str:
    return func if isinstance(func, str) else getattr(func, "__name__", type(func).__name__)


class Custom(Operator):
    """A user's operator: `Custom(func, out_shape, out_dtype, func_type="pyfunc", bprop=None)`."""

    def __init__(self, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None):
        super().__init__()
        if not callable(func) and not isinstance(func, str):   # 2.10's words (measured)
            raise TypeError(f"For 'Custom', 'func' must be of type function or str, but got {type(func)}")
        where = f"For 'Custom', 'func_type': {func_type}, 'func': {func}"
        if func_type not in _FUNC_TYPES:
            raise ValueError(f"{where}, 'func_type' must be one of {_FUNC_TYPES}, but got {func_type}")
        if func_type != "pyfunc":
            raise NotImplementedError(
                f"{where}: func_type '{func_type}' compiles the function into a device kernel (AKG, TBE, AICPU or "
                "an AOT library), which graphcell cannot build. Use func_type='pyfunc' with out_shape and out_dtype: "
                "the function then runs on numpy arrays (an ops.kernel function runs that way too)")
        if not callable(func):
            raise TypeError(f"{where}, 'func' must be a Python function for func_type 'pyfunc', but got a str")
        if not (callable(out_shape) or isinstance(out_shape, (tuple, list))):   # 2.10's words
            raise TypeError(f"{where}, 'out_shape' must be one of [tuple, list, function], but got {type(out_shape)}")
        if not (callable(out_dtype) or isinstance(out_dtype, (tuple, list, mstype.DType, mstype.TensorType))):
            raise TypeError(f"{where}, 'out_dtype' must be one of [mindspore.dtype, tuple, list, function], but "
                            f"got {type(out_dtype)}")
        if bprop is not None and not callable(bprop):
            raise TypeError(f"{where}, 'bprop' must be a function, but got {type(bprop)}")
        object.__setattr__(self, "func", func)
        object.__setattr__(self, "out_shape", out_shape)
        object.__setattr__(self, "out_dtype", out_dtype)
        object.__setattr__(self, "bprop", bprop)
        object.__setattr__(self, "reg_info", reg_info)   # metadata: a pyfunc runs without it
        self.add_prim_attr("func_name", _func_name(func))
        self.add_prim_attr("func_type", func_type)

    @property
    def label(self) -> str:
        return f"Custom '{self.attrs['func_name']}'"

    def _outputs(self, inputs) -> tuple:
        """((shape, dtype), ...) of the outputs, and whether there are several."""
        shape, dtype = self.out_shape, self.out_dtype
        if callable(shape):
            shape = shape(*[list(x.shape) for x in inputs])
        if callable(dtype):
            dtype = dtype(*[mstype.TensorType(x.dtype) for x in inputs])
        several = isinstance(dtype, (tuple, list))
        dtypes = [_dtype_of(d, self.label) for d in (dtype if several else [dtype])]
        shapes = list(shape) if several else [shape]
        if len(shapes) != len(dtypes) or not all(_is_shape(s) for s in shapes):
            raise ValueError(f"For {self.label}, out_shape {shape!r} does not match out_dtype {dtype!r}: give one "
                             "shape (a tuple of ints) per output dtype")
        return tuple((tuple(int(n) for n in s), d) for s, d in zip(shapes, dtypes)), several

    def __call__(self, *inputs):
        inputs = tuple(x if isinstance(x, Tensor) else Tensor(x) for x in inputs)
        outs, several = self._outputs(inputs)
        fn = HostFunction(self.func, outs, self.label,
                          no_grad=f"Illegal primitive Custom's bprop not defined: {self.label} runs Python, so its "
                                  "gradient must come from Custom(..., bprop=fn), fn(*inputs, out, dout) returning "
                                  "one gradient per input")
        if current_tracer() is None and not any(x.is_symbolic for x in inputs):
            arrays = checked_outputs(fn, self.func(*[x.asnumpy() for x in inputs]))
            results = tuple(Tensor(a, d) for a, (_, d) in zip(arrays, outs))
        else:
            results = tuple(host_call.bind(*inputs, fn=fn))
            if self.bprop is not None:
                site = GradientSite(functools.partial(_user_bprop, self.bprop, several), (self.bprop, outs),
                                    f"{self.label}")
                results = with_gradient(results, inputs, site)
        return results if several else results[0]


def _user_bprop(bprop, several, xs, outs, douts):
    out, dout = (tuple(outs), tuple(douts)) if several else (outs[0], douts[0])
    return bprop(*xs, out, dout)


def _is_shape(s) -> bool:
    return isinstance(s, (tuple, list)) and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool)
                                                and n >= 0 for n in s)


def _dtype_of(d, label: str):
    if isinstance(d, mstype.TensorType):
        d = d.element_type()
    try:
        return mstype.to_dtype(d)
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"For {label}, an out_dtype must be a graphcell dtype (ms.float32, ...), but got {d!r}") \
            from None


# -- registration information: metadata a pyfunc Custom runs without ----------------------------

class DataType:
    """2.10's (dtype, format) pairs for registration information: `DataType.F32_Default` is
    ("float32", "DefaultFormat")."""


_FORMATS = {"Default": "DefaultFormat", "None": "", "5HD": "NC1HWC0", "FracZ": "FRACTAL_Z", "FracNZ": "FRACTAL_NZ",
            "C1HWNCoC0": "C1HWNCoC0", "NCHW": "NCHW", "NHWC": "NHWC", "NDHWC": "NDHWC", "NCDHW": "NCDHW",
            "ChannelLast": "ChannelLast"}
_TYPES = {"BOOL": "bool", "I8": "int8", "U8": "uint8", "I16": "int16", "U16": "uint16", "I32": "int32",
          "U32": "uint32", "I64": "int64", "U64": "uint64", "F16": "float16", "F32": "float32", "F64": "float64",
          "BF16": "bfloat16", "C64": "complex64", "C128": "complex128", "None": ""}
for _t, _f in itertools.product(_TYPES, _FORMATS):
    setattr(DataType, f"{_t}_{_f}", (_TYPES[_t], _FORMATS[_f]))
del _t, _f


class CustomRegOp:
    """Builds a Custom's registration information (inputs, outputs, supported dtypes, attrs,
    target); `get_op_info()` gives it as a dict. graphcell keeps it as metadata."""

    def __init__(self, op_name="Custom"):
        self.op_name = op_name
        self.inputs, self.outputs, self.attr_, self.dtype_format_ = [], [], [], []
        self.target_ = None

    def input(self, index=None, name=None, param_type="required", **kwargs):
        self.inputs.append({"index": index, "name": name, "paramType": param_type, **kwargs})
        return self

    def output(self, index=None, name=None, param_type="required", **kwargs):
        self.outputs.append({"index": index, "name": name, "paramType": param_type, **kwargs})
        return self

    def dtype_format(self, *args):
        self.dtype_format_.append(tuple(args))
        return self

    def attr(self, name=None, param_type=None, value_type=None, default_value=None, **kwargs):
        self.attr_.append({"name": name, "paramType": param_type, "type": value_type,
                           "defaultValue": default_value, **kwargs})
        return self

    def target(self, target=None):
        self.target_ = target
        return self

    def get_op_info(self) -> dict:
        return {"op_name": self.op_name, "inputs": self.inputs, "outputs": self.outputs, "attr": self.attr_,
                "fusion_type": "", "dtype_format": self.dtype_format_, "target": self.target_}


def custom_info_register(*reg_info):
    """Attaches registration information to a Custom's function (`func.reg_info`, the tuple
    given, as 2.10); returns the function."""
    def decorate(func):
        func.reg_info = reg_info
        return func
    return decorate


# -- the hybrid DSL, run as Python over numpy ------------------------------------------------------

def _allocate(shape, dtype="float32"):
    return np.zeros(tuple(shape), np.dtype(str(dtype)))


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.asarray(x).dtype if np.asarray(x).dtype.kind == "f" else np.float64])(x)


# The names a kernel's body may use, as 2.10's `kernel` gives them when called on numpy arrays
# (each probed there): allocation, loop kinds (ranges), numpy's math.
_INTRINSICS = {
    "output_tensor": _allocate, "allocate": _allocate, "serial": range, "parallel": range, "vectorize": range,
    "reduce": range, "grid": lambda extents: itertools.product(*map(range, extents)),
    "ceil": np.ceil, "floor": np.floor, "trunc": np.trunc, "round": np.round, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "exp": np.exp, "expm1": np.expm1, "log": np.log, "power": np.power,
    "abs": np.absolute, "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "atan": np.arctan, "atan2": np.arctan2,
    "erf": _erf, "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "sign": np.sign,
    "float16": np.float16, "float32": np.float32, "float64": np.float64, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "int64": np.int64, "ceil_div": lambda a, b: -(-a // b),
}


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """2.10's hybrid DSL decorator: the function runs as Python over numpy arrays, with the DSL's
    names (`output_tensor`, `allocate`, `serial`, `sqrt`, ...) defined. Use it in
    `ops.Custom(fn, out_shape, out_dtype, func_type="pyfunc")`; graphcell builds no device kernel."""
    def decorate(f):
        scope = {**f.__globals__, **_INTRINSICS}
        body = type(f)(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)

        @functools.wraps(f)
        def run(*args, **kwargs):
            return body(*args, **kwargs)
        run.ms_kernel_flag = True
        run.compile_attrs = dict(compile_attrs or {})
        if reg_info is not None:
            run.reg_info = reg_info
        return run
    return decorate if fn is None else decorate(fn)


def ms_kernel(fn=None, reg_info=None, compile_attrs=None):
    """The older name of `kernel`."""
    return kernel(fn, reg_info, compile_attrs)
