"""Property tests of ensemble training: random small CNN ensembles (tests/random_models.py),
their vmapped training steps under XLA and in onnxruntime against each member's own steps, and a
member's gradients in float64 against central differences. `make test-fuzz` runs them with many
more examples."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphcell as ms
from graphcell import nn
from tests.conftest import fuzz_derandomized, fuzz_examples
from tests.random_models import architectures, inputs, members

pytestmark = pytest.mark.fuzz
ENSEMBLES = settings(max_examples=fuzz_examples(8), deadline=None, derandomize=fuzz_derandomized(),
                     suppress_health_check=[HealthCheck.too_slow])


def _train_steps(arch, n, seed, lr, train_mode):
    """Each member's TrainOneStepCell (softmax cross-entropy, SGD with momentum; Adam would turn
    float32 noise in a near-zero gradient into a full step), and its members' nets (in training
    mode: BatchNorm normalises by the batch's statistics and updates its moving ones)."""
    nets = members(arch, n, seed)
    for net in nets:
        net.set_train(train_mode)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return nets, [nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), learning_rate=lr,
                                                                           momentum=0.9))
                  for net in nets]


@settings(ENSEMBLES, max_examples=fuzz_examples(5))
@given(arch=architectures(), n=st.integers(2, 3), backend=st.sampled_from(["xla", "onnx"]),
       strategy=st.sampled_from([None, "wide", "grouped", "unrolled"]), train_mode=st.booleans(),
       seed=st.integers(0, 2**16))
def test_cnn_ensemble_training_steps_equal_their_members_one_by_one(arch, n, backend, strategy, train_mode, seed):
    """Two vmapped steps (member k's minibatch: x[k]) under XLA or through onnxruntime, against
    each member's own jitted steps: the losses and every updated parameter."""
    x = inputs(arch, n, False, 4, seed)
    y = np.random.default_rng(seed + 2).integers(0, 3, (n, 4)).astype(np.int32)
    lr = 0.1
    alone, alone_steps = _train_steps(arch, n, seed, lr, train_mode)
    together, together_steps = _train_steps(arch, n, seed, lr, train_mode)
    one_by_one = [ms.jit(step) for step in alone_steps]
    ensemble = ms.jit(ms.vmap(nn.CellList(together_steps), conv_strategy=strategy), backend=backend)
    for _ in range(2):
        want = np.array([float(step(ms.Tensor(x[k]), ms.Tensor(y[k])).asnumpy()) for k, step in enumerate(one_by_one)])
        np.testing.assert_allclose(ensemble(ms.Tensor(x), ms.Tensor(y)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    for a, b in zip(alone, together):
        for (name, p), q in zip(a.parameters_and_names(), b.get_parameters()):
            np.testing.assert_allclose(q.asnumpy(), p.asnumpy(), rtol=1e-4, atol=2e-5, err_msg=name)


@ENSEMBLES
@given(arch=architectures(), seed=st.integers(0, 2**16))
def test_cnn_gradients_equal_central_differences_in_float64(arch, seed):
    """A member's gradients with respect to every parameter (every padding mode, stride,
    dilation and group count of the convolutions, the pools, BatchNorm in training mode and the
    head), in float64, against central differences at a few random elements of each."""
    net = members(arch, 1, seed)[0]
    net.set_train(True)
    for p in net.get_parameters():
        p.set_dtype(ms.float64)
    x = ms.Tensor(inputs(arch, 1, True, 3, seed).astype(np.float64))
    probe = ms.Tensor(np.random.default_rng(seed + 3).standard_normal((3, 3)))

    def loss():
        return (net(x) * probe).sum()

    weights = net.trainable_params()
    grads = ms.grad(loss, grad_position=None, weights=weights)()
    rng = np.random.default_rng(seed + 4)
    eps = 1e-6
    for p, g in zip(weights, grads):
        value = p.asnumpy().copy()
        for flat in rng.choice(value.size, min(3, value.size), replace=False):
            index = np.unravel_index(flat, value.shape)
            losses = []
            for step in (eps, -eps):
                moved = value.copy()
                moved[index] += step
                p.set_data(ms.Tensor(moved))
                losses.append(float(loss().asnumpy()))
            p.set_data(ms.Tensor(value))
            numeric = (losses[0] - losses[1]) / (2 * eps)
            np.testing.assert_allclose(g.asnumpy()[index], numeric, rtol=1e-5, atol=1e-7, err_msg=f"{p.name}{index}")
