"""An eager (PYNATIVE) grad runs the function's Python on this call's values, as MindSpore's
PYNATIVE grad does: a tensor `if`, a `while` on a tensor, `range` of a tensor, `x.item()`
and `x.asnumpy()` follow the values, and the gradient is the taken path's. References:
jax.grad of the same Python (jax's grad, unjitted, also runs Python on values) and
MindSpore 2.10's value_and_grad, measured (PYNATIVE, CPU)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops

INPUTS = [[1.0, 2.0], [-1.0, -2.0], [0.5, 0.25]]


def branch(x):
    if x.sum() > 0:
        return (x * x).sum()
    return (x * 3).sum()


def doubling(x):
    while abs(x).sum() < 10:
        x = x * 2
    return x.sum()


def squaring_with_break(x):
    i = 0
    while x.max() < 5:
        x = x * x + 1
        i += 1
        if i > 3:
            break
    return (x * i).sum()


def tensor_range(x):
    n = (x.sum() > 0).astype(ms.int32) + 2
    y = x
    for _ in range(n):
        y = y * x
    return y.sum()


def jax_tensor_range(x):
    y = x
    for _ in range(int(x.sum() > 0) + 2):
        y = y * x
    return y.sum()


def host_value(x):
    return x.sum() * (2.0 if x.max().item() > 1 else 3.0)


def numpy_constant(x):
    s = float(x.sum().asnumpy())   # a constant: no gradient flows through numpy (MindSpore's too)
    return (x * s).sum()


def jax_numpy_constant(x):
    return (x * float(jax.lax.stop_gradient(x.sum()))).sum()


CASES = [(branch, branch), (doubling, doubling), (squaring_with_break, squaring_with_break),
         (tensor_range, jax_tensor_range), (host_value, host_value), (numpy_constant, jax_numpy_constant)]


@pytest.mark.parametrize("fn,jax_fn", CASES, ids=[c[0].__name__ for c in CASES])
@pytest.mark.parametrize("values", INPUTS)
def test_python_control_flow_on_values_matches_jax_grad(fn, jax_fn, values):
    x = np.array(values, np.float32)
    value, grad = ms.value_and_grad(fn)(Tensor(x))
    want_value, want_grad = jax.value_and_grad(jax_fn)(jnp.asarray(x))
    np.testing.assert_allclose(value.asnumpy(), want_value, rtol=1e-6)
    np.testing.assert_allclose(grad.asnumpy(), want_grad, rtol=1e-6)


# MindSpore 2.10's value_and_grad (PYNATIVE, CPU), measured on INPUTS
MINDSPORE = {
    "doubling": [(12.0, [4.0, 4.0]), (-12.0, [4.0, 4.0]), (12.0, [16.0, 16.0])],
    "squaring_with_break": [(7.0, [2.0, 4.0]), (7.0, [-2.0, -4.0]), (39.29594421386719, [38.4375, 13.57177734375])],
    "tensor_range": [(17.0, [4.0, 32.0]), (-9.0, [3.0, 12.0]), (0.06640625, [0.5, 0.0625])],
    "numpy_constant": [(9.0, [3.0, 3.0]), (9.0, [-3.0, -3.0]), (0.5625, [0.75, 0.75])],
}


@pytest.mark.parametrize("name", sorted(MINDSPORE))
def test_values_and_gradients_are_mindspores(name):
    fn = globals()[name]
    for values, (want_value, want_grad) in zip(INPUTS, MINDSPORE[name]):
        value, grad = ms.value_and_grad(fn)(Tensor(np.array(values, np.float32)))
        np.testing.assert_allclose(value.asnumpy(), want_value, rtol=1e-6)
        np.testing.assert_allclose(grad.asnumpy(), want_grad, rtol=1e-6)


class Branch(nn.Cell):
    def construct(self, x):
        return branch(x) if x.sum() > 0 else branch(-x) * 2


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Branch()

    def construct(self, x):
        return self.inner(x) * 2


class Loop(nn.Cell):
    """A while on a value that depends on a Parameter."""

    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.array([1.5, 0.5], np.float32)), name="p")

    def construct(self, x):
        y = x * self.p
        while y.sum() < 10:
            y = y * self.p + 1
        return y.sum()


def test_cells_nested_cells_and_weights():
    def jax_branch(x):
        return branch(x) if x.sum() > 0 else branch(-x) * 2

    for values in INPUTS:
        x = np.array(values, np.float32)
        got = ms.grad(Outer())(Tensor(x)).asnumpy()
        np.testing.assert_allclose(got, jax.grad(lambda v: jax_branch(v) * 2)(jnp.asarray(x)), rtol=1e-6)

    def jax_loop(x, p):
        y = x * p
        while y.sum() < 10:
            y = y * p + 1
        return y.sum()
    net = Loop()
    x = np.array([0.5, 0.25], np.float32)
    got_x, got_p = ms.grad(net, 0, net.trainable_params())(Tensor(x))
    want_x, want_p = jax.grad(jax_loop, (0, 1))(jnp.asarray(x), jnp.asarray([1.5, 0.5], jnp.float32))
    np.testing.assert_allclose(got_x.asnumpy(), want_x, rtol=1e-6)
    np.testing.assert_allclose(got_p[0].asnumpy(), want_p, rtol=1e-6)
    # MindSpore 2.10, measured: the weight gradient
    np.testing.assert_allclose(got_p[0].asnumpy(), [23.40625, 2.828125], rtol=1e-6)


def test_each_call_takes_its_own_path():
    """One grad function over inputs whose loops run different numbers of times: each call's
    graph is its own path (the backward graphs are kept per forward graph)."""
    g = ms.grad(doubling)
    for scale in (1.0, 0.1, 1.0, 0.01, 0.1):
        x = np.array([scale, 2 * scale], np.float32)
        np.testing.assert_allclose(g(Tensor(x)).asnumpy(), jax.grad(doubling)(jnp.asarray(x)), rtol=1e-6)


def test_grad_of_grad_runs_python_on_values():
    def f(x):
        if x.sum() > 0:
            return (x ** 3).sum()
        return (x ** 2).sum()
    for values in INPUTS:
        x = np.array(values, np.float32)
        got = ms.grad(lambda v: ms.grad(f)(v).sum())(Tensor(x)).asnumpy()
        want = jax.grad(lambda v: jax.grad(f)(v).sum())(jnp.asarray(x))
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_under_jit_and_vmap_conditions_stay_graph_control_flow():
    """jit knows no values: a tensor `if` is a cond node, whose gradient follows each call's
    values; a per-member condition under vmap inside an eager grad is a cond too."""
    g = ms.jit(ms.grad(branch))
    for values in INPUTS:
        x = np.array(values, np.float32)
        np.testing.assert_allclose(g(Tensor(x)).asnumpy(), jax.grad(branch)(jnp.asarray(x)), rtol=1e-6)
    rows = np.array(INPUTS, np.float32)
    got = ms.grad(lambda r: ms.vmap(branch)(r).sum())(Tensor(rows)).asnumpy()
    want = np.stack([jax.grad(branch)(jnp.asarray(r)) for r in rows])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_masked_select_under_an_eager_grad_carries_the_gradient():
    """Its output shape depends on the values, so it runs on the host; under an eager grad its
    elements are gathered from the input. MindSpore 2.10, measured: [[2, 0], [6, 0]]."""
    x = Tensor(np.array([[1.0, -2.0], [3.0, -4.0]], np.float32))
    got = ms.grad(lambda v: (ops.masked_select(v, v > 0) ** 2).sum())(x)
    np.testing.assert_array_equal(got.asnumpy(), [[2.0, 0.0], [6.0, 0.0]])
    with pytest.raises(ms.frontend.tracer.GraphModeError, match="depends on the input's values"):
        ms.jit(ms.grad(lambda v: ops.masked_select(v, v > 0).sum()))(x)
