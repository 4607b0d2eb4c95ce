"""Learning-rate lists and schedule Cells against MindSpore's formulas and measured examples."""
import math

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn


def test_examples_measured_on_mindspore():
    assert nn.piecewise_constant_lr([2, 5], [0.1, 0.05]) == [0.1, 0.1, 0.05, 0.05, 0.05]
    np.testing.assert_allclose(nn.warmup_lr(0.1, 6, 2, 2), [0, 0, 0.05, 0.05, 0.1, 0.1])


def test_decay_lists_follow_the_formulas():
    lr, r, total, spe, de = 0.1, 0.9, 12, 2, 2
    epochs = [math.floor(i / spe) for i in range(total)]
    np.testing.assert_allclose(nn.exponential_decay_lr(lr, r, total, spe, de), [lr * r ** (e / de) for e in epochs])
    np.testing.assert_allclose(nn.exponential_decay_lr(lr, r, total, spe, de, True),
                               [lr * r ** math.floor(e / de) for e in epochs])
    np.testing.assert_allclose(nn.natural_exp_decay_lr(lr, r, total, spe, de), [lr * math.exp(-r * e) for e in epochs])
    np.testing.assert_allclose(nn.natural_exp_decay_lr(lr, r, total, spe, de, True),
                               [lr * math.exp(-r * math.floor(e / de) * de) for e in epochs])
    np.testing.assert_allclose(nn.inverse_decay_lr(lr, r, total, spe, de), [lr / (1 + r * e / de) for e in epochs])
    np.testing.assert_allclose(nn.cosine_decay_lr(0.01, 0.1, total, spe, de),
                               [0.01 + 0.045 * (1 + math.cos(math.pi * min(e, de) / de)) for e in epochs])
    np.testing.assert_allclose(nn.polynomial_decay_lr(0.1, 0.01, total, spe, de, 0.5),
                               [0.09 * (1 - min(e, de) / de) ** 0.5 + 0.01 for e in epochs])
    updated = nn.polynomial_decay_lr(0.1, 0.01, total, spe, de, 0.5, update_decay_epoch=True)
    np.testing.assert_allclose(updated, [0.09 * (1 - e / (de * max(math.ceil(e / de), 1))) ** 0.5 + 0.01
                                         for e in epochs])


def test_list_helpers_reject_bad_arguments():
    with pytest.raises(ValueError, match="total_step"):
        nn.exponential_decay_lr(0.1, 0.9, 0, 1, 1)
    with pytest.raises(ValueError, match="strictly increasing"):
        nn.piecewise_constant_lr([3, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="max_lr"):
        nn.cosine_decay_lr(0.2, 0.1, 4, 1, 1)


@pytest.mark.parametrize("jit", [False, True])
def test_schedule_cells(jit):
    steps = np.arange(0, 12)
    cases = [
        (nn.ExponentialDecayLR(0.1, 0.9, 4), 0.1 * 0.9 ** (steps / 4)),
        (nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True), 0.1 * 0.9 ** np.floor(steps / 4)),
        # MindSpore's code (not its docstring): t is not divided by decay_steps; stair rounds
        # it down to a multiple of them (as natural_exp_decay_lr's list).
        (nn.NaturalExpDecayLR(0.1, 0.9, 4), 0.1 * np.exp(-0.9 * steps)),
        (nn.NaturalExpDecayLR(0.1, 0.9, 4, is_stair=True), 0.1 * np.exp(-0.9 * np.floor(steps / 4) * 4)),
        (nn.InverseDecayLR(0.1, 0.9, 4, is_stair=True), 0.1 / (1 + 0.9 * np.floor(steps / 4))),
        (nn.CosineDecayLR(0.01, 0.1, 8), 0.01 + 0.045 * (1 + np.cos(np.pi * np.minimum(steps, 8) / 8))),
        (nn.PolynomialDecayLR(0.1, 0.01, 8, 2.0), 0.09 * (1 - np.minimum(steps, 8) / 8) ** 2 + 0.01),
        (nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0, update_decay_steps=True),
         0.09 * (1 - steps / (4 * np.maximum(np.ceil(steps / 4), 1))) + 0.01),
        (nn.WarmUpLR(0.1, 5), 0.1 * np.minimum(steps, 5) / 5),
    ]
    for sched, expected in cases:
        assert isinstance(sched, nn.LearningRateSchedule)
        call = ms.jit(sched) if jit else sched
        got = [float(call(ms.Tensor(np.array([s], np.int32))).asnumpy()[0]) for s in steps]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7, err_msg=type(sched).__name__)
