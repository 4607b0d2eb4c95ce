"""vjp, jvp, jacrev and jacfwd against jax's, with MindSpore 2.10's result structures (measured)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops

rng = np.random.default_rng(0)
X = rng.standard_normal(3).astype(np.float32)
Y = rng.standard_normal(3).astype(np.float32)
W = rng.standard_normal((2, 3)).astype(np.float32)


def f(x, y):   # two outputs of different shapes
    return ops.tanh(Tensor(W) @ (x * y)), (x * x).sum() + ops.sin(y).sum()


def jf(x, y):
    return jnp.tanh(W @ (x * y)), (x * x).sum() + jnp.sin(y).sum()


def close(got, want):
    for g, w in zip(jax.tree_util.tree_leaves(got, is_leaf=lambda t: isinstance(t, Tensor)),
                    jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=1e-5, atol=1e-6)


def test_vjp_matches_jax_and_returns_a_tuple_per_input():
    v = (Tensor(np.array([1.0, -2.0], np.float32)), Tensor(np.float32(0.5)))
    out, vjp_fn = ms.vjp(f, Tensor(X), Tensor(Y))
    want_out, jax_vjp = jax.vjp(jf, X, Y)
    close(out, want_out)
    close(vjp_fn(v), jax_vjp((np.array([1.0, -2.0], np.float32), np.float32(0.5))))
    single_out, single_fn = ms.vjp(lambda x: x * x * 2, Tensor(X))
    grads = single_fn(Tensor(np.ones(3, np.float32)))
    assert isinstance(grads, tuple) and len(grads) == 1     # MindSpore: (Tensor,)
    np.testing.assert_allclose(grads[0].asnumpy(), 4 * X, rtol=1e-6)


def test_jvp_matches_jax():
    tangents = (rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32))
    out, jv = ms.jvp(f, (Tensor(X), Tensor(Y)), tuple(Tensor(t) for t in tangents))
    want_out, want_jv = jax.jvp(jf, (X, Y), tangents)
    close(out, want_out)
    close(jv, want_jv)
    with pytest.raises(ValueError, match="1 tangents for 2 inputs"):
        ms.jvp(f, (Tensor(X), Tensor(Y)), Tensor(X))


@pytest.mark.parametrize("jacobian", [ms.jacrev, ms.jacfwd])
def test_jacobians_match_jax_nested_per_output_then_position(jacobian):
    got = jacobian(f, grad_position=(0, 1))(Tensor(X), Tensor(Y))
    want = jax.jacrev(jf, argnums=(0, 1))(X, Y)
    assert got[0][0].shape == (2, 3) and got[1][1].shape == (3,)
    close(got, want)
    single = jacobian(lambda x: ops.tanh(Tensor(W) @ x))(Tensor(X))
    np.testing.assert_allclose(single.asnumpy(), jax.jacrev(lambda x: jnp.tanh(W @ x))(X), rtol=1e-5, atol=1e-6)


def test_has_aux_and_inside_jit():
    def h(x):
        return x * x, x.sum()

    jac, aux = ms.jacrev(h, has_aux=True)(Tensor(X))
    np.testing.assert_allclose(jac.asnumpy(), np.diag(2 * X), rtol=1e-6)
    np.testing.assert_allclose(aux.asnumpy(), X.sum(), rtol=1e-6)
    out, vjp_fn, aux = ms.vjp(h, Tensor(X), has_aux=True)
    np.testing.assert_allclose(vjp_fn(Tensor(np.ones(3, np.float32)))[0].asnumpy(), 2 * X, rtol=1e-6)

    @ms.jit
    def jitted(x):
        return ms.jacrev(lambda v: ops.sin(v) * v)(x)

    np.testing.assert_allclose(jitted(Tensor(X)).asnumpy(), jax.jacrev(lambda v: jnp.sin(v) * v)(X),
                               rtol=1e-5, atol=1e-6)
    assert ops.jacrev is ms.jacrev and ops.vjp is ms.vjp
