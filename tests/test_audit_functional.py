"""Graph-mode and functional-transform semantics that MindSpore 2.10 users rely on, each
against 2.10's result measured on the real install (numbers in the comments and literals) or
an independent reference (jax.grad, finite differences).

- a Python number that the graph computes (a counter in a tensor `while`, a number assigned
  under a tensor `if`, `mutable(n)`, `x.item()`) comes back from jit as a Python number, and
  takes a Tensor's dtype when it meets one (graph_scalar.py);
- `Cell.bprop` replaces the Cell's backward pass (ops/custom_bprop.py).
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops

X3 = np.array([1.0, 2.0, 3.0], np.float32)
Y3 = np.array([0.5, -1.0, 2.0], np.float32)


def _doubling_count(x):
    n = 0
    while x.sum() < 100:   # a tensor condition: n is a number the graph computes
        x = x * 2
        n = n + 1
    return x, n


# -- Python numbers computed by the graph -------------------------------------------------------

def test_a_counter_carried_through_a_tensor_loop_comes_back_an_int():
    x, n = ms.jit(_doubling_count)(Tensor(X3))
    # 2.10: (Tensor [32, 64, 96], int 5)
    assert type(n) is int and n == 5
    assert x.asnumpy().tolist() == [32.0, 64.0, 96.0]


def test_numbers_computed_from_a_graph_counter_keep_their_python_types():
    @ms.jit
    def f(x, y):
        _, n = _doubling_count(x)
        return y + n, y * n, n * 2, n / 2, n // 2, n > 2, n == 5, -n, n ** 2, [n, n + 1], {"n": n}

    out = f(Tensor(X3), Tensor(np.array([1, 2, 3], np.int32)))
    # 2.10: Int32 [6 7 8], Int32 [5 10 15], 10, 2.5, 2, True, True, -5, 25, [5, 6], {'n': 5}
    assert out[0].dtype == ms.int32 and out[0].asnumpy().tolist() == [6, 7, 8]
    assert out[1].dtype == ms.int32 and out[1].asnumpy().tolist() == [5, 10, 15]
    scalars = out[2:9]
    assert [type(v) for v in scalars] == [int, float, int, bool, bool, int, int]
    assert list(scalars) == [10, 2.5, 2, True, True, -5, 25]
    assert out[9] == [5, 6] and type(out[9][0]) is int and out[10] == {"n": 5}


def test_float_numbers_of_the_graph_are_float32_and_take_a_float16_tensors_dtype():
    @ms.jit
    def f(x, h):
        a, b = 0.1, 1.0
        while x.sum() < 50:
            x = x * 2
            a = a * 3
            b = b * 0.5
        return a, h * b, h + b

    a, hb, hpb = f(Tensor(X3), Tensor(np.array([1, 2], np.float16)))
    assert type(a) is float and a == 8.100000381469727   # 2.10: 8.100000381469727 (computed in float32)
    assert hb.dtype == ms.float16 and hb.asnumpy().tolist() == [0.0625, 0.125]   # 2.10: Float16
    assert hpb.dtype == ms.float16 and hpb.asnumpy().tolist() == [1.0625, 2.0625]


def test_a_number_assigned_under_a_tensor_if_is_a_number():
    @ms.jit
    def f(x):
        if x.sum() > 5:
            n = 1
        else:
            n = 2
        return n

    assert f(Tensor(X3)) == 1 and type(f(Tensor(X3))) is int and f(Tensor(-X3)) == 2   # 2.10: int 1


def test_a_real_tensor_accumulated_from_a_zero_stays_a_tensor():
    @ms.jit
    def f(x):
        s = 0
        for i in range(3):
            s = s + x[i]
        k = 0
        while x.sum() < 50:
            x = x * 2
            k = k + x.sum()
        return s, k

    s, k = f(Tensor(X3))
    assert isinstance(s, Tensor) and float(s) == 6.0   # 2.10: Tensor 6.0
    assert isinstance(k, Tensor) and float(k) == 12 + 24 + 48 + 96


def test_mutable_numbers_come_back_as_numbers_and_are_weakly_typed():
    @ms.jit
    def f(y, n, a):
        return n * 2, n + 1.5, y + n, y * n, n > 1, y * a, a * 2

    y = Tensor(np.array([1, 2, 3], np.int32))
    out = f(y, ms.mutable(2), ms.mutable(1.5))
    # 2.10: 4, 3.5, Int32 [3 4 5], Int32 [2 4 6], True, Float32 [1.5 3 4.5], 3.0
    assert [type(v) for v in (out[0], out[1], out[4], out[6])] == [int, float, bool, float]
    assert (out[0], out[1], out[4], out[6]) == (4, 3.5, True, 3.0)
    assert out[2].dtype == ms.int32 and out[2].asnumpy().tolist() == [3, 4, 5]
    assert out[3].dtype == ms.int32 and out[3].asnumpy().tolist() == [2, 4, 6]
    assert out[5].dtype == ms.float32 and out[5].asnumpy().tolist() == [1.5, 3.0, 4.5]
    assert f(y, ms.mutable(3), ms.mutable(0.5))[0] == 6 and f.cache_size == 1


def test_a_mutable_number_and_a_tensor_of_its_dtype_trace_apart():
    f = ms.jit(lambda x, n: n)
    x = Tensor(X3)
    assert f(x, ms.mutable(2)) == 2
    t = f(x, Tensor(2, ms.int64))
    assert isinstance(t, Tensor) and t.dtype == ms.int64


def test_item_inside_jit_is_a_number_of_the_graph():
    @ms.jit
    def f(x, y):
        if x.sum().item() > 3:   # a tensor condition
            x = -x
        return x, y.sum().item(), y[0].item()

    x, total, first = f(Tensor(X3), Tensor(np.array([1, 2, 3], np.int32)))
    assert x.asnumpy().tolist() == [-1.0, -2.0, -3.0]
    assert (total, first) == (6, 1) and type(total) is int and type(first) is int   # 2.10: int 6, int 1


def test_tensor_of_a_graph_number_and_a_cell_in_graph_mode():
    @ms.jit
    def f(x):
        _, n = _doubling_count(x)
        return Tensor(n), Tensor(n, ms.float32)

    t, tf = f(Tensor(X3))
    assert t.dtype == ms.int64 and int(t) == 5 and tf.dtype == ms.float32   # 2.10: Tensor Int64 5

    class Net(nn.Cell):
        def construct(self, x):
            n = 0
            while x.sum() < 100:
                x = x * 2
                n += 1
            return x, n

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        _, n = Net()(Tensor(X3))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert type(n) is int and n == 5   # 2.10: int 5


def test_a_graph_counter_as_grads_aux_output_comes_back_an_int():
    def f(x):
        n = 0
        for row in x:
            if row.sum() > 2:   # a tensor condition
                n = n + 1
        return (x * x).sum(), n

    x = np.array([[1.0, 0.0], [2.0, 3.0], [5.0, 5.0]], np.float32)
    (value, n), g = ms.jit(ms.value_and_grad(f, has_aux=True))(Tensor(x))
    # 2.10: ((Tensor 64.0, int 2), 2 * x)
    assert type(n) is int and n == 2 and float(value) == 64.0
    np.testing.assert_allclose(g.asnumpy(), 2 * x)


# -- Cell.bprop ---------------------------------------------------------------------------------

class _TwoOutputs(nn.Cell):
    def construct(self, x, y):
        return x * y, x + y

    def bprop(self, x, y, out, dout):
        return dout[0] * 2 + dout[1], out[0] * dout[1]


class _Scaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([2.0, 3.0, 4.0], np.float32)), name="w")

    def construct(self, x):
        return x * self.w

    def bprop(self, x, out, dout):
        return dout * 5   # a lone Tensor for the one argument (accepted by 2.10)


def test_bprop_replaces_the_backward_pass_eagerly_and_under_jit():
    net = _TwoOutputs()

    def loss(x, y):
        a, b = net(x, y)
        return (a * 3 + b).sum()

    x, y = Tensor(X3), Tensor(Y3)
    # 2.10: dx = 3*2 + 1 = 7, dy = out[0] * 1 = x*y
    expected = ([7.0, 7.0, 7.0], [0.5, -2.0, 6.0])
    for grad in (ms.grad(loss, grad_position=(0, 1)), ms.jit(ms.grad(loss, grad_position=(0, 1)))):
        dx, dy = grad(x, y)
        assert dx.asnumpy().tolist() == expected[0] and dy.asnumpy().tolist() == expected[1]
    # an output the loss does not read has a zero dout (2.10: dx 2, dy 0)
    dx, dy = ms.grad(lambda x, y: net(x, y)[0].sum(), grad_position=(0, 1))(x, y)
    assert dx.asnumpy().tolist() == [2.0, 2.0, 2.0] and dy.asnumpy().tolist() == [0.0, 0.0, 0.0]


def test_bprop_leaves_the_cells_parameters_zero_gradients():
    net = _Scaled()
    w2 = Parameter(Tensor(np.array([1.0, 1.0, 2.0], np.float32)), name="w2")
    dx, (dw, dw2) = ms.grad(lambda x: (net(x) * w2).sum(), 0, [net.w, w2])(Tensor(X3))
    # 2.10: dx 5 * w2, dw zeros, dw2 x * w
    assert dx.asnumpy().tolist() == [5.0, 5.0, 10.0]
    assert dw.asnumpy().tolist() == [0.0, 0.0, 0.0] and dw2.asnumpy().tolist() == [2.0, 6.0, 12.0]


def test_bprop_differentiates_again_and_vmaps():
    class Cube(nn.Cell):
        def construct(self, x):
            return x * x * x

        def bprop(self, x, out, dout):
            return (dout * 3 * x * x,)   # the true derivative: compare with jax

    net = Cube()
    g = ms.grad(lambda x: net(x).sum())
    gg = ms.grad(lambda x: g(x).sum())(Tensor(X3))
    ref = jax.grad(lambda x: jax.grad(lambda x: (x ** 3).sum())(x).sum())(jnp.asarray(X3))
    np.testing.assert_allclose(gg.asnumpy(), np.asarray(ref), rtol=1e-6)
    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(ms.vmap(g)(Tensor(xs)).asnumpy(), 3 * xs * xs, rtol=1e-6)


def test_bprop_errors_name_the_cell():
    class Short(nn.Cell):
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return (dout,)

    class WrongShape(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (dout.sum(),)

    x = Tensor(X3)
    # 2.10: "Grad size should lager than forward inputs, but got 1 vs 2"
    with pytest.raises(RuntimeError, match="Grad size should lager than forward inputs, but got 1 vs 2.*Short"):
        ms.grad(lambda a, b: Short()(a, b).sum(), grad_position=(0, 1))(x, x)
    with pytest.raises(RuntimeError, match=r"grad tensor should be broadcast to expected shape.*\[\] vs \[3\].*WrongShape"):
        ms.grad(lambda a: WrongShape()(a).sum())(x)


# -- vmap and grad: hooks and mistakes ----------------------------------------------------------

def test_vmap_of_grad_leaves_the_hooks_of_the_batched_argument_unrun():
    seen = []
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    handle = x.register_hook(lambda g: seen.append(g) or g * 2)
    try:
        got = ms.vmap(ms.grad(lambda r: (r * r).sum()))(x)
    finally:
        handle.remove()
    # 2.10: [[0 2 4] [6 8 10]] and the hook never runs (each member's row is a new Tensor)
    assert got.asnumpy().tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]] and seen == []


def test_mistakes_raise_mindspores_error_types():
    x = Tensor(np.ones((2, 3), np.float32))
    # 2.10: RuntimeError "Position index 2 is exceed input size."
    with pytest.raises(RuntimeError, match="Position index 2 is exceed input size"):
        ms.grad(lambda a, b: (a * b).sum(), grad_position=2)(x, x)
    # 2.10: RuntimeError "Got an unexpected keyword argument 'scale'"
    with pytest.raises(RuntimeError, match="Got an unexpected keyword argument 'scale'"):
        ms.vmap(lambda a, scale=2.0: a * scale)(x, scale=3.0)
    # 2.10, in_axes=("a",): RuntimeError "The axis in vmap's 'in_axes' should be a None or a scalar of
    # type Int64Imm, but got a a." (a bare in_axes="a" words it "can only be of type Int or None")
    with pytest.raises(RuntimeError, match="should be a None or a scalar of type Int64Imm, but got a a\\."):
        ms.vmap(lambda a: a, in_axes="a")(x)
    # 2.10: RuntimeError "The orig_abs should be AbstractTensor when corresponding axis is 0, ..."
    with pytest.raises(RuntimeError, match="Python float, which has no axis to map"):
        ms.vmap(lambda a, s: a * s, in_axes=(0, 0))(x, 2.0)
    # the Python convention's types catch them too
    with pytest.raises(IndexError):
        ms.grad(lambda a: a.sum(), grad_position=1)(x)


def test_scalar_to_tensor_and_scalar_cast_on_numbers_and_graph_numbers():
    assert ops.scalar_to_tensor(2.5).dtype == ms.float32
    t = ops.scalar_to_tensor(300, ms.int8)
    assert t.dtype == ms.int8 and int(t) == 44   # 2.10: Int8 44 (wraps)
    assert ops.scalar_cast(-2.7, ms.int64) == -2 and ops.scalar_cast(0, ms.bool_) is False
    with pytest.raises(ValueError, match=r"supported type is in the list: \[mindspore.int64, mindspore.float64, "
                                         r"mindspore.bool\], but got Int32"):
        ops.scalar_cast(2.7, ms.int32)
    with pytest.raises(TypeError, match="For 'ScalarToTensor', the type of 'x' should be one of"):
        ops.scalar_to_tensor(Tensor(2))

    @ms.jit
    def f(x):
        _, n = _doubling_count(x)
        return ops.scalar_to_tensor(n, ms.int32), ops.scalar_cast(n, ms.float64), ops.scalar_cast(n, ms.bool_)

    t, as_float, as_bool = f(Tensor(X3))
    # 2.10: Tensor Int32 5, float 5.0, bool True
    assert t.dtype == ms.int32 and int(t) == 5
    assert type(as_float) is float and as_float == 5.0 and as_bool is True
