"""Dynamic weight decay: an optimizer's `weight_decay` given as a Cell, called with
global_step, as MindSpore 2.10 accepts it (for every optimizer but SGD, and in parameter groups).

References: weights after three steps measured on MindSpore 2.10 (CPU) with the same weights,
gradients and schedule (the MS_AFTER_3_STEPS literals); numpy transcriptions of the formulas;
the trace counts of the compiled update."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops

from tests.optim_fixtures import B0, GRADS, W0, StepWeightDecay, T, _params, _run  # noqa: F401


CASES = {
    "momentum": lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=StepWeightDecay()),
    "momentum_loss_scale": lambda p: nn.Momentum(p, 0.1, 0.0, weight_decay=StepWeightDecay(), loss_scale=4.0),
    "momentum_exponential_decay": lambda p: nn.Momentum(p, 0.1, 0.0,
                                                        weight_decay=nn.ExponentialDecayLR(0.1, 0.5, 1)),
    "momentum_lr_schedule": lambda p: nn.Momentum(p, nn.ExponentialDecayLR(0.1, 0.5, 1), 0.0,
                                                  weight_decay=StepWeightDecay()),
    "adam": lambda p: nn.Adam(p, 0.1, weight_decay=StepWeightDecay()),
    "adam_weight_decay": lambda p: nn.AdamWeightDecay(p, 0.1, weight_decay=StepWeightDecay()),
    "adagrad": lambda p: nn.Adagrad(p, learning_rate=0.1, weight_decay=StepWeightDecay()),
    "rmsprop": lambda p: nn.RMSProp(p, learning_rate=0.1, weight_decay=StepWeightDecay()),
    "ftrl": lambda p: nn.FTRL(p, weight_decay=StepWeightDecay()),
    "groups": lambda p: nn.Momentum([{"params": [p[0]], "weight_decay": StepWeightDecay()},
                                     {"params": [p[1], p[2]], "weight_decay": 0.05}], 0.1, 0.0),
    "groups_default": lambda p: nn.Momentum([{"params": [p[0]]}, {"params": [p[1], p[2]], "weight_decay": 0.0}],
                                            0.1, 0.0, weight_decay=StepWeightDecay()),
}

# dense.weight, dense.bias, bn.gamma after three steps, measured on MindSpore 2.10 (CPU).
MS_AFTER_3_STEPS = {
    "momentum": ([[0.35966602, -1.09355605, 0.507279038], [1.31288803, 0.773388982, -0.827445984]],
                 [-0.190023616, -0.0877327919], [-0.185300022, -0.104900002]),
    "momentum_loss_scale": ([[0.455820501, -0.97054702, 0.279453009], [1.4042778, 0.72054702, -0.52945298]],
                            [0.049929902, -0.173492298], [0.0549999997, -0.185000002]),
    "momentum_exponential_decay": ([[0.431418568, -1.1023376, 0.425272226], [1.4439435, 0.796815634, -0.730794191]],
                                   [-0.0813666433, -0.136642352], [-0.0800000057, -0.140000001]),
    "momentum_lr_schedule": ([[0.459123909, -1.02725077, 0.324939549], [1.44549859, 0.756812692, -0.595377684]],
                             [0.0155226681, -0.167299107], [0.0174999982, -0.172499985]),
    "adam": ([[0.205798939, -1.29515707, 0.543336749], [1.20627558, 1.04516256, -0.793116331]],
             [-0.193220466, 0.0946791917], [-0.192317158, 0.0923168138]),
    "adam_weight_decay": ([[-0.701966763, -2.11370349, 1.40791488], [0.23931849, 1.87833428, -1.64320433]],
                          [-1.07853198, 0.984294951], [-1.10056591, 1.0004338]),
    "adagrad": ([[0.325542837, -1.13895035, 0.469843835], [1.30231786, 0.793734074, -0.73354131]],
                [-0.127001837, -0.0448986813], [-0.126903072, -0.0569718331]),
    "rmsprop": ([[0.401421428, -1.06616044, 0.425913334], [1.36975825, 0.766624868, -0.718996048]],
                [-0.0963612497, -0.120795608], [-0.0940250978, -0.132491976]),
    "ftrl": ([[0.0466935746, -0.0483538434, 0.063598305], [0.230890572, 0.00356785976, -0.167180404]],
             [0.0263114478, -0.0115318848], [0.0263114478, -0.0115318848]),
    "groups": ([[0.411641002, -1.05890596, 0.411991507], [1.38218796, 0.76472646, -0.706171036]],
               [-0.0808932781, -0.137214735], [-0.0808932781, -0.137214735]),
    "groups_default": ([[0.411641002, -1.05890596, 0.411991507], [1.38218796, 0.76472646, -0.706171036]],
                       [-0.0800000057, -0.140000001], [-0.0800000057, -0.140000001]),
}


# MindSpore 2.10's CPU AdamWeightDecay kernel is up to 8e-6 from the float64 formula after three
# steps with a fixed weight decay too (measured); graphcell's is within 1e-7 of it (numpy test below).
ATOL = {"adam_weight_decay": 1e-5}


@pytest.mark.parametrize("case", sorted(CASES))
def test_dynamic_weight_decay_matches_mindspore(case):
    opt, params = _run(CASES[case])
    for p, want in zip(params, MS_AFTER_3_STEPS[case]):
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-5, atol=ATOL.get(case, 1e-6), err_msg=p.name)
    assert opt.global_step.asnumpy().tolist() == [3]
    assert opt._graph_jit.cache_size == 1, "the update is compiled once, not once per step"


def np_momentum(wd_of_step, lr=0.1, momentum=0.9, loss_scale=1.0, decays=(True, True, False)):
    """MindSpore's Momentum with g <- (g + wd(t)*loss_scale*w) / loss_scale, t = 0, 1, 2, ..."""
    ws = [W0.astype(np.float64), B0.astype(np.float64), B0.astype(np.float64)]
    vs = [np.zeros_like(w) for w in ws]
    for t, grads in enumerate(GRADS):
        for i, g in enumerate(grads):
            if decays[i]:
                g = g + wd_of_step(t) * loss_scale * ws[i]
            vs[i] = momentum * vs[i] + g / loss_scale
            ws[i] = ws[i] - lr * vs[i]
    return ws


@pytest.mark.parametrize("make, want", [
    (lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=StepWeightDecay()),
     np_momentum(lambda t: 0.1 * (t + 1))),
    (lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=StepWeightDecay(), loss_scale=8.0),
     np_momentum(lambda t: 0.1 * (t + 1), loss_scale=8.0)),
    (lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=nn.WarmUpLR(0.2, 2)),   # 0 at step 0
     np_momentum(lambda t: 0.2 * min(t, 2) / 2)),
    (lambda p: nn.Momentum([{"params": p, "weight_decay": StepWeightDecay(0.05)}], 0.1, 0.9),   # groups: all decay
     np_momentum(lambda t: 0.05 * (t + 1), decays=(True, True, True))),
])
def test_dynamic_weight_decay_matches_numpy(make, want):
    _, params = _run(make)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-6, atol=1e-6, err_msg=p.name)


def test_decoupled_dynamic_weight_decay_matches_numpy():
    """AdamWeightDecay: w <- w - lr*(m/(sqrt(v) + eps) + wd(t)*w), no bias correction, for
    names without 'beta'/'gamma'."""
    _, params = _run(CASES["adam_weight_decay"])
    ws = [W0.astype(np.float64), B0.astype(np.float64), B0.astype(np.float64)]
    ms_ = [np.zeros_like(w) for w in ws]
    vs = [np.zeros_like(w) for w in ws]
    for t, grads in enumerate(GRADS):
        for i, g in enumerate(grads):
            ms_[i] = 0.9 * ms_[i] + 0.1 * g
            vs[i] = 0.999 * vs[i] + 0.001 * g * g
            update = ms_[i] / (np.sqrt(vs[i]) + 1e-6) + (0.1 * (t + 1) * ws[i] if i < 2 else 0.0)
            ws[i] = ws[i] - 0.1 * update
    for p, w in zip(params, ws):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-6, atol=1e-6, err_msg=p.name)


def test_a_compiled_training_step_with_a_weight_decay_schedule_traces_once():
    """Inside a jitted step the schedule is computed from the global_step Parameter: no
    retrace per step, and the same weights as the eager update."""
    eager_opt, eager = _run(CASES["momentum"])
    params = _params()
    opt = CASES["momentum"](params)
    step = ms.jit(lambda g0, g1, g2: opt((g0, g1, g2)))
    for grads in GRADS:
        step(*(T(g) for g in grads))
    assert step.cache_size == 1
    for p, q in zip(params, eager):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-6, atol=1e-7)


def test_get_weight_decay_is_this_steps_value_times_loss_scale():
    opt, _ = _run(CASES["momentum_loss_scale"])
    assert opt.dynamic_weight_decay
    np.testing.assert_allclose(float(opt.get_weight_decay().asnumpy()), 1.6, rtol=1e-6)   # 0.1*(3+1)*4, as MS
    grouped, _ = _run(CASES["groups"])
    values = grouped.get_weight_decay()
    assert len(values) == 3 and values[1:] == (0.05, 0.05)
    np.testing.assert_allclose(float(values[0].asnumpy()), 0.4, rtol=1e-6)
    assert grouped.decay_flags == (True, True, True)
    assert grouped.group_weight_decay[1:] == [0.05, 0.05]
    fixed = nn.Momentum(_params(), 0.1, 0.9, weight_decay=0.01, loss_scale=2.0)
    assert not fixed.dynamic_weight_decay and fixed.get_weight_decay() == 0.02


def test_a_schedules_parameters_are_saved_with_the_optimizer(tmp_path):
    """As MindSpore names them: the schedule is the optimizer's child 'weight_decay'."""
    class Learned(nn.Cell):
        def __init__(self):
            super().__init__()
            self.k = ms.Parameter(T(np.float32(0.3)), name="k", requires_grad=False)

        def construct(self, global_step):
            return self.k * 1.0

    w = ms.Parameter(T(np.ones((2, 3), np.float32)), name="w")
    opt = nn.Momentum([w], 0.1, 0.0, weight_decay=Learned())
    opt((T(np.zeros((2, 3), np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), 1 - 0.1 * 0.3, rtol=1e-6)
    ms.save_checkpoint(opt, str(tmp_path / "opt.ckpt"))
    saved = ms.load_checkpoint(str(tmp_path / "opt.ckpt"))
    assert "weight_decay.k" in saved and float(saved["weight_decay.k"].asnumpy()) == pytest.approx(0.3)


def test_weight_decay_arguments_as_mindspore():
    p = _params()
    with pytest.raises(TypeError, match="For 'SGD', dynamic weight decay is currently not supported"):
        nn.SGD(p, 0.1, weight_decay=StepWeightDecay())
    with pytest.raises(TypeError, match="For 'SGD', dynamic weight decay"):
        nn.SGD([{"params": p[:1], "weight_decay": StepWeightDecay()}, {"params": p[1:]}], 0.1)
    for bad in ("a", [0.1], T(0.1)):   # MindSpore: "... must be int, float or Cell"
        with pytest.raises(TypeError, match="must be an int, a float >= 0 or a Cell"):
            nn.Momentum(p, 0.1, 0.9, weight_decay=bad)
    with pytest.raises(TypeError, match=r"params\[0\]\['weight_decay'\]"):
        nn.Momentum([{"params": p, "weight_decay": "x"}], 0.1, 0.9)
    with pytest.raises(ValueError, match="'weight_decay' must be a float >= 0.0"):
        nn.Momentum(p, 0.1, 0.9, weight_decay=-0.1)
    assert nn.Momentum(p, 0.1, 0.9, weight_decay=True).get_weight_decay() == 1.0   # an int, as MindSpore

    class TwoValues(nn.Cell):
        def construct(self, global_step):
            return ops.ones((2,), ms.float32)

    opt = nn.Momentum(p, 0.1, 0.9, weight_decay=TwoValues())
    with pytest.raises(ValueError, match="must return one number, but TwoValues returned shape"):
        opt(tuple(T(g) for g in GRADS[0]))
