"""nn.LARS, the wrapper that rescales another optimizer's gradients layer by layer.

MindSpore 2.10 has no CPU kernel for its LARSUpdate op ("Unsupported op [LARSUpdate] on CPU"),
so the MS_LARS_AFTER_3_STEPS literals were measured on MindSpore 2.10 (CPU) running its own
nn.LARS and wrapped optimizers with LARSUpdate replaced by a Cell of MindSpore ops computing
the Ascend kernel's formula (lars_v2_update). They check everything around the kernel: which
parameters LARS rescales, the weight decay it takes over, the loss scale, the learning rate
use_clip divides by, parameter groups, dynamic weight decay. A numpy transcription checks the
formula independently."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn

from tests.optim_fixtures import B0, GRADS, W0, StepWeightDecay, T, _params, _run, assert_ensemble_steps_match_members  # noqa: F401,E501


def _momentum(p, **kw):
    return nn.Momentum(p, kw.pop("learning_rate", 0.1), 0.9, **kw)


CASES = {
    "default": lambda p: nn.LARS(_momentum(p)),
    "weight_decay": lambda p: nn.LARS(_momentum(p, weight_decay=0.01), epsilon=1e-3, coefficient=0.1),
    "clip": lambda p: nn.LARS(_momentum(p, weight_decay=0.01), epsilon=1e-3, coefficient=0.1, use_clip=True),
    "clip_small": lambda p: nn.LARS(_momentum(p, weight_decay=0.01), coefficient=0.001, use_clip=True),
    "filter_all": lambda p: nn.LARS(_momentum(p, weight_decay=0.01), coefficient=0.1, lars_filter=lambda x: True),
    "loss_scale": lambda p: nn.LARS(_momentum(p, weight_decay=0.01, loss_scale=4.0), coefficient=0.1),
    "sgd": lambda p: nn.LARS(nn.SGD(p, 0.1, weight_decay=0.01), coefficient=0.1),
    "adam": lambda p: nn.LARS(nn.Adam(p, 0.1, weight_decay=0.01), coefficient=0.1),
    "schedule_clip": lambda p: nn.LARS(_momentum(p, learning_rate=nn.ExponentialDecayLR(0.1, 0.5, 1),
                                                 weight_decay=0.01), coefficient=0.1, use_clip=True),
    "list_clip": lambda p: nn.LARS(_momentum(p, learning_rate=[0.1, 0.05, 0.02], weight_decay=0.01),
                                   coefficient=0.1, use_clip=True),
    "groups": lambda p: nn.LARS(nn.Momentum([{"params": [p[0]], "weight_decay": 0.02}, {"params": [p[1], p[2]]}],
                                            0.1, 0.9, weight_decay=0.01), coefficient=0.1),
    "group_lr_clip": lambda p: nn.LARS(nn.Momentum([{"params": [p[0]], "lr": 0.05}, {"params": [p[1], p[2]]}],
                                                   0.1, 0.9, weight_decay=0.01), coefficient=0.1, use_clip=True),
    "dynamic_weight_decay": lambda p: nn.LARS(_momentum(p, learning_rate=[0.1, 0.05, 0.02],
                                                        weight_decay=StepWeightDecay(0.01)), coefficient=0.1),
}

# dense.weight, dense.bias, bn.gamma after three steps: MindSpore 2.10's nn.LARS with the Ascend
# formula standing in for LARSUpdate (see the module docstring).
MS_LARS_AFTER_3_STEPS = {
    "default": ([[0.499790102, -1.00041986, 0.250629723], [1.4998951, 0.750209928, -0.500839651]],
                [-0.185300022, -0.104900002], [0.0998810083, -0.199960321]),
    "weight_decay": ([[0.478797525, -1.03950608, 0.311070859], [1.48758686, 0.769390643, -0.581186235]],
                     [-0.185300022, -0.104900002], [0.0881971642, -0.196065709]),
    "clip": ([[0.40215537, -1.18447888, 0.533724725], [1.44407117, 0.840838134, -0.87736547]],
             [-0.185300022, -0.104900002], [-0.012297377, -0.162567556]),
    "clip_small": ([[0.497882187, -1.00394559, 0.256099761], [1.49875987, 0.751936615, -0.508108854]],
                   [-0.185300022, -0.104900002], [0.0988106877, -0.199603558]),
    "filter_all": ([[0.478771478, -1.03955388, 0.311145306], [1.48757124, 0.769414067, -0.581285179]],
                   [0.0882026479, -0.196020916], [0.0881709978, -0.196056992]),
    "loss_scale": ([[0.478314281, -1.03271592, 0.305733651], [1.48249745, 0.765026033, -0.573423505]],
                   [0.0286749937, -0.176225007], [0.0881717876, -0.196057275]),
    "sgd": ([[0.488656163, -1.02135015, 0.282861203], [1.49349213, 0.760507882, -0.543703496]],
            [-0.0800000057, -0.140000001], [0.0936807916, -0.19789359]),
    "adam": ([[0.19987978, -1.30037546, 0.550293684], [1.20085752, 1.05040812, -0.800305068]],
             [-0.192317158, 0.0923168138], [-0.18026872, 0.0802609771]),
    "schedule_clip": ([[0.460175216, -1.07439709, 0.364878327], [1.47680473, 0.786541879, -0.652733386]],
                      [-0.0155750066, -0.161475003], [0.0182815772, -0.172760531]),
    "list_clip": ([[0.463046223, -1.06892574, 0.356502175], [1.47840941, 0.78384006, -0.641587734]],
                  [-0.00716000423, -0.164280012], [0.0209199768, -0.173639998]),
    "groups": ([[0.478610188, -1.03714299, 0.309237331], [1.48578227, 0.76786691, -0.578513384]],
               [-0.185300022, -0.104900002], [0.0882026479, -0.196020916]),
    "group_lr_clip": ([[0.45106259, -1.09226727, 0.391905546], [1.47202647, 0.795432687, -0.688740134]],
                      [-0.185300022, -0.104900002], [-0.0121987127, -0.162147179]),
    "dynamic_weight_decay": ([[0.4905518, -1.01709676, 0.276769876], [1.49415112, 0.758323431, -0.535543203]],
                             [-0.00716000423, -0.164280012], [0.0947297662, -0.19824326]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_lars_matches_mindspore(case):
    opt, params = _run(CASES[case])
    for p, want in zip(params, MS_LARS_AFTER_3_STEPS[case]):
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-5, atol=1e-6, err_msg=p.name)
    assert opt.global_step.asnumpy().tolist() == [3]   # the wrapped optimizer's count, shared
    assert opt._graph_jit.cache_size == 1, "LARS and the wrapped update compile once"


def np_lars_momentum(lr=lambda i, t: 0.1, wd=lambda i, t: 0.0, eps=1e-5, coefficient=1e-3, clip=False,
                     lars=(True, False, True), loss_scale=1.0, momentum=0.9):
    """The Ascend formula, then Momentum (v <- mu*v + g; w <- w - lr*v), in float64."""
    ws = [W0.astype(np.float64), B0.astype(np.float64), B0.astype(np.float64)]
    vs = [np.zeros_like(w) for w in ws]
    for t, grads in enumerate(GRADS):
        for i, g in enumerate(grads):
            g, w = g / loss_scale, ws[i]
            if lars[i]:
                d = wd(i, t)
                w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g)
                coeff = coefficient * w_norm / (g_norm + d * w_norm + eps)
                if clip:
                    coeff = min(max(coeff / lr(i, t), 0.0), 1.0)
                g = (g + d * w) * coeff
            vs[i] = momentum * vs[i] + g
            ws[i] = w - lr(i, t) * vs[i]
    return ws


@pytest.mark.parametrize("case, want", [
    ("default", np_lars_momentum()),
    # bn.gamma: the name filter of the wrapped optimizer's decay ('gamma') holds under LARS
    ("clip", np_lars_momentum(wd=lambda i, t: 0.01 * (i != 2), eps=1e-3, coefficient=0.1, clip=True)),
    ("loss_scale", np_lars_momentum(wd=lambda i, t: 0.01 * (i != 2), coefficient=0.1, loss_scale=4.0)),
    # groups decay all their parameters; group lrs are each parameter's
    ("group_lr_clip", np_lars_momentum(lr=lambda i, t: [0.05, 0.1, 0.1][i], wd=lambda i, t: 0.01,
                                       coefficient=0.1, clip=True)),
    ("dynamic_weight_decay", np_lars_momentum(lr=lambda i, t: [0.1, 0.05, 0.02][t],
                                              wd=lambda i, t: 0.01 * (t + 1) * (i != 2), coefficient=0.1)),
])
def test_lars_matches_numpy(case, want):
    _, params = _run(CASES[case])
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-6, atol=1e-6, err_msg=p.name)


def test_lars_takes_over_weight_decay_and_loss_scale():
    inner = nn.Momentum(_params(), 0.1, 0.9, weight_decay=0.01, loss_scale=2.0)
    lars = nn.LARS(inner)
    assert lars.lars_flag == (True, False, True)   # default filter: no 'bias', no 'LayerNorm'
    assert inner.gradients_prepared and inner.weight_decays() == (None, None, None)
    assert lars.decay_flags == (True, True, False) and lars.loss_scale == 2.0
    assert lars.learning_rate is inner.learning_rate and lars.get_weight_decay() == pytest.approx(0.02)
    names = [p.name for p in lars.get_parameters()]
    assert names == ["global_step", "fake_lr", "fake_param", "dense.weight", "dense.bias", "bn.gamma", "learning_rate",
                     "momentum", "moments.dense.weight", "moments.dense.bias", "moments.bn.gamma"]   # as MS
    ln = ms.Parameter(T(np.ones(2, np.float32)), name="enc.LayerNorm.gamma")
    assert nn.LARS(nn.Momentum([ln], 0.1, 0.9)).lars_flag == (False,)


def test_a_zero_weight_stays_put_as_on_ascend():
    """No special case for a zero norm: coeff = coefficient*0/(||g|| + eps) = 0."""
    w = ms.Parameter(T(np.zeros((2, 2), np.float32)), name="w")
    opt = nn.LARS(nn.SGD([w], 0.1))
    opt((T(np.ones((2, 2), np.float32)),))
    np.testing.assert_array_equal(w.asnumpy(), 0.0)


def test_lars_in_a_jitted_train_step():
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    opt = nn.LARS(nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=1e-4), coefficient=0.02)
    step = ms.jit(nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt))
    x, y = T(np.ones((4, 3), np.float32)), T(np.zeros((4, 2), np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(5)]
    assert step.cache_size == 1 and losses[-1] < losses[0]
    assert opt.global_step.asnumpy().tolist() == [5]


def test_lars_arguments_as_mindspore():
    p = _params()
    for kw, arg, kind in [({"epsilon": 1}, "epsilon", "float"), ({"coefficient": 1}, "coefficient", "float"),
                          ({"use_clip": 1}, "use_clip", "bool")]:
        with pytest.raises(TypeError, match=f"For 'LARS', the type of '{arg}' should be '{kind}', but got type "
                                            "'int'"):
            nn.LARS(nn.Momentum(p, 0.1, 0.9), **kw)
    with pytest.raises(TypeError, match="the 'optimizer' must be an Optimizer, but got str"):
        nn.LARS("x")
    with pytest.raises(ValueError, match="if the argument 'use_clip' is set to True, then the dynamic learning rate "
                                         "and group learning rate cannot both be true"):
        nn.LARS(nn.Momentum([{"params": p[:2], "lr": [0.1, 0.2]}, {"params": p[2:]}], 0.1, 0.9), use_clip=True)
    with pytest.raises(TypeError, match="lars_filter"):
        nn.LARS(nn.Momentum(p, 0.1, 0.9), lars_filter=3)
    nn.LARS(nn.Momentum(p, 0.1, 0.9), epsilon=-1.0, coefficient=-1.0)   # MindSpore checks only the types


def test_lars_with_a_weight_decay_schedule_trains_an_ensemble_under_vmap():
    """Each member's LARS, Momentum and decay schedule stacked: the same steps as a loop."""
    def build():
        cells = []
        for k in range(2):
            ms.set_seed(k)
            net = nn.Dense(3, 2)
            inner = nn.Momentum(net.trainable_params(), 0.1, 0.9, weight_decay=nn.ExponentialDecayLR(0.1, 0.5, 2))
            cells.append(nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.LARS(inner, coefficient=0.1)))
        return cells

    assert_ensemble_steps_match_members(build)
