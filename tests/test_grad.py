"""grad / value_and_grad: MindSpore 2.10's result conventions, the pass on composites
(finite differences, LeNet5 against jax.grad), and grad inside jit / construct / vmap."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.api.grad import grad, value_and_grad
from tests.conftest import golden_array, load_lenet

T = ms.Tensor


def _x(*shape, seed=0, dtype=np.float32):
    return T(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


class Lin(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(T(np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)), name="w")
        self.b = ms.Parameter(T(np.array([0.5, -0.5], np.float32)), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


# -- result structure (MINDSPORE_NOTES.md section 6) ------------------------------------------

def f2(x, y):
    return (x * x * y).sum()


def test_int_position_and_one_tuple_give_a_bare_gradient():
    x, y = _x(3), _x(3, seed=1)
    g0 = grad(f2)(x, y)
    g1 = grad(f2, (0,))(x, y)
    assert isinstance(g0, ms.Tensor) and isinstance(g1, ms.Tensor)
    expected = 2 * x.asnumpy() * y.asnumpy()
    np.testing.assert_allclose(g0.asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(g1.asnumpy(), expected, rtol=1e-6)


def test_longer_tuple_gives_a_tuple():
    x, y = _x(3), _x(3, seed=1)
    gx, gy = grad(f2, (0, 1))(x, y)
    np.testing.assert_allclose(gy.asnumpy(), x.asnumpy() ** 2, rtol=1e-6)
    gy2, gx2 = grad(f2, (1, -2))(x, y)
    np.testing.assert_allclose(gx2.asnumpy(), gx.asnumpy())


def test_weights_list_tuple_and_single_parameter():
    net, x = Lin(), _x(4, 2)
    ref_w = jax.grad(lambda w, b: jnp.sum(x.asnumpy() @ w + b), argnums=(0, 1))(net.w.asnumpy(), net.b.asnumpy())
    gw, gb = grad(net, None, ms.ParameterTuple([net.w, net.b]))(x)
    np.testing.assert_allclose(gw.asnumpy(), ref_w[0], rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), ref_w[1], rtol=1e-6)
    (only_w,) = grad(net, None, [net.w])(x)
    np.testing.assert_allclose(only_w.asnumpy(), ref_w[0], rtol=1e-6)
    bare = grad(net, None, net.b)(x)
    assert isinstance(bare, ms.Tensor)
    np.testing.assert_allclose(bare.asnumpy(), ref_w[1], rtol=1e-6)


def test_position_and_weights_give_a_pair():
    net, x = Lin(), _x(4, 2)
    gx, (gw, gb) = grad(net, 0, net.trainable_params())(x)
    np.testing.assert_allclose(gx.asnumpy(), np.tile(net.w.asnumpy().sum(1), (4, 1)), rtol=1e-6)
    assert gw.shape == (2, 2) and gb.shape == (2,)


def test_several_outputs_are_summed_and_has_aux_differentiates_output_0():
    x = _x(3)

    def fn(x):
        return x * x, ops.sin(x), x * 3

    np.testing.assert_allclose(grad(fn)(x).asnumpy(), 2 * x.asnumpy() + np.cos(x.asnumpy()) + 3, rtol=1e-6)
    g, aux = grad(fn, has_aux=True)(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy(), rtol=1e-6)
    assert isinstance(aux, tuple) and len(aux) == 2
    np.testing.assert_allclose(aux[0].asnumpy(), np.sin(x.asnumpy()), rtol=1e-6)
    (out, aux1, aux2), g2 = value_and_grad(fn, has_aux=True)(x)
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() ** 2, rtol=1e-6)
    np.testing.assert_allclose(g2.asnumpy(), g.asnumpy())
    single_aux = grad(lambda x: (x * x, x), has_aux=True)(x)[1]
    assert isinstance(single_aux, tuple) and len(single_aux) == 1


def test_value_and_grad_and_return_ids_and_sens():
    net, x = Lin(), _x(4, 2)
    value, (gx, gw) = value_and_grad(net, 0, [net.w], return_ids=True)(x)
    np.testing.assert_allclose(value.asnumpy(), x.asnumpy() @ net.w.asnumpy() + net.b.asnumpy(), rtol=1e-6)
    assert gx[0] == 0 and gw[0][0] == "w"
    sens = _x(4, 2, seed=3)
    g = grad(net, 0, sens_param=True)(x, sens)
    np.testing.assert_allclose(g.asnumpy(), sens.asnumpy() @ net.w.asnumpy().T, rtol=1e-5)


def test_unused_weight_gets_zeros():
    net, x = Lin(), _x(4, 2)
    other = ms.Parameter(T(np.ones((3,), np.float32)), name="other")
    gw, go = grad(net, None, [net.w, other])(x)
    np.testing.assert_array_equal(go.asnumpy(), np.zeros(3, np.float32))


# -- errors ------------------------------------------------------------------------------------

def test_grad_position_none_without_weights():
    with pytest.raises(ValueError, match="`grad_position` and `weight` can not be None at the same time."):
        grad(f2, None)


def test_integer_input_says_so():
    def loss(x, labels):
        return (x * ops.cast(labels, ms.float32)).sum()

    x, labels = _x(3), T(np.array([1, 2, 3], np.int32))
    with pytest.raises(TypeError, match=r"argument 1 \('labels'\).*Int32.*floating-point"):
        grad(loss, (0, 1))(x, labels)
    np.testing.assert_allclose(grad(loss)(x, labels).asnumpy(), [1, 2, 3])


def test_bad_position_and_has_aux_without_tuple():
    with pytest.raises(IndexError, match="grad_position 2 is out of range"):
        grad(f2, 2)(_x(3), _x(3))
    with pytest.raises(ValueError, match="must return a tuple"):
        grad(lambda x: x * 2, has_aux=True)(_x(3))


# -- kinks: MindSpore's ReluGrad / ReLU6Grad / EluGrad / LeakyReLU, torch's autograd -------------

KINKS = np.array([-2.0, -0.0, 0.0, 1e-7, 3.0, 6.0, 6.5], np.float32)


@pytest.mark.parametrize("cell,torch_fn,rtol", [(nn.ReLU(), "relu", 0), (nn.ELU(), "elu", 1e-6)])  # ELU: exp's last bit
def test_activation_gradients_at_the_kinks_match_mindspore_and_torch(cell, torch_fn, rtol):
    """0 at ReLU's kink, alpha at ELU's (max/min's balanced tie rule gave half)."""
    torch = pytest.importorskip("torch")
    want = torch.tensor(KINKS, requires_grad=True)
    getattr(torch.nn.functional, torch_fn)(want).sum().backward()
    for fn in (grad(lambda v: cell(v).sum()), ms.jit(grad(lambda v: cell(v).sum()))):
        np.testing.assert_allclose(fn(T(KINKS)).asnumpy(), want.grad.numpy(), rtol=rtol, atol=0)


@pytest.mark.parametrize("cell,want", [
    # Measured on MindSpore 2.10 (CPU) with mindspore.grad over these inputs: ReLU6Grad is 1 at
    # x = 6 (torch and jax give 0 there); LeakyReLU gives (1 + alpha) / 2 at 0 (torch: alpha).
    (nn.ReLU6(), [0, 0, 0, 1, 1, 1, 0]),
    (nn.LeakyReLU(0.2), [0.2, 0.6, 0.6, 1, 1, 1, 1]),
    (nn.LeakyReLU(2.0), [2.0, 1.5, 1.5, 1, 1, 1, 1]),
    # clamp and Tensor.clip pass the gradient at the limits; clip_by_value and hardtanh halve it
    (lambda v: ms.ops.clamp(v, 0.0, 6.0), [0, 1, 1, 1, 1, 1, 0]),
    (lambda v: v.clip(0.0, 6.0), [0, 1, 1, 1, 1, 1, 0]),
    (lambda v: ms.ops.clamp(v, min=0.0), [0, 1, 1, 1, 1, 1, 1]),
    (lambda v: ms.ops.clip_by_value(v, 0.0, 6.0), [0, 0.5, 0.5, 1, 1, 0.5, 0]),
    (lambda v: ms.ops.hardtanh(v, 0.0, 6.0), [0, 0.5, 0.5, 1, 1, 0.5, 0])])
def test_activation_gradients_at_the_kinks_match_mindspore(cell, want):
    for fn in (grad(lambda v: cell(v).sum()), ms.jit(grad(lambda v: cell(v).sum()))):
        np.testing.assert_array_equal(fn(T(KINKS)).asnumpy(), np.array(want, np.float32))


# -- the pass on composites ---------------------------------------------------------------------

def _finite_difference(fn, x, eps=1e-6):
    x = x.copy()
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        hi = fn(x)
        x[i] = old - eps
        lo = fn(x)
        x[i] = old
        g[i] = (hi - lo) / (2 * eps)
    return g


COMPOSITES = {
    "softmax_ce": lambda x: nn.SoftmaxCrossEntropyWithLogits(reduction="mean")(x, T(np.eye(4, 5, dtype=np.float64))),
    "layernorm_like": lambda x: ((x - x.mean(-1, True)) * ops.rsqrt(ops.var(x, -1, keepdims=True) + 1e-5)).sum()
    * x[0, 0],
    "gelu_pool": lambda x: ops.max_pool(ops.reshape(ops.gelu(x), (1, 1, 4, 5)), (1, 1, 2, 2), (1, 1, 1, 2),
                                        ((0, 0), (0, 0), (0, 0), (0, 1))).sum(),
    "logsumexp_getitem": lambda x: ops.logsumexp(x[1:, ::2], 0).sum() + (ops.stack([x, x * 2]) ** 2).sum(),
}


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_composites_match_finite_differences_in_float64(name):
    fn = COMPOSITES[name]
    x = np.random.default_rng(1).standard_normal((4, 5))
    got = grad(fn)(T(x)).asnumpy()
    assert got.dtype == np.float64
    expected = _finite_difference(lambda a: float(fn(T(a)).asnumpy()), x)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def _jax_lenet(params, x, labels):
    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "VALID")

    def pool(x):
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    relu = lambda v: jnp.maximum(v, 0)  # noqa: E731
    x = pool(relu(conv(x, params["conv1.weight"])))
    x = pool(relu(conv(x, params["conv2.weight"])))
    x = x.reshape(x.shape[0], -1)
    x = relu(x @ params["fc1.weight"].T + params["fc1.bias"])
    x = relu(x @ params["fc2.weight"].T + params["fc2.bias"])
    logits = x @ params["fc3.weight"].T + params["fc3.bias"]
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], 1))


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_lenet_loss_gradient_matches_jax(mode):
    net = load_lenet(1)
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    x, y = golden_array("train_images.npy")[1], golden_array("train_labels.npy")[1]
    weights = ms.ParameterTuple(net.trainable_params())
    fn = value_and_grad(loss, None, weights)
    if mode == "jit":
        fn = ms.jit(fn)
    value, grads = fn(T(x), T(y))
    params = {n: p.asnumpy() for n, p in net.parameters_and_names()}
    ref_value, ref = jax.value_and_grad(_jax_lenet)(params, x, y)
    np.testing.assert_allclose(value.asnumpy(), ref_value, rtol=1e-5)
    for (name, _), g in zip(net.parameters_and_names(), grads):
        np.testing.assert_allclose(g.asnumpy(), ref[name], rtol=1e-4, atol=1e-6, err_msg=name)


def test_grad_inside_construct_and_jit_and_bn_statistics_update():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(3)
            self.dense = nn.Dense(3, 2)

        def construct(self, x):
            return self.dense(self.bn(x)).sum()

    net = Net()
    net.set_train()
    x = _x(4, 3)

    class Outer(nn.Cell):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def construct(self, x):
            return grad(self.inner, 0)(x) * 2

    before = net.bn.moving_mean.asnumpy().copy()
    eager_g = grad(net, 0)(x).asnumpy()
    after_one = net.bn.moving_mean.asnumpy().copy()
    np.testing.assert_allclose(after_one, 0.9 * before + 0.1 * x.asnumpy().mean(0), rtol=1e-5)
    jit_g = ms.jit(Outer(net))(x).asnumpy()
    # The exact gradient is zero (the sum of a normalised batch does not depend on x): both paths
    # return rounding noise, so the comparison needs an absolute tolerance.
    np.testing.assert_allclose(jit_g, 2 * eager_g, rtol=1e-5, atol=1e-6)
    assert np.abs(eager_g).max() < 1e-6
    assert not np.allclose(net.bn.moving_mean.asnumpy(), after_one)  # the jitted call updated it too


def test_eager_calls_trace_every_time_and_reuse_the_backward_graph():
    calls = []

    def fn(x):
        calls.append(1)
        return (x * x).sum()

    g = grad(fn)
    g(_x(3))
    g(_x(3, seed=2))
    assert len(calls) == 2 and len(g.cache) == 1   # traced twice (PYNATIVE), built once
    g(_x(4))
    assert len(calls) == 3 and len(g.cache) == 2


def test_per_example_gradients_under_vmap():
    vmap = ms.vmap
    w = np.random.default_rng(2).standard_normal((3,)).astype(np.float32)
    xs = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)

    def loss(w, x):
        return ops.tanh((w * x).sum())

    got = vmap(grad(loss), in_axes=(None, 0))(T(w), T(xs))
    ref = jax.vmap(jax.grad(lambda w, x: jnp.tanh((w * x).sum())), in_axes=(None, 0))(w, xs)
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_eager_grad_reads_python_values_anew_on_every_call():
    """PYNATIVE grad cached its trace per input signature, so a closure's float, a dict entry
    or an array changed in place kept their first values (MindSpore 2.10 gives today's:
    [3, 3], [2, 4] and [5, 5] below); the compiled backward graph is still reused while the
    trace is the same graph."""
    x = T(np.array([1.0, 2.0], np.float32))
    config = {"scale": 2.0, "power": 1.0}
    weights = np.ones(2, np.float32)

    def f(a):
        return (a * config["scale"]).sum() + (a ** config["power"]).sum() + (a * T(weights)).sum()

    g = grad(f)
    np.testing.assert_allclose(g(x).asnumpy(), [4.0, 4.0])
    config["scale"], config["power"] = 3.0, 2.0
    weights[:] = 5.0
    np.testing.assert_allclose(g(x).asnumpy(), [3.0 + 2.0 + 5.0, 3.0 + 4.0 + 5.0])
    entries = len(g.cache)
    g(x)
    assert len(g.cache) == entries == 2   # the same trace: the same backward graph, not a new one
