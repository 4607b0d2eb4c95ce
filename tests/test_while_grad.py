"""Reverse mode through a tensor `while` whose trip count is not known at trace time (under jit):
the vjp counts the iterations with a second loop, then walks them backwards, rebuilding each
iteration's carry from snapshots (graphcell/ops/while_recompute_vjp.py).

References: for given inputs the trip count is fixed, so jax.grad of the Python-unrolled loop
(its trip count found in numpy first) is the exact gradient; central finite differences in
float64; and gradients measured on MindSpore 2.10 (graph mode), kept as literals."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops

F32 = np.float32


def _vec(*v):
    return np.array(v, F32)


def _trips(keep_going, step, *carry) -> int:
    """How many times a loop runs from `carry` (numpy, float64)."""
    carry, n = [np.asarray(c, np.float64) for c in carry], 0
    while keep_going(*carry):
        carry, n = list(step(*carry)), n + 1
    return n


# -- the programs: graphcell's loop, the same step in jax, its condition in numpy ---------------

def doubling(x):
    while x.sum() < 10:
        x = x * 2
    return x.sum()


def affine(x, w):
    while x.sum() < 10:
        x = x * w + 1
    return (x * x).sum()


def affine_jax(n, x, w):
    for _ in range(n):
        x = x * w + 1
    return (x * x).sum()


def sine(x, w):
    """A nonlinear body reading a closed-over Tensor `w`."""
    while x.sum() < 12.0:
        x = ops.sin(x) * w + x * 1.5
    return (x * ops.cos(x)).sum()


def sine_step(x, w, np_=np):
    return np_.sin(x) * w + x * 1.5


def sine_jax(n, x, w):
    for _ in range(n):
        x = sine_step(x, w, jnp)
    return (x * jnp.cos(x)).sum()


def pair(a, b, n):
    """Several carries: two floats, an int counter; the counter bounds the loop."""
    i = 0
    while i < n:
        a, b = a * b + ops.sin(a), b * 0.9 + a * 0.1
        i = i + 1
    return (a * a).sum() + b.sum()


def pair_jax(n, a, b):
    for _ in range(n):
        a, b = a * b + jnp.sin(a), b * 0.9 + a * 0.1
    return (a * a).sum() + b.sum()


def all_gradients(x1, x0, xa, wa, xs, ws, a, b, n, m):
    """One jitted program holding every case (one compilation per backend)."""
    return (ops.grad(doubling)(x1), ops.grad(doubling)(x0),
            *ops.grad(affine, grad_position=(0, 1))(xa, wa),
            *ops.grad(sine, grad_position=(0, 1))(xs, ws),
            *ops.grad(pair, grad_position=(0, 1))(a, b, n),
            *ops.grad(pair, grad_position=(0, 1))(a, b, m))


INPUTS = dict(x1=_vec(1, 1, 1), x0=_vec(5, 6, 7), xa=_vec(0.5, 1.0), wa=_vec(1.5, 2.0),
              xs=_vec(1.0, 2.0, 3.0), ws=_vec(1.2, 0.8, 1.5), a=_vec(0.3, -0.2), b=_vec(0.5, 1.1),
              n=np.int32(3), m=np.int32(0))


def _jax_references(v) -> list:
    n_affine = _trips(lambda x, w: x.sum() < 10, lambda x, w: (x * w + 1, w), v["xa"], v["wa"])
    n_sine = _trips(lambda x, w: x.sum() < 12.0, lambda x, w: (sine_step(x, w), w), v["xs"], v["ws"])
    assert n_affine >= 2 and n_sine >= 2  # the cases loop several times
    g = lambda fn, n, *xs: jax.grad(lambda *a: fn(n, *a), argnums=tuple(range(len(xs))))(*xs)  # noqa: E731
    return [np.full(3, 4.0), np.ones(3),
            *g(affine_jax, n_affine, v["xa"], v["wa"]), *g(sine_jax, n_sine, v["xs"], v["ws"]),
            *g(pair_jax, 3, v["a"], v["b"]), *g(pair_jax, 0, v["a"], v["b"])]


@pytest.fixture(scope="module")
def xla_gradients():
    return ms.jit(all_gradients)(*(Tensor(a) for a in INPUTS.values()))


def test_gradients_match_jax_of_the_unrolled_loop(xla_gradients):
    for got, want in zip(xla_gradients, _jax_references(INPUTS)):
        np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=2e-5, atol=1e-5)


def test_gradients_match_finite_differences(xla_gradients):
    def sine64(x, w):
        while x.sum() < 12.0:
            x = sine_step(x, w)
        return (x * np.cos(x)).sum()
    x, w, eps = INPUTS["xs"].astype(np.float64), INPUTS["ws"].astype(np.float64), 1e-6
    for k, arg in enumerate((x, w)):
        fd = []
        for i in range(3):
            e = np.zeros(3)
            e[i] = eps
            args_p, args_m = [x, w], [x, w]
            args_p[k], args_m[k] = arg + e, arg - e
            fd.append((sine64(*args_p) - sine64(*args_m)) / (2 * eps))
        np.testing.assert_allclose(xla_gradients[4 + k].asnumpy(), fd, rtol=1e-4)


def test_onnxruntime_gives_the_xla_gradients(xla_gradients):
    got = ms.jit(all_gradients, backend="onnx")(*(Tensor(a) for a in INPUTS.values()))
    for g, want in zip(got, xla_gradients):
        np.testing.assert_allclose(g.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


def test_gradients_measured_on_mindspore(xla_gradients):
    # Measured on MindSpore 2.10 (GRAPH_MODE, ops.grad of a jitted function / Cell).
    np.testing.assert_allclose(xla_gradients[0].asnumpy(), [4, 4, 4])          # 2 iterations
    np.testing.assert_allclose(xla_gradients[1].asnumpy(), [1, 1, 1])          # 0 iterations
    np.testing.assert_allclose(xla_gradients[2].asnumpy(), [16.3125, 56.0], rtol=1e-6)
    np.testing.assert_allclose(xla_gradients[3].asnumpy(), [18.125, 70.0], rtol=1e-6)
    counted = ms.jit(ops.grad(pair_counted))(Tensor(_vec(0.3, -0.2)), Tensor(np.int32(3)))
    np.testing.assert_allclose(counted.asnumpy(), [2.45579, 0.54854715], rtol=1e-5)


def pair_counted(x, n):
    i = Tensor(0, ms.int32)
    while i < n:
        x = x * x * 0.5 + x
        i = i + 1
    return x.sum()


# -- Parameters in the body, training ------------------------------------------------------------

class SineNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(_vec(1.2, 0.8, 1.5)), name="w")

    def construct(self, x):
        while x.sum() < 20.0:
            x = ops.sin(x) * self.w + x * 1.5
        return (x * x).sum()


# Measured on MindSpore 2.10: ops.grad(net, grad_position=0, weights=net.trainable_params())
# at x = [1, 2, 3].
MS_GRAD_X = [49.7800636, 82.9249878, 3.22763062]
MS_GRAD_W = [0.300371170, -10.1103287, -126.984451]


def test_gradient_wrt_a_parameter_read_in_the_body():
    net = SineNet()
    gx, (gw,) = ms.jit(ops.grad(net, grad_position=0, weights=net.trainable_params()))(Tensor(_vec(1, 2, 3)))
    np.testing.assert_allclose(gx.asnumpy(), MS_GRAD_X, rtol=2e-5)
    np.testing.assert_allclose(gw.asnumpy(), MS_GRAD_W, rtol=2e-5)


def test_a_training_step_through_the_loop_in_onnxruntime_matches_xla():
    x, lr = Tensor(_vec(1, 2, 3)), 0.01
    weights = {}
    for backend in ("xla", "onnx"):
        net = SineNet()
        opt = nn.SGD(net.trainable_params(), lr)
        value_and_grad = ms.value_and_grad(net, None, opt.parameters)

        def step(x):
            loss, grads = value_and_grad(x)
            opt(grads)
            return loss
        ms.jit(step, backend=backend)(x)
        weights[backend] = net.w.asnumpy()
    np.testing.assert_allclose(weights["xla"], _vec(1.2, 0.8, 1.5) - lr * np.array(MS_GRAD_W), rtol=1e-5)
    np.testing.assert_allclose(weights["onnx"], weights["xla"], rtol=1e-5, atol=1e-6)


# -- second order and vmap ------------------------------------------------------------------------

def test_grad_of_grad_matches_jax():
    def first(x):
        return ops.grad(pair_counted)(x, Tensor(np.int32(3))).sum()

    def first_jax(x):
        def f(x):
            for _ in range(3):
                x = x * x * 0.5 + x
            return x.sum()
        return jax.grad(f)(x).sum()
    x = _vec(0.3, -0.2)
    got = ms.jit(ops.grad(first))(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), jax.grad(first_jax)(x), rtol=1e-5)


def test_vmap_of_the_gradient_and_gradient_of_vmap_match_each_member():
    xs, w = np.array([[0.5, 1.0], [2.0, 3.0], [6.0, 6.0]], F32), _vec(1.5, 2.0)   # 2, 1, 0 trips

    def both(xs, w):
        per_member = ms.vmap(ops.grad(affine), in_axes=(0, None))(xs, w)
        total = ops.grad(lambda xs, w: ms.vmap(affine, in_axes=(0, None))(xs, w).sum(), grad_position=1)
        return per_member, total(xs, w)
    got, got_total = ms.jit(both)(Tensor(xs), Tensor(w))
    want_x, want_w = [], []
    for x in xs:
        n = _trips(lambda x: x.sum() < 10, lambda x: (x * w + 1,), x)
        gx, gw = jax.grad(affine_jax, argnums=(1, 2))(n, x, w)
        want_x.append(gx)
        want_w.append(gw)
    np.testing.assert_allclose(got.asnumpy(), want_x, rtol=1e-5)
    np.testing.assert_allclose(got_total.asnumpy(), np.sum(want_w, 0), rtol=1e-5)


def test_the_vjp_is_loops_not_an_unrolling():
    """`sine`'s vjp: the forward loop and counting, then a cond: for n <= C a fill and a loop
    reading every carry (`stored`); else level 0's fill and segment loop, and inside it level
    1's fill, iteration loop and replay. A linear body's vjp reads no carry, so `doubling`'s is
    one loop after the counting (no snapshots)."""
    text = str(ms.trace(ops.grad(sine), Tensor(INPUTS["xs"]), Tensor(INPUTS["ws"])).graph)
    assert text.count("while_loop(") == 9 and text.count(" = cond(") == 1
    for loop in ("count", "fill", "vjp", "vjp0", "vjp1", "replay"):
        assert f"_{loop}_body" in text
    text = str(ms.trace(ops.grad(doubling), Tensor(INPUTS["x1"])).graph)
    assert text.count("while_loop(") == 3 and "write_rows" not in text


# -- checkpoints: every regime of the snapshot buffers --------------------------------------------
# With C = 4 snapshots per buffer: n = 0 and 1, n = C, C + 1, n = C^2 (level 1 stores every
# carry) and past it (level 1 replays from its snapshots); the trip count is a Tensor, so one
# compiled gradient serves every n.

SMALL_C, TRIPS = 4, (0, 1, 2, 4, 5, 16, 17, 23)


def mixed(x, w, n):
    """Float, int32 and bool carries, each read by the body."""
    i, odd = Tensor(0, ms.int32), Tensor(False)
    while i < n:
        x = ops.select(odd, ops.sin(x) * w, x * 0.9 + w * 0.1) + ops.cast(i, ms.float32) * 0.01
        odd = ops.logical_not(odd)
        i = i + 1
    return (x * x).sum()


def mixed_jax(x, w, n):
    odd = False
    for i in range(n):
        x = (jnp.sin(x) * w if odd else x * 0.9 + w * 0.1) + i * 0.01
        odd = not odd
    return (x * x).sum()


X_MIXED, W_MIXED = _vec(0.4, -1.1, 2.0), _vec(1.3, 0.7, -0.9)


@pytest.fixture
def small_capacity(monkeypatch):
    from graphcell.ops import while_recompute_vjp
    monkeypatch.setattr(while_recompute_vjp, "MAX_SNAPSHOTS", SMALL_C)
    assert while_recompute_vjp.snapshot_capacity([]) == SMALL_C


def _mixed_reference(n, x=X_MIXED):
    return jax.grad(mixed_jax, argnums=(0, 1))(x, W_MIXED, n)


def test_checkpointed_gradients_at_every_trip_count_regime(small_capacity):
    grad = ms.jit(ops.grad(mixed, grad_position=(0, 1)))
    for n in TRIPS:
        got = grad(Tensor(X_MIXED), Tensor(W_MIXED), Tensor(np.int32(n)))
        for g, want in zip(got, _mixed_reference(n)):
            np.testing.assert_allclose(g.asnumpy(), want, rtol=2e-5, atol=1e-6, err_msg=f"n={n}")


def test_checkpointed_gradients_at_the_default_capacity_in_onnxruntime():
    """n = C and C + 1 at the capacity a small carry gets (onnxruntime: its compile is cheap)."""
    from graphcell.ir.core import TensorType
    from graphcell.ops.while_recompute_vjp import snapshot_capacity
    c = snapshot_capacity([TensorType((3,), ms.float32), TensorType((), ms.int32), TensorType((), ms.bool_)])
    grad = ms.jit(ops.grad(mixed, grad_position=(0, 1)), backend="onnx")
    for n in (c, c + 1):
        got = grad(Tensor(X_MIXED), Tensor(W_MIXED), Tensor(np.int32(n)))
        for g, want in zip(got, _mixed_reference(n)):
            np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-4, atol=1e-6, err_msg=f"n={n}")


def _per_member(xs, ns):
    grad = ops.grad(mixed, grad_position=(0, 1))
    return ms.vmap(grad, in_axes=(0, None, 0))(xs, Tensor(W_MIXED), ns)


XS_MEMBERS = np.stack([X_MIXED, X_MIXED * 0.5, X_MIXED - 0.3, X_MIXED * 1.2]).astype(F32)
NS_MEMBERS = np.array([0, 5, 17, 1], np.int32)     # each member its own trip count and regime


@pytest.mark.slow
def test_vmap_of_the_checkpointed_gradient_is_each_members(small_capacity):
    gx, gw = ms.jit(_per_member)(Tensor(XS_MEMBERS), Tensor(NS_MEMBERS))
    for k, (x, n) in enumerate(zip(XS_MEMBERS, NS_MEMBERS)):
        want_x, want_w = _mixed_reference(int(n), x)
        np.testing.assert_allclose(gx.asnumpy()[k], want_x, rtol=2e-5, atol=1e-6, err_msg=f"member {k}")
        np.testing.assert_allclose(gw.asnumpy()[k], want_w, rtol=2e-5, atol=1e-6, err_msg=f"member {k}")


def test_onnxruntime_runs_the_checkpointed_gradients(small_capacity):
    """The gradient and its vmap (members with their own trip counts) in onnxruntime, against
    jax (which the XLA tests above match: one compile fewer)."""
    def both(x, w, n, xs, ns):
        return (*ops.grad(mixed, grad_position=(0, 1))(x, w, n), *_per_member(xs, ns))
    onnx = ms.jit(both, backend="onnx")
    members = [_mixed_reference(int(n), x) for x, n in zip(XS_MEMBERS, NS_MEMBERS)]
    for n in (0, 5, 17):
        got = onnx(*(Tensor(a) for a in (X_MIXED, W_MIXED, np.int32(n), XS_MEMBERS, NS_MEMBERS)))
        want = [*_mixed_reference(n), np.stack([m[0] for m in members]), np.stack([m[1] for m in members])]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=2e-5, atol=1e-6, err_msg=f"n={n}")


@pytest.mark.slow
def test_grad_of_the_checkpointed_gradient_matches_jax(small_capacity):
    def first(x, n):
        return ops.grad(pair_counted)(x, n).sum()

    def first_jax(x, n):
        def f(x):
            for _ in range(n):
                x = x * x * 0.5 + x
            return x.sum()
        return jax.grad(f)(x).sum()
    x = _vec(0.3, -0.2)
    second = ms.jit(ops.grad(first))
    for n in (0, 6, 17):
        got = second(Tensor(x), Tensor(np.int32(n)))
        np.testing.assert_allclose(got.asnumpy(), jax.grad(first_jax)(x, n), rtol=1e-5, err_msg=f"n={n}")


def test_a_known_trip_count_beyond_the_unrolling_limit_uses_the_loops():
    from graphcell.ops.control_flow import MAX_UNROLLED_VJP
    n = MAX_UNROLLED_VJP + 4

    def f(x):
        return ops.fori_loop(0, n, lambda i, v: ops.sin(v) * 0.5 + v * 0.5, x).sum()

    def f_jax(x):
        return jax.lax.fori_loop(0, n, lambda i, v: jnp.sin(v) * 0.5 + v * 0.5, x).sum()
    x = _vec(0.3, -1.2)
    got = ms.jit(ops.grad(f))(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), jax.grad(f_jax)(x), rtol=1e-5, atol=1e-7)
