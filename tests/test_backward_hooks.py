"""Cell.register_backward_hook / register_backward_pre_hook against MindSpore 2.10.

Every expected hook argument and gradient below is what MindSpore 2.10 (CPU, PYNATIVE_MODE)
printed for the same program; the gradients are also checked against jax.grad. MindSpore
2.10 runs the hooks in graph mode too (compiled into the graph), with the same values; graphcell
runs them on the host, on the gradients' values, in every mode.
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn

X = np.array([1.0, 2.0], np.float32)
Y = np.array([5.0, 7.0], np.float32)
W = np.array([2.0, 3.0], np.float32)


class Mul3(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W), name="w")

    def construct(self, x, y):
        return x * y * self.w


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = Mul3()

    def construct(self, x, y):
        return (self.net(x, y) * 3).sum()


class Square(nn.Cell):
    def construct(self, x):
        return x * x


def values(grads):
    """Hook arguments as nested lists (None kept), to compare with the recorded ones."""
    return tuple(None if g is None else g.asnumpy().tolist() for g in grads)


def jax_grads(scale_out=1.0, scale_x=1.0, scale_y=1.0):
    """jax.grad of Outer, with the Cell's output gradient and its inputs' gradients scaled as
    a hook that multiplies them does."""
    @jax.custom_vjp
    def cell(x, y, w):
        return x * y * w

    def fwd(x, y, w):
        return cell(x, y, w), (x, y, w)

    def bwd(res, g):
        x, y, w = res
        g = g * scale_out
        return g * y * w * scale_x, g * x * w * scale_y, g * x * y

    cell.defvjp(fwd, bwd)
    return jax.grad(lambda x, y, w: (cell(x, y, w) * 3).sum(), argnums=(0, 1, 2))(X, Y, W)


def run_grad(fn, mode, *args, **kwargs):
    grad_fn = ms.grad(fn, **kwargs)
    if mode == "jit":
        grad_fn = ms.jit(grad_fn)
    return grad_fn(*[Tensor(a) for a in args])


MODES = ["pynative", "jit"]


@pytest.mark.parametrize("mode", MODES)
def test_hooks_see_the_gradients_mindspore_gives(mode):
    outer, seen = Outer(), []
    outer.net.register_backward_pre_hook(lambda cell, go: seen.append(("pre", type(cell).__name__, values(go))))
    outer.net.register_backward_hook(lambda cell, gi, go: seen.append(("post", values(gi), values(go))))
    gx, gy, gw = jax_grads()
    (dx, dy), (dw,) = run_grad(outer, mode, X, Y, grad_position=(0, 1), weights=outer.trainable_params())
    # measured: pre (3, 3); post grad_input ([30, 63], [6, 18]); gradients (30, 63), (6, 18), (15, 42)
    assert seen == [("pre", "Mul3", ([3.0, 3.0],)), ("post", ([30.0, 63.0], [6.0, 18.0]), ([3.0, 3.0],))]
    for got, want, measured in [(dx, gx, [30, 63]), (dy, gy, [6, 18]), (dw, gw, [15, 42])]:
        np.testing.assert_allclose(got.asnumpy(), want)
        np.testing.assert_allclose(got.asnumpy(), measured)


@pytest.mark.parametrize("mode", MODES)
def test_a_hooks_result_replaces_the_gradients(mode):
    # post: grad_input replaced, the weight's gradient untouched (measured (300, 630), (0, 0), (15, 42))
    outer = Outer()
    outer.net.register_backward_hook(lambda cell, gi, go: (gi[0] * 10, gi[1] * 0))
    got = run_grad(outer, mode, X, Y, grad_position=(0, 1), weights=outer.trainable_params())
    for g, want in zip([*got[0], *got[1]], jax_grads(scale_x=10.0, scale_y=0.0)):
        np.testing.assert_allclose(g.asnumpy(), want)
    # pre: grad_output replaced, which every gradient behind it follows, weights included (x100)
    # and the post hook sees the new one (measured: grad_output (300, 300))
    outer, seen = Outer(), []
    outer.net.register_backward_pre_hook(lambda cell, go: go[0] * 100)   # one Tensor: a 1-tuple
    outer.net.register_backward_hook(lambda cell, gi, go: seen.append(values(go)))
    got = run_grad(outer, mode, X, Y, grad_position=(0, 1), weights=outer.trainable_params())
    for g, want in zip([*got[0], *got[1]], jax_grads(scale_out=100.0)):
        np.testing.assert_allclose(g.asnumpy(), want)
    assert seen == [([300.0, 300.0],)]


def test_graph_mode_runs_the_hooks_on_every_call():
    outer, seen = Outer(), []
    outer.net.register_backward_hook(lambda cell, gi, go: seen.append(values(gi)) or (gi[0] * 10, gi[1]))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        grad_fn = ms.grad(outer)
        for _ in range(2):
            np.testing.assert_allclose(grad_fn(Tensor(X), Tensor(Y)).asnumpy(), [300.0, 630.0])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert seen == [([30.0, 63.0], [6.0, 18.0])] * 2


def test_grad_input_has_a_slot_per_positional_tensor():
    """Measured on MindSpore 2.10: Python values and keyword arguments have no slot, an integer
    Tensor's is None, an input without a gradient (data, when only weights are differentiated)
    is None; an output no gradient reaches is None in grad_output."""
    seen = []

    def post(cell, gi, go):
        seen.append((values(gi), values(go)))

    class Scale(nn.Cell):
        def construct(self, x, k, flag=True):
            return x * k if flag else x

    scale = Scale()
    scale.register_backward_hook(post)
    x, y = Tensor(X), Tensor(Y)
    ms.grad(lambda a: scale(a, 3, flag=True).sum())(x)
    ms.grad(lambda a, b: scale(a, k=b).sum(), grad_position=(0, 1))(x, y)
    ms.grad(lambda a: scale(a, Tensor(np.array([2, 3], np.int32))).sum())(x)
    assert seen == [(([3.0, 3.0],), ([1.0, 1.0],)), (([5.0, 7.0],), ([1.0, 1.0],)),
                    (([2.0, 3.0], None), ([1.0, 1.0],))]

    class Weighted(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(W), name="w")

        def construct(self, x):
            return x * self.w

    seen.clear()
    weighted = Weighted()
    weighted.register_backward_hook(post)
    (dw,) = ms.grad(lambda a: weighted(a).sum(), grad_position=None, weights=weighted.trainable_params())(x)
    assert seen == [((None,), ([1.0, 1.0],))] and dw.asnumpy().tolist() == [1.0, 2.0]

    class Two(nn.Cell):
        def construct(self, x, y):
            return x * 2, y * 3

    seen.clear()
    two = Two()
    two.register_backward_hook(post)
    dx, dy = ms.grad(lambda a, b: two(a, b)[0].sum(), grad_position=(0, 1))(x, y)
    assert seen == [(([2.0, 2.0], None), ([1.0, 1.0], None))]
    assert dy.asnumpy().tolist() == [0.0, 0.0]

    class Pair(nn.Cell):   # no Tensor argument at all: (None,)
        def construct(self, xs):
            return xs[0] * xs[1]

    seen.clear()
    pair = Pair()
    pair.register_backward_hook(post)
    ms.grad(lambda a, b: pair((a, b)).sum(), grad_position=(0, 1))(x, y)
    assert seen == [((None,), ([1.0, 1.0],))]


def test_hooks_run_in_backward_order():
    """Measured: an outer Cell's pre hook, the inner's pre and post, the outer's post; a Cell
    called twice runs its hooks for the later call first; hooks chain, each seeing the previous
    one's result; no hook runs where no gradient flows."""
    order = []

    class Nest(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Square()

        def construct(self, x):
            return self.inner(x) * 2

    nest = Nest()
    for cell in (nest, nest.inner):
        name = type(cell).__name__
        cell.register_backward_pre_hook(lambda c, go, name=name: order.append(("pre", name, values(go))))
        cell.register_backward_hook(lambda c, gi, go, name=name: order.append(("post", name, values(gi))))
    ms.grad(lambda a: nest(a).sum())(Tensor(X))
    assert order == [("pre", "Nest", ([1.0, 1.0],)), ("pre", "Square", ([2.0, 2.0],)),
                     ("post", "Square", ([4.0, 8.0],)), ("post", "Nest", ([4.0, 8.0],))]

    order.clear()
    square = Square()
    square.register_backward_hook(lambda c, gi, go: order.append(values(gi)))
    got = ms.grad(lambda a: (square(a) + square(a * 2)).sum())(Tensor(X))
    assert order == [([4.0, 8.0],), ([2.0, 4.0],)] and got.asnumpy().tolist() == [10.0, 20.0]

    order.clear()
    ms.grad(lambda a, b: (square(b) + a).sum(), grad_position=0)(Tensor(X), Tensor(Y))
    assert order == []

    chained = Square()
    chained.register_backward_hook(lambda c, gi, go: order.append(values(gi)))
    chained.register_backward_hook(lambda c, gi, go: (gi[0] * 2,))
    chained.register_backward_hook(lambda c, gi, go: order.append(values(gi)))
    got = ms.grad(chained, sens_param=True)(Tensor(X), Tensor(np.array([1.0, 10.0], np.float32)))
    assert order == [([2.0, 40.0],), ([4.0, 80.0],)] and got.asnumpy().tolist() == [4.0, 80.0]


def test_a_forward_pre_hooks_arguments_are_what_grad_input_is_for():
    # measured: grad_input (6, 12) for x * x at 3x, and the input's gradient (18, 36)
    cell, seen = Square(), []
    cell.register_forward_pre_hook(lambda c, args: (args[0] * 3,))
    cell.register_backward_hook(lambda c, gi, go: seen.append(values(gi)))
    got = ms.grad(lambda a: cell(a).sum())(Tensor(X))
    assert seen == [([6.0, 12.0],)] and got.asnumpy().tolist() == [18.0, 36.0]


def test_nested_outputs_give_a_slot_per_tensor():
    """A deliberate difference: for ((a, b), c) and list outputs MindSpore 2.10's grad_output
    held one gradient only (the last output's, or a sum); graphcell gives one per Tensor, as
    for a flat tuple, where MindSpore gives (g_a, g_b)."""
    class Nested(nn.Cell):
        def construct(self, x):
            return (x * 2, x * 3), x * 4

    cell, seen = Nested(), []
    cell.register_backward_pre_hook(lambda c, go: seen.append(values(go)))

    def f(a):
        (p, q), r = cell(a)
        return p.sum() + q.sum() * 10 + r.sum() * 100

    assert ms.grad(f)(Tensor(X)).asnumpy().tolist() == [432.0, 432.0]   # measured
    assert seen == [([1.0, 1.0], [10.0, 10.0], [100.0, 100.0])]


def test_errors_as_mindspore():
    x = Tensor(X)
    for hook, error, message in [
        (lambda c, gi, go: (gi[0], gi[0]), TypeError,
         "The backward hook return value size is 2 not equal to expect grad input size 1"),
        (lambda c, gi, go: [gi[0]], TypeError, "should be a tensor but got list"),
        (lambda c, gi, go: (np.ones(2, np.float32),), TypeError, "should be a tensor but got ndarray"),
        (lambda c, gi, go: (gi[0].astype(ms.float64),), ValueError,
         r"should be Tensor shape:\[2\]Float32, but got Tensor shape:\[2\]Float64"),
        (lambda c, gi, go: (gi[0].reshape(1, 2),), ValueError, r"but got Tensor shape:\[1, 2\]Float32"),
    ]:
        cell = Square()
        cell.register_backward_hook(hook)
        for mode in MODES:
            with pytest.raises(error, match=message):
                run_grad(lambda a: cell(a).sum(), mode, X)
    cell = Square()
    cell.register_backward_pre_hook(lambda c, go: (go[0], go[0]))
    with pytest.raises(TypeError, match="The backward pre hook return value size is 2 not equal to expect output "
                                        "size 1"):
        ms.grad(lambda a: cell(a).sum())(x)
    with pytest.raises(TypeError, match="Expected a callable hook function, but got int."):
        cell.register_backward_hook(3)

    def failing(c, gi, go):
        raise KeyError("from the hook")

    cell = Square()
    handle = cell.register_backward_hook(failing)
    for mode in MODES:   # the hook's own error, not XLA's
        with pytest.raises(KeyError, match="from the hook"):
            run_grad(lambda a: cell(a).sum(), mode, X)
    handle.remove()
    assert ms.grad(lambda a: cell(a).sum())(x).asnumpy().tolist() == [2.0, 4.0]
    cell.register_backward_hook(lambda c, gi, go: None)
    with pytest.raises(NotImplementedError, match="second-order gradient through the backward hooks"):
        ms.grad(ms.grad(lambda a: cell(a).sum()))(x)


def test_adding_and_removing_hooks_recompiles():
    cell, seen = Square(), []
    grad_fn = ms.jit(ms.grad(lambda a: cell(a).sum()))
    x = Tensor(X)
    assert grad_fn(x).asnumpy().tolist() == [2.0, 4.0]
    handle = cell.register_backward_hook(lambda c, gi, go: seen.append(1) or (gi[0] * 10,))
    assert isinstance(handle.handle_id, int)
    assert grad_fn(x).asnumpy().tolist() == [20.0, 40.0] and seen == [1]
    handle.remove()
    handle.remove()   # a second remove does nothing (as MindSpore)
    assert grad_fn(x).asnumpy().tolist() == [2.0, 4.0] and seen == [1]


def test_vmap_and_hooks():
    """vmap(grad(f)): the hook runs once per member on its own gradients (the loop over members
    it stands for); grad(vmap(f)): once, on the batched gradient."""
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    cell, seen = Square(), []
    cell.register_backward_hook(lambda c, gi, go: seen.append(values(gi)) or (gi[0] * 10,))
    want = 10 * jax.vmap(jax.grad(lambda a: jnp.sum(a * a)))(x)
    got = ms.vmap(ms.grad(lambda a: cell(a).sum()))(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want)
    assert seen == [([2.0, 4.0],), ([6.0, 8.0],)]
    seen.clear()
    got = ms.grad(lambda a: ms.vmap(cell)(a).sum())(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want)
    assert seen == [([[2.0, 4.0], [6.0, 8.0]],)]


def test_markers_print_lower_and_leave_the_compiled_graph(tmp_path):
    from graphcell.frontend.trace import trace
    from graphcell.passes.manager import run_pipeline
    cell = Square()
    cell.register_backward_hook(lambda c, gi, go: None)
    traced = trace(lambda a: cell(a).sum(), Tensor(X))
    text = str(traced.graph)
    assert "backward_hook_enter(%a) {layout=(True,), post=True, site=<Square>}" in text
    assert "backward_hook_exit(%1, %2) {layout=(True,), pre=False, site=<Square>}" in text
    assert "backward_hook" not in str(run_pipeline(traced.graph, "xla").graph)
    # forward graphs export (the markers are identities); a backward hook runs Python: no ONNX
    # form, so jit(backend="onnx") runs it on the host between two models (onnx_host_calls.py)
    path = ms.export(cell, Tensor(X), file_name=str(tmp_path / "square"), file_format="ONNX")
    from graphcell.runtime import Session
    np.testing.assert_allclose(Session(path, providers=["cpu"]).run(X)[0], X * X)
    with pytest.raises(Exception, match="backward_hook"):
        ms.export(ms.grad(lambda a: cell(a).sum()), Tensor(X), file_name=str(tmp_path / "g"), file_format="ONNX")
    np.testing.assert_array_equal(ms.jit(ms.grad(lambda a: cell(a).sum()), backend="onnx")(Tensor(X)).asnumpy(),
                                  ms.jit(ms.grad(lambda a: cell(a).sum()), backend="xla")(Tensor(X)).asnumpy())
