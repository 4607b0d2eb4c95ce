"""`from mindspore.ops import functional as F` / `composite as C`: 2.10's names on graphcell's
modules, and the graph-level helpers (ops/graph_functions.py) and forward derivatives
(api/taylor.py) behind them. Literals were measured on MindSpore 2.10 (CPU)."""
import numpy as np
import pytest

import graphcell as ms
import graphcell.ops as ops
from graphcell import Tensor
from graphcell.ops import composite as C, functional as F
from graphcell.ops.functional_names import CHANGED, MINDSPORE_COMPOSITE, MINDSPORE_FUNCTIONAL, SKIPPED


def test_every_recorded_name_resolves_or_is_listed_as_skipped():
    assert len(MINDSPORE_FUNCTIONAL) == 822   # 2.10's public names, recorded
    assert set(SKIPPED) <= MINDSPORE_FUNCTIONAL
    missing = [n for n in sorted(MINDSPORE_FUNCTIONAL - set(SKIPPED)) if not hasattr(F, n)]
    assert missing == []
    # 2.10's F names are its ops names (measured): graphcell's F answers with ops' object,
    # except where the internal module defines the name itself (listed in CHANGED when it differs)
    differ = [n for n in sorted(MINDSPORE_FUNCTIONAL - set(SKIPPED)) if getattr(F, n) is not getattr(ops, n)]
    assert differ == sorted(CHANGED)
    assert [n for n in SKIPPED if hasattr(ops, n)] == []
    assert "tensor_mul" in dir(F)
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        F.not_a_name  # noqa: B018
    assert [n for n in sorted(MINDSPORE_COMPOSITE) if getattr(C, n) is not getattr(ops, n)] == []


def test_internal_module_keeps_its_builtins():
    # A looked-up 2.10 name is not cached in the internal module, where it would shadow the
    # builtin `slice` its own indexing code calls.
    F.slice  # noqa: B018
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(x[:, 1:].asnumpy(), [[1, 2], [4, 5]])


@pytest.mark.slow   # ~1.7 s: one eager compile per op
def test_tensor_helpers_match_210():
    x, y = Tensor(np.array([1., 2., 3.], np.float32)), Tensor(np.array([2., 2., 2.], np.float32))
    i, j = Tensor(np.array([7, -7, 5], np.int32)), Tensor(np.array([2, 2, -3], np.int32))
    cases = {   # measured on MindSpore 2.10
        "tensor_div": ([0.5, 1., 1.5], [3, -3, -1]), "tensor_mod": ([1., 0., 1.], [1, 1, -1]),
        "tensor_floordiv": ([0., 1., 1.], [3, -4, -2]), "tensor_pow": ([1., 4., 9.], [49, 49, 0]),
        "tensor_add": ([3., 4., 5.], [9, -5, 2]), "tensor_gt": ([False, False, True], [True, False, True]),
        "floormod": ([1., 0., 1.], [1, 1, -1]), "floordiv": ([0., 1., 1.], [3, -4, -2]),
    }
    for name, (want_f, want_i) in cases.items():
        np.testing.assert_array_equal(getattr(F, name)(x, y).asnumpy(), want_f, err_msg=name)
        got = getattr(F, name)(i, j)
        np.testing.assert_array_equal(got.asnumpy(), want_i, err_msg=name)
        assert got.dtype in (ms.int32, ms.bool_), name
    assert F.tensor_range(0, 5, 2).dtype == ms.int64
    np.testing.assert_array_equal(F.tensor_slice(x, (1,), (2,)).asnumpy(), [2., 3.])
    np.testing.assert_array_equal(F.eps(Tensor(np.ones(2, np.float16))).asnumpy(), np.float16([0.000977, 0.000977]))
    assert F.eps(x).asnumpy()[0] == np.float32(1.1920929e-07)
    np.testing.assert_array_equal(F.padding(Tensor(np.ones((2, 1), np.float32)), 3).asnumpy(), [[1, 0, 0], [1, 0, 0]])
    np.testing.assert_allclose(F.soft_shrink(Tensor(np.array([-1., .2, .7], np.float32))).asnumpy(), [-.5, 0, .2],
                               atol=1e-7)
    np.testing.assert_array_equal(F.dyn_shape(x).asnumpy(), [3])
    assert F.dyn_shape(x).dtype == ms.int64
    cast = F.mixed_precision_cast(ms.float16, (x, i, 1.0))
    assert (cast[0].dtype, cast[1].dtype, cast[2]) == (ms.float16, ms.int32, 1.0)
    assert F.broadcast_gradient_args((2, 3), (3,)) == ((), (0,))
    np.testing.assert_array_equal(F.switch(Tensor(False), x, y).asnumpy(), [2., 2., 2.])


def test_scalar_sequence_and_type_helpers_match_210():
    assert (F.scalar_add(7, 2), F.scalar_div(7, 2), F.scalar_floordiv(-7, 2), F.scalar_mod(-7, 2)) == (9, 3.5, -4, 1)
    assert (F.scalar_mod(7.5, -2), F.scalar_pow(7.5, -2)) == (-0.5, 0.017777777777777778)
    assert (F.scalar_ne(7, 2), F.scalar_max(7.5, -2), F.scalar_usub(3.5)) == (True, 7.5, -3.5)
    assert F.scalar_log(4) == 1.3862943611198906
    with pytest.raises(ValueError, match="The divisor could not be zero"):
        F.scalar_div(1, 0)
    a = F.tuple_to_array((1, 2.5))
    assert a.dtype == ms.int32 and a.asnumpy().tolist() == [1, 2]
    assert F.tuple_to_array((1., 2.5)).dtype == ms.float32
    with pytest.raises(TypeError, match="TupleToTensor"):
        F.tuple_to_array([1, 2])
    assert F.scalar_to_array(3.5).asnumpy() == 3.5 and F.array_to_scalar(Tensor(3, ms.int32)) == 3
    with pytest.raises(RuntimeError, match="requires zero size shape"):
        F.array_to_scalar(Tensor(np.ones(3, np.float32)))
    t, lst = (1, 2, 3), [1, 2, 3]
    assert (F.tuple_setitem(t, 1, 9), F.tuple_reversed(t), F.tuple_div((4, 6), (2, 3))) == ((1, 9, 3), (3, 2, 1), (2, 2))
    with pytest.raises(RuntimeError, match="the dividend is 5, the divisor is 2"):
        F.tuple_div((5, 6), (2, 3))
    assert F.list_setitem(lst, 1, 9) == [1, 9, 3] and lst == [1, 2, 3]
    assert F.make_range(4) == (0, 1, 2, 3) and F.make_range(1, 5, 2) == (1, 3)
    assert F.make_dict(("a", "b"), (1, 2)) == {"a": 1, "b": 2} and F.dict_setitem({"a": 1}, "b", 2) == {"a": 1, "b": 2}
    assert F.make_slice(1, 5, 2) == slice(1, 5, 2) and F.shape_mul((2, 3, 4)) == 24 and F.shape_mul(()) == 1
    assert F.reduced_shape((2, 3, 4), (1,)) == (2, 1, 4) and F.reduced_shape((2, 3, 4), ()) == (1, 1, 1)
    assert F.bool_not(True).asnumpy() == np.False_ and F.string_concat("ab", "cd") == "abcd"
    x = Tensor(np.ones(2, np.float32))
    assert F.typeof(x) == ms.TensorType(ms.float32) and F.typeof(1) == ms.int64 and F.typeof(2.0) == ms.float32
    assert (F.typeof((1,)), F.typeof([1]), F.typeof(None)) == (ms.tuple_, ms.list_, ms.type_none)
    assert (F.hastype(x, ms.float32), F.hastype(x, ms.tensor_type), F.hastype((1, x), ms.tensor_type)) == (False, True, False)
    assert F.isconstant(x) and F.in_dict("a", {"a": 1}) and not F.not_in_dict("a", {"a": 1})
    assert F.P.ReduceSum is ops.ReduceSum


def _fn(x):
    return ops.sin(x) * ops.exp(x)


@pytest.mark.slow   # ~1.8 s: nested reverse-mode grads
def test_derivative_and_linearize_match_210_and_jax():
    import jax
    import jax.numpy as jnp
    x = Tensor(np.array([0.5, 1.0], np.float32))
    out, d2 = F.derivative(_fn, x, 2)
    np.testing.assert_allclose(out.asnumpy(), [0.7904392, 2.2873535], rtol=1e-6)   # 2.10
    np.testing.assert_allclose(d2.asnumpy(), [2.8937783, 2.9373856], rtol=1e-5)     # 2.10
    f = lambda v: jnp.sin(v) * jnp.exp(v)  # noqa: E731
    d1 = lambda v: jax.jvp(f, (v,), (jnp.ones_like(v),))[1]  # noqa: E731
    np.testing.assert_allclose(d2.asnumpy(), jax.jvp(d1, (jnp.array([0.5, 1.0], jnp.float32),), (jnp.ones(2, jnp.float32),))[1], rtol=1e-5)
    _, jvp_fn = F.linearize(_fn, x)
    v = np.array([1., 2.], np.float32)
    np.testing.assert_allclose(jvp_fn(Tensor(v)).asnumpy(), [2.2373283, 7.5120926], rtol=1e-5)   # 2.10
    np.testing.assert_allclose(jvp_fn(Tensor(v)).asnumpy(), jax.linearize(f, jnp.array([0.5, 1.0], jnp.float32))[1](v), rtol=1e-5)
    with pytest.raises(ValueError, match="order should not be less than 1, but got 0"):
        F.derivative(_fn, x, 0)


@pytest.mark.slow
def test_jet_matches_210_and_jax_jet():
    from jax.experimental import jet
    import jax.numpy as jnp
    x = np.array([0.5, 1.0], np.float32)
    s = np.array([[1.0, 0.5], [0.0, 2.0], [0.3, 0.1]], np.float32)
    out, terms = F.jet(_fn, Tensor(x), Tensor(s))
    want = [[2.2373283, 1.8780231], [2.8937783, 8.246439], [1.9840987, 8.983096]]   # 2.10
    np.testing.assert_allclose(terms.asnumpy(), want, rtol=1e-5)
    _, ref = jet.jet(lambda v: jnp.sin(v) * jnp.exp(v), (x,), ([*s],))
    np.testing.assert_allclose(terms.asnumpy(), np.stack(ref), rtol=1e-5)
