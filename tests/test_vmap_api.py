"""graphcell.vmap on functions: axes specs, errors (MindSpore's texts), caching, nesting with
jit and vmap, and the property that vmap(f)(x) equals stacking f over slices."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.passes.vmap import VmapError

RNG = np.random.default_rng(0)


def t(*shape):
    return Tensor(RNG.standard_normal(shape).astype(np.float32))


def test_in_axes_tuple_negative_and_out_axes():
    xs, w = t(4, 3, 6), t(6, 3, 2)                   # members on the last axis of x, the first of w
    out = ms.vmap(lambda x, w: ops.matmul(x, w), in_axes=(-1, 0), out_axes=1)(xs, w)
    assert out.shape == (4, 6, 2)
    expected = np.stack([xs.asnumpy()[:, :, i] @ w.asnumpy()[i] for i in range(6)], 1)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)
    a, b = t(2, 3), t(3, 2)
    f = ms.vmap(lambda a, b: a * b, in_axes=(1, 0), out_axes=-1)
    np.testing.assert_allclose(f(a, b).asnumpy(), a.asnumpy() * b.asnumpy().T, rtol=1e-6)


def test_nested_and_dict_axes_and_tuple_outputs():
    d = {"w": t(3, 2), "b": t(2)}
    x = t(5, 3)

    def f(params, x):
        y = ops.matmul(x, params["w"]) + params["b"]
        return y, y.sum()

    y, s = ms.vmap(f, in_axes=({"w": None, "b": None}, 0), out_axes=(1, 0))(d, x)
    ref = x.asnumpy() @ d["w"].asnumpy() + d["b"].asnumpy()
    np.testing.assert_allclose(y.asnumpy(), ref.T, rtol=1e-5)
    np.testing.assert_allclose(s.asnumpy(), ref.sum(1), rtol=1e-5)


def test_unbatched_output_is_broadcast_or_kept():
    c = t(3)
    out = ms.vmap(lambda x, c: (x, c * 2), in_axes=(0, None))(t(4, 2), c)
    assert out[1].shape == (4, 3)
    kept = ms.vmap(lambda x, c: (x, c * 2), in_axes=(0, None), out_axes=(0, None))(t(4, 2), c)
    assert kept[1].shape == (3,)
    with pytest.raises(VmapError, match="output 0 differs per member"):
        ms.vmap(lambda x: x, in_axes=0, out_axes=(None,))(t(4, 2))


def test_mindspore_error_messages():
    f = lambda a, b: a + b  # noqa: E731
    with pytest.raises(RuntimeError, match=re.escape(
            "The 'axis_size' of each argument in the scope of 'vmap' should be equal, but got 3 and 2.")) as e:
        ms.vmap(f)(t(3, 2), t(2, 2))
    assert "got 3 (argument 0) and 2 (argument 1)" in str(e.value)
    with pytest.raises(RuntimeError, match=re.escape(
            "The 'in_axes' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'.")):
        ms.vmap(f, in_axes=None)
    with pytest.raises(RuntimeError, match=re.escape(
            "The 'out_axes' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'.")):
        ms.vmap(f, out_axes=None)
    with pytest.raises(RuntimeError, match=re.escape(
            "When vmap`s 'in_axes' is a tuple or list, and its size must be equal to the number of arguments of "
            "'fn': 2, but got size: 1.")):
        ms.vmap(f, in_axes=(0,))(t(3), t(3))
    with pytest.raises(RuntimeError, match=re.escape(
            "The axis: 2 in 'in_axes' is out of bounds for array of dimension [-2,2).")):
        ms.vmap(f, in_axes=(2, 0))(t(3, 2), t(3, 2))
    with pytest.raises(RuntimeError, match=r"'in_axes'\[0\] has 1 entries but the value there has 2"):
        ms.vmap(lambda p: p[0] + p[1], in_axes=((0,),))((t(3), t(3)))


def test_an_axis_for_a_python_scalar_is_an_error():
    """As jax: a Python number has no axis to map (in_axes=(0, 0) on (x, 2.0) was silently
    (0, None)); an int broadcast over all the arguments leaves scalars alone."""
    x = Tensor(np.ones((3, 2), np.float32))
    with pytest.raises(ValueError, match=r"'in_axes'\[1\] is 0, but the argument there is a Python float"):
        ms.vmap(lambda a, s: a * s, in_axes=(0, 0))(x, 2.0)
    np.testing.assert_array_equal(ms.vmap(lambda a, s: a * s)(x, 2.0).asnumpy(), np.full((3, 2), 2.0))


def test_compiles_once_per_signature():
    calls = []

    def f(x):
        calls.append(1)
        return ops.exp(x)

    g = ms.vmap(f)
    g(t(3, 2))
    g(t(3, 2))
    assert len(calls) == 1 and g.cache_size == 1
    g(t(4, 2))  # a new axis size: the vmap pass runs again over the same member trace
    assert len(calls) == 1 and g.cache_size == 2
    g(t(4, 3))  # a new member shape: traced again
    assert len(calls) == 2 and g.cache_size == 3


def test_nested_vmap_jit_inside_and_outside():
    x, y = t(3, 4), t(5, 4)
    inner = lambda a, b: (a * b).sum()  # noqa: E731
    outer = ms.vmap(lambda a: ms.vmap(inner, in_axes=(None, 0))(a, y), in_axes=0)
    ref = x.asnumpy() @ y.asnumpy().T
    np.testing.assert_allclose(outer(x).asnumpy(), ref, rtol=1e-5)
    np.testing.assert_allclose(ms.jit(outer)(x).asnumpy(), ref, rtol=1e-5)

    @ms.jit
    def step(a):
        return ms.vmap(lambda r: ops.relu(r) * 2)(a) + 1

    np.testing.assert_allclose(step(x).asnumpy(), np.maximum(x.asnumpy(), 0) * 2 + 1, rtol=1e-6)
    # A closure over a value of the enclosing trace (a capture) works under jit.
    step2 = ms.jit(lambda a, b: ms.vmap(lambda r: r * b.sum())(a))
    np.testing.assert_allclose(step2(x, y).asnumpy(), x.asnumpy() * y.asnumpy().sum(), rtol=1e-5)


def test_shared_parameter_written_per_member_is_refused():
    p = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="acc")

    def f(x):
        ops.assign(p, p + x)
        return x

    with pytest.raises(VmapError, match="Parameter 'acc' is written with a value that differs per member"):
        ms.vmap(f)(t(3, 2))


# -- property: random small op graphs -------------------------------------------------------------
UNARY = [ops.exp, ops.tanh, ops.sin, ops.abs, ops.relu, lambda x: x * 2.0 + 1.0]
BINARY = [ops.add, ops.mul, ops.sub, ops.maximum]
SHAPE = (2, 3)


def _program(ops_list):
    """A small graph over two [2,3] inputs: unary/binary ops, reductions, reshapes, matmul."""
    def f(a, b):
        vals = [a, b]
        for kind, i, j in ops_list:
            x, y = vals[i % len(vals)], vals[j % len(vals)]
            if kind < 6:
                out = UNARY[kind](x)
            elif kind < 10:
                out = BINARY[kind - 6](x, y)
            elif kind == 10:
                out = ops.broadcast_to(ops.reduce_sum(x, 1, keepdims=True), SHAPE)
            elif kind == 11:
                out = ops.reshape(ops.transpose(ops.reshape(x, (3, 2)), (1, 0)), SHAPE)
            elif kind == 12:
                out = ops.matmul(x, ops.transpose(y, (1, 0))) @ x
            else:
                out = ops.concat([x[:, :1], y[:, 1:]], 1)
            vals.append(out)
        return vals[-1], ops.reduce_max(vals[-1], 0)
    return f


@settings(max_examples=12, deadline=None)
@given(ops_list=st.lists(st.tuples(st.integers(0, 13), st.integers(0, 9), st.integers(0, 9)),
                         min_size=1, max_size=6),
       axes=st.tuples(st.sampled_from([None, 0, 1, 2]), st.sampled_from([None, 0, 1, 2])),
       out_axes=st.sampled_from([0, 1, -1]))
def test_vmap_equals_stacking_over_slices(ops_list, axes, out_axes):
    if axes == (None, None):
        axes = (0, None)
    f = _program(ops_list)
    n = 3
    rng = np.random.default_rng(len(ops_list))
    arrays = [rng.uniform(-1, 1, SHAPE if ax is None else SHAPE[:ax] + (n,) + SHAPE[ax:]).astype(np.float32)
              for ax in axes]
    got = ms.vmap(f, in_axes=axes, out_axes=out_axes)(*[Tensor(a) for a in arrays])
    members = [f(*[Tensor(a if ax is None else np.take(a, i, ax)) for a, ax in zip(arrays, axes)])
               for i in range(n)]
    for k in range(2):
        expected = np.stack([m[k].asnumpy() for m in members], out_axes)
        np.testing.assert_allclose(got[k].asnumpy(), expected, rtol=1e-4, atol=1e-5)
