"""det, slogdet, inverse, qr and svd on complex64/complex128 matrices: MindSpore 2.10's dtypes
and values (measured literals), numpy's values, jax's gradients through graphcell's grad API
(MindSpore's convention: the conjugate of jax.grad's), and the ONNX export's refusal."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as gc
from graphcell import Tensor, nn, ops
from graphcell.compiler.export import OnnxExportError, to_onnx

jax.config.update("jax_enable_x64", True)

A = np.array([[1 + 2j, 3 - 1j], [0.5 + 0.5j, -2 + 1j]], np.complex64)
_RNG = np.random.default_rng(7)


def _cm(*shape):
    return _RNG.standard_normal(shape) + 1j * _RNG.standard_normal(shape)


Z, W, Z_TALL, Z_WIDE, W_WIDE = _cm(3, 3), _cm(3, 3), _cm(4, 2), _cm(3, 5), _cm(3, 5)
BATCH = _cm(2, 3, 3)


def _close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


def test_mindspore_values_and_dtypes():
    """MindSpore 2.10 (measured, complex64 A): every output complex64, log|det| and the singular
    values too (zero imaginary parts)."""
    def table(a):
        s, u, v = ops.svd(a)
        return (ops.det(a), *ops.slogdet(a), ops.inverse(a), s, u, v, ops.svd(a, compute_uv=False), *ops.qr(a))
    det, sign, logabs, inv, s, u, v, s_only, q, r = gc.jit(table)(Tensor(A))
    for out in (det, sign, logabs, inv, s, u, v, s_only, q, r):
        assert out.dtype == gc.complex64
    _close(det.asnumpy(), -6 - 4j)
    _close(sign.asnumpy(), -0.83205 - 0.5547j)
    _close(logabs.asnumpy(), 1.97562 + 0j)
    _close(inv.asnumpy(), [[0.15385 - 0.26923j, 0.26923 - 0.34615j], [0.09615 + 0.01923j, -0.26923 - 0.15385j]])
    _close(s.asnumpy(), [4.18741 + 0j, 1.72209 + 0j])
    _close(s_only.asnumpy(), [4.18741 + 0j, 1.72209 + 0j])
    _close(q.asnumpy(), [[-0.4264 - 0.8528j, 0.29566 - 0.05913j], [-0.2132 - 0.2132j, -0.82784 + 0.47305j]])
    _close(r.asnumpy(), [[-2.34521 + 0j, -0.2132 + 2.34521j], [0j, 3.07482 + 0j]])
    # u and v: MindSpore's columns up to a phase each (LAPACK's phases here; 2.10's follow no
    # rule measured on four matrices), and
    # a = u diag(s) v^H
    u_ms = np.array([[0.85855 - 0.29821j, 0.37239 - 0.18784j], [-0.37999 + 0.17196j, 0.77109 - 0.48111j]])
    v_ms = np.array([[0.03776 - 0.41537j, 0.08228 - 0.90513j], [0.90887 + 0j, -0.41709 + 0j]])
    for ours, theirs in ((u.asnumpy(), u_ms), (v.asnumpy(), v_ms)):
        phase = np.sum(np.conj(ours) * theirs, axis=0)        # <ours_j, theirs_j>, modulus 1
        _close(np.abs(phase), [1, 1])
        _close(ours * phase, theirs)
    _close((u.asnumpy() * s.asnumpy()) @ v.asnumpy().conj().T, A)


def test_values_against_numpy_complex128_batched():
    def table(z, b, tall, wide):
        s, u, v = ops.svd(b)
        return (ops.det(b), *ops.slogdet(b), ops.inverse(z), s, u, v, *ops.qr(tall), *ops.qr(wide),
                *ops.qr(tall, mode="complete"))
    outs = [o.asnumpy() for o in gc.jit(table)(Tensor(Z), Tensor(BATCH), Tensor(Z_TALL), Tensor(Z_WIDE))]
    det, sign, logabs, inv, s, u, v, q_t, r_t, q_w, r_w, q_c, r_c = outs
    assert det.dtype == np.complex128 and logabs.dtype == np.complex128 and s.dtype == np.complex128
    want_sign, want_logabs = np.linalg.slogdet(BATCH)
    _close(det, np.linalg.det(BATCH), 1e-10)
    _close(sign, want_sign, 1e-10)
    _close(logabs, want_logabs, 1e-10)
    _close(inv, np.linalg.inv(Z), 1e-10)
    _close(s, np.linalg.svd(BATCH, compute_uv=False), 1e-10)
    _close(np.einsum("bij,bj,bkj->bik", u, s, v.conj()), BATCH, 1e-10)
    for q, r, m, want_r in ((q_t, r_t, Z_TALL, np.linalg.qr(Z_TALL)[1]), (q_w, r_w, Z_WIDE, np.linalg.qr(Z_WIDE)[1]),
                            (q_c, r_c, Z_TALL, np.linalg.qr(Z_TALL, mode="complete")[1])):
        _close(r, want_r, 1e-10)
        _close(q @ r, m, 1e-10)
        _close(q.conj().T @ q, np.eye(q.shape[-1]), 1e-10)


def _jax_svd(x):
    u, s, vh = jnp.linalg.svd(x, full_matrices=False)
    return s, u, jnp.conj(vh).T


# name: (graphcell loss, jax loss, input): real losses of complex matrices
LOSSES = {
    "det": (lambda x: ops.abs(ops.det(x)) ** 2, lambda x: jnp.abs(jnp.linalg.det(x)) ** 2, Z),
    "det_w": (lambda x: ops.real(ops.det(x) * Tensor(W[0, 1])), lambda x: jnp.real(jnp.linalg.det(x) * W[0, 1]), Z),
    "inverse": (lambda x: ops.real((ops.inverse(x) * Tensor(W)).sum()),
                lambda x: jnp.real((jnp.linalg.inv(x) * W).sum()), Z),
    "slogdet": (lambda x: (lambda sg, la: ops.real(sg * Tensor(W[0, 0]) + la * Tensor(W[1, 1])))(*ops.slogdet(x)),
                lambda x: (lambda sg, la: jnp.real(sg * W[0, 0] + la * W[1, 1]))(*jnp.linalg.slogdet(x)), Z),
    "qr": (lambda x: (lambda q, r: ops.real((q * Tensor(W)).sum() + (r * Tensor(W.T)).sum()))(*ops.qr(x)),
           lambda x: (lambda q, r: jnp.real((q * W).sum() + (r * W.T).sum()))(*jnp.linalg.qr(x)), Z),
    "qr_tall": (lambda x: (lambda q, r: ops.real((q * Tensor(W[:, :2].repeat(2, 0)[:4])).sum()
                                                 + (r * Tensor(W[:2, :2])).sum()))(*ops.qr(x)),
                lambda x: (lambda q, r: jnp.real((q * W[:, :2].repeat(2, 0)[:4]).sum()
                                                 + (r * W[:2, :2]).sum()))(*jnp.linalg.qr(x)), Z_TALL),
    "svd_s": (lambda x: ops.real((ops.svd(x, compute_uv=False) * Tensor(W[0])).sum()),
              lambda x: jnp.real((jnp.linalg.svd(x, compute_uv=False) * W[0]).sum()), Z),
    # u_j conj(v_j) is phase-free; |u|^2 and |v|^2 too
    "svd_uv": (lambda x: (lambda s, u, v: ops.real((u * ops.conj(v) * Tensor(W)).sum()))(*ops.svd(x)),
               lambda x: (lambda s, u, v: jnp.real((u * jnp.conj(v) * W).sum()))(*_jax_svd(x)), Z),
    "svd_abs": (lambda x: (lambda s, u, v: (ops.abs(u) ** 2 * Tensor(W.real)).sum()
                           + (ops.abs(v) ** 2 * Tensor(W.imag)).sum())(*ops.svd(x)),
                lambda x: (lambda s, u, v: (jnp.abs(u) ** 2 * W.real).sum()
                           + (jnp.abs(v) ** 2 * W.imag).sum())(*_jax_svd(x)), Z),
    "svd_wide": (lambda x: (lambda s, u, v: ops.real((u[:, :1] * ops.conj(v[:, :1]).T * Tensor(W_WIDE)).sum()
                                                     + (s * s * Tensor(W[0])).sum()))(*ops.svd(x)),
                 lambda x: (lambda s, u, v: jnp.real((u[:, :1] * jnp.conj(v[:, :1]).T * W_WIDE).sum()
                                                     + (s * s * W[0]).sum()))(*_jax_svd(x)), Z_WIDE),
}


def test_gradients_are_conjugates_of_jax_grad():
    """One jitted gradient of the sum of every loss, each of its own input: graphcell's grad is
    MindSpore's (torch's) dL/dx + i dL/dy, the conjugate of jax.grad's."""
    names = sorted(LOSSES)

    def total(*xs):
        return sum((LOSSES[n][0](x) for n, x in zip(names, xs)), Tensor(np.float64(0)))
    grads = gc.jit(ops.grad(total, grad_position=tuple(range(len(names)))))(*(Tensor(LOSSES[n][2]) for n in names))
    # jax's side as one jitted function too (op-by-op jax.grad compiles every op)
    wants = jax.jit(lambda *xs: [jax.grad(LOSSES[n][1])(x) for n, x in zip(names, xs)])(
        *(jnp.asarray(LOSSES[n][2]) for n in names))
    for name, got, want in zip(names, grads, wants):
        np.testing.assert_allclose(got.asnumpy(), np.conj(want), rtol=1e-8, atol=1e-9, err_msg=name)


def test_wide_qr_gradient_against_finite_differences():
    # jax has no gradient of a wide qr; central differences along x and iy (torch's convention)
    def loss(x):
        q, r = ops.qr(x)
        return ops.real((q * Tensor(W)).sum() + (r * Tensor(W_WIDE)).sum())
    got = ops.grad(loss)(Tensor(Z_WIDE)).asnumpy()
    f = gc.jit(loss)
    want, eps = np.zeros_like(Z_WIDE), 1e-6
    for at in np.ndindex(Z_WIDE.shape):
        for step in (1, 1j):
            e = np.zeros_like(Z_WIDE)
            e[at] = step * eps
            want[at] += step * (f(Tensor(Z_WIDE + e)).asnumpy() - f(Tensor(Z_WIDE - e)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_vmap_of_complex_det_and_inverse():
    got_det, got_inv = gc.vmap(lambda x: (ops.det(x), ops.inverse(x)))(Tensor(BATCH))
    _close(got_det.asnumpy(), np.linalg.det(BATCH), 1e-10)
    _close(got_inv.asnumpy(), np.linalg.inv(BATCH), 1e-10)


def test_cholesky_and_matrix_exp_stay_refused():
    # MindSpore 2.10 refuses both on complex64 (TypeError, RuntimeError: no kernel)
    with pytest.raises(TypeError, match="cholesky"):
        ops.cholesky(Tensor(A))
    with pytest.raises(TypeError, match="matrix_exp"):
        ops.matrix_exp(Tensor(A))


class _OnComplex(nn.Cell):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def construct(self, x):
        out = self.op(ops.cast(x, gc.complex64))
        return ops.real(out[0] if isinstance(out, tuple) else out)


@pytest.mark.parametrize("name, op", [("det", ops.det), ("slogdet", ops.slogdet), ("matrix_inverse", ops.inverse),
                                      ("qr", ops.qr), ("svd", ops.svd)])
def test_onnx_export_names_complex_linear_algebra(name, op):
    with pytest.raises(OnnxExportError, match=rf"{name} \(on complex values: no ONNX form\)"):
        to_onnx(_OnComplex(op), Tensor(np.eye(2, dtype=np.float32)), dynamic_axes=False)
