"""Tensor.register_hook against torch's Tensor.register_hook and MindSpore 2.10.

The programs are those measured on MindSpore 2.10 (CPU): in PYNATIVE_MODE and under ms.jit
it gave the same gradients and hook arguments as torch for every case here (the hook sees the
Tensor's whole gradient, also from uses before the registration; hooks run in registration
order, each on the one before's result; None keeps the gradient). Where 2.10 differs it is
said at the test. The hook logs are compared with torch's, the gradients with torch and jax.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Parameter, Tensor, nn

X = np.array([1.0, 2.0], np.float32)
Y = np.array([3.0, 4.0], np.float32)


def _cases(lib):
    """name -> f(x, y, log): the same program for graphcell's and torch's Tensors; `log`
    collects what each hook saw."""
    def rec(log, tag, scale=None, add=None):
        def hook(g):
            log.append((tag, np.asarray(g.detach() if lib is torch else g.asnumpy()).tolist()))
            if scale is not None:
                return g * scale
            if add is not None:
                return g + add
            return None
        return hook

    def replace(x, y, log):
        z = x * y
        z.register_hook(rec(log, "z", scale=2))
        return (z * y).sum()

    def observe(x, y, log):
        z = x * y
        z.register_hook(rec(log, "z"))
        return (z * y).sum()

    def two_in_order(x, y, log):
        z = x * y
        z.register_hook(rec(log, "a", scale=2))
        z.register_hook(rec(log, "b", add=1))
        return (z * y).sum()

    def after_use(x, y, log):   # registered after z's first use: it still sees both uses
        z = x * 2
        w = z * z
        z.register_hook(rec(log, "z", scale=3))
        return (w + z * y).sum()

    def on_input(x, y, log):
        x.register_hook(rec(log, "x", scale=10))
        return (x * y).sum()

    def on_output(x, y, log):
        z = (x * y).sum()
        z.register_hook(rec(log, "out", scale=3))
        return z

    def no_gradient_there(x, y, log):   # y gets no gradient (grad_position=0): its hook never runs
        z = y * 2
        z.register_hook(rec(log, "z", scale=3))
        return (x * z).sum()

    return {f.__name__: f for f in (replace, observe, two_in_order, after_use, on_input, on_output,
                                    no_gradient_there)}


def _torch(name):
    log = []
    x, y = torch.tensor(X, requires_grad=True), torch.tensor(Y, requires_grad=True)
    out = _cases(torch)[name](x, y, log)
    gx, = torch.autograd.grad(out, [x])
    return gx.numpy(), log


@pytest.mark.parametrize("jitted", [False, True], ids=["pynative", "jit"])
@pytest.mark.parametrize("name", list(_cases(torch)))
def test_hooks_match_torch(name, jitted):
    log = []
    f = _cases(ms)[name]
    fn = lambda x, y: f(x, y, log)  # noqa: E731
    gx = ms.grad(ms.jit(fn) if jitted else fn, grad_position=0)(Tensor(X), Tensor(Y))
    want, want_log = _torch(name)
    np.testing.assert_allclose(gx.asnumpy(), want)
    assert log == want_log


def test_measured_mindspore_numbers():
    # MindSpore 2.10's docstring example and two measured programs (PYNATIVE and ms.jit alike)
    gx, gy = ms.grad(lambda x, y: _cases(ms)["replace"](x, y, []), grad_position=(0, 1))(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(gx.asnumpy(), [18.0, 32.0])
    np.testing.assert_allclose(gy.asnumpy(), [9.0, 24.0])
    log = []
    gx, gy = ms.grad(lambda x, y: _cases(ms)["two_in_order"](x, y, log), grad_position=(0, 1))(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(gx.asnumpy(), [21.0, 36.0])
    np.testing.assert_allclose(gy.asnumpy(), [10.0, 26.0])
    assert log == [("a", [3.0, 4.0]), ("b", [6.0, 8.0])]


def test_a_hook_registered_outside_stays_until_removed():
    seen = []
    x = Tensor(X)
    handle = x.register_hook(lambda g: seen.append(g.asnumpy().tolist()) or g * 10)
    f = lambda a, b: (a * b).sum()  # noqa: E731
    gx, gy = ms.grad(f, grad_position=(0, 1))(x, Tensor(Y))
    np.testing.assert_allclose(gx.asnumpy(), 10 * Y)   # MindSpore 2.10: [30, 40]
    np.testing.assert_allclose(gy.asnumpy(), X)
    np.testing.assert_allclose(ms.grad(ms.jit(f))(x, Tensor(Y)).asnumpy(), 10 * Y)
    assert seen == [[3.0, 4.0]] * 2
    handle.remove()
    handle.remove()   # a second remove() is a no-op
    np.testing.assert_allclose(ms.grad(f)(x, Tensor(Y)).asnumpy(), Y)
    assert len(seen) == 2


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")

    def construct(self, x):
        return (self.w * x).sum()


def test_parameter_hooks_scale_the_weights_gradient():
    net, seen = Scale(), []
    handle = net.w.register_hook(lambda g: seen.append(g.asnumpy().tolist()) or g * 100)
    x = Tensor(np.array([1.0, 5.0], np.float32))
    # MindSpore 2.10 (PYNATIVE and GRAPH_MODE): gx [2, 3], gw [100, 500]; the hook saw [1, 5]
    gx, (gw,) = ms.grad(net, grad_position=0, weights=net.trainable_params())(x)
    np.testing.assert_allclose(gx.asnumpy(), [2.0, 3.0])
    np.testing.assert_allclose(gw.asnumpy(), [100.0, 500.0])
    loss, (gw,) = ms.jit(ms.value_and_grad(net, grad_position=None, weights=net.trainable_params()))(x)
    assert float(loss) == 17.0
    np.testing.assert_allclose(gw.asnumpy(), [100.0, 500.0])
    assert seen == [[1.0, 5.0]] * 2
    # no gradient for the weights asked: the hook does not run (2.10 too)
    np.testing.assert_allclose(ms.grad(net, grad_position=0)(x).asnumpy(), [2.0, 3.0])
    assert len(seen) == 2
    handle.remove()
    _, (gw,) = ms.jit(ms.value_and_grad(net, grad_position=None, weights=net.trainable_params()))(x)
    np.testing.assert_allclose(gw.asnumpy(), [1.0, 5.0])   # the jitted step was retraced without it


def test_hook_under_vmap_of_grad_sees_each_members_gradient():
    seen = []

    def f(x):
        z = x * 2
        z.register_hook(lambda g: seen.append(g.asnumpy().tolist()) or g * 3)
        return (z * z).sum()

    xs = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    got = ms.vmap(ms.grad(f))(Tensor(xs))
    want = jax.vmap(jax.grad(lambda x: jnp.sum((2 * x) ** 2)))(xs) * 3
    np.testing.assert_allclose(got.asnumpy(), want)
    assert seen == [[4.0, 8.0], [12.0, 16.0]]


def test_errors():
    with pytest.raises(TypeError, match=r"^Expected a callable hook function, but got int\.$"):   # 2.10's words
        Tensor(X).register_hook(3)

    def returns(value):
        def f(x):
            z = x * 2
            z.register_hook(lambda g: value)
            return z.sum()
        return f
    with pytest.raises(RuntimeError, match="Tensor hook should be return Tensor, but get type: float"):   # 2.10's
        ms.grad(returns(5.0))(Tensor(X))
    # 2.10 takes a gradient of another shape and gives garbage ([2, 4, 6] here); torch refuses it too
    with pytest.raises(ValueError, match=r"returned a gradient of shape \[3\] Float32 for a Tensor of shape \[2\]"):
        ms.grad(returns(Tensor(np.ones(3, np.float32))))(Tensor(X))

    def square(x):
        z = x * 2
        z.register_hook(lambda g: None)
        return (z * z).sum()
    # (2.10 differentiates through the hook: its second pass calls the hook again)
    with pytest.raises(NotImplementedError, match=r"second-order gradient through the backward hooks of a Tensor"):
        ms.grad(ms.grad(square))(Tensor(X))
    # an integer Tensor gets no gradient: 2.10 takes the hook, which never runs
    Tensor(np.array([1, 2], np.int32)).register_hook(lambda g: g)


def test_graph_export_and_pipeline(tmp_path):
    from graphcell.frontend.trace import trace
    from graphcell.passes.manager import run_pipeline

    def scale(g):
        return g * 2

    def f(x):
        z = x * x
        z.register_hook(scale)
        return z.sum()
    text = str(trace(f, Tensor(X)).graph)
    assert "%1:f32[2] = tensor_hook(%0) {site=<Tensor hook scale>}" in text
    assert "tensor_hook" not in str(run_pipeline(trace(f, Tensor(X)).graph, "xla").graph)
    # the marker alone is an identity; the backward pass runs Python: no ONNX form, so
    # jit(backend="onnx") runs the hook on the host between two models (onnx_host_calls.py)
    with pytest.raises(Exception, match="backward_hook"):
        ms.export(ms.grad(f), Tensor(X), file_name=str(tmp_path / "g"), file_format="ONNX")
    np.testing.assert_array_equal(ms.jit(ms.grad(f), backend="onnx")(Tensor(X)).asnumpy(), X * 2 * 2)
    np.testing.assert_allclose(ms.jit(f, backend="onnx")(Tensor(X)).asnumpy(), 5.0)
