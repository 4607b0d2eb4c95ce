"""Every primitive's ONNX rule against its jax implementation, one record per case.

A record is (primitive, input arrays, attrs[, tolerance]); each is lowered alone, checked by
onnx.checker (full_check) and shape inference, run in onnxruntime and compared with
`prim.impl`. A primitive without a record fails `test_every_primitive_has_a_record`.
"""
import numpy as np
import onnx
import onnxruntime as ort
import pytest

import graphcell  # noqa: F401 - enables x64 and registers the primitives
from graphcell import dtype as mstype
from graphcell.compiler.onnx import lower
from graphcell.dtype import to_dtype
from graphcell.ir.core import GraphBuilder, TensorType
from graphcell.ops.hooks import HookSite
from graphcell.ops.custom_bprop import BpropSite
from graphcell.ops.tensor_hooks import TensorHookSite
from graphcell.ops.primitive import canonical_attrs
from tests.igamma_zeta_grids import IGAMMA_A, IGAMMA_X, ZETA_Q, ZETA_X
from tests.test_betainc import BETAINC_ABX
from tests.registry import every_primitive

# every ops module imported first: a record's primitive may live in a module loaded on first use
PRIMITIVES = every_primitive()

RNG = np.random.default_rng(4)
F32, F64, I32, I64 = np.float32, np.float64, np.int32, np.int64
C128 = np.complex128


def r(*shape, dtype=F32, lo=-2.0, hi=2.0):
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-5 if np.dtype(dtype).kind == "i" else 0, 6, shape).astype(dtype)
    return RNG.uniform(lo, hi, shape).astype(dtype)


def c(*shape, dtype=None):
    dtype = dtype or np.complex64
    return (r(*shape) + 1j * r(*shape)).astype(dtype)


def pos(*shape, dtype=F32):
    return r(*shape, dtype=dtype, lo=0.1, hi=3.0)


class _HookOwner:   # the Cell a backward hook's markers name (ops/hooks.py)
    pass


_HOOK_OWNER = _HookOwner()
HOOK_SITE = HookSite(_HOOK_OWNER)


def _descending_stable(x, axis):
    """numpy's sort of x along axis, largest first, equal values in index order (TopK's), and the indices."""
    idx = np.apply_along_axis(lambda v: np.lexsort((np.arange(len(v)), ~v)), axis, x)   # ~: uint64's order reversed
    return np.take_along_axis(x, idx, axis), idx


def rec(name, arrays, tol=None, id=None, ref=None, **attrs):
    """`ref(*arrays)`: the expected outputs, where prim.impl itself cannot be the reference."""
    return pytest.param(name, arrays, attrs, (tol, ref), id=id or name)


def conv_attrs(nsp=2, strides=None, padding=None, lhs=None, rhs=None, groups=1, batch_groups=1):
    return dict(strides=strides or (1,) * nsp, padding=padding or ((0, 0),) * nsp,
                lhs_dilation=lhs or (1,) * nsp, rhs_dilation=rhs or (1,) * nsp,
                groups=groups, batch_groups=batch_groups)


KEY = np.array([7, 42], np.uint32)
# uint64 values either side of 2**63 (int64's sign bit), ties among them
U64_ORDER = np.array([[2**63 + 5, 3, 2**64 - 1, 2**63 + 5, 0, 2**63 - 1],
                      [2**63, 2**63 - 1, 7, 2**64 - 1, 2**64 - 1, 2**63]], np.uint64)
BESSEL = sorted(PRIMITIVES[n].name for n in PRIMITIVES if n.startswith("bessel_"))
UNARY = ["neg", "exp", "tanh", "relu", "relu6", "logistic", "sin", "cos", "erf", "abs", "sign", "floor", "ceil",
         "round", "expm1", "hard_sigmoid", "hard_swish", "softsign"]
BINARY = ["add", "sub", "mul", "max", "min", "eq", "ne", "lt", "le", "gt", "ge"]

RECORDS = [
    rec("constant", [], value=np.arange(6, dtype=F32).reshape(2, 3)),
    rec("cast", [r(3, 4)], dtype=mstype.int32, id="cast-f32-i32"),
    rec("cast", [r(3, dtype=I32)], dtype=mstype.float64, id="cast-i32-f64"),
    rec("cast", [r(5)], dtype=mstype.bool_, id="cast-f32-bool"),
    rec("stop_gradient", [r(2, 3)]),
    rec("backward_hook_enter", [r(2, 3), r(4)], site=HOOK_SITE, layout=(True, True), post=True),
    rec("backward_hook_exit", [np.zeros((), np.bool_), r(2, 3)], site=HOOK_SITE, layout=(True,), pre=True),
    rec("tensor_hook", [r(2, 3)], site=TensorHookSite(print, {}, 0)),
    rec("custom_bprop", [r(2, 3), r(4)], site=BpropSite(_HOOK_OWNER, None, None), n_out=1),
    *[rec(n, [r(2, 3, 4)], id=f"{n}-f32") for n in UNARY],
    *[rec(n, [r(2, 5, dtype=F64)], id=f"{n}-f64") for n in ["neg", "exp", "tanh", "erf", "abs", "sign", "round"]],
    rec("abs", [r(6, dtype=I32)], id="abs-i32"),
    rec("relu", [r(6, dtype=I32)], id="relu-i32"),
    rec("relu6", [np.array([-1.0, 0.0, 3.0, 6.0, 7.5], F32)], id="relu6-f32-edges"),
    *[rec(n, [np.array([-4.0, -3.0, -0.5, 0.0, 3.0, 7.5, np.inf], F32)], id=f"{n}-f32-edges")
      for n in ["hard_sigmoid", "softsign"]],   # (hard_swish's -inf: onnxruntime's NaN, tests/test_mindspore_special_values.py)
    *[rec(n, [r(2, 5, dtype=dt)], tol=1e-3 if dt == np.float16 else None, id=f"{n}-{np.dtype(dt).name}")
      for n in ["hard_sigmoid", "hard_swish", "softsign"] for dt in (np.float16, F64)],   # (float16: computed in float32)
    rec("sign", [np.array([np.nan, -0.0, 0.0, 2.0, -np.inf], F32)], id="sign-f32-nan"),
    rec("sign", [np.array([np.nan, -0.0, 0.0, 2.0, -np.inf], np.float16)], id="sign-f16-nan"),
    rec("leaky_relu", [r(2, 3, 4)], alpha=0.3), rec("leaky_relu", [r(5, dtype=F64)], alpha=0.01, id="leaky_relu-f64"),
    rec("elu", [np.array([-3.0, -1e-3, -1e-8, 0.0, 2.0], F32)], tol=1e-7, alpha=0.7),
    rec("shrink", [np.array([-1.0, -0.5, -0.3, 0.0, 0.5, 0.7, np.nan, np.inf], F32)], tol=0, lambd=0.5, bias=0.5),
    rec("shrink", [np.array([-1.0, -0.5, 0.3, 0.5, 0.7], F64)], tol=0, lambd=0.5, bias=0.0, id="shrink-f64"),
    rec("shrink", [r(2, 3, dtype=np.float16)], tol=0, lambd=0.25, bias=0.25, id="shrink-f16"),
    rec("log", [pos(3, 4)]), rec("sqrt", [pos(3, 4)]), rec("rsqrt", [pos(3, 4)]),
    rec("log1p", [np.array([1e-9, -1e-7, 0.5, -0.5, 3.0, 0.0], F32)]),
    rec("expm1", [np.array([1e-9, -1e-7, 0.5, -0.5, 3.0, 0.0, -30.0], F32)], id="expm1-small"),
    rec("expm1", [np.array([1e-12, -1e-10, 0.5, -40.0], F64)], id="expm1-f64"),
    rec("not", [r(7, dtype=np.bool_)]),
    rec("is_finite", [np.array([0.0, np.inf, -np.inf, np.nan, 1.5], F32)]),
    *[rec(n, [r(2, 3, 4, lo=lo, hi=hi)], id=f"{n}-f32") for n, lo, hi in [
        ("sinh", -3, 3), ("cosh", -3, 3), ("tan", -1.5, 1.5), ("asin", -1, 1), ("acos", -1, 1), ("atan", -9, 9),
        ("asinh", -9, 9), ("acosh", 1, 9), ("atanh", -0.99, 0.99), ("erfc", -3, 9), ("erfinv", -1, 1)]],
    *[rec(n, [r(2, 5, dtype=F64, lo=-0.9, hi=0.9)], id=f"{n}-f64") for n in ["sinh", "asin", "atanh", "erfinv"]],
    # erfc and erfinv are polynomial fits here (tests/test_ops_math.py checks them near +-1 and in the tail)
    rec("erfc", [np.array([0.0, -0.0, 0.5, -0.5, 4.0, 9.0, -9.0, np.inf, -np.inf, np.nan], F32)], tol=2e-6,
        id="erfc-edges"),
    rec("erfinv", [np.array([0.0, -0.0, 0.5, 0.999, -0.99999, 1.0, -1.0, 1.5, np.nan], F32)], tol=1e-5,
        id="erfinv-edges"),
    # the gamma family: float64 series here, jax's float32 functions (~1e-6 relative) there
    *[rec(n, [r(2, 3, 4, lo=-6, hi=9)], 2e-5, id=f"{n}-f32", **a) for n, a in [
        ("lgamma", {}), ("digamma", {}), ("polygamma", {"n": 1}), ("polygamma", {"n": 2}), ("polygamma", {"n": 5})]],
    *[rec(n, [r(2, 5, dtype=F64, lo=-6, hi=9)], 1e-12, id=f"{n}-f64", **a) for n, a in [
        ("lgamma", {}), ("digamma", {}), ("polygamma", {"n": 3})]],
    *[rec(n, [np.array([0.0, -0.0, -1.0, -3.0, -2.5, 1e-20, 1.0, 2.0, 1e10, -1e10, 3e38, np.inf, -np.inf, np.nan],
                       F32)], 2e-5, id=f"{n}-edges", **a) for n, a in [
        ("lgamma", {}), ("digamma", {}), ("polygamma", {"n": 1}), ("polygamma", {"n": 4})]],
    rec("lgamma", [r(6, dtype=np.float16, lo=0.5, hi=9)], 2e-3, id="lgamma-f16"),
    # the Bessel functions: the same float64 formulas on both sides (test_special_more.py has the edges)
    *[rec(n, [r(3, 8, lo=-40, hi=40)], 1e-6, id=f"{n}-f32") for n in BESSEL],
    *[rec(n, [r(2, 8, dtype=F64, lo=-40, hi=40)], 1e-12, id=f"{n}-f64") for n in BESSEL],
    # igamma (P, Q), igamma_grad_a, zeta: jax's and XLA's algorithms in float64 (compiler/onnx_igamma_zeta.py),
    # edges included (tests/igamma_zeta_grids.py; float32 and float64 share one XLA compilation)
    *[rec(n, [a.astype(dt), x.astype(dt)], tol, id=f"{i}-{np.dtype(dt).name}", **attrs)
      for i, n, a, x, attrs in [("igamma", "igamma", IGAMMA_A, IGAMMA_X, {"upper": False}),
                                ("igammac", "igamma", IGAMMA_A, IGAMMA_X, {"upper": True}),
                                ("igamma_grad_a", "igamma_grad_a", IGAMMA_A, IGAMMA_X, {}),
                                ("zeta", "zeta", ZETA_X, ZETA_Q, {})]
      for dt, tol in ((F32, 1e-6), (F64, 1e-9))],
    # betainc: jax's continued fraction in float64 (compiler/onnx_betainc.py), edges included
    *[rec("betainc", [v.astype(dt) for v in BETAINC_ABX], tol, id=f"betainc-{np.dtype(dt).name}")
      for dt, tol in ((F32, 1e-6), (F64, 1e-12))],
    rec("atan2", [r(3, 4), r(4)]), rec("atan2", [r(3, dtype=F64), r(3, dtype=F64)], id="atan2-f64"),
    rec("atan2", [np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.inf, np.nan], F32),
                  np.array([0.0, 0.0, -0.0, -0.0, -np.inf, -np.inf, np.inf, np.inf, -np.inf, 1.0], F32)],
        id="atan2-edges"),
    *[rec(n, [r(2, 3), r(3)], id=f"{n}-f32") for n in BINARY],
    *[rec(n, [r(4, 1, 5, dtype=I32), r(1, 3, 5, dtype=I32)], id=f"{n}-i32") for n in BINARY],
    rec("max", [r(5, dtype=np.bool_), r(5, dtype=np.bool_)], id="max-bool"),
    rec("div", [r(2, 3), pos(2, 3)], id="div-f32"),
    rec("rem", [r(2, 3) * 5, np.array([1.3, -0.7, 2.1], F32)], id="rem-f32"),
    rec("rem", [np.array([7, -7, 7, -7, 0], I32), np.array([2, 2, -2, -2, 3], I32)], id="rem-i32"),
    rec("div", [np.array([7, -7, 7, -7, 0, 5], I32), np.array([2, 2, -2, -2, 3, 5], I32)], id="div-i32-floors"),
    rec("pow", [pos(2, 3), r(2, 3)]),
    rec("and", [r(6, dtype=np.bool_), r(6, dtype=np.bool_)]),
    rec("or", [r(6, dtype=np.bool_), r(6, dtype=np.bool_)]),
    rec("xor", [r(6, dtype=np.bool_), r(6, dtype=np.bool_)]),
    rec("and", [np.array([0, 5, -6, 12], I32), np.array([3, 4, 7, -1], I32)], id="and-bitwise"),
    rec("or", [np.array([0, 5, -6, 12], I32), np.array([3, 4, 7, -1], I32)], id="or-bitwise"),
    rec("xor", [np.array([0, 5, -6, 12], I32), np.array([3, 4, 7, -1], I32)], id="xor-bitwise"),
    rec("not", [np.array([0, 5, -6, 12], I32)], id="not-bitwise"),
    *[rec(n, [RNG.integers(np.iinfo(t).min, np.iinfo(t).max, (3, 4), t, endpoint=True),
              RNG.integers(max(np.iinfo(t).min, -70), 70, (4,), t, endpoint=True)], id=f"{n}-{np.dtype(t).name}")
      for n in ("shift_left", "shift_right")
      for t in (np.int8, np.uint8, np.int16, np.int32, np.uint32, I64, np.uint64)],
    # subnormals: numpy's values (XLA on CPU reads them as 0); bit-exact in tests/test_ops_array_wave2.py
    rec("nextafter", [np.array([0.0, -0.0, 1.0, -1e-45, 1e-45, 3.4e38, np.inf, -np.inf, np.nan, 2.0, 1.2e-38], F32),
                      np.array([-0.0, 1.0, 0.0, 1.0, 0.0, np.inf, 0.0, 0.0, 1.0, 2.0, 0.0], F32)],
        ref=np.nextafter, id="nextafter-f32"),
    rec("nextafter", [r(3, 4, dtype=F64), r(4, dtype=F64)], id="nextafter-f64"),
    rec("select", [r(2, 3, dtype=np.bool_), r(2, 3), r(3)]),
    *[rec(n, [r(2, 3, 4)], axes=(0, 2), id=f"{n}-f32") for n in
      ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"]],
    rec("reduce_max", [r(3, 4, dtype=np.bool_)], axes=(1,), id="reduce_max-bool"),
    rec("reduce_min", [r(3, 4, dtype=np.bool_)], axes=(0, 1), id="reduce_min-bool"),
    rec("reduce_sum", [r(3, 4, dtype=I64)], axes=(), id="reduce_sum-noaxes"),
    # integer sums and products exact and wrapping (compiler/onnx_int_reductions.py): onnxruntime's
    # ReduceSum gave 2**53 for [2**53 + 1, 0, 0] and saturated on overflow
    rec("reduce_sum", [np.array([[2**53 + 1, 0, 0], [2**62, 2**62, 2**62]], I64)], axes=(1,), id="reduce_sum-i64-exact"),
    rec("reduce_sum", [np.array([[[2**31 - 1, 1], [-2**31, -1]], [[7, 8], [2**30, 2**30]]], I32)], axes=(0, 2),
        id="reduce_sum-i32-wraps"),
    rec("reduce_sum", [np.array([[2**64 - 1, 2], [2**63 + 1, 2**63]], np.uint64)], axes=(0, 1), id="reduce_sum-u64-wraps"),
    rec("reduce_sum", [np.array([[200, 100], [3, 4]], np.uint8)], axes=(1,), id="reduce_sum-u8-wraps"),
    rec("reduce_prod", [np.array([[2**31 + 1, 2**31 + 3, 1], [2**62, 3, -5]], I64)], axes=(1,), id="reduce_prod-i64-exact"),
    rec("reduce_prod", [np.array([[[3, 2**20, 5], [2**15, 7, -1]]], I32)], axes=(0, 1, 2), id="reduce_prod-i32-wraps"),
    rec("reduce_prod", [np.zeros((2, 0, 3), I64)], axes=(1,), id="reduce_prod-i64-empty"),
    rec("cumprod", [np.array([2**31 + 1, 2**31 + 3, 3, 2**40], I64)], axis=0, reverse=False, id="cumprod-i64-exact"),
    rec("argmax", [r(3, 5)], axis=1, index_dtype=mstype.int32),
    rec("element_count", [r(3, 5, 2)], axes=(0, 2), dtype=mstype.float32),
    rec("argmin", [r(3, 5, dtype=I64)], axis=0, index_dtype=mstype.int64),
    rec("reshape", [r(2, 3, 4)], shape=(4, 6)),
    rec("reshape", [r(2, 0, 4)], shape=(0, 8), id="reshape-empty"),
    rec("transpose", [r(2, 3, 4)], perm=(2, 0, 1)),
    rec("broadcast_in_dim", [r(3, 1)], shape=(2, 3, 4), dims=(1, 2)),
    rec("broadcast_in_dim", [r(3)], shape=(3, 2), dims=(0,), id="broadcast-new-last"),
    rec("broadcast_in_dim", [np.asarray(1.5, F32)], shape=(2, 2), dims=(), id="broadcast-scalar"),
    rec("concatenate", [r(2, 3), r(2, 1), r(2, 2)], axis=1),
    rec("slice", [r(5, 6)], start=(1, 0), limit=(4, 6), strides=(2, 1)),
    rec("slice", [r(4, 7, 3)], start=(0, 2, 1), limit=(4, 7, 2), strides=(1, 3, 1), id="slice-3d"),
    rec("rev", [r(3, 4, 2)], axes=(0, 2)),
    rec("pad", [r(2, 3), np.asarray(-1.0, F32)], lo=(1, 0), hi=(0, 2)),
    rec("pad", [r(3, 5), np.asarray(0.0, F32)], lo=(-1, 2), hi=(1, -2), id="pad-negative"),
    rec("take", [r(5, 3), np.array([0, 4, -1, 9, 2], I32)], axis=0, id="take-clips"),
    rec("take", [r(2, 5, 3), np.array([[1, 2], [4, 0]], I64)], axis=1, id="take-2d-index"),
    # resize: a Resize node where onnxruntime picks MindSpore's taps, else gathers (onnx_resize.py)
    rec("resize", [r(2, 3, 4, 5)], sizes=(8, 10), method="nearest", align_corners=False, scales=None,
        id="resize-nearest"),
    rec("resize", [r(2, 3, 5, dtype=I64)], sizes=(7,), method="nearest", align_corners=False, scales=None,
        id="resize-nearest-i64-gathers"),
    rec("resize", [r(1, 2, 4, 6)], sizes=(2, 3), method="nearest-exact", align_corners=False, scales=None,
        id="resize-nearest-exact-ties-gathers"),
    rec("resize", [r(1, 2, 3, 4)], sizes=(7, 5), method="nearest-exact", align_corners=False, scales=None,
        id="resize-nearest-exact"),
    rec("resize", [r(2, 3, 5)], sizes=(8,), method="linear", align_corners=False, scales=None, id="resize-linear-1d"),
    rec("resize", [r(2, 3, 3, 4)], sizes=(7, 5), method="linear", align_corners=True, scales=None,
        id="resize-bilinear-align"),
    rec("resize", [r(2, 1, 3, 4, 5)], sizes=(5, 6, 8), method="linear", align_corners=False, scales=(1.7, 1.6, 1.7),
        id="resize-trilinear-scales"),
    rec("resize", [r(2, 3, 3, 4, dtype=F64)], 1e-6, sizes=(6, 8), method="linear", align_corners=False, scales=None,
        id="resize-bilinear-f64-gathers"),
    rec("resize", [r(2, 3, 4, 4)], sizes=(8, 8), method="cubic", align_corners=False, scales=None,
        id="resize-bicubic-exact-fractions"),
    rec("resize", [r(2, 3, 3, 4)], sizes=(5, 7), method="cubic", align_corners=False, scales=None,
        id="resize-bicubic-table-gathers"),
    rec("resize", [r(3, 2, 3, 4)], sizes=(5, 7), method="cubic", align_corners=True, scales=None,
        id="resize-bicubic-align"),
    rec("take_along_axis", [r(3, 4), np.array([[0, 3, 1, 7], [2, 2, 0, 1], [-1, 3, 3, 0]], I32)], axis=1),
    rec("scatter_add", [r(5, 3), np.array([0, 4, 4, 1], I32), r(4, 3)], axis=0),
    rec("scatter_add", [r(2, 5, 3), np.array([[1, 1], [7, 0]], I32), r(2, 2, 2, 3)], axis=1, id="scatter-axis1"),
    rec("write_rows", [r(5, 3), np.array([-2, 3, 9], I32), r(3, 3)], id="write_rows-clamps"),
    rec("write_rows", [r(4, 2, dtype=np.bool_), np.array([1], I64), r(1, 2, dtype=np.bool_)], id="write_rows-bool"),
    rec("dot_general", [r(3, 4), r(5, 4)], contract=((1,), (1,)), batch=((), ()), id="dense-gemm"),
    rec("dot_general", [r(4, 3), r(4, 5)], contract=((0,), (0,)), batch=((), ()), id="gemm-transA"),
    rec("dot_general", [r(4, 3, 6), r(4, 6, 5)], contract=((2,), (1,)), batch=((0,), (0,)), id="batched"),
    rec("dot_general", [r(4, 2, 3, 6), r(4, 5, 6)], contract=((3,), (2,)), batch=((0,), (0,)), id="batched-2free"),
    rec("dot_general", [r(6), r(6, 5)], contract=((0,), (0,)), batch=((), ()), id="vec-mat"),
    rec("dot_general", [r(3, 6), r(6)], contract=((1,), (0,)), batch=((), ()), id="mat-vec"),
    rec("dot_general", [r(3, 4, 6), r(6, 4, 2, 2)], contract=((1, 2), (1, 0)), batch=((), ()), id="einsum"),
    rec("dot_general", [r(3, 6), r(4, 5, 6)], contract=((1,), (2,)), batch=((), ()), id="stacked-rhs"),
    rec("dot_general", [r(2, 3, 6), r(6, 4, 5)], contract=((2,), (0,)), batch=((), ()), id="stacked-rhs-2free"),
    rec("dot_general", [r(6), r(4, 6, 5)], contract=((0,), (1,)), batch=((), ()), id="vec-stacked-rhs"),
    rec("dot_general", [r(3, 4, dtype=I32), r(4, 2, dtype=I32)], contract=((1,), (0,)), batch=((), ()),
        id="int-matmul"),
    rec("dot_general", [r(3, 4, dtype=F64), r(5, 4, dtype=F64)], contract=((1,), (1,)), batch=((), ()),
        id="gemm-f64"),
    rec("conv", [r(2, 3, 9, 8), r(4, 3, 3, 2)], **conv_attrs(), id="conv"),
    rec("conv", [r(2, 4, 9, 8), r(6, 2, 3, 3)], **conv_attrs(strides=(2, 1), padding=((1, 2), (0, 1)),
                                                             rhs=(1, 2), groups=2), id="conv-grouped"),
    rec("conv", [r(2, 3, 5, 6), r(4, 3, 3, 3)], **conv_attrs(padding=((2, 2), (1, 1)), lhs=(2, 1)),
        id="conv-lhs-dilation"),
    # The reference crops first and pads what remains (XLA's CPU convolution itself gets mixed
    # negative and positive padding wrong; the conv impl crops too, see test_primitives).
    rec("conv", [r(2, 3, 7, 7), r(4, 3, 3, 3)], **conv_attrs(padding=((-1, 1), (0, -2))), id="conv-negative-pad",
        ref=lambda x, w: PRIMITIVES["conv"].impl(x[:, :, 1:, :-2], w, **conv_attrs(padding=((0, 1), (0, 0))))),
    rec("conv", [r(4, 3, 6, 6), r(6, 3, 3, 3)], **conv_attrs(batch_groups=2), id="conv-batch-groups"),
    rec("conv", [r(2, 3, 10), r(5, 3, 4)], **conv_attrs(nsp=1, strides=(3,)), id="conv1d"),
    rec("conv", [r(2, 4, 5, 6, 4), r(6, 2, 3, 2, 2)], **conv_attrs(nsp=3, strides=(1, 2, 1), padding=((1, 1), (0, 1),
        (1, 0)), rhs=(2, 1, 1), groups=2), id="conv3d"),
    rec("conv_transpose", [r(2, 4, 3, 4, 3), r(4, 3, 2, 3, 2)], lhs_shape=(6, 8, 7), strides=(2, 2, 3),
        padding=((1, 0), (1, 1), (0, 1)), rhs_dilation=(1, 1, 1), groups=1, id="conv-transpose-3d"),
    rec("conv_transpose", [r(2, 4, 5, 3), r(4, 3, 3, 2)], lhs_shape=(9, 8), strides=(2, 3),
        padding=((1, 2), (0, 1)), rhs_dilation=(1, 1), groups=1, id="conv-transpose-strided"),
    rec("conv_transpose", [r(2, 6, 7, 5), r(6, 2, 3, 3)], lhs_shape=(9, 9), strides=(1, 2),
        padding=((1, 1), (2, 0)), rhs_dilation=(2, 1), groups=2, id="conv-transpose-grouped"),
    rec("conv_transpose", [r(2, 4, 6, 6, dtype=F64), r(4, 3, 3, 3, dtype=F64)], 1e-5, lhs_shape=(8, 8),
        strides=(1, 1), padding=((0, 0), (0, 0)), rhs_dilation=(1, 1), groups=1, id="conv-transpose-f64"),
    rec("conv", [r(2, 3, 6, 6, dtype=F64), r(4, 3, 3, 3, dtype=F64)], 1e-5, **conv_attrs(), id="conv-f64"),
    rec("linear", [r(3, 4), r(5, 4), r(5)], contract=((1,), (1,)), id="linear-gemm-bias"),
    rec("conv_bias", [r(2, 3, 9, 8), r(4, 3, 3, 2), r(1, 4, 1, 1)], **conv_attrs(strides=(2, 1)), id="conv-bias"),
    rec("reduce_window_max", [r(2, 3, 8, 8)], window=(1, 1, 2, 2), strides=(1, 1, 2, 2),
        padding=((0, 0),) * 4),
    rec("reduce_window_max", [r(2, 3, 7, 8)], window=(1, 1, 3, 3), strides=(1, 1, 2, 2),
        padding=((0, 0), (0, 0), (1, 1), (0, 1)), id="maxpool-padded"),
    rec("reduce_window_max", [r(6, 5)], window=(2, 1), strides=(1, 1), padding=((0, 0), (0, 0)),
        id="maxpool-axis0"),
    rec("reduce_window_max", [r(2, 8, 3)], window=(1, 3, 1), strides=(1, 2, 1), padding=((0, 0), (1, 0), (0, 0)),
        id="maxpool-middle-axis"),
    rec("reduce_window_max", [r(4, 6, dtype=I32)], window=(2, 2), strides=(2, 1), padding=((0, 0), (1, 1)),
        id="maxpool-int"),
    rec("reduce_window_max", [r(2, 3, 5, 6, 7)], window=(1, 1, 3, 3, 2), strides=(1, 1, 2, 1, 2),
        padding=((0, 0), (0, 0), (1, 1), (0, 1), (1, 0)), id="maxpool3d-padded"),
    rec("reduce_window_sum", [r(2, 3, 8, 8)], window=(1, 1, 2, 3), strides=(1, 1, 2, 1),
        padding=((0, 0), (0, 0), (1, 0), (1, 1))),
    rec("reduce_window_sum", [r(5, 6, dtype=I64)], window=(3, 1), strides=(2, 1), padding=((1, 1), (0, 0)),
        id="sumpool-int"),
    rec("reduce_window_max_grad", [np.round(r(2, 3, 6, 6) * 2) / 2, r(2, 3, 3, 3)], window=(1, 1, 2, 2),
        strides=(1, 1, 2, 2), padding=((0, 0),) * 4, id="maxgrad-ties"),
    rec("reduce_window_max_grad", [np.round(r(2, 3, 6, 4) * 2) / 2, r(2, 3, 2, 2)], window=(1, 1, 3, 2),
        strides=(1, 1, 3, 2), padding=((0, 0),) * 4, id="maxgrad-ties-3x2"),
    rec("reduce_window_max_grad", [np.round(r(2, 6, 5)), r(2, 3, 5)], window=(1, 2, 1), strides=(1, 2, 1),
        padding=((0, 0),) * 3, id="maxgrad-ties-middle-axis"),
    rec("reduce_window_max_grad", [r(2, 7, 5), r(2, 4, 5)], window=(1, 3, 1), strides=(1, 2, 1),
        padding=((0, 0), (1, 1), (0, 0)), id="maxgrad-overlap-padded"),
    rec("random_split", [KEY]),
    rec("random_fold_in", [KEY, np.asarray(12345, I32)]),
    rec("random_fold_in", [KEY, np.asarray(-3, I64)], id="fold-negative"),
    rec("random_uniform", [KEY], shape=(3, 7), dtype=mstype.float32),
    rec("random_uniform", [KEY], shape=(5,), dtype=mstype.float64, id="uniform-f64"),
    rec("random_normal", [KEY], 2e-5, shape=(4, 250), dtype=mstype.float32),
    rec("random_normal", [np.array([3, 9], np.uint32)], 1e-13, shape=(64,), dtype=mstype.float64, id="normal-f64"),
    rec("random_gamma_draw", [KEY, pos(3)], shape=(2, 3), dtype=mstype.float32),   # more: test_onnx_random_draws.py
    rec("random_poisson_draw", [KEY, pos(3) * 9], shape=(4, 3), dtype=mstype.float32),
    # scans and sorts (ops/sorting.py); tests/test_ops_sorting.py has the functional forms
    rec("cumsum", [r(2, 3, 4)], axis=1, reverse=False),
    rec("cumsum", [r(3, 5, dtype=I64)], axis=1, reverse=True, id="cumsum-i64-reverse"),
    rec("cumsum", [np.array([100, 100, -128, 7], np.int8)], axis=0, reverse=False, id="cumsum-i8-wraps"),
    rec("cumsum", [r(4, 3, dtype=np.float16)], 2e-3, axis=0, reverse=False, id="cumsum-f16"),
    rec("cumprod", [np.array([[1.5, -2.0, 0.0, 3.0, -1.0], [0.5, 0.0, 0.0, -2.0, 4.0]], F32)], axis=1, reverse=False,
        id="cumprod-zeros-negatives"),
    rec("cumprod", [r(3, 4, 2)], axis=1, reverse=True, id="cumprod-reverse-middle"),
    rec("cumprod", [r(2, 6, dtype=I32)], axis=1, reverse=False, id="cumprod-i32"),
    rec("cumprod", [np.array([7, 9, 11, 13, 15], np.int16)], axis=0, reverse=False, id="cumprod-i16-wraps"),
    rec("sort", [np.array([[3.0, 1.0, np.nan, 1.0, -0.0, 0.0, -np.inf], [2.0, 2.0, 1.0, np.inf, 0.0, -1.0, 2.0]], F32)],
        axis=1, descending=False, index_dtype=mstype.int32, id="sort-ties-nan"),
    rec("sort", [np.array([[3.0, 1.0, np.nan, 1.0, -0.0, 0.0, -np.inf], [2.0, 2.0, 1.0, np.inf, 0.0, -1.0, 2.0]], F32)],
        axis=1, descending=True, index_dtype=mstype.int64, id="sort-descending-ties-nan"),
    rec("sort", [r(5, 3, dtype=I32)], axis=0, descending=True, index_dtype=mstype.int32, id="sort-i32-axis0"),
    rec("sort", [r(4, 5, dtype=np.float16)], axis=1, descending=False, index_dtype=mstype.int32, id="sort-f16"),
    rec("sort", [r(9, dtype=np.bool_)], axis=0, descending=True, index_dtype=mstype.int32, id="sort-bool"),
    rec("sort", [r(2, 6, dtype=np.uint16)], axis=1, descending=False, index_dtype=mstype.int32, id="sort-u16"),
    rec("top_k", [np.round(r(3, 7))], k=3, axis=1, largest=True, index_dtype=mstype.int32, id="top_k-ties"),
    # uint64 orderings run on int64 with the top bit flipped (compiler/onnx_widen.py); numpy is the reference
    *[rec(n, [U64_ORDER], ref=ref, id=f"{n}-u64", **a) for n, a, ref in [
        ("sort", dict(axis=1, descending=False, index_dtype=mstype.int32),
         lambda x: (np.sort(x, 1), np.argsort(x, 1, kind="stable").astype(I32))),
        ("sort", dict(axis=0, descending=True, index_dtype=mstype.int64),
         lambda x: _descending_stable(x, 0)),
        ("top_k", dict(k=3, axis=1, largest=True, index_dtype=mstype.int32), None),
        ("argmax", dict(axis=1, index_dtype=mstype.int32), lambda x: np.argmax(x, 1).astype(I32)),
        ("argmin", dict(axis=0, index_dtype=mstype.int64), lambda x: np.argmin(x, 0)),
        ("reduce_max", dict(axes=(1,)), lambda x: x.max(1)), ("reduce_min", dict(axes=(0, 1)), lambda x: x.min())]],
    rec("top_k", [np.round(r(6, 2))], k=4, axis=0, largest=False, index_dtype=mstype.int32, id="top_k-smallest"),
    rec("top_k", [np.array([1.0, np.nan, 5.0, np.nan, -2.0], F32)], k=2, axis=0, largest=False,
        index_dtype=mstype.int64, id="top_k-smallest-nan"),
    # matrices: Det, and the unrolled Gauss-Jordan, Cholesky and substitution (compiler/onnx_linalg.py)
    rec("det", [r(2, 3, 3) + 3 * np.eye(3, dtype=F32)], 1e-4),
    rec("det", [r(2, 4, 4, dtype=F64) + 3 * np.eye(4)], 1e-10, id="det-f64"),
    rec("slogdet", [r(2, 4, 4) + 3 * np.eye(4, dtype=F32)], 1e-5),
    rec("matrix_inverse", [r(3, 4, 4) + 3 * np.eye(4, dtype=F32)], 1e-5),
    rec("cholesky", [np.eye(4, dtype=F32) * 4 + np.full((4, 4), 0.5, F32)], 1e-5),
    rec("triangular_solve", [r(2, 3, 3) + 3 * np.eye(3, dtype=F32), r(2, 3, 2)], 1e-5, lower=False,
        transpose_a=True, unit_diagonal=False),
    rec("triangular_solve", [r(3, 3, dtype=F64) + 3 * np.eye(3), r(3, 1, dtype=F64)], 1e-12, lower=True,
        transpose_a=False, unit_diagonal=True, id="triangular_solve-unit"),
    # Householder reflections and jax's expm, unrolled (onnx_householder.py, onnx_expm.py; more cases in
    # tests/test_onnx_linalg_qr_expm.py)
    rec("qr", [r(2, 4, 3)], 1e-5, full_matrices=False),
    rec("qr", [r(3, 5, dtype=F64)], 1e-12, full_matrices=True, id="qr-f64-wide-complete"),
    rec("matrix_exp", [r(3, 3)], 1e-5),
    # svd: one-sided Jacobi (compiler/onnx_svd.py), the vectors' signs fixed on both sides; one extra
    # column of full_matrices is unique too (tests/test_onnx_svd.py compares the others as spaces)
    rec("svd", [r(2, 4, 3)], 1e-5, full_matrices=False, compute_uv=True),
    rec("svd", [r(3, 4, dtype=F64)], 1e-12, full_matrices=True, compute_uv=True, id="svd-f64-wide-full"),
    rec("svd", [r(2, 3, 5)], 1e-5, full_matrices=False, compute_uv=False, id="svd-values"),
    rec("geqrf", [r(2, 3, 4, dtype=F64)], 1e-12),
    # eig: the shifted QR algorithm (compiler/onnx_eig.py); a complex input's vectors are LAPACK's (more
    # families, and a real input's vectors up to sign, in tests/test_onnx_eig.py)
    rec("eig", [r(2, 3, 3, dtype=F64)], 1e-10, compute_v=False),
    rec("eig", [c(2, 3, 3, dtype=C128)], 1e-10, compute_v=True, id="eig-c128-vectors"),
    # eigh: eig's QR algorithm on the symmetrized (Hermitian) operand (compiler/onnx_eigh.py), each vector's
    # sign (phase) fixed by svd's rule on both backends (more families in tests/test_onnx_eigh.py)
    # matrix_logarithm: square roots of eig's Schur form in a Loop, then a series (compiler/onnx_logm.py)
    rec("matrix_logarithm", [c(2, 3, 3, dtype=C128) + 3 * np.eye(3)], 1e-12),
    rec("matrix_logarithm", [c(2, 2)], 1e-5, id="matrix_logarithm-c64"),
    rec("eigh", [r(2, 3, 3)], 1e-5),
    rec("eigh", [r(4, 4, dtype=F64)], 1e-12, id="eigh-f64"),
    rec("eigh", [c(2, 4, 4, dtype=C128)], 1e-12, id="eigh-c128"),
    rec("eigh", [c(3, 3)], 1e-5, id="eigh-c64"),
    rec("householder_product", [r(2, 4, 3), r(2, 2)], 1e-5),
    # complex values: real pairs inside the model (compiler/onnx_complex.py; programs in
    # tests/test_onnx_complex.py). A complex operand comes from two real inputs, a result leaves as two.
    rec("complex", [r(2, 3), r(3)]),
    rec("real", [c(2, 3)]), rec("imag", [c(4, dtype=C128)], id="imag-c128"), rec("conj", [c(2, 3)]),
    *[rec(n, [c(2, 3), c(3)], id=f"{n}-c64") for n in ["add", "mul", "div", "eq"]],
    *[rec(n, [c(2, 3, dtype=C128)], 1e-12, id=f"{n}-c128") for n in ["neg", "abs", "exp"]],
    # a complex sum is ReduceSum over the pairs (it took the exact integer sum's MatMul by ones, complex ones)
    rec("reduce_sum", [c(3, 4, 2)], 1e-5, axes=(0, 2), id="reduce_sum-c64"),
    rec("reduce_sum", [c(3, 4, dtype=C128)], 1e-12, axes=(0,), id="reduce_sum-c128-leading"),
    rec("dot_general", [c(4, 3, 6), c(4, 6, 5)], 1e-5, contract=((2,), (1,)), batch=((0,), (0,)), id="dot-c64-batched"),
    rec("dot_general", [c(3, 4, dtype=C128), c(5, 4, dtype=C128)], 1e-12, contract=((1,), (1,)), batch=((), ()),
        id="dot-c128"),
    rec("transpose", [c(2, 3)], perm=(1, 0), id="transpose-c64"),
    rec("fft", [c(2, 6)], fft_type="fft", lengths=(6,)),
    rec("fft", [c(2, 4, 3, dtype=C128)], 1e-12, fft_type="ifft", lengths=(4, 3), id="fft-ifft2-c128"),
    rec("fft", [r(3, 10)], fft_type="rfft", lengths=(10,), id="fft-rfft"),
    rec("fft", [r(128, 2)], 1e-4, fft_type="rfft", lengths=(128, 2), id="fft-rfft2-dft"),   # onnxruntime's DFT
    rec("fft", [c(2, 65)], fft_type="irfft", lengths=(128,), id="fft-irfft-dft"),
    rec("fft", [c(3, 2, 4, dtype=C128)], 1e-12, fft_type="irfft", lengths=(3, 2, 7), id="fft-irfft3-c128"),
]


def as_real(arrays):
    """ONNX models take and give real tensors only: a complex array is its real and imaginary parts."""
    return [p for a in arrays for p in ((a.real, a.imag) if np.iscomplexobj(a) else (a,))]


def single_node_graph(name, arrays, attrs):
    """The primitive alone; a complex operand is made from two real inputs by `complex`, and a
    complex result is returned as its `real` and `imag`."""
    b = GraphBuilder(name)
    ins = [b.add_input(TensorType(a.shape, to_dtype(a.dtype)), f"in{i}") for i, a in enumerate(as_real(arrays))]
    operands = []
    for a in arrays:
        parts, ins = ins[:1 + np.iscomplexobj(a)], ins[1 + np.iscomplexobj(a):]
        operands += b.add_node(PRIMITIVES["complex"], tuple(parts), {}) if len(parts) == 2 else parts
    outs = b.add_node(PRIMITIVES[name], tuple(operands), canonical_attrs(attrs))
    return b.build([p for v in outs for p in ([b.add_node(PRIMITIVES[part], (v,), {})[0] for part in ("real", "imag")]
                                              if v.dtype.is_complex else [v])])


def run_onnx(model, arrays):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {f"in{i}": a for i, a in enumerate(as_real(arrays))})


@pytest.mark.parametrize("name, arrays, attrs, tol", RECORDS)
def test_onnx_rule_matches_jax(name, arrays, attrs, tol):
    tol, ref = tol
    graph = single_node_graph(name, arrays, attrs)
    model = lower(graph).model
    onnx.checker.check_model(model, full_check=True)
    got = run_onnx(model, arrays)
    prim = PRIMITIVES[name]
    want = (ref or (lambda *a: prim.impl(*a, **canonical_attrs(attrs))))(*arrays)
    want = as_real(list(want) if prim.multiple_results else [want])
    assert len(got) == len(want)
    for g, w, v in zip(got, want, graph.outputs):
        w = np.asarray(w)
        assert g.shape == w.shape == tuple(v.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        if w.dtype.kind in "fc":
            t = tol or 1e-5
            np.testing.assert_allclose(g, w, rtol=t, atol=t)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name, arrays, attrs, tol", RECORDS[::3])
def test_shape_inference_agrees_with_the_ir(name, arrays, attrs, tol):
    graph = single_node_graph(name, arrays, attrs)
    model = lower(graph, value_info=False).model
    inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    outs = {o.name: o for o in inferred.graph.output}
    for v, o in zip(graph.outputs, model.graph.output):
        t = outs[o.name].type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        assert dims == list(v.shape)


def test_every_primitive_has_a_record():
    covered = {p.values[0] for p in RECORDS} | set(CONTROL_FLOW)
    # lowering-only primitives belong to the XLA pipeline's last pass, never to an ONNX graph;
    # backward_hook and host_call run Python on the host and have no ONNX form
    # (tests/test_backward_hooks.py and tests/test_custom_ops.py check the error)
    assert sorted(name for name, p in every_primitive().items()
                  if name not in covered and not p.lowering_only) == ["backward_hook", "host_call"]


@pytest.mark.parametrize("opset", [17, 18, 21])
def test_opsets(opset):
    # The rules that change with the opset (Reduce* axes) and a plain op, at several opsets.
    for name, arrays, attrs in [("reduce_max", [r(2, 3)], {"axes": (1,)}), ("add", [r(3), r(3)], {}),
                                ("reduce_window_max", [r(1, 1, 4, 4)], dict(window=(1, 1, 2, 2),
                                 strides=(1, 1, 2, 2), padding=((0, 0),) * 4))]:
        model = lower(single_node_graph(name, arrays, attrs), opset=opset).model
        onnx.checker.check_model(model, full_check=True)
        assert model.opset_import[0].version == opset
        want = PRIMITIVES[name].impl(*arrays, **canonical_attrs(attrs))
        np.testing.assert_allclose(run_onnx(model, arrays)[0], want, rtol=1e-6)


def test_opset_out_of_range_is_an_error():
    with pytest.raises(ValueError, match="opset must be in"):
        lower(single_node_graph("add", [r(3), r(3)], {}), opset=12)


# -- control flow: subgraphs in attrs, so the records are whole traced functions ----------------

def _cond_fn(x, y):
    from graphcell import ops
    return ops.cond(ops.reduce_sum(x) > 0, lambda a, b: a * b + 1.0, lambda a, b: (a - b) * 2.0, x, y)


def _while_fn(x):
    from graphcell import ops
    x, i = ops.while_loop(lambda v: ops.logical_and(v[1] < 20, ops.reduce_sum(v[0]) < 100.0),
                          lambda v: (v[0] * 1.5 + 0.25, v[1] + 1), (x, graphcell.Tensor(np.int32(0))))
    return x, i


def _fori_fn(x, w):
    from graphcell import ops
    return ops.fori_loop(0, 4, lambda i, v: ops.tanh(ops.matmul(v, w)) + ops.cast(i, v.dtype), x)


def _scan_fn(x, w):
    from graphcell import ops
    return ops.scan(lambda c, t: (ops.tanh(ops.matmul(c, w) + t), c * 2.0), x[0], x, reverse=True)


CONTROL_FLOW = {
    "cond": [(_cond_fn, [r(2, 3), r(2, 3)]), (_cond_fn, [-np.abs(r(2, 3)), r(2, 3)])],
    "while_loop": [(_while_fn, [pos(4)]), (_fori_fn, [r(3, 4), r(4, 4)])],
    "scan": [(_scan_fn, [r(5, 2, 3), r(3, 3)])],   # (its other rules: tests/test_rnn.py)
}


@pytest.mark.parametrize("name, case", [(k, i) for k, v in CONTROL_FLOW.items() for i in range(len(v))])
def test_control_flow_lowers_to_if_loop_and_scan(name, case):
    from graphcell.compiler.export import to_onnx
    fn, arrays = CONTROL_FLOW[name][case]
    tensors = [graphcell.Tensor(a) for a in arrays]
    result = to_onnx(fn, *tensors, dynamic_axes=False)
    assert any(n.primitive.name == name for n in result.traced.graph.nodes)
    onnx.checker.check_model(result.model, full_check=True)
    assert {"cond": "If", "while_loop": "Loop", "scan": "Scan"}[name] in {n.op_type for n in result.model.graph.node}
    sess = ort.InferenceSession(result.model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(None, {i.name: a for i, a in zip(sess.get_inputs(), arrays)})
    want = fn(*tensors)
    want = [w.asnumpy() for w in (want if isinstance(want, tuple) else (want,))]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
