"""Property tests: random small compositions of elementwise/reduce/reshape/transpose/dot ops.
eager == XLA (jit) == ONNX (onnxruntime) within tolerance; grad == central finite differences (float64)."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphcell as ms
from graphcell import ops
from graphcell.runtime import Session

PROPS = settings(max_examples=12, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Smooth steps on a [3, 4] tensor that keep the shape [3, 4].
STEPS = {
    "tanh": lambda x: ops.tanh(x),
    "sin": lambda x: ops.sin(x),
    "square": lambda x: x * x,
    "exp_small": lambda x: ops.exp(x * 0.1),
    "add_rowsum": lambda x: x + x.sum(axis=1, keepdims=True),
    "sub_colmean": lambda x: x - x.mean(axis=0, keep_dims=True),
    "transpose_dot": lambda x: ops.matmul(ops.transpose(x, (1, 0)), x).reshape(-1)[:12].reshape(3, 4) * 0.1,
    "reshape_roundtrip": lambda x: ops.transpose(x.reshape(4, 3), (1, 0)).reshape(3, 4),
}
programs = st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=5)


def compose(names):
    def f(x):
        for n in names:
            x = STEPS[n](x)
        return x.sum(axis=0)
    return f


@PROPS
@given(names=programs, seed=st.integers(0, 2**16))
def test_eager_equals_xla_equals_onnx(tmp_path, names, seed):
    f = compose(names)
    x = np.random.default_rng(seed).uniform(-1, 1, (3, 4)).astype(np.float32)
    eager = f(ms.Tensor(x)).asnumpy()
    xla = ms.jit(f)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(xla, eager, rtol=1e-4, atol=1e-5)
    path = ms.export(f, ms.Tensor(x), file_name=str(tmp_path / "p.onnx"), dynamic_axes=False)
    onnx_out = Session(path, providers=["cpu"])(x)
    np.testing.assert_allclose(onnx_out, eager, rtol=1e-4, atol=1e-5)


@PROPS
@given(names=programs, seed=st.integers(0, 2**16))
def test_grad_equals_central_differences_float64(names, seed):
    f = compose(names)

    def loss(x):
        return f(x).sum()
    x = np.random.default_rng(seed).uniform(-1, 1, (3, 4))
    g = ms.grad(loss)(ms.Tensor(x)).asnumpy()
    eps, fd = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        fd[i] = (loss(ms.Tensor(x + d)).asnumpy() - loss(ms.Tensor(x - d)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6)
