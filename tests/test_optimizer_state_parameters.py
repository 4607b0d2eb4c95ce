"""An optimizer's state Parameters as users see them: MindSpore 2.10 makes every one
requires_grad=True (global_step, learning_rate, momentum, beta1_power, ...), so a training
step's trainable_params() lists them; graphcell's grad and amp still leave them alone."""
import numpy as np

import graphcell as ms
from graphcell import Parameter, Tensor, nn


def _dense():
    ms.set_seed(0)
    return nn.Dense(3, 2)


def _step(make_opt):
    net = _dense()
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), make_opt(net.trainable_params()))


# Measured on MindSpore 2.10: TrainOneStepCell(...).trainable_params() names, in order; every
# optimizer Parameter has requires_grad=True, and untrainable_params() is empty.
MEASURED_TRAINABLE = {
    "SGD": (lambda p: nn.SGD(p, 0.1),
            ["weight", "bias", "global_step", "learning_rate", "momentum", "accum.weight", "accum.bias",
             "stat.weight", "stat.bias"]),
    "Momentum": (lambda p: nn.Momentum(p, 0.1, 0.9),
                 ["weight", "bias", "global_step", "learning_rate", "momentum", "moments.weight", "moments.bias"]),
    "Adam": (lambda p: nn.Adam(p, 0.1),
             ["weight", "bias", "global_step", "learning_rate", "beta1_power", "beta2_power", "moment1.weight",
              "moment1.bias", "moment2.weight", "moment2.bias"]),
    "Adam list lr": (lambda p: nn.Adam(p, [0.1, 0.05, 0.01]),
                     ["weight", "bias", "global_step", "beta1_power", "beta2_power", "moment1.weight",
                      "moment1.bias", "moment2.weight", "moment2.bias", "learning_rate"]),
    "AdamWeightDecay": (lambda p: nn.AdamWeightDecay(p, 0.1),
                        ["weight", "bias", "global_step", "learning_rate", "adam_m.weight", "adam_m.bias",
                         "adam_v.weight", "adam_v.bias"]),
    "AdamWeightDecay schedule": (lambda p: nn.AdamWeightDecay(p, nn.ExponentialDecayLR(0.1, 0.9, 2)),
                                 ["weight", "bias", "global_step", "adam_m.weight", "adam_m.bias", "adam_v.weight",
                                  "adam_v.bias"]),
}


def test_a_training_steps_trainable_params_list_the_optimizer_state_as_mindspore_2_10():
    for name, (make, want) in MEASURED_TRAINABLE.items():
        _, step = _step(make)
        assert [p.name for p in step.trainable_params()] == want, name
        assert [p.name for p in step.get_parameters()] == want, name
        assert step.untrainable_params() == [], name
        # the optimizer alone: global_step and the rates lead, then the weights (measured)
        assert [p.name for p in step.optimizer.trainable_params()][:2] in (
            ["global_step", "learning_rate"], ["global_step", "weight"]), name
    # measured: the loss-scale cell's and the other optimizers' scalars too
    net = _dense()
    scaled = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()),
                                              nn.Momentum(net.trainable_params(), 0.1, 0.9),
                                              nn.DynamicLossScaleUpdateCell(2.0 ** 10, 2, 100))
    assert [p.name for p in scaled.trainable_params()] == [
        "weight", "bias", "scale_sense", "global_step", "learning_rate", "momentum", "moments.weight",
        "moments.bias", "current_iterator_step", "last_overflow_iterator_step"]
    for opt in (nn.AdaMax(net.trainable_params(), 0.1), nn.ASGD(net.trainable_params(), 0.1),
                nn.Rprop(net.trainable_params(), 0.1), ms.mint.optim.Adam(net.trainable_params(), 0.1),
                nn.AdaFactor(net.trainable_params(), learning_rate=0.1, relative_step=False,
                             scale_parameter=False, warmup_init=False)):
        state = [p.name for p in opt.get_parameters() if not p.requires_grad]
        assert state == [], (type(opt).__name__, state)


def test_grad_over_a_training_step_gives_the_optimizer_state_zeros_of_its_dtype():
    """Measured on MindSpore 2.10: grad(step, None, step.trainable_params()) gives the weights'
    gradients (as the loss's), int32 [0] for global_step and float zeros for the other state;
    graphcell's grad never differentiates the update."""
    net, step = _step(lambda p: nn.Adam(p, 0.1))
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = Tensor(np.ones((2, 2), np.float32))
    want_w, want_b = ms.grad(nn.WithLossCell(net, nn.MSELoss()), None, net.trainable_params())(x, y)
    grads = ms.grad(step, None, step.trainable_params())(x, y)
    names = [p.name for p in step.trainable_params()]
    np.testing.assert_allclose(grads[0].asnumpy(), want_w.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(grads[1].asnumpy(), want_b.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(grads[1].asnumpy(), [-0.5390642, -0.6751883], rtol=1e-5)   # 2.10's
    step_grad = grads[names.index("global_step")]
    assert step_grad.dtype is ms.int32 and step_grad.asnumpy().tolist() == [0]
    assert all(not g.asnumpy().any() for g in grads[2:])


def test_amp_over_a_training_step_keeps_the_optimizer_state_float32_parameters():
    """O3 over TrainOneStepCell(net, Adam): the network computes in float16, the optimizer's
    state Parameters (now requires_grad=True) stay float32 Parameters that the step writes
    (casting them made assign fail; 2.10 computed with them in float16 and left the loss stuck)."""
    net, step = _step(lambda p: nn.Adam(p, 0.1))
    amp_step = ms.amp.auto_mixed_precision(step, "O3")
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = Tensor(np.ones((2, 2), np.float32))
    losses = [float(amp_step(x, y).asnumpy()) for _ in range(2)]
    assert losses[1] < losses[0]
    opt = step.optimizer
    assert isinstance(opt.beta1_power, Parameter) and opt.beta1_power.dtype is ms.float32
    assert float(opt.beta1_power.asnumpy()) == np.float32(0.9) * np.float32(0.9)   # not float16's 0.81006
    assert opt.global_step.asnumpy().tolist() == [2] and net.weight.dtype is ms.float32


def test_lars_lists_and_saves_2_10s_placeholders(tmp_path):
    """Measured on MindSpore 2.10: LARS registers fake_lr (under the key 'learning_rate') and
    fake_param, float32 0.0 and requires_grad=True, after global_step; its learning_rate stays the
    wrapped optimizer's in graphcell (2.10's is fake_lr, which no scheduler then reaches)."""
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    tail = ["momentum", "moments.weight", "moments.bias"]
    for sgd, rates in ((nn.Momentum(net.trainable_params(), 0.1, 0.9), ["learning_rate"]),
                       (nn.Momentum([{"params": [net.weight], "lr": 0.2}, {"params": [net.bias]}], 0.1, 0.9),
                        ["learning_rate_group_0", "learning_rate"])):
        opt = nn.LARS(sgd, epsilon=1e-5, coefficient=0.001)
        want = ["global_step", "fake_lr", "fake_param", "weight", "bias"] + rates + tail
        params = list(opt.get_parameters())
        assert [p.name for p in params] == want and [p.name for p in opt.trainable_params()] == want
        assert [n for n, _ in opt.parameters_and_names()] == (
            ["global_step", "learning_rate", "fake_param", "weight", "bias"] + ["opt." + r for r in rates + tail])
        for p in params[1:3]:
            assert p.requires_grad and p.dtype == ms.float32 and p.shape == () and float(p.asnumpy()) == 0.0
        path = str(tmp_path / "lars.ckpt")
        ms.save_checkpoint(opt, path)
        assert list(ms.load_checkpoint(path)) == want
        assert opt.learning_rate is sgd.learning_rate
