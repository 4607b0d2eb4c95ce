"""graphcell's dtypes, named and printed as MindSpore names them.

A `DType` is a small interned object: `graphcell.float32` prints as `Float32` (MindSpore's
`str`) and converts to and from numpy/jax dtypes. Everything below the public API (the IR,
the backends) stores `DType`s, never numpy dtypes, so printing and hashing stay trivial.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np


class Type:
    """The base of every type object (MindSpore's `mindspore.Type`): the dtypes, the categories
    (`number`, `string`, ...), the integer kind `Int` and tensor types. Not made directly."""
    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        if cls is Type:
            raise TypeError("graphcell.Type: No constructor defined!")   # 2.10's message
        return super().__new__(cls)


class DType(Type):
    __slots__ = ("name", "np_dtype", "ms_name", "short")

    def __init__(self, name: str, np_dtype, ms_name: str, short: str):
        self.name = name                  # "float32": the attribute name in graphcell
        self.np_dtype = np.dtype(np_dtype)
        self.ms_name = ms_name            # "Float32": MindSpore's printed form
        self.short = short                # "f32": the IR text form

    def __repr__(self):
        return f"graphcell.{self.name}"

    def __str__(self):
        return self.ms_name

    def __reduce__(self):  # interned: copies and deep copies return the same object
        return (to_dtype, (self.name,))

    @property
    def is_floating(self) -> bool:
        return self.np_dtype.kind == "f" or self in _ML_FLOATS

    @property
    def is_complex(self) -> bool:
        return self.np_dtype.kind == "c"

    @property
    def is_inexact(self) -> bool:
        """Floating or complex: the dtypes that carry gradients and that float functions take as they are."""
        return self.np_dtype.kind in "fc" or self in _ML_FLOATS

    @property
    def real_dtype(self) -> "DType":
        """The dtype of a complex dtype's real and imaginary parts (itself for the others)."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def is_integer(self) -> bool:
        return self.np_dtype.kind in "iu"

    @property
    def itemsize(self) -> int:
        return self.np_dtype.itemsize


float16 = DType("float16", np.float16, "Float16", "f16")
float32 = DType("float32", np.float32, "Float32", "f32")
float64 = DType("float64", np.float64, "Float64", "f64")
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, "BFloat16", "bf16")
int8 = DType("int8", np.int8, "Int8", "i8")
int16 = DType("int16", np.int16, "Int16", "i16")
int32 = DType("int32", np.int32, "Int32", "i32")
int64 = DType("int64", np.int64, "Int64", "i64")
uint8 = DType("uint8", np.uint8, "UInt8", "u8")
uint16 = DType("uint16", np.uint16, "UInt16", "u16")
uint32 = DType("uint32", np.uint32, "UInt32", "u32")
uint64 = DType("uint64", np.uint64, "UInt64", "u64")
bool_ = DType("bool_", np.bool_, "Bool", "bool")
complex64 = DType("complex64", np.complex64, "Complex64", "c64")
complex128 = DType("complex128", np.complex128, "Complex128", "c128")

# 8-bit floats (MindSpore 2.10: str Float8E4M3FN / Float8E5M2, itemsize 1; its CPU build cannot
# cast to them). Casts round as ml_dtypes does (XLA's conversions); no ONNX rule takes them.
float8_e4m3fn = DType("float8_e4m3fn", ml_dtypes.float8_e4m3fn, "Float8E4M3FN", "f8e4m3fn")
float8_e5m2 = DType("float8_e5m2", ml_dtypes.float8_e5m2, "Float8E5M2", "f8e5m2")
_ML_FLOATS = (bfloat16, float8_e4m3fn, float8_e5m2)

ALL_DTYPES = (float16, float32, float64, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
              bool_, complex64, complex128)
float_ = float32
int_ = int64

_FLOAT8 = (float8_e4m3fn, float8_e5m2)   # kept out of ALL_DTYPES: the checkpoint formats and tables
_BY_NAME = {d.name: d for d in ALL_DTYPES + _FLOAT8}
_BY_NAME.update({d.ms_name.lower(): d for d in ALL_DTYPES + _FLOAT8})
_BY_NAME.update({d.short: d for d in ALL_DTYPES + _FLOAT8})
_BY_NAME.update({"bool": bool_, "float": float32, "int": int64, "half": float16, "double": float64})
_BY_NP = {d.np_dtype: d for d in ALL_DTYPES + _FLOAT8}


def to_dtype(x) -> DType:
    """Converts a DType, a numpy/jax dtype, a Python type or a name to a DType."""
    if isinstance(x, DType):
        return x
    if isinstance(x, np.dtype):  # the hot case: an array's dtype
        d = _BY_NP.get(x)
        if d is not None:
            return d
    if isinstance(x, str):
        d = _BY_NAME.get(x.lower())
        if d is None:
            raise TypeError(f"unknown dtype name {x!r}; expected one of "
                            f"{', '.join(d.name for d in ALL_DTYPES)}")
        return d
    if x is bool:
        return bool_
    if x is int:
        return int64
    if x is float:
        return float32
    if x is complex:
        return complex128
    try:
        npd = np.dtype(x)
    except TypeError:
        raise TypeError(f"cannot interpret {x!r} as a dtype") from None
    d = _BY_NP.get(npd)
    if d is None:
        raise TypeError(f"dtype {npd} is not supported by graphcell")
    return d


def dtype_to_nptype(dtype):
    """The numpy scalar type of a dtype (MindSpore's `dtype_to_nptype`): float32 -> np.float32."""
    return to_dtype(dtype).np_dtype.type


def pytype_to_dtype(obj) -> DType:
    """The dtype of a Python or numpy type (MindSpore's `pytype_to_dtype`): int -> Int64."""
    return to_dtype(obj)


def dtype_to_pytype(dtype) -> type:
    """The Python type a dtype's values convert to (MindSpore's `dtype_to_pytype`): bool, int or float."""
    d = to_dtype(dtype)
    return bool if d is bool_ else int if d.is_integer else complex if d.is_complex else float


def result_dtype(*dtypes: DType) -> DType:
    """The dtype two tensors promote to, with MindSpore's rules for the common cases:
    bool < ints < floats, and the wider of two members of one kind. A signed and an unsigned
    integer meet in a signed type that holds both (int8 + uint8 -> int16, as MindSpore and
    numpy); with uint64 there is none, which is an error (MindSpore refuses such mixes).
    Complex is above every real dtype, and a complex64 meeting a float64 is complex128
    (MindSpore 2.10, measured: complex64 + float64 -> Complex128, complex64 + int32 -> Complex64)."""
    order = [bool_, uint8, int8, uint16, int16, int32, uint32, int64, uint64, float8_e5m2, float8_e4m3fn, bfloat16,
             float16, float32, float64,
             complex64, complex128]
    best = dtypes[0]
    for d in dtypes[1:]:
        if d is best:
            continue
        if {d, best} == {bfloat16, float16}:
            best = float32
        elif {d, best} == {complex64, float64}:
            best = complex128
        elif d.is_integer and best.is_integer and d.np_dtype.kind != best.np_dtype.kind:
            both = np.promote_types(d.np_dtype, best.np_dtype)
            if both.kind != "i":
                raise TypeError(f"no integer dtype holds both {best} and {d}; cast one of them first")
            best = _BY_NP[both]
        else:
            best = max(best, d, key=order.index)
    return best


# -- type categories ----------------------------------------------------------------------------
# MindSpore 2.10's names for kinds of types (measured): `number` (repr mindspore.number, str
# Number), `string`, `list_`, `tuple_`, `type_none`, `uint` are instances of `Type`; `Int` and
# `TensorType` are classes: `isinstance(ms.int32, ms.Int)` holds for the signed integers only,
# `Int(32)` is int32 and `Int()` the kind itself; `TensorType(ms.float32)` is `Tensor[Float32]`
# and `tensor_type` the tensor type with no element type. None of them is a dtype (to_dtype
# refuses them); they exist for code that names or checks types.

class TypeCategory(Type):
    __slots__ = ("name", "ms_name")

    def __init__(self, name: str, ms_name: str):
        self.name = name            # the printed attribute name ("number", "string_")
        self.ms_name = ms_name      # MindSpore's str ("Number")

    def __repr__(self):
        return f"graphcell.{self.name}"

    def __str__(self):
        return self.ms_name


number = TypeCategory("number", "Number")
string = TypeCategory("string_", "String")
list_ = TypeCategory("list_", "List")
tuple_ = TypeCategory("tuple_", "Tuple")
type_none = TypeCategory("type_none", "None")
uint = TypeCategory("uint", "UInt")
_INT_KIND = TypeCategory("int", "Int")


class _IntKind(type):
    def __instancecheck__(cls, obj):
        return obj is _INT_KIND or (isinstance(obj, DType) and obj.np_dtype.kind == "i")


class Int(Type, metaclass=_IntKind):
    """The signed integer kind: `Int(32)` is int32, `Int()` the kind (repr graphcell.int)."""
    __slots__ = ()

    def __new__(cls, nbits=None):
        if nbits is None:
            return _INT_KIND
        found = {8: int8, 16: int16, 32: int32, 64: int64}.get(nbits)
        if found is None:
            raise RuntimeError(f"For Int type only support number of 8bits, 16bits, 32bits and 64bits, "
                               f"but got {nbits}bits")
        return found


class TensorType(Type):
    """The type of a Tensor of one element dtype (`TensorType(float32)`: `Tensor[Float32]`), or
    of any Tensor (`TensorType()`, also `tensor_type`)."""
    __slots__ = ("_element",)

    def __init__(self, element=None):
        self._element = None if element is None else to_dtype(element)

    def element_type(self):
        return self._element

    def __eq__(self, other):
        return isinstance(other, TensorType) and other._element is self._element

    def __hash__(self):
        return hash(("TensorType", self._element))

    def __repr__(self):
        return "graphcell.tensor" + ("" if self._element is None else f"[{self._element.name}]")

    def __str__(self):
        return "Tensor" + ("" if self._element is None else f"[{self._element}]")


tensor_type = TensorType()


# MindSpore 2.10's other names for the dtypes (`mindspore.float` is Float32, `mindspore.int`
# Int32, `mindspore.long` Int64, ...), measured. Served by __getattr__ so that `float`, `int` and
# `bool` stay Python's builtins inside this module and graphcell's __init__.
ALIASES = {"float": float32, "single": float32, "half": float16, "double": float64, "long": int64, "int": int32,
           "intc": int32, "intp": int64, "short": int16, "byte": int8, "bool": bool_, "ubyte": uint8,
           "ushort": uint16, "uintc": uint32, "uintp": uint64, "cfloat": complex64, "cdouble": complex128}


def exact_cast(src: DType, dst: DType) -> bool:
    """Whether every value of `src` survives a cast to `dst` unchanged."""
    if src is dst or src is bool_:
        return True
    if dst is bool_:
        return False
    s, d = src.np_dtype, dst.np_dtype
    if src.is_integer and dst.is_integer:
        si, di = np.iinfo(s), np.iinfo(d)
        return di.min <= si.min and si.max <= di.max
    if src.is_floating and dst.is_floating:
        sf, df = ml_dtypes.finfo(s), ml_dtypes.finfo(d)
        return df.nmant >= sf.nmant and df.maxexp >= sf.maxexp and df.minexp <= sf.minexp
    if src.is_integer and dst.is_floating:
        bits = np.iinfo(s).bits - (1 if np.iinfo(s).min < 0 else 0)
        return ml_dtypes.finfo(d).nmant + 1 >= bits
    return False


def __getattr__(name):
    try:
        return ALIASES[name]
    except KeyError:
        raise AttributeError(f"module 'graphcell.dtype' has no attribute {name!r}") from None
