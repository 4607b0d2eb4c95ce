"""MindSpore's operator classes (graphcell/ops/operations.py, higher_order.py): `P.ReduceSum(keep_dims=True)`
created in __init__ and called in construct, C.GradOperation, C.HyperMap.

References: numpy (and jax.vmap / jax.grad) for values; MindSpore 2.10 (CPU, PyNative) for what
numpy cannot say: output structures and dtypes, reprs, constructor errors, and a few numbers
(GeLU's tanh form, LayerNorm's variance output, ReduceMean's integer truncation), measured there
and written out below.
"""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, ParameterTuple, Tensor, nn, ops
from graphcell.ops import composite as C
from graphcell.ops import operations as P

RNG = np.random.default_rng(7)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


X34, Y34, X234 = rand(3, 4), rand(3, 4), rand(2, 3, 4)
POS34 = np.abs(rand(3, 4)) + 0.1
I34 = RNG.integers(-5, 6, (3, 4)).astype(np.int32)
J34 = RNG.integers(1, 6, (3, 4)).astype(np.int32)
B34, C34 = RNG.random((3, 4)) > 0.5, RNG.random((3, 4)) > 0.5
X4D, W4D = rand(2, 3, 5, 5), rand(4, 3, 3, 3)


def np_out(out):
    if isinstance(out, (tuple, list)):
        return tuple(np_out(o) for o in out)
    return out.asnumpy() if isinstance(out, Tensor) else out


def run(op, *args):
    """op over Tensors of the numpy arrays among `args` (other arguments as they are)."""
    return np_out(op(*[Tensor(a) if isinstance(a, np.ndarray) else a for a in args]))


def sig(out) -> str:
    """An output's structure as MindSpore prints it: `(Int64[3], Float32[3])`."""
    if isinstance(out, Tensor):
        return f"{out.dtype}{list(out.shape)}"
    if isinstance(out, tuple):
        return "(" + ", ".join(sig(o) for o in out) + ")"
    return str(out)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def log_softmax(x, axis=-1):
    s = x - x.max(axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis, keepdims=True))


# -- values against numpy -------------------------------------------------------------------------

UNARY = [
    (P.Abs, np.abs), (P.Neg, np.negative), (P.Exp, np.exp), (P.Expm1, np.expm1), (P.Log1p, np.log1p),
    (P.Sin, np.sin), (P.Cos, np.cos), (P.Tanh, np.tanh), (P.Sigmoid, sigmoid), (P.Square, np.square),
    (P.Reciprocal, lambda x: 1 / x), (P.Inv, lambda x: 1 / x), (P.Sign, np.sign), (P.Floor, np.floor),
    (P.Ceil, np.ceil), (P.Round, np.round), (P.ReLU, lambda x: np.maximum(x, 0)),
    (P.ReLU6, lambda x: np.clip(x, 0, 6)), (P.GeLU, gelu_tanh), (P.FastGeLU, lambda x: x * sigmoid(1.702 * x)),
    (P.HSwish, lambda x: x * np.clip(x + 3, 0, 6) / 6), (P.HSigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    (P.Softplus, lambda x: np.log1p(np.exp(x))), (P.Softsign, lambda x: x / (1 + np.abs(x))),
    (P.Mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    (P.SeLU, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))),
    (P.Elu, lambda x: np.where(x > 0, x, np.expm1(x))), (P.Softmax, lambda x: np.exp(log_softmax(x))),
    (P.LogSoftmax, log_softmax), (P.OnesLike, np.ones_like), (P.ZerosLike, np.zeros_like),
    (P.Identity, lambda x: x), (P.StopGradient, lambda x: x), (P.L2Loss, lambda x: (x * x).sum() / 2),
    (P.Flatten, lambda x: x.reshape(x.shape[0], -1)), (P.IsFinite, np.isfinite), (P.IsNan, np.isnan),
    (P.IsInf, np.isinf), (P.Erf, lambda x: np.vectorize(math.erf)(x).astype(np.float32)),
]
POSITIVE = [(P.Log, np.log), (P.Sqrt, np.sqrt), (P.Rsqrt, lambda x: 1 / np.sqrt(x)),
            # the classes over ops/math_ops.py
            (P.Sinh, np.sinh), (P.Cosh, np.cosh), (P.Tan, np.tan), (P.Atan, np.arctan), (P.Asinh, np.arcsinh),
            (P.Sinc, np.sinc), (P.Erfc, lambda x: 1 - np.vectorize(math.erf)(x))]

BINARY = [
    (P.Add, np.add), (P.Sub, np.subtract), (P.Mul, np.multiply), (P.Div, np.divide), (P.RealDiv, np.divide),
    (P.Maximum, np.maximum), (P.Minimum, np.minimum), (P.Equal, np.equal), (P.NotEqual, np.not_equal),
    (P.Greater, np.greater), (P.GreaterEqual, np.greater_equal), (P.Less, np.less),
    (P.LessEqual, np.less_equal), (P.SquaredDifference, lambda x, y: (x - y) ** 2), (P.FloorDiv, np.floor_divide),
    (P.FloorMod, np.mod), (P.Mod, np.fmod), (P.Pow, lambda x, y: np.abs(x) ** y),
]


def check_rows(rows):
    """rows of (op, args, numpy's result): the first row of each class eagerly, and every row
    in one function run by onnxruntime (one session: each class's other configurations there,
    where a compile per configuration would be XLA's)."""
    seen = set()
    for op, args, want in rows:
        if type(op) not in seen:
            seen.add(type(op))
            compare(run(op, *args), want, repr(op))
    for (op, _, want), got in zip(rows, run_many([(op, args) for op, args, _ in rows], "onnx")):
        compare(got, want, f"{op!r} in onnxruntime")


def compare(got, want, what):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for g, w in zip(got, want):
            compare(g, w, what)
        return
    want = np.asarray(want)
    assert np.shape(got) == want.shape, f"{what}: shape {np.shape(got)}, want {want.shape}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf, -2.0, 0.0], np.float32)
ELEMENTWISE = (
    [(cls(), [X34], ref(X34)) for cls, ref in UNARY]
    + [(cls(), [SPECIAL], ref(SPECIAL)) for cls, ref in ((P.IsFinite, np.isfinite), (P.IsNan, np.isnan),
                                                          (P.IsInf, np.isinf))]
    + [(cls(), [POS34], ref(POS34)) for cls, ref in POSITIVE]
    + [(cls(), [np.abs(X34) if cls is P.Pow else X34, Y34], ref(np.abs(X34) if cls is P.Pow else X34, Y34))
       for cls, ref in BINARY]
    + [(cls(), [B34, C34], ref(B34, C34))
       for cls, ref in ((P.LogicalAnd, np.logical_and), (P.LogicalOr, np.logical_or), (P.LogicalXor, np.logical_xor))]
    + [(cls(), [I34, J34], ref(I34, J34))
       for cls, ref in ((P.BitwiseAnd, np.bitwise_and), (P.BitwiseOr, np.bitwise_or), (P.BitwiseXor, np.bitwise_xor))]
    + [(P.LogicalNot(), [B34], ~B34), (P.Invert(), [I34], ~I34),
       (P.Xlogy(), [X34, POS34], X34 * np.log(POS34)),
       (P.Xlogy(), [np.zeros(3, np.float32), np.array([0, 1, 2], np.float32)], [0, 0, 0]),   # as ops.xlogy
       (P.Atan2(), [X34, Y34], np.arctan2(X34, Y34)), (P.Hypot(), [X34, Y34], np.hypot(X34, Y34)),
       (P.Asin(), [POS34 / 4], np.arcsin(POS34 / 4)), (P.ACos(), [POS34 / 4], np.arccos(POS34 / 4)),
       (P.Atanh(), [POS34 / 4], np.arctanh(POS34 / 4)), (P.Acosh(), [POS34 + 1], np.arccosh(POS34 + 1)),
       (P.AddN(), [(X34, Y34, X34)], 2 * X34 + Y34),
       (P.Lerp(), [X34, Y34, 0.3], X34 + np.float32(0.3) * (Y34 - X34)),
       (P.Addcmul(), [X34, Y34, X34, np.float32(0.5)], X34 + 0.5 * Y34 * X34),
       (P.Addcdiv(), [X34, Y34, POS34, np.float32(0.5)], X34 + 0.5 * Y34 / POS34),
       (P.IsClose(rtol=0.1, atol=0.5), [X34, Y34], np.isclose(X34, Y34, rtol=0.1, atol=0.5)),
       (P.IsClose(equal_nan=True), [SPECIAL, SPECIAL], [True] * 6),
       (P.Maximum(), [I34, J34], np.maximum(I34, J34)), (P.FloorMod(), [I34, J34], np.mod(I34, J34))]
)


def test_elementwise_classes_match_numpy():
    check_rows(ELEMENTWISE)


def run_many(cases, backend=None):
    """Each (op, args) of `cases` over its numpy arrays, all in one function compiled once by
    `jit` (`backend="onnx"`: run by onnxruntime); their outputs as numpy arrays."""
    arrays = [a for _, args in cases for a in args if isinstance(a, np.ndarray)]

    def fn(*tensors):
        inputs = iter(tensors)
        return tuple(op(*[next(inputs) if isinstance(a, np.ndarray) else a for a in args]) for op, args in cases)
    return np_out(ms.jit(fn, backend=backend)(*[Tensor(a) for a in arrays]))


f32, i32 = np.float32, np.int32
SEVEN, TWO = np.array([7, -7, 7, -7], i32), np.array([2, 2, -2, -2], i32)
LOGITS = np.array([[1., 2., 3.], [1., 1., 1.]], f32)
RAMP = np.arange(9, dtype=f32).reshape(1, 1, 3, 3)
VEC = np.array([1., 2., 3., 4.], f32)
MEASURED_NUMBERS = [   # (op, arguments, MindSpore 2.10's output): where its classes differ from numpy's ways
    (P.GeLU(), [np.array([1.0, -0.5, 2.0], f32)], [0.841192, -0.154286, 1.9545977]),   # tanh form, not erf
    (P.RealDiv(), [SEVEN, TWO], [3, -3, -3, 3]),                # integers stay integers, truncated
    (P.FloorDiv(), [SEVEN, TWO], [3, -4, -4, 3]),
    (P.FloorMod(), [SEVEN.astype(f32), TWO.astype(f32)], [1, 1, -1, -1]),   # the divisor's sign
    (P.Mod(), [SEVEN.astype(f32), TWO.astype(f32)], [1, -1, 1, -1]),        # the dividend's
    (P.ReduceMean(), [np.array([[0, 1, -5, 0], [-3, -2, -3, -1]], i32), 1], [-1, -2]),   # truncated means
    (P.Round(), [np.array([0.5, 1.5, 2.5, -0.5, -2.5], f32)], [0, 2, 2, 0, -2]),          # half to even
    (P.DivNoNan(), [np.array([1., 2.], f32), np.array([0., 4.], f32)], [0.0, 0.5]),
    (P.SquaredDifference(), [np.array([1, 5], i32), np.array([3, 2], i32)], [4, 9]),
    (P.Gather(), [np.array([10., 20., 30.], f32), np.array([-1, 0], i32), 0], [30, 10]),   # from the end
    (P.LayerNorm(), [np.array([[1., 2., 3., 6.]], f32), np.ones(4, f32), np.zeros(4, f32)],
     ([[-1.0690449, -0.5345225, 0.0, 1.6035674]], [[3.0]], [[3.5]])),   # the variance, not 1/sqrt(var + eps)
    (P.L2Normalize(axis=1, epsilon=10.0), [np.array([[1., 2.], [3., 4.]], f32)], [[0.3162278, 0.6324555], [0.6, 0.8]]),
    (P.SparseSoftmaxCrossEntropyWithLogits(), [LOGITS, np.array([2, 0], i32)], 0.7531089),
    (P.SparseSoftmaxCrossEntropyWithLogits(is_grad=True), [LOGITS, np.array([2, 0], i32)],
     [[0.0450153, 0.1223641, -0.1673793], [-0.3333333, 0.1666667, 0.1666667]]),
    (P.SoftmaxCrossEntropyWithLogits(), [LOGITS, np.array([[0., 0., 1.], [.5, .5, 0.]], f32)],
     ([0.4076059, 1.0986123], [[0.0900306, 0.2447285, -0.3347591], [-0.1666667, -0.1666667, 0.3333333]])),
    (P.AvgPool(2, 2, "same"), [RAMP], [[[[2.0, 3.5], [6.5, 8.0]]]]),      # real elements only
    (P.MaxPool(2, 2, "same"), [-RAMP], [[[[0.0, -2.0], [-6.0, -8.0]]]]),   # padding never wins
    (P.Conv2D(1, 2, pad_mode="pad", pad=(1, 0, 0, 1)), [RAMP, np.ones((1, 1, 2, 2), f32)],
     [[[[1.0, 3.0, 2.0], [8.0, 12.0, 7.0], [20.0, 24.0, 13.0]]]]),      # (top, bottom, left, right)
    (P.Conv2D(1, 2, pad_mode="same", stride=2), [RAMP, np.ones((1, 1, 2, 2), f32)], [[[[8.0, 7.0], [13.0, 8.0]]]]),
    (P.OneHot(), [np.array([0, 2, -1, 3], i32), 3, f32(5), f32(-1)],
     [[5, -1, -1], [-1, -1, 5], [-1, -1, -1], [-1, -1, -1]]),
    (P.ArgMaxWithValue(axis=1), [np.array([[1., 3., 3.], [2., 0., 2.]], f32)], ([1, 0], [3, 2])),   # first maximum
    (P.CumSum(exclusive=True), [VEC, 0], [0, 1, 3, 6]),
    (P.CumSum(reverse=True), [VEC, 0], [10, 9, 7, 4]),
    (P.CumSum(exclusive=True, reverse=True), [VEC, 0], [9, 7, 4, 0]),
    (P.CumProd(exclusive=True, reverse=True), [VEC, 0], [24, 12, 4, 1]),
    (P.UnsortedSegmentSum(), [VEC, np.array([0, 2, 0, 1], i32), 3], [4, 4, 2]),
    (P.PReLU(), [np.array([[-1., 2.], [3., -4.]], f32), np.array([0.1, 0.5], f32)], [[-0.1, 2.0], [3.0, -2.0]]),
    (P.SeLU(), [np.array([-1.0, 1.0], f32)], [-1.1113307, 1.050701]),
    (P.FastGeLU(), [np.array([-1., 1.], f32)], [-0.1542042, 0.8457958]),
    (P.Lgamma(), [np.array([1.5, 2.5], f32)], [-0.12078223, 0.28468287]),
    (P.Digamma(), [np.array([1.5, 2.5], f32)], [0.03648992, 0.70315677]),
    (P.Polygamma(), [Tensor(np.int32(1)), np.array([1.5, 2.5], f32)], [0.93480223, 0.49035773]),   # a constant n
    (P.TensorScatterMax(), [np.array([1., 2.], f32), np.array([[0]], i32), np.array([5.], f32)], [5.0, 2.0]),
    (P.GatherNd(), [np.array([[1., 2.], [3., 4.]], f32), np.array([[1, 0]], i32)], [3.0]),
]


def test_mindspore_measured_numbers():
    """All in one function run by onnxruntime (a compile per op would be XLA's); the eager path
    runs the same code, checked against numpy above and on MindSpore's integer rules here."""
    outs = run_many([(op, args) for op, args, _ in MEASURED_NUMBERS], "onnx")
    for (op, _, want), got in zip(MEASURED_NUMBERS, outs):
        for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, err_msg=repr(op))
    assert run(P.RealDiv(), SEVEN, TWO).tolist() == [3, -3, -3, 3]
    assert run(P.ReduceMean(), np.array([[0, 1, -5, 0], [-3, -2, -3, -1]], i32), 1).tolist() == [-1, -2]
    values, idx = run(P.Unique(), np.array([3, 1, 3, 2, 1], i32))     # eager only: first occurrence order
    assert values.tolist() == [3, 1, 2] and idx.tolist() == [0, 1, 0, 2, 1]


def _reduction_rows():
    rows = []
    for cls, ref in ((P.ReduceSum, np.sum), (P.ReduceMean, np.mean), (P.ReduceMax, np.max), (P.ReduceMin, np.min),
                     (P.ReduceProd, np.prod)):
        rows.append((cls(), [X234], ref(X234)))          # the default axis () reduces every axis
        for axis in (1, -1, (0, 2), [0, 1]):
            np_axis = tuple(axis) if isinstance(axis, list) else axis
            for keep in (False, True):
                rows.append((cls(keep_dims=keep), [X234, axis], ref(X234, np_axis, keepdims=keep)))
    rows += [
        (P.ReduceSum(), [I34, 1], I34.sum(1, dtype=np.int32)),
        (P.ReduceSum(), [B34, 1], B34.any(1)),                  # a bool sum stays bool (measured)
        (P.ReduceProd(), [B34, 1], B34.all(1)),
        (P.ReduceAll(keep_dims=True), [B34, (0,)], B34.all(0, keepdims=True)),
        (P.ReduceAny(), [B34, 1], B34.any(1)), (P.ReduceAll(), [X34 > 0], (X34 > 0).all()),
    ]
    for cls, ref, pick in ((P.Argmax, np.argmax, None), (P.Argmin, np.argmin, None),
                           (P.ArgMaxWithValue, np.argmax, np.max), (P.ArgMinWithValue, np.argmin, np.min)):
        if pick is None:
            rows.append((cls(), [X234], ref(X234, -1).astype(np.int32)))
            rows.append((cls(axis=0, output_type=ms.int64), [X234], ref(X234, 0)))
        else:
            rows.append((cls(axis=-1, keep_dims=True), [X234],
                         (ref(X234, -1)[..., None], pick(X234, -1, keepdims=True))))
            rows.append((cls(axis=1), [I34], (ref(I34, 1), pick(I34, 1))))
    return rows


def test_reductions_and_arg_reductions_match_numpy():
    check_rows(_reduction_rows())
    assert run(P.ReduceSum(skip_mode=True), X234, ()).shape == X234.shape   # MindSpore's documented skip
    assert run(P.ReduceSum(), X234, Tensor(np.array([0, 2]))).shape == (3,)   # a constant Tensor of axes


def _strided(masks, begin, end, strides, index):
    return (P.StridedSlice(**masks), [X234, begin, end, strides], X234[index])


NUMPY_INDEXING = [   # TensorFlow's StridedSlice rules, as numpy indexing
    _strided({}, (0, 0, 0), (2, 3, 4), (1, 2, 2), np.s_[0:2, 0:3:2, 0:4:2]),
    _strided({}, (1, -1, 3), (0, 0, 0), (-1, -1, -1), np.s_[1:0:-1, -1:0:-1, 3:0:-1]),
    _strided(dict(begin_mask=1, end_mask=4, shrink_axis_mask=2), (1, 1, 1), (2, 2, 2), (1, 1, 1), np.s_[:2, 1, 1:]),
    _strided(dict(new_axis_mask=2), (0, 0, 0), (1, 1, 2), (1, 1, 1), np.s_[0:1, None, 0:2]),
    _strided(dict(ellipsis_mask=1), (0, 1), (1, 3), (1, 1), np.s_[..., 1:3]),
    _strided(dict(ellipsis_mask=2), (1, 0, 1), (2, 1, 3), (1, 1, 1), np.s_[1:2, ..., 1:3]),
    _strided(dict(shrink_axis_mask=1), (-1, 0, 0), (0, 3, 4), (1, 1, 1), np.s_[-1, 0:3, 0:4]),
    _strided({}, (0, 0, -10), (5, 3, 10), (1, 1, 1), np.s_[0:5, 0:3, -10:10]),
]
GATHER_IDX, ND_IDX, D_IDX = np.array([[0, 2], [1, -1]], np.int32), np.array([[0, 1], [1, 2]], np.int32), \
    np.array([[0, 1], [2, 3]], np.int32)
X4 = rand(2, 3, 4, 5)
B_IDX = np.array([[1, 0, 2], [0, 0, 1]], np.int32)
ARANGE3, ARANGE2 = np.arange(3, dtype=np.float32), np.arange(2, dtype=np.float32)
Z1312 = np.zeros((1, 3, 1, 2), np.float32)
SHAPES = NUMPY_INDEXING + [
    (P.Reshape(), [X234, (4, -1)], X234.reshape(4, -1)),
    (P.Transpose(), [X234, (2, 0, 1)], X234.transpose(2, 0, 1)),
    (P.ExpandDims(), [X34, -1], X34[..., None]),
    (P.Squeeze(), [Z1312], Z1312.reshape(3, 2)), (P.Squeeze(axis=(0, -2)), [Z1312], Z1312.reshape(3, 2)),
    (P.Squeeze(axis=1), [Z1312], Z1312),            # a named axis that is not 1 stays (measured)
    (P.Concat(axis=1), [(X34, Y34)], np.concatenate([X34, Y34], 1)),
    (P.Stack(axis=1), [[X34, Y34]], np.stack([X34, Y34], 1)),
    (P.Unstack(axis=1), [X34], tuple(np.moveaxis(X34, 1, 0))),
    (P.Split(axis=1, output_num=2), [X34], tuple(np.split(X34, 2, 1))),
    (P.Tile(), [X34, (2, 1, 3)], np.tile(X34, (2, 1, 3))),
    (P.BroadcastTo((2, -1, 4)), [X34], np.broadcast_to(X34, (2, 3, 4))),
    (P.Slice(), [X234, (0, 1, 1), (2, 2, -1)], X234[0:2, 1:3, 1:]),
    (P.Gather(), [X34, GATHER_IDX, 0], X34[GATHER_IDX]),
    (P.Gather(batch_dims=1), [X4, B_IDX, 2], np.stack([np.take(X4[b], B_IDX[b], axis=1) for b in range(2)])),
    (P.GatherD(), [X34, 1, D_IDX], np.take_along_axis(X34[:2], D_IDX, 1)),
    (P.GatherNd(), [X234, ND_IDX], X234[ND_IDX[:, 0], ND_IDX[:, 1]]),
    (P.Select(), [B34, X34, Y34], np.where(B34, X34, Y34)),
    (P.MaskedFill(), [X34, B34, np.float32(9.0)], np.where(B34, np.float32(9.0), X34)),
    (P.ReverseV2((0, -1)), [X234], X234[::-1, :, ::-1]),
    (P.Roll((1, -2), dims=(0, 1)), [X34], np.roll(X34, (1, -2), (0, 1))),
    (P.Tril(diagonal=-1), [X34], np.tril(X34, -1)), (P.Triu(diagonal=1), [X34], np.triu(X34, 1)),
    (P.Meshgrid(indexing="xy"), [(ARANGE3, ARANGE2)], tuple(np.meshgrid(ARANGE3, ARANGE2, indexing="xy"))),
    (P.Meshgrid(indexing="ij"), [(ARANGE3, ARANGE2)], tuple(np.meshgrid(ARANGE3, ARANGE2, indexing="ij"))),
    (P.Pad(((1, 2), (0, 1))), [X34], np.pad(X34, ((1, 2), (0, 1)))),
    (P.Cast(), [X34, ms.float16], X34.astype(np.float16)),
    (P.OneHot(axis=0), [np.array([0, 2, -1], np.int32), 4, np.float32(5), np.float32(-1)],
     np.where(np.arange(4)[:, None] == np.array([0, 2, -1]), 5, -1).astype(np.float32)),
    (P.Trace(), [X34], np.trace(X34)), (P.Diag(), [ARANGE3], np.diag(ARANGE3)),
    (P.Cross(), [X34[:2, :3].copy(), Y34[:2, :3].copy()], np.cross(X34[:2, :3], Y34[:2, :3])),
    (P.ScatterNd(), [np.array([[0, 1], [0, 1], [1, 2]], np.int32), np.array([1., 2., 3.], np.float32), (2, 3)],
     np.array([[0, 3, 0], [0, 0, 3]], np.float32)),       # repeated indices add up (measured)
    (P.TensorScatterAdd(), [X34, np.array([[0], [0]], np.int32), np.ones((2, 4), np.float32)],
     X34 + np.array([[2], [0], [0]], np.float32)),
    (P.UnsortedSegmentSum(), [np.array([1., 2., 3.], np.float32), np.array([0, -1, 5], np.int32), 2],
     np.array([1., 0.], np.float32)),                     # ids outside [0, num_segments) dropped
]


@pytest.mark.filterwarnings("ignore:jit\\(backend='onnx'\\) of a float16 graph")   # the Cast row: known
def test_shape_and_indexing_classes_match_numpy():
    check_rows(SHAPES)
    eq = np.testing.assert_array_equal
    eq(run(P.Fill(), ms.int32, (2, 3), 7), np.full((2, 3), 7, np.int32))
    eq(run(P.Eye(), 3, 4, ms.float32), np.eye(3, 4))
    eq(run(P.Zeros(), (2, 3), ms.int32), np.zeros((2, 3), np.int32))
    eq(run(P.Ones(), 3), np.ones(3, np.float32))
    eq(run(P.LinSpace(), Tensor(np.float32(0)), Tensor(np.float32(1)), 5), np.linspace(0, 1, 5, dtype=np.float32))
    eq(run(P.Range(), Tensor(np.float32(0)), Tensor(np.float32(3)), Tensor(np.float32(0.5))), np.arange(0, 3, 0.5))
    assert run(P.Shape(), X234) == (2, 3, 4) and run(P.Size(), X234) == 24 and run(P.Rank(), X234) == 3
    assert P.DType()(Tensor(X234)) is ms.float32
    eq(run(P.NonZero(), B34), np.argwhere(B34))
    eq(run(P.MaskedSelect(), X34, B34), X34[B34])


def _windows(x, kernel, stride):
    """[N, C, H', W', kh, kw] windows of x (numpy's sliding_window_view, strided)."""
    view = np.lib.stride_tricks.sliding_window_view(x, kernel, axis=(2, 3))
    return view[:, :, ::stride[0], ::stride[1]]


def _conv(x, w, stride=(1, 1), pad=((0, 0), (0, 0)), dilation=(1, 1), groups=1):
    x = np.pad(x, ((0, 0), (0, 0)) + pad)
    kh, kw = (w.shape[2] - 1) * dilation[0] + 1, (w.shape[3] - 1) * dilation[1] + 1
    win = _windows(x, (kh, kw), stride)[..., ::dilation[0], ::dilation[1]]
    per = w.shape[0] // groups
    return np.concatenate([np.einsum("nchwij,ocij->nohw", win[:, g * w.shape[1]:(g + 1) * w.shape[1]],
                                     w[g * per:(g + 1) * per]) for g in range(groups)], 1)


def _layer_norm(x, gamma, beta, eps):
    m, v = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    return (x - m) / np.sqrt(v + eps) * gamma + beta, m, v


LOGITS35, LABELS3 = rand(3, 5), np.array([1, 0, 4], np.int32)
HOT35 = np.eye(5, dtype=np.float32)[LABELS3]
XB, YB = rand(2, 3, 4), rand(2, 5, 4)
BIAS3, PRELU3, GAMMA, BETA = rand(3), np.array([0.1, 0.2, 0.3], np.float32), rand(3, 4), rand(3, 4)
NHWC = X4D.transpose(0, 2, 3, 1).copy()
NN = [
    *[(P.MatMul(ta, tb), [(X34.T if ta else X34).copy(), (Y34 if tb else Y34.T).copy()], X34 @ Y34.T)
      for ta in (False, True) for tb in (False, True)],
    (P.MatMul(), [I34, J34.T.copy()], I34 @ J34.T),
    (P.BatchMatMul(transpose_b=True), [XB, YB], XB @ YB.transpose(0, 2, 1)),
    (P.BatchMatMul(transpose_a=True), [XB.transpose(0, 2, 1).copy(), YB.transpose(0, 2, 1).copy()],
     XB @ YB.transpose(0, 2, 1)),
    (P.BiasAdd(), [X4D, BIAS3], X4D + BIAS3[:, None, None]),
    (P.BiasAdd("NHWC"), [NHWC, BIAS3], NHWC + BIAS3),
    (P.PReLU(), [X4D, PRELU3], np.where(X4D > 0, X4D, PRELU3[:, None, None] * X4D)),
    (P.Conv2D(4, 3), [X4D, W4D], _conv(X4D, W4D)),
    (P.Conv2D(4, 3, pad_mode="pad", pad=1, stride=(1, 2), dilation=2), [X4D, W4D],
     _conv(X4D, W4D, (1, 2), ((1, 1), (1, 1)), (2, 2))),
    (P.Conv2D(3, 3, group=3), [X4D, W4D[:3, :1].copy()], _conv(X4D, W4D[:3, :1], groups=3)),
    (P.MaxPool(2, 2), [X4D], _windows(X4D, (2, 2), (2, 2)).max((-2, -1))),
    (P.AvgPool((2, 3), (1, 2)), [X4D], _windows(X4D, (2, 3), (1, 2)).mean((-2, -1))),
    (P.L2Normalize(axis=-1, epsilon=1e-12), [X34], X34 / np.linalg.norm(X34, axis=-1, keepdims=True)),
    (P.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5), [X234, GAMMA, BETA],
     _layer_norm(X234, GAMMA, BETA, 1e-5)),
    (P.SoftmaxCrossEntropyWithLogits(), [LOGITS35, HOT35],
     (-(HOT35 * log_softmax(LOGITS35)).sum(-1), np.exp(log_softmax(LOGITS35)) - HOT35)),
    (P.SparseSoftmaxCrossEntropyWithLogits(), [LOGITS35, LABELS3], -(HOT35 * log_softmax(LOGITS35)).sum(-1).mean()),
    (P.TopK(), [X34, 2], (-np.sort(-X34, 1)[:, :2], np.argsort(-X34, 1)[:, :2].astype(np.int32))),
    (P.Sort(axis=0, descending=True), [X34], (-np.sort(-X34, 0), np.argsort(-X34, 0, kind="stable").astype(np.int32))),
    (P.CumSum(), [X34, 1], np.cumsum(X34, 1)),
    (P.CumSum(exclusive=True), [I34, 1], np.cumsum(I34, 1, dtype=np.int32) - I34),
    (P.CumProd(reverse=True), [X34, 0], np.cumprod(X34[::-1], 0)[::-1]),
]


def test_nn_classes_match_numpy():
    check_rows(NN)


F16 = X234.astype(np.float16)
MEASURED = [   # (call, MindSpore 2.10's output structure)
    (lambda: P.ArgMaxWithValue()(Tensor(X34)), "(Int64[4], Float32[4])"),
    (lambda: P.ArgMaxWithValue(axis=-1, keep_dims=True)(Tensor(X234)), "(Int64[2, 3, 1], Float32[2, 3, 1])"),
    (lambda: P.ArgMinWithValue(axis=1)(Tensor(I34)), "(Int64[3], Int32[3])"),
    (lambda: P.Argmax()(Tensor(X234)), "Int32[2, 3]"),
    (lambda: P.Argmin(axis=0, output_type=ms.int64)(Tensor(X234)), "Int64[3, 4]"),
    (lambda: P.LayerNorm()(Tensor(X234), Tensor(np.ones((3, 4), np.float32)), Tensor(np.zeros((3, 4), np.float32))),
     "(Float32[2, 3, 4], Float32[2, 1, 1], Float32[2, 1, 1])"),
    (lambda: P.LayerNorm(-1, -1)(Tensor(F16), Tensor(F16[0, 0]), Tensor(F16[0, 0])),
     "(Float16[2, 3, 4], Float32[2, 3, 1], Float32[2, 3, 1])"),
    (lambda: P.SoftmaxCrossEntropyWithLogits()(Tensor(rand(3, 5)), Tensor(rand(3, 5))), "(Float32[3], Float32[3, 5])"),
    (lambda: P.SparseSoftmaxCrossEntropyWithLogits()(Tensor(rand(3, 5)), Tensor(np.array([1, 0, 4]))), "Float32[]"),
    (lambda: P.TopK()(Tensor(I34), 3), "(Int32[3, 3], Int32[3, 3])"),
    (lambda: P.Sort()(Tensor(X34)), "(Float32[3, 4], Int32[3, 4])"),
    (lambda: P.Dropout(keep_prob=1.0)(Tensor(X34)), "(Float32[3, 4], Float32[3, 4])"),
    (lambda: P.Split(1, 2)(Tensor(X34)), "(Float32[3, 2], Float32[3, 2])"),
    (lambda: P.Split()(Tensor(X34)), "(Float32[3, 4])"),
    (lambda: P.Unstack(axis=1)(Tensor(X34)), "(Float32[3], Float32[3], Float32[3], Float32[3])"),
    (lambda: P.Meshgrid()((Tensor(np.arange(3.0, dtype=np.float32)), Tensor(np.arange(2.0, dtype=np.float32)))),
     "(Float32[2, 3], Float32[2, 3])"),
    (lambda: P.Shape()(Tensor(X234)), "(2, 3, 4)"),
    (lambda: P.Size()(Tensor(X234)), "24"),
    (lambda: P.Rank()(Tensor(X234)), "3"),
    (lambda: P.DType()(Tensor(X234)), "Float32"),
    (lambda: P.Unique()(Tensor(np.array([3, 1, 3, 2, 1], np.int32))), "(Int32[3], Int32[5])"),
    (lambda: P.NonZero()(Tensor(B34)), f"Int64[{int(B34.sum())}, 2]"),
    (lambda: P.Range()(Tensor(np.int32(0)), Tensor(np.int32(7)), Tensor(np.int32(2))), "Int64[4]"),
    (lambda: P.ReduceMean()(Tensor(I34)), "Int32[]"),
    (lambda: P.ReduceSum()(Tensor(B34), 1), "Bool[3]"),
    (lambda: P.ReduceAll()(Tensor(X34), 1), "Bool[3]"),
    (lambda: P.ReduceSum()(Tensor(I34.astype(np.int8)), 1), "Int8[3]"),
    (lambda: P.RealDiv()(Tensor(I34), Tensor(J34)), "Int32[3, 4]"),
    (lambda: P.Div()(Tensor(I34), Tensor(J34)), "Float32[3, 4]"),
    (lambda: P.Flatten()(Tensor(np.arange(4.0, dtype=np.float32))), "Float32[4, 1]"),
    (lambda: P.Zeros()(3), "Float32[3]"),
    (lambda: P.OneHot()(Tensor(np.array([[0, 1], [2, 0]])), 3, Tensor(np.float16(1)), Tensor(np.float16(0))),
     "Float16[2, 2, 3]"),
    (lambda: P.L2Loss()(Tensor(X34)), "Float32[]"),
    (lambda: P.Gather(batch_dims=1)(Tensor(X34), Tensor(np.array([[0, 1], [2, 3], [1, 1]], np.int32)), 1),
     "Float32[3, 2]"),
    (lambda: P.Sqrt()(Tensor(I34)), "Float32[3, 4]"),
    (lambda: P.Round()(Tensor(I34)), "Int32[3, 4]"),
    (lambda: P.CumSum()(Tensor(I34), 1), "Int32[3, 4]"),
    (lambda: P.Conv2D(4, 3, pad_mode="same", stride=2)(Tensor(X4D), Tensor(W4D)), "Float32[2, 4, 3, 3]"),
    (lambda: P.Conv2D(4, 3, pad_mode="pad", pad=(1, 0, 2, 1))(Tensor(X4D), Tensor(W4D)), "Float32[2, 4, 4, 6]"),
    (lambda: P.MaxPool(3, 2, "SAME")(Tensor(X4D)), "Float32[2, 3, 3, 3]"),
    (lambda: P.MaxPool((2, 3), (1, 2), "same")(Tensor(X4D)), "Float32[2, 3, 5, 3]"),
    (lambda: P.AvgPool(3, 2, "same")(Tensor(X4D)), "Float32[2, 3, 3, 3]"),
    (lambda: P.Pad(((1, 0), (2, 1)))(Tensor(I34)), "Int32[4, 7]"),
    (lambda: P.UnsortedSegmentSum()(Tensor(np.array([1, 2, 3], np.int32)), Tensor(np.array([0, 0, 1], np.int32)), 2),
     "Int32[2]"),
    (lambda: P.AssignAdd()(Parameter(Tensor(X34), name="p"), Tensor(Y34)), "Float32[3, 4]"),
    (lambda: P.Depend()(Tensor(X34), Tensor(Y34)), "Float32[3, 4]"),
]


def test_output_structures_and_dtypes_match_mindspore():
    """Read from a trace (the shape rules the eager calls run too), so nothing compiles."""
    got = []
    ms.trace(lambda: got.extend(sig(call()) for call, _ in MEASURED))
    for (_, want), structure in zip(MEASURED, got):
        assert structure == want
    assert isinstance(P.Split(1, 2)(Tensor(X34)), tuple) and isinstance(P.Unstack()(Tensor(X34)), tuple)


def test_repr_name_and_attributes():
    """MindSpore 2.10's reprs (output_type shows the dtype where MindSpore prints its type id, 34)."""
    assert repr(P.ReduceSum(keep_dims=True)) == "Prim[ReduceSum]<keep_dims=True, skip_mode=False>"
    assert repr(P.Concat(axis=1)) == "Prim[Concat]<axis=1>"
    assert repr(P.MatMul(transpose_b=True)) == "Prim[MatMul]<transpose_a=False, transpose_b=True>"
    assert repr(P.Softmax()) == "Prim[Softmax]<axis=(-1,)>"
    assert repr(P.Split(1, 2)) == "Prim[Split]<axis=1, output_num=2>"
    assert repr(P.Cast()) == "Prim[Cast]" and repr(P.Print()) == "Prim[Print]<side_effect_io=True>"
    assert repr(P.Assign()) == "Prim[Assign]<side_effect_mem=True>"
    assert repr(P.Depend()) == "Prim[Depend]<side_effect_propagate=1>"
    assert repr(P.LayerNorm()) == "Prim[LayerNorm]<begin_norm_axis=1, begin_params_axis=1, epsilon=1e-07>"
    assert repr(P.Argmax()) == "Prim[Argmax]<axis=-1, output_type=Int32>"
    assert repr(P.MaxPool()) == "Prim[MaxPool]<kernel_size=(1, 1, 1, 1), strides=(1, 1, 1, 1), pad_mode=VALID, " \
                                "data_format=NCHW>"
    assert repr(P.Conv2D(4, 3)) == ("Prim[Conv2D]<out_channel=4, kernel_size=3, mode=1, pad_mode=valid, "
                                    "pad=(0, 0, 0, 0), stride=(1, 1, 1, 1), dilation=(1, 1, 1, 1), group=1, "
                                    "data_format=NCHW, groups=1>")
    op = P.ReduceSum()
    assert op.add_prim_attr("foo", 3) is op and repr(op) == "Prim[ReduceSum]<keep_dims=False, skip_mode=False, foo=3>"
    op.init_prim_io_names(inputs=["x", "axis"], outputs=["y"])
    assert op.attrs["input_names"] == ["x", "axis"] and "input_names" not in repr(op)
    assert op.name == "ReduceSum" and op.keep_dims is False and P.Softmax(axis=1).axis == (1,)
    assert op.add_prim_attr("keep_dims", True)(Tensor(X34), 1).shape == (3, 1)   # attributes drive the call
    # the names users import
    assert ops.ReduceSum is P.ReduceSum and C.GradOperation is ops.GradOperation and C.HyperMap is ops.HyperMap
    assert ops.Primitive is ms.ops.primitive.Primitive      # the IR's primitive class, unchanged
    assert ops.DType is P.DType and isinstance(P.Abs(), P.Operator)


ERRORS = [   # constructor checks, in MindSpore's wording where it checks at construction too
    (lambda: P.ReduceSum(keep_dims=1), TypeError, "For 'ReduceSum', the type of 'keep_dims' should be 'bool', but got "
                                                  "type 'int'"),
    (lambda: P.Concat(axis=1.5), TypeError, "For 'Concat', the type of 'axis' should be 'int'"),
    (lambda: P.Softmax(axis="a"), TypeError,
     "For 'Softmax', the type of 'axis' should be one of '[int, tuple of int]'"),
    (lambda: P.Split(0, 0), ValueError, "For 'Split', the 'output_num' must be int and must > 0, but got '0'"),
    (lambda: P.Argmax(output_type=ms.float32), TypeError, "For 'Argmax', the 'output_type' should be one of"),
    (lambda: P.Conv2D(4, 3, pad_mode="bad"), ValueError,
     "For 'Conv2D', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', but got 'bad'"),
    (lambda: P.Conv2D(4, 0), ValueError, "For 'Conv2D' attr 'kernel_size' must be an positive int number"),
    (lambda: P.Conv2D(0, 3), ValueError, "For 'Conv2D', the 'out_channel' must be int and must > 0, but got '0'"),
    (lambda: P.Conv2D(4, 3, pad=1), ValueError, "For 'Conv2D', the 'pad' must be zero when 'pad_mode' is not 'pad', "
                                                "but got 'pad': 1 and 'pad_mode': valid"),
    (lambda: P.Conv2D(4, 3, mode=2), ValueError, "For 'Conv2D', the 'mode' must be int and must = 1, but got '2'"),
    (lambda: P.Conv2D(4, 3, data_format="NHWC"), ValueError, "For 'Conv2D', only the 'NCHW' data_format"),
    (lambda: P.Conv2D(4, 3, pad_mode="pad", pad=-1), ValueError, "the 'pad item' must be int and must >= 0"),
    (lambda: P.MaxPool(pad_mode="bad"), ValueError, "For 'MaxPool', the 'pad_mode' must be str and must be in "
                                                    "'['VALID', 'SAME']'"),
    (lambda: P.MaxPool(strides=1.5), TypeError, "For 'MaxPool', the type of 'strides' should be one of "
                                                "'['int', 'tuple']', but got type 'float'"),
    (lambda: P.AvgPool(kernel_size=-1), ValueError, "For 'AvgPool' attr 'kernel_size' must be an positive int"),
    (lambda: P.Dropout(keep_prob=0), ValueError, "For 'Dropout', the 'keep_prob' must be float and must > 0.0"),
    (lambda: P.TopK(sorted=1), TypeError, "For 'TopK', the type of 'sorted' should be 'bool', but got type 'int'"),
    (lambda: P.L2Normalize(axis=1.5), TypeError, "For 'L2Normalize', the type of 'axis' should be one of "
                                                 "'['list', 'tuple']', but got type 'float'"),
    (lambda: P.BiasAdd(data_format="ABC"), ValueError, "For 'BiasAdd', the 'data_format' must be str"),
    (lambda: P.ReverseV2(axis=1), TypeError, "For 'ReverseV2', the type of 'axis' should be one of"),
    (lambda: P.Tril(diagonal=1.5), TypeError, "For 'Tril', the type of 'diagonal' should be 'int', but got type "
                                              "'float'"),
    (lambda: P.Pad("a"), TypeError, "For 'Pad', the type of 'paddings' should be 'tuple', but got type 'str'"),
    (lambda: P.Sort(descending=1), TypeError, "For 'Sort', the type of 'descending' should be 'bool'"),
    (lambda: P.UniformReal(seed=-1), ValueError, "For 'UniformReal', the 'seed' must be int and must >= 0, but got "
                                                 "'-1'"),
    (lambda: P.StandardNormal(seed2="a"), TypeError, "For 'StandardNormal', the type of 'seed2' should be 'int'"),
    (lambda: P.StridedSlice(begin_mask=-1), ValueError, "For 'StridedSlice', the 'begin_mask' must be int and "
                                                        "must >= 0"),
    (lambda: P.Meshgrid(indexing="zz"), ValueError, "For 'Meshgrid', the 'indexing' must be str"),
    (lambda: C.GradOperation(get_all=1), TypeError, "For 'GradOperation', the 'get_all' should be bool, but got int"),
    (lambda: C.HyperMap(ops=1), TypeError, "For 'HyperMap', 'ops' must be callable"),
]


def test_constructor_arguments_are_checked():
    for make, kind, message in ERRORS:
        with pytest.raises(kind) as info:
            make()
        assert message in str(info.value)


def test_call_arguments_are_checked():
    x = Tensor(X34)
    with pytest.raises(ValueError, match="For 'Split', x_shape\\[1\\] must be divisible by output_num = 3"):
        P.Split(1, 3)(x)
    with pytest.raises(ValueError, match="For 'MatMul', the inputs must be 2-D"):
        P.MatMul()(Tensor(X234), x)
    with pytest.raises(ValueError, match="For 'Conv2D', the weight's shape \\[4, 3, 3, 3\\] should be "
                                         "\\[5, 3, 3, 3\\]"):
        P.Conv2D(5, 3)(Tensor(X4D), Tensor(W4D))
    with pytest.raises(ValueError, match="For 'Assign', 'value' must have the same shape as 'variable'"):
        P.Assign()(Parameter(x, name="p"), Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="For 'Assign', 'variable' must be a Parameter"):
        P.Assign()(x, x)
    with pytest.raises(ValueError, match="For 'Round', only decimals=0"):
        P.Round()(x, 1)
    with pytest.raises(TypeError, match="For 'Softmax', the input must be a float Tensor"):
        P.Softmax()(Tensor(I34))
    with pytest.raises(ValueError, match="For 'LayerNorm', gamma and beta must have shape \\[4\\]"):
        P.LayerNorm(-1, -1)(x, x, x)


# -- in a Cell, under jit and in onnxruntime ------------------------------------------------------------

class _Block(nn.Cell):
    """A MindSpore 1.x style block: every operator made in __init__, called in construct."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(rand(6, 8)), name="w")
        self.gamma = Parameter(Tensor(1 + 0.1 * rand(6)), name="gamma")
        self.beta = Parameter(Tensor(0.1 * rand(6)), name="beta")
        self.matmul = P.MatMul(transpose_b=True)
        self.bias_add = P.BiasAdd()
        self.layer_norm = P.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)
        self.gelu = P.GeLU()
        self.split = P.Split(axis=1, output_num=2)
        self.concat = P.Concat(axis=1)
        self.softmax = P.Softmax(axis=-1)
        self.argmax = P.ArgMaxWithValue(axis=-1)
        self.one_hot = P.OneHot()
        self.square = P.Square()
        self.sub = P.Sub()
        self.reduce_sum = P.ReduceSum(keep_dims=True)
        self.reduce_mean = P.ReduceMean()
        self.cast = P.Cast()
        self.reshape = P.Reshape()
        self.transpose = P.Transpose()
        self.strided_slice = P.StridedSlice()
        self.sqrt = P.Sqrt()
        self.on, self.off = Tensor(np.float32(1.0)), Tensor(np.float32(0.0))

    def construct(self, x, labels):
        h = self.bias_add(self.matmul(x, self.w), self.beta)
        h, _, var = self.layer_norm(h, self.gamma, self.beta)
        a, b = self.split(self.gelu(h))
        h = self.concat((b, a))
        p = self.softmax(h)
        index, value = self.argmax(p)
        hot = self.one_hot(labels, 6, self.on, self.off)
        loss = self.reduce_mean(self.reduce_sum(self.square(self.sub(p, hot)), (1,)))
        t = self.transpose(self.reshape(h, (-1, 2, 3)), (0, 2, 1))
        t = self.strided_slice(t, (0, 0, 0), (x.shape[0], 3, 2), (1, 2, 1))
        return loss, self.cast(index, ms.int32), value, t, self.sqrt(var)


def _block_numpy(net, x, labels):
    h = x @ net.w.asnumpy().T + net.beta.asnumpy()
    m, v = h.mean(-1, keepdims=True), h.var(-1, keepdims=True)
    h = gelu_tanh((h - m) / np.sqrt(v + 1e-7) * net.gamma.asnumpy() + net.beta.asnumpy())
    h = np.concatenate([h[:, 3:], h[:, :3]], 1)
    p = np.exp(log_softmax(h))
    hot = np.eye(6, dtype=np.float32)[labels]
    loss = ((p - hot) ** 2).sum(1, keepdims=True).mean()
    t = h.reshape(-1, 2, 3).transpose(0, 2, 1)[:, ::2, :]
    return loss, p.argmax(-1), p.max(-1), t, np.sqrt(v)


def test_a_cell_of_operator_classes_under_jit_and_in_onnxruntime(tmp_path):
    from graphcell.runtime import Session
    net = _Block()
    x, labels = rand(4, 8), np.array([0, 5, 2, 3], np.int32)
    want = _block_numpy(net, x, labels)
    for backend in ("xla", "onnx"):
        outs = ms.jit(net, backend=backend)(Tensor(x), Tensor(labels))
        assert [o.dtype for o in outs] == [ms.float32, ms.int32, ms.float32, ms.float32, ms.float32], backend
        for got, ref in zip(outs, want):
            np.testing.assert_allclose(got.asnumpy(), ref, rtol=2e-5, atol=2e-6, err_msg=backend)
    # an exported file with a dynamic batch; the variance output keeps the LayerNorm nodes apart
    path = ms.export(net, Tensor(x), Tensor(labels), file_name=str(tmp_path / "block.onnx"))
    session = Session(path, providers=["cpu"])
    x6, labels6 = rand(6, 8), np.array([1, 2, 3, 4, 5, 0], np.int32)
    for got, ref in zip(session(x6, labels6), _block_numpy(net, x6, labels6)):
        np.testing.assert_allclose(got, ref, rtol=2e-5, atol=2e-6)


def _jax_fn(x, w):
    h = jax.nn.gelu(x @ w.T, approximate=True)
    m = h.mean(-1, keepdims=True)
    v = ((h - m) ** 2).mean(-1, keepdims=True)
    y = (h - m) / jnp.sqrt(v + 1e-7)
    return jnp.sum(jax.nn.softmax(y, -1) * jnp.cumsum(y, -1), -1).max()


def _graphcell_fn(x, w):
    h = P.GeLU()(P.MatMul(transpose_b=True)(x, w))
    y, _, _ = P.LayerNorm(-1, -1)(h, P.OnesLike()(h[0]), P.ZerosLike()(h[0]))
    s = P.ReduceSum()(P.Mul()(P.Softmax()(y), P.CumSum()(y, -1)), -1)
    return P.ArgMaxWithValue()(s)[1]


def test_operator_classes_under_vmap_and_grad_match_jax():
    xs, w = rand(5, 3, 4), rand(6, 4)
    got = ms.vmap(_graphcell_fn, in_axes=(0, None))(Tensor(xs), Tensor(w))
    want = jax.jit(jax.vmap(_jax_fn, in_axes=(0, None)))(xs, w)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    gx, gw = ms.grad(_graphcell_fn, grad_position=(0, 1))(Tensor(xs[0]), Tensor(w))
    jx, jw = jax.jit(jax.grad(_jax_fn, argnums=(0, 1)))(xs[0], w)
    np.testing.assert_allclose(gx.asnumpy(), jx, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gw.asnumpy(), jw, rtol=1e-4, atol=1e-6)


# -- GradOperation ---------------------------------------------------------------------------------------

class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
        self.b = Parameter(Tensor(np.array([0.5], np.float32)), name="b")

    def construct(self, x, y):
        return (x * self.w * y).sum() + self.b.sum() * 2


class _TwoOutputs(_Net):
    def construct(self, x, y):
        return x * self.w, y * self.b


def _values(out):
    return [_values(o) for o in out] if isinstance(out, tuple) else out.asnumpy().tolist()


def test_grad_operation_flags_match_mindspore():
    """Every result as MindSpore 2.10 printed it for the same net and inputs."""
    net = _Net()
    weights = ParameterTuple(net.trainable_params())
    x, y = Tensor(np.array([1.0, -1.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32))
    sens = Tensor(np.float32(2.0))
    assert _values(C.GradOperation()(net)(x, y)) == [6, 12]
    assert _values(C.GradOperation(get_all=True)(net)(x, y)) == [[6, 12], [2, -3]]
    assert _values(C.GradOperation(get_by_list=True)(net, weights)(x, y)) == [[3, -4], [2]]
    assert _values(C.GradOperation(get_by_list=True)(net, [net.w, net.b])(x, y)) == [[3, -4], [2]]
    assert _values(C.GradOperation(get_by_list=True)(net, net.w)(x, y)) == [3, -4]      # bare
    assert _values(C.GradOperation(get_by_list=True)(net)(x, y)) == [[3, -4], [2]]      # the Cell's parameters
    assert _values(C.GradOperation(get_all=True, get_by_list=True)(net, weights)(x, y)) == \
        [[[6, 12], [2, -3]], [[3, -4], [2]]]
    assert _values(C.GradOperation(sens_param=True)(net)(x, y, sens)) == [12, 24]
    assert _values(C.GradOperation(get_all=True, sens_param=True)(net)(x, y, sens)) == [[12, 24], [4, -6]]
    two = _TwoOutputs()
    assert _values(C.GradOperation(get_all=True)(two)(x, y)) == [[2, 3], [0.5, 0.5]]    # the sum of the outputs
    pair = (Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 1.0], np.float32)))
    assert _values(C.GradOperation(get_all=True, sens_param=True)(two)(x, y, pair)) == [[2, 6], [1.5, 0.5]]
    assert _values(C.GradOperation(get_all=True)(lambda a: (a * a).sum())(x)) == [[2, -2]]   # always a tuple
    assert _values(C.GradOperation(get_all=True)(lambda a, n: (a * n).sum())(x, 3)) == [[3, 3]]  # numbers skipped
    assert _values(C.GradOperation(get_all=True)(lambda a, b: (a * 2).sum())(x, y)) == [[2, 2], [0, 0]]
    # an integer Tensor's gradient is zeros here (MindSpore: [1, -1], as if it were real)
    ints = C.GradOperation(get_all=True)(lambda a, n: (a * n).sum())(x, Tensor(np.array([2, 3], np.int32)))
    assert _values(ints) == [[2, 3], [0, 0]] and ints[1].dtype == ms.int32


def test_grad_operation_matches_graphcell_grad_and_jax_under_jit():
    net = _Net()
    weights = ParameterTuple(net.trainable_params())
    x, y = rand(2), rand(2)
    both = C.GradOperation(get_all=True, get_by_list=True, sens_param=True)

    @ms.jit
    def step(a, b, s):
        return both(net, weights)(a, b, s)

    (gx, gy), (gw, gb) = step(Tensor(x), Tensor(y), Tensor(np.float32(1.5)))
    want = ms.grad(net, (0, 1), weights, sens_param=True)(Tensor(x), Tensor(y), Tensor(np.float32(1.5)))
    for got, ref in zip((gx, gy, gw, gb), (*want[0], *want[1])):
        np.testing.assert_allclose(got.asnumpy(), ref.asnumpy(), rtol=1e-6)

    def f(a, b, w, bias):
        return 1.5 * ((a * w * b).sum() + bias.sum() * 2)
    for got, ref in zip((gx, gy, gw, gb), jax.jit(jax.grad(f, (0, 1, 2, 3)))(x, y, net.w.asnumpy(), net.b.asnumpy())):
        np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-6)


def test_hyper_map_and_multitype_func_graph():
    x, y = Tensor(np.array([1.0, -1.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32))
    hyper = C.HyperMap()
    assert _values(hyper(P.Add(), (x, y), (y, x))) == [[4, 3], [4, 3]]
    assert _values(hyper(P.Add(), (x, (y,)), (y, (x,)))) == [[4, 3], [[4, 3]]]
    out = hyper(P.Add(), [x, y], [y, x])
    assert isinstance(out, tuple) and _values(out) == [[4, 3], [4, 3]]     # lists map to tuples (measured)
    assert _values(hyper(P.Neg(), x)) == [-1, 1]
    order = []
    C.HyperMap(reverse=True)(lambda t: order.append(float(t[0])) or t, (x, y))
    assert order == [3.0, 1.0]
    with pytest.raises(ValueError, match="same length"):
        hyper(P.Add(), (x, y), (y,))                                       # MindSpore truncates
    scale = C.MultitypeFuncGraph("scale")

    @scale.register("Number", "Tensor")
    def _scale_tensor(s, t):
        return t * s

    @scale.register("Number", "Number")
    def _scale_number(s, n):
        return n * s
    assert _values(C.HyperMap(functools.partial(scale, 2.0))((x, y))) == [[2, -2], [6, 8]]
    assert scale(2, 3) == 6
    with pytest.raises(TypeError, match="no implementation takes \\(str, str\\)"):
        scale("a", "b")


# -- state, debugging, randomness ------------------------------------------------------------------------

class _Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = Parameter(Tensor(np.zeros(3, np.float32)), name="total", requires_grad=False)
        self.steps = Parameter(Tensor(np.zeros((), np.int32)), name="steps", requires_grad=False)
        self.assign_add, self.assign_sub, self.assign = P.AssignAdd(), P.AssignSub(), P.Assign()
        self.depend, self.print = P.Depend(), P.Print()

    def construct(self, x):
        total = self.assign_add(self.total, x)
        self.assign_sub(self.total, x * 0.5)
        self.assign(self.steps, self.steps + 1)
        self.print("total:", total)
        return self.depend(total * 2, self.steps), self.total


def test_assign_depend_and_print(capsys):
    net = _Accumulate()
    x = Tensor(np.array([1.0, 2.0, 4.0], np.float32))
    doubled, total = net(x)
    assert doubled.asnumpy().tolist() == [2, 4, 8] and total.asnumpy().tolist() == [0.5, 1, 2]
    assert capsys.readouterr().out == "total:\nTensor(shape=[3], dtype=Float32, value= [ 1.00000000e+00,  " \
                                      "2.00000000e+00,  4.00000000e+00])\n"   # MindSpore's Print layout
    step = ms.jit(net)
    step(x)
    doubled, total = step(x)
    # under jit it prints when the graph runs, each call, in 2.10's graph form (tests/test_graph_print.py);
    # `total` is the Parameter, read as `total * 2` reads it: after the assign_sub
    assert capsys.readouterr().out == ("total:\nTensor(shape=[3], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00 "
                                       " 4.00000000e+00])\ntotal:\nTensor(shape=[3], dtype=Float32, value=[ 1.50000000e+00 "
                                       " 3.00000000e+00  6.00000000e+00])\n")
    assert doubled.asnumpy().tolist() == [3, 6, 12]     # reads the value written before it in the graph
    assert net.total.asnumpy().tolist() == [1.5, 3, 6] and int(net.steps.asnumpy()) == 3


def test_random_classes():
    n = 1000   # one shape throughout: each new shape compiles the generator again
    a, b = P.UniformReal(seed=3), P.UniformReal(seed=3)
    first, second = a((n,)).asnumpy(), a((n,)).asnumpy()
    np.testing.assert_array_equal(first, b((n,)).asnumpy())     # same seeds: the same sequence
    assert not np.array_equal(first, second) and first.dtype == np.float32
    assert 0 <= first.min() and first.max() < 1 and abs(first.mean() - 0.5) < 0.05
    normal = P.StandardNormal(seed=1, seed2=2)(Tensor(np.array([n])))     # a shape given as a Tensor
    assert normal.dtype == ms.float32 and abs(float(normal.asnumpy().std()) - 1) < 0.1
    ints = P.UniformInt(seed=5)((n,), Tensor(np.int32(-3)), Tensor(np.int32(4))).asnumpy()
    assert ints.dtype == np.int32 and set(ints.tolist()) == set(range(-3, 4))
    x = Tensor(1 + first)
    out, mask = np_out(P.Dropout(keep_prob=0.75)(x))
    np.testing.assert_allclose(out, x.asnumpy() * mask / 0.75, rtol=1e-6)
    assert set(np.unique(mask).tolist()) == {0.0, 1.0} and abs(mask.mean() - 0.75) < 0.06

    class Noise(nn.Cell):
        def __init__(self):
            super().__init__()
            self.uniform = P.UniformReal(seed=7)

        def construct(self, t):
            return self.uniform((n,)) + t
    jitted = ms.jit(Noise())
    zeros = Tensor(np.zeros(n, np.float32))
    assert not np.array_equal(jitted(zeros).asnumpy(), jitted(zeros).asnumpy())   # the stream advances


def test_cells_with_equal_operators_have_equal_configurations():
    from graphcell.nn.cell import configuration

    class Holder(nn.Cell):
        def __init__(self, keep):
            super().__init__()
            self.reduce = P.ReduceSum(keep_dims=keep)

        def construct(self, x):
            return self.reduce(x, 1)
    assert configuration(Holder(True)) == configuration(Holder(True)) is not None
    assert configuration(Holder(True)) != configuration(Holder(False))
