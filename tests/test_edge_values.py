"""Edge values, dtypes and argument checks of the functional API, each run eagerly, under jit
(XLA) and through onnxruntime against numpy: the cases a fuzz of ops against numpy found
wrong (each test names what it was)."""
import jax
import numpy as np
import pytest

import graphcell as ms
from graphcell import ops
from graphcell.tensor import Tensor


def backends(fn):
    return [("eager", fn), ("xla", ms.jit(fn)), ("onnx", ms.jit(fn, backend="onnx"))]


def check(fn, args, want, dtype=None):
    want = np.asarray(want)
    for name, run in backends(fn):
        got = run(*[Tensor(a) for a in args]).asnumpy()
        assert got.shape == want.shape, (name, got.shape, want.shape)
        assert got.dtype == (dtype or want.dtype), (name, got.dtype)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-6, err_msg=name)


def test_an_empty_batch_runs_under_jit():
    """A [0, 3] input: the XLA pipeline's row tiling divided by the batch (ZeroDivisionError)."""
    x, w = np.zeros((0, 3), np.float32), np.ones((3, 2), np.float32)
    check(lambda a, b: ops.matmul(a * 2.0, b), [x, w], np.zeros((0, 2), np.float32))


def test_numpy_scalars_promote_as_python_ones():
    """`int32 * np.float32(2.5)` was int32 [2, 4] (only Python floats made a float result)."""
    x = np.array([1, 2], np.int32)
    check(lambda t: t * np.float32(2.5), [x], [2.5, 5.0], np.float32)
    check(lambda t: t + np.array(0.5), [x], [1.5, 2.5], np.float32)
    check(lambda t: t >= np.float32(1.5), [x], [False, True])
    check(lambda t: t * np.int64(3), [x], [3, 6], np.int32)


def test_bitwise_operators_on_integers_and_logical_ops_give_bools():
    """~ & | ^ on integers are bitwise, as numpy's (they were logical, typed int32 by the IR,
    bool by jax and int32 by onnxruntime); ops.logical_* take any dtype and give bools."""
    a, b = np.array([0, 1, 5, -6], np.int32), np.array([3, 1, 4, 7], np.int32)
    check(lambda x, y: x & y, [a, b], a & b)
    check(lambda x, y: x | y, [a, b], a | b)
    check(lambda x, y: x ^ y, [a, b], a ^ b)
    check(lambda x: ~x, [a], ~a)
    check(lambda x: x ^ 6, [a], a ^ 6)
    p, q = np.array([True, False, True]), np.array([True, True, False])
    check(lambda x, y: (x ^ y) | ~x, [p, q], (p ^ q) | ~p)
    check(lambda x: ops.logical_not(x).sum(), [a], np.int64(1))  # Tensor.sum counts bools in int64
    check(lambda x, y: ops.logical_and(x, y), [a, b], np.logical_and(a, b))
    check(lambda x, y: ops.logical_xor(x, y), [a, b], np.logical_xor(a, b))
    with pytest.raises(Exception, match="needs bool or integer tensors"):
        ~Tensor(np.ones(2, np.float32))


def test_reductions_over_an_empty_axis():
    x = np.zeros((2, 0), np.float32)
    check(lambda t: ops.any(t, 1), [x], [False, False])
    check(lambda t: ops.all(t, 1, keep_dims=True), [x], [[True], [True]])
    check(lambda t: ops.mean(t, 1), [x], np.full(2, np.nan, np.float32))
    with pytest.raises(ValueError, match="reducing over an axis of size 0"):
        ops.amax(Tensor(x), 1)


def test_logsumexp_of_infinities_is_jaxs():
    """An all -inf row gave nan (x - max with max = -inf), as did a row holding +inf."""
    x = np.array([[-np.inf, -np.inf], [0.0, -np.inf], [np.inf, 0.0]], np.float32)
    want = np.asarray(jax.scipy.special.logsumexp(x, axis=1))
    check(lambda t: ops.logsumexp(t, 1), [x], want)
    g = ms.grad(lambda t: ops.logsumexp(t, 1).sum())(Tensor(x[1:2])).asnumpy()
    np.testing.assert_allclose(g, [[1.0, 0.0]])


def test_float_mod_is_exact_and_takes_the_divisors_sign():
    """1e8 % 3 was 0 eagerly and in onnxruntime and -2 under XLA; 1 % inf was nan."""
    x = np.array([1e8, 7.5, -7.5, 1.0, -1.0, 5.0], np.float32)
    y = np.array([3.0, -2.0, 2.0, np.inf, np.inf, 2.5], np.float32)
    check(lambda a, b: a % b, [x, y], np.mod(x, y))
    check(lambda a: 7.0 % a, [y[:3]], np.mod(np.float32(7.0), y[:3]))
    g = ms.grad(lambda a, b: (a % b).sum(), grad_position=(0, 1))(Tensor(x[1:3]), Tensor(y[1:3]))
    np.testing.assert_allclose(g[0].asnumpy(), [1.0, 1.0])
    np.testing.assert_allclose(g[1].asnumpy(), -np.floor(x[1:3] / y[1:3]))


def test_float16_mean_does_not_overflow():
    check(lambda t: ops.mean(t), [np.full(1000, 100.0, np.float16)], np.float16(100.0))


def test_log1p_of_large_values():
    """onnxruntime's log1p (Kahan's form) overflowed from ~4e36 on."""
    x = np.array([3e38, 1e37, 1.0, 1e-7, -0.5], np.float32)
    check(lambda t: ops.log1p(t), [x], np.log1p(x))


def test_activations_in_float64_and_relu_of_int64_run_in_onnxruntime():
    x = np.array([-1.5, -0.0, 0.0, 2.0], np.float64)
    check(lambda t: ops.elu(t), [x], np.where(x > 0, x, np.expm1(x)))
    check(lambda t: ops.leaky_relu(t, 0.2), [x], np.where(x > 0, x, 0.2 * x))
    check(lambda t: ops.relu(t), [np.array([-3, 0, 4], np.int64)], np.array([0, 0, 4], np.int64))
    m = np.array([True, False, True])
    check(lambda t: ops.select(t, ops.logical_not(t), t), [m], np.where(m, ~m, m))


def test_gradient_of_a_product_with_zeros_is_jaxs():
    """prod / x gave nan where x was 0."""
    for x in ([0.0, 2.0, 3.0], [0.0, 2.0, 0.0], [1.5, 2.0, -3.0]):
        x = np.array([x, x[::-1]], np.float32)
        want = jax.grad(lambda a: a.prod(axis=1).sum())(x)
        for name, run in backends(ms.grad(lambda t: ops.reduce_prod(t, 1).sum())):
            np.testing.assert_allclose(run(Tensor(x)).asnumpy(), want, rtol=1e-6, err_msg=name)


def test_reflected_mod_and_argmax_over_everything_with_keepdims():
    t = Tensor(np.array([[2, 3], [5, 4]], np.int32))
    np.testing.assert_array_equal((7 % t).asnumpy(), 7 % t.asnumpy())
    assert ops.argmax(t, None, keepdims=True).shape == (1, 1)
    assert int(ops.argmax(t, None, keepdims=True).asnumpy()[0, 0]) == 2


def test_pad_takes_mindsporeish_flat_paddings_too():
    """ops.pad(x, (left, right, top, bottom)): flat, from the last axis back (it raised
    "'int' object is not iterable"); the (before, after) pairs from the first axis stay."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check(lambda t: ops.pad(t, (1, 0, 0, 2)), [x], np.pad(x, ((0, 2), (1, 0))))
    check(lambda t: ops.pad(t, [(1, 1)]), [x], np.pad(x, ((1, 1), (0, 0))))
    with pytest.raises(ValueError, match=r"pairs from the last axis.*\(1, 2, 3\)"):
        ops.pad(Tensor(x), (1, 2, 3))


@pytest.mark.parametrize("call,message", [
    (lambda x: ops.broadcast_to(x, (-1, 2, 3)), "a new axis needs its size"),
    (lambda x: ops.split(x, [1, 1], 1), r"add up to axis 1's size 3"),
    (lambda x: ops.split(x, 0), "must be a positive int"),
    (lambda x: ops.flatten(x, start_dim=1, end_dim=0), "start_dim 1 comes after end_dim 0"),
    (lambda x: ops.concat([]), "at least one tensor"),
])
def test_argument_errors_name_the_argument(call, message):
    """Each did something silently (split dropped the rest, flatten returned x's shape) or
    raised a bare Python error."""
    with pytest.raises(ValueError, match=message):
        call(Tensor(np.zeros((2, 3), np.float32)))


def test_float64_max_pool_gradient_and_bfloat16_pooling_in_onnxruntime():
    """onnxruntime's CPU provider has no float64 ConvTranspose (a max pool's gradient failed to
    load); a bfloat16 max pool failed to lower with numpy's "Invalid integer data type 'V'", and
    now reaches onnxruntime, whose missing kernel is named as such (not a "corrupt file")."""
    from graphcell import nn
    from graphcell.runtime.session import OnnxModelError
    x = np.random.default_rng(0).standard_normal((1, 1, 4, 4))
    pool = nn.MaxPool2d(2, 2)
    grad = ms.grad(lambda t: (pool(t) ** 2).sum())
    np.testing.assert_allclose(ms.jit(grad, backend="onnx")(Tensor(x)).asnumpy(), grad(Tensor(x)).asnumpy())
    with pytest.raises(OnnxModelError, match="have no kernel for an op at this dtype"):
        ms.jit(pool, backend="onnx")(Tensor(x.astype(ms.bfloat16.np_dtype)))
