"""ASGD, AdaMax, Adadelta, AdaFactor, LazyAdam, ProximalAdagrad and Rprop against MindSpore 2.10.

Each runs the steps MindSpore 2.10 (CPU) was measured on (optim_fixtures' weights and
gradients, 3 steps; the learning rate a float, a list, a schedule or per group; weight decay
and loss scale) and must reproduce both the measured weights (MS_FINAL) and an independent
numpy transcription of its formula (float64); torch.optim where its formula is MindSpore's.
Eager, jit, vmap (an ensemble against its members), checkpoints and ONNX run the same steps."""
import numpy as np
import onnxruntime as ort
import pytest
import torch

import graphcell as ms
from graphcell import nn, ops
from graphcell.compiler.export import to_onnx
from graphcell.train.ckpt_format import read_ckpt_file
from tests.optim_fixtures import B0, GRADS, W0, T, _params, assert_ensemble_steps_match_members

LIST = [0.1, 0.05, 0.02]
LIST2 = [0.2, 0.05, 0.02]
DECAYS = (True, True, False)   # MindSpore's default filter: 'bn.gamma' does not decay


class Inverse(nn.LearningRateSchedule):
    """0.3 / (step + 1): unlike ExponentialDecayLR(0.1, ...), its first rate is not 0.1."""

    def construct(self, global_step):
        return 0.3 / (ops.cast(global_step, ms.float32) + 1.0)


def _exp_sched():
    return nn.ExponentialDecayLR(0.1, 0.5, 1)


def _grouped(cls, **kw):
    """dense.weight in a group of its own with lr 0.05 and weight decay 0.1 (for that weight
    alone); the others take the optimizer's rate and no decay."""
    return lambda p: cls([{"params": [p[0]], "lr": 0.05, "weight_decay": 0.1}, {"params": [p[1], p[2]]}], **kw)


# Final weights (dense.weight, dense.bias, bn.gamma flattened) after the 3 steps (rprop_flip: 5),
# measured on MindSpore 2.10 (CPU) with the constructors in CASES below.
MS_FINAL = {
    "asgd_t0": [
        0.426011533, -1.08886552, 0.420242846, 1.42606103, 0.78704375, -0.722064435, -0.0805873573, -0.134878248,
        -0.0805873573, -0.134878248],
    "asgd_list2": [
        0.404066175, -1.10349548, 0.460475981, 1.39680064, 0.79070127, -0.773270249, -0.125941068, -0.117321983,
        -0.125941068, -0.117321983],
    "asgd_wd": [
        0.425534874, -1.08946979, 0.421367496, 1.4256047, 0.787302315, -0.723535001, -0.0817730501, -0.134453952,
        -0.0799999982, -0.139994994],
    "asgd_groups": [
        0.455550909, -1.02971506, 0.331562042, 1.44078612, 0.7574597, -0.603817463, -0.0799983069, -0.135086626,
        -0.0799983069, -0.135086626],
    "adamax_list": [
        0.414210826, -1.10902214, 0.37012741, 1.43930733, 0.835789144, -0.626657248, -0.0201274287, -0.114210859,
        -0.0201274287, -0.114210859],
    "adamax_sched": [
        0.343214929, -1.15678513, 0.406785101, 1.34321487, 0.906785071, -0.656785071, -0.0567850731, -0.0432149358,
        -0.0567850731, -0.0432149358],
    "adamax_wd_ls": [
        0.472966939, -0.986214399, 0.2736938, 1.47089052, 0.728265047, -0.523137331, 0.0751610473, -0.17405425,
        0.0754680559, -0.175468072],
    "adamax_groups": [
        0.372224778, -1.11579978, 0.371863693, 1.36160123, 0.860610723, -0.621315718, 0.0754680559, -0.175468057,
        0.0754680559, -0.175468057],
    "adadelta": [
        0.487932503, -1.01207089, 0.26207158, 1.48794627, 0.762067497, -0.512071848, 0.0879284292, -0.187932521,
        0.0879284292, -0.187932521],
    "adadelta_list": [
        0.491756231, -1.00872004, 0.258819491, 1.49303353, 0.758243799, -0.508855164, 0.0911805183, -0.191756219,
        0.0911805183, -0.191756219],
    "adadelta_wd_ls": [
        0.489057422, -1.00011611, 0.262422323, 1.48993611, 0.744834661, -0.512641847, 0.0880653709, -0.188574106,
        0.087936081, -0.188000619],
    "adadelta_groups": [
        0.499417424, -1.00063288, 0.250607818, 1.49946404, 0.750647187, -0.500610054, 0.0879284292, -0.187932521,
        0.0879284292, -0.187932521],
    "proxada": [
        0.35697186, -1.20033681, 0.476903051, 1.41374362, 0.89302814, -0.741220295, -0.126903072, -0.0569718517,
        -0.126903072, -0.0569718517],
    "prox_l1l2": [
        0.367937803, -1.04417741, 0.383425027, 1.32197118, 0.749255002, -0.647196054, -0.0663788766, -0.090704754,
        -0.0663788766, -0.090704754],
    "prox_wd_ls": [
        0.41484499, -1.00075591, 0.35097, 1.36980462, 0.727795243, -0.614589095, -0.0224488284, -0.137948588,
        -0.0182008501, -0.153805971],
    "prox_groups": [
        0.418337047, -1.08566701, 0.361857772, 1.41825473, 0.799578726, -0.618923426, -0.126903072, -0.0569718517,
        -0.126903072, -0.0569718517],
    "rprop_flip": [
        0.299999982, -1.19999993, 0.450000018, 1.30000007, 0.950000048, -0.700000048, -0.100000001, 0, -0.100000001, 0],
    "rprop_list2": [
        -0.228000015, -1.72800004, 0.978000045, 0.771999955, 1.47800004, -1.22800004, -0.628000021, 0.527999997,
        -0.628000021, 0.527999997],
    "rprop_sched": [
        0.135999992, -1.36400008, 0.614000022, 1.13599992, 1.11400008, -0.864000022, -0.263999999, 0.164000005,
        -0.263999999, 0.164000005],
    "rprop_wd": [
        0.135999992, -1.36400008, 0.614000022, 1.13599992, 1.11400008, -0.864000022, -0.263999999, 0.164000005,
        -0.263999999, 0.164000005],
    "rprop_groups": [
        0.317999989, -1.18199992, 0.432000011, 1.31800008, 0.932000041, -0.682000041, -0.263999999, 0.164000005,
        -0.263999999, 0.164000005],
    "lazyadam": [
        0.470768332, -1.02923167, 0.279231727, 1.47076833, 0.779231727, -0.529231727, 0.0707682893, -0.170768306,
        0.0707682893, -0.170768306],
    "lazy_nest": [
        0.496950477, -1.00566077, 0.257931411, 1.49841273, 0.753049493, -0.509930849, 0.0920685753, -0.196950465,
        0.0920685753, -0.196950465],
    "lazy_wd_ls": [
        0.470047891, -0.984521389, 0.278768837, 1.46995687, 0.723805666, -0.528381407, 0.0706290752, -0.170255348,
        0.070768334, -0.170768484],
    "lazy_groups": [
        0.351825744, -1.14200854, 0.395778, 1.34991431, 0.887541592, -0.645493567, 0.0707682893, -0.170768306,
        0.0707682893, -0.170768306],
    "adafactor": [
        0.49373135, -1.00626862, 0.254205137, 1.49717629, 0.752823651, -0.505051076, 0.0991137028, -0.199113697,
        0.0991137028, -0.199113697],
    "af_beta1none": [
        0.466417819, -1.03358221, 0.272527635, 1.48487318, 0.765126884, -0.527059734, 0.0953013971, -0.195301414,
        0.0953013971, -0.195301414],
    "af_warm": [
        0.499998927, -1.00000107, 0.250000715, 1.49999964, 0.750000477, -0.500000834, 0.0999998525, -0.199999854,
        0.0999998525, -0.199999854],
    "af_manual_scale": [
        0.49373135, -1.00626862, 0.254205137, 1.49717629, 0.752823651, -0.505051076, 0.0991137028, -0.199113697,
        0.0991137028, -0.199113697],
    "af_clip": [
        0.496425331, -1.00369906, 0.25250566, 1.49838781, 0.751668274, -0.503013492, 0.0971584618, -0.197232202,
        0.0971584618, -0.197232202],
    "af_wd": [
        0.492459804, -1.00370324, 0.253560632, 1.49334276, 0.750901818, -0.503766119, 0.0990665331, -0.199019179,
        0.0990665331, -0.199019179],
    "af_ls": [
        0.49373135, -1.00626862, 0.254205137, 1.49717629, 0.752823651, -0.505051076, 0.0991137028, -0.199113697,
        0.0991137028, -0.199113697],
    "af_list": [
        0.449497283, -1.05050266, 0.283878237, 1.47725129, 0.77274859, -0.540693879, 0.0613999888, -0.16139999,
        0.0613999888, -0.16139999],
    "af_sched": [
        0.448843122, -1.05115676, 0.284317076, 1.47695661, 0.773043215, -0.541220963, 0.0608999878, -0.160899997,
        0.0608999878, -0.160899997],
    "af_compress": [
        0.49373135, -1.00626862, 0.254205137, 1.49717629, 0.752823651, -0.505051076, 0.0991137028, -0.199113697,
        0.0991137028, -0.199113697],
}


# -- numpy transcriptions (float64), one parameter at a time ----------------------------------------

def _lr(spec, k, i):
    """The rate of step k (0-based) for parameter i."""
    if spec == "list":
        return LIST[k]
    if spec == "list2":
        return LIST2[k]
    if spec == "exp":
        return 0.1 * 0.5 ** k
    if spec == "inverse":
        return 0.3 / (k + 1)
    if isinstance(spec, tuple):   # ("group", the optimizer's rate): dense.weight's group has 0.05
        return 0.05 if i == 0 else spec[1]
    return spec


def np_run(update, init, lr, wd=0.0, scale=1.0, grads=GRADS, decoupled=False, group_wd=False, decays=DECAYS):
    """Runs update(w, g, state, lr, t) -> w over the steps, after MindSpore's gradient
    preparation: g + wd*scale*w for parameters that decay, then / scale."""
    ws = [W0.astype(np.float64), B0.astype(np.float64), B0.astype(np.float64)]
    states = [init(w, _lr(lr, 0, i)) for i, w in enumerate(ws)]
    for k, gs in enumerate(grads):
        for i, g in enumerate(gs):
            g = g.astype(np.float64)
            decay = (0.1 if i == 0 else 0.0) if group_wd else (wd if decays[i] else 0.0)
            if not decoupled:
                g = (g + decay * scale * ws[i]) / scale
            states[i]["decay"] = decay
            ws[i] = update(ws[i], g, states[i], _lr(lr, k, i), k + 1)
    return np.concatenate([w.ravel() for w in ws])


def asgd(lambd=1e-4, alpha=0.75, t0=1e6):
    def update(w, g, s, lr, t):
        eta = lr if t == 1 else s["eta"]
        w = w * (1 - lambd * eta) - eta * g
        s["ax"] = w if s["mu"] == 1 else s["ax"] + (w - s["ax"]) * s["mu"]
        s["eta"] = lr / (1 + lambd * lr * t) ** alpha
        s["mu"] = 1 / max(1, t - t0)
        return w
    return update, lambda w, lr: {"mu": 1.0, "eta": lr, "ax": np.zeros_like(w)}


def adamax(b1=0.9, b2=0.999, eps=1e-8):
    def update(w, g, s, lr, t):
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = np.maximum(b2 * s["v"], np.abs(g))
        return w - lr / (1 - b1 ** t) * s["m"] / (s["v"] + eps)
    return update, lambda w, lr: {"m": np.zeros_like(w), "v": np.zeros_like(w)}


def adadelta(rho=0.9, eps=1e-6):
    def update(w, g, s, lr, t):
        s["a"] = rho * s["a"] + (1 - rho) * g * g
        u = np.sqrt(s["u"] + eps) * g / np.sqrt(s["a"] + eps)
        s["u"] = rho * s["u"] + (1 - rho) * u * u
        return w - lr * u
    return update, lambda w, lr: {"a": np.zeros_like(w), "u": np.zeros_like(w)}


def proximal_adagrad(accum=0.1, l1=0.0, l2=0.0):
    def update(w, g, s, lr, t):
        s["a"] = s["a"] + g * g
        r = lr / np.sqrt(s["a"])   # l1 and l2 scaled by it too: measured
        v = w - r * g
        return np.sign(v) / (1 + r * l2) * np.maximum(np.abs(v) - r * l1, 0)
    return update, lambda w, lr: {"a": np.full_like(w, accum)}


def rprop(etas=(0.5, 1.2), sizes=(1e-6, 50.0)):
    def update(w, g, s, lr, t):
        step = np.full_like(w, lr) if t == 1 else s["step"]   # the rate is read at the first step only
        prod = g * s["prev"]
        step = np.clip(step * np.where(prod > 0, etas[1], np.where(prod < 0, etas[0], 1.0)), *sizes)
        g = np.where(prod < 0, 0.0, g)
        s["step"], s["prev"] = step, g
        return w - step * np.sign(g)
    return update, lambda w, lr: {"prev": np.zeros_like(w)}


def adam(b1=0.9, b2=0.999, eps=1e-8, nesterov=False):
    def update(w, g, s, lr, t):
        s["m"] = b1 * s["m"] + (1 - b1) * g
        s["v"] = b2 * s["v"] + (1 - b2) * g * g
        d = b1 * s["m"] + (1 - b1) * g if nesterov else s["m"]
        return w - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * d / (np.sqrt(s["v"]) + eps)
    return update, lambda w, lr: {"m": np.zeros_like(w), "v": np.zeros_like(w)}


def rms(x):
    return np.sqrt(np.mean(x * x))


def adafactor(manual=False, eps=(1e-30, 1e-3), clip=1.0, decay_rate=0.8, beta1=0.9, scale_parameter=True,
              warmup_init=False):
    def update(w, g, s, lr, t):
        rate = lr if manual else min(1e-6 * t if warmup_init else 1e-2, 1 / np.sqrt(t))
        if scale_parameter:
            rate *= max(eps[1], rms(w))
        b2 = 1 - t ** -decay_rate
        u = g * g + eps[0]
        if w.ndim >= 2:
            s["row"] = b2 * s["row"] + (1 - b2) * u.mean(-1)
            s["col"] = b2 * s["col"] + (1 - b2) * u.mean(-2)
            v = (s["row"] / s["row"].mean(-1, keepdims=True))[..., None] * s["col"][..., None, :]
        else:
            s["v"] = v = b2 * s["v"] + (1 - b2) * u
        update = g / np.sqrt(v)
        update = rate * update / max(1.0, rms(update) / clip)
        if beta1 is not None:
            s["m"] = update = beta1 * s["m"] + (1 - beta1) * update
        return w - s["decay"] * rate * w - update   # decoupled, every weight
    return update, lambda w, lr: {"row": np.zeros(w.shape[:-1]), "col": np.zeros(w.shape[:-2] + w.shape[-1:]),
                                  "v": np.zeros_like(w), "m": np.zeros_like(w)}


# name: (constructor, numpy reference kwargs: the transcription's (update, init), lr, wd, scale, ...)
CASES = {
    "asgd_t0": (lambda p: nn.ASGD(p, 0.1, lambd=0.1, alpha=0.5, t0=1.0), dict(f=asgd(0.1, 0.5, 1.0), lr=0.1)),
    "asgd_list2": (lambda p: nn.ASGD(p, LIST2, lambd=0.1, alpha=0.5, t0=1.0), dict(f=asgd(0.1, 0.5, 1.0), lr="list2")),
    "asgd_wd": (lambda p: nn.ASGD(p, 0.1, weight_decay=0.1), dict(f=asgd(), lr=0.1, wd=0.1)),
    "asgd_groups": (_grouped(nn.ASGD, learning_rate=0.1, lambd=0.1, t0=0.0),
                    dict(f=asgd(0.1, 0.75, 0.0), lr=("group", 0.1), group_wd=True)),
    "adamax_list": (lambda p: nn.AdaMax(p, LIST, eps=0.1), dict(f=adamax(eps=0.1), lr="list")),
    "adamax_sched": (lambda p: nn.AdaMax(p, _exp_sched(), beta1=0.8, beta2=0.5), dict(f=adamax(0.8, 0.5), lr="exp")),
    "adamax_wd_ls": (lambda p: nn.AdaMax(p, 0.01, weight_decay=0.1, loss_scale=4.0),
                     dict(f=adamax(), lr=0.01, wd=0.1, scale=4.0)),
    "adamax_groups": (_grouped(nn.AdaMax, learning_rate=0.01), dict(f=adamax(), lr=("group", 0.01), group_wd=True)),
    "adadelta": (lambda p: nn.Adadelta(p, 1.0), dict(f=adadelta(), lr=1.0)),
    "adadelta_list": (lambda p: nn.Adadelta(p, LIST, rho=0.5, epsilon=1e-3), dict(f=adadelta(0.5, 1e-3), lr="list")),
    "adadelta_wd_ls": (lambda p: nn.Adadelta(p, 1.0, weight_decay=0.1, loss_scale=4.0),
                       dict(f=adadelta(), lr=1.0, wd=0.1, scale=4.0)),
    "adadelta_groups": (_grouped(nn.Adadelta, learning_rate=1.0), dict(f=adadelta(), lr=("group", 1.0), group_wd=True)),
    "proxada": (lambda p: nn.ProximalAdagrad(p, learning_rate=0.1), dict(f=proximal_adagrad(), lr=0.1)),
    "prox_l1l2": (lambda p: nn.ProximalAdagrad(p, accum=0.5, learning_rate=0.1, l1=0.05, l2=0.2),
                  dict(f=proximal_adagrad(0.5, 0.05, 0.2), lr=0.1)),
    "prox_wd_ls": (lambda p: nn.ProximalAdagrad(p, learning_rate=0.1, weight_decay=0.1, loss_scale=4.0),
                   dict(f=proximal_adagrad(), lr=0.1, wd=0.1, scale=4.0)),
    "prox_groups": (_grouped(nn.ProximalAdagrad, learning_rate=0.1),
                    dict(f=proximal_adagrad(), lr=("group", 0.1), group_wd=True)),
    "rprop_flip": (lambda p: nn.Rprop(p, 0.1), dict(f=rprop(), lr=0.1)),
    "rprop_list2": (lambda p: nn.Rprop(p, LIST2), dict(f=rprop(), lr="list2")),
    "rprop_sched": (lambda p: nn.Rprop(p, _exp_sched()), dict(f=rprop(), lr="exp")),
    "rprop_wd": (lambda p: nn.Rprop(p, 0.1, weight_decay=0.1), dict(f=rprop(), lr=0.1, wd=0.1)),
    "rprop_groups": (_grouped(nn.Rprop, learning_rate=0.1), dict(f=rprop(), lr=("group", 0.1), group_wd=True)),
    "lazyadam": (lambda p: nn.LazyAdam(p, 0.01), dict(f=adam(), lr=0.01)),
    "lazy_nest": (lambda p: nn.LazyAdam(p, 0.01, use_nesterov=True, eps=0.1), dict(f=adam(eps=0.1, nesterov=True),
                                                                               lr=0.01)),
    "lazy_wd_ls": (lambda p: nn.LazyAdam(p, 0.01, weight_decay=0.1, loss_scale=4.0),
                   dict(f=adam(), lr=0.01, wd=0.1, scale=4.0)),
    "lazy_groups": (_grouped(nn.LazyAdam, learning_rate=0.01), dict(f=adam(), lr=("group", 0.01), group_wd=True)),
    "adafactor": (lambda p: nn.AdaFactor(p), dict(f=adafactor(), lr=0.0)),
    "af_beta1none": (lambda p: nn.AdaFactor(p, beta1=None), dict(f=adafactor(beta1=None), lr=0.0)),
    "af_warm": (lambda p: nn.AdaFactor(p, warmup_init=True), dict(f=adafactor(warmup_init=True), lr=0.0)),
    "af_manual_scale": (lambda p: nn.AdaFactor(p, 0.01, relative_step=False), dict(f=adafactor(manual=True), lr=0.01)),
    "af_clip": (lambda p: nn.AdaFactor(p, 0.01, eps=(1e-3, 1e-2), clip_threshold=0.5, decay_rate=0.5,
                                       scale_parameter=False, relative_step=False),
                dict(f=adafactor(True, (1e-3, 1e-2), 0.5, 0.5, scale_parameter=False), lr=0.01)),
    # decoupled decay on every weight, bn.gamma included; the loss scale divides nothing (measured)
    "af_wd": (lambda p: nn.AdaFactor(p, weight_decay=0.1), dict(f=adafactor(), lr=0.0, wd=0.1, decoupled=True,
                                                                  decays=(True,) * 3)),
    "af_ls": (lambda p: nn.AdaFactor(p, loss_scale=4.0), dict(f=adafactor(), lr=0.0)),
    "af_list": (lambda p: nn.AdaFactor(p, LIST, relative_step=False, scale_parameter=False),
                dict(f=adafactor(manual=True, scale_parameter=False), lr="list")),
    "af_sched": (lambda p: nn.AdaFactor(p, _exp_sched(), relative_step=False, scale_parameter=False),
                 dict(f=adafactor(manual=True, scale_parameter=False), lr="exp")),
    "af_compress": (lambda p: nn.AdaFactor(p, compression=True), dict(f=adafactor(), lr=0.0)),
}
FLIPPED = [GRADS[0], tuple(-g for g in GRADS[1]), GRADS[2], tuple(0 * g for g in GRADS[0]), GRADS[1]]


def _grads(name):
    return FLIPPED if name == "rprop_flip" else GRADS


def _reference(name):
    kw = dict(CASES[name][1])
    update, init = kw.pop("f")
    return np_run(update, init, grads=_grads(name), **kw)


def _train(name, jit=False):
    params = _params()
    opt = CASES[name][0](params)
    step = ms.jit(opt) if jit else opt
    for gs in _grads(name):
        step(tuple(T(g) for g in gs))
    return opt, np.concatenate([p.asnumpy().ravel() for p in params])


@pytest.mark.parametrize("name", list(CASES))
def test_matches_mindspore_and_the_formula(name):
    """Eagerly for half the cases, inside jit for the other half."""
    _, got = _train(name, jit=list(CASES).index(name) % 2 == 1)
    # Adam's first steps move a weight by about lr whatever the gradient's size, so float32
    # rounding of the small moments shows (as in the Adam tests)
    atol = 1e-6 if name.startswith("lazy") else 2e-7
    np.testing.assert_allclose(got, MS_FINAL[name], rtol=2e-6, atol=atol, err_msg=name)
    np.testing.assert_allclose(_reference(name), MS_FINAL[name], rtol=2e-6, atol=atol, err_msg=name)


# -- torch.optim where the formula is MindSpore's ----------------------------------------------------

def _torch_run(make, grads):
    ws = [torch.tensor(w.copy(), requires_grad=True) for w in (W0, B0, B0)]
    opt = make(ws)
    for gs in grads:
        for w, g in zip(ws, gs):
            w.grad = torch.tensor(g)
        opt.step()
    return np.concatenate([w.detach().numpy().ravel() for w in ws])


@pytest.mark.parametrize("name,make", [
    ("asgd_t0", lambda ws: torch.optim.ASGD(ws, lr=0.1, lambd=0.1, alpha=0.5, t0=1.0)),
    ("adadelta", lambda ws: torch.optim.Adadelta(ws, lr=1.0, rho=0.9, eps=1e-6)),
    ("rprop_flip", lambda ws: torch.optim.Rprop(ws, lr=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0))),
    ("lazyadam", lambda ws: torch.optim.Adam(ws, lr=0.01, eps=1e-8)),
])
def test_torch_takes_mindspores_steps(name, make):
    """ASGD (a fixed rate), Adadelta, Rprop (sign flips and a zero gradient included) and LazyAdam
    (as Adam, where torch's eps differs only negligibly at 1e-8) against the MindSpore numbers."""
    np.testing.assert_allclose(_torch_run(make, _grads(name)), MS_FINAL[name], rtol=2e-6, atol=1e-6)


def test_adamax_puts_eps_outside_the_max_unlike_torch():
    """MindSpore 2.10's AdaMax divides by max(b2*v, |g|) + eps (MS_FINAL['adamax_list'] at
    eps = 0.1), torch's by max(b2*v, |g| + eps): the same while |g| leads the max (growing
    gradients), different once the decayed max leads (shrinking ones)."""
    def torch_adamax(grads):
        return _torch_run(lambda ws: torch.optim.Adamax(ws, lr=0.1, eps=0.1), grads)

    np.testing.assert_allclose(torch_adamax(GRADS), np_run(*adamax(eps=0.1), lr=0.1), rtol=1e-6, atol=1e-7)
    shrinking = GRADS[::-1]
    params = _params()
    opt = nn.AdaMax(params, 0.1, eps=0.1)
    for gs in shrinking:
        opt(tuple(T(g) for g in gs))
    got = np.concatenate([p.asnumpy().ravel() for p in params])
    np.testing.assert_allclose(got, np_run(*adamax(eps=0.1), lr=0.1, grads=shrinking), rtol=1e-6, atol=1e-7)
    assert np.abs(torch_adamax(shrinking) - got).max() > 1e-5


# -- state: names, shapes and dtypes as MindSpore 2.10 saves them; checkpoints ----------------------

WEIGHTS = [("dense.weight", (2, 3)), ("dense.bias", (2,)), ("bn.gamma", (2,))]


def _each(prefix, shape=None):
    return [(prefix + name, shape if shape is not None else s, "Float32") for name, s in WEIGHTS]


HEAD = [("global_step", (1,), "Int32"), ("learning_rate", (), "Float32")]
# What MindSpore 2.10's save_checkpoint(optimizer) wrote for each (the weights left out; measured)
MS_STATE = {
    "ASGD": HEAD + _each("mu_", ()) + _each("eta_", ()) + _each("ax_."),
    "AdaMax": HEAD + [("beta1_power", (1,), "Float32")] + _each("moment1.") + _each("moment2."),
    "Adadelta": HEAD + _each("accum.") + _each("accum_update."),
    "ProximalAdagrad": HEAD + _each("accum."),
    "Rprop": HEAD + _each("prev.") + _each("step_size."),
    "LazyAdam": HEAD + [("beta1_power", (1,), "Float32"), ("beta2_power", (1,), "Float32")] + _each("moment1.")
    + _each("moment2."),
    "AdaFactor": HEAD + _each("exp_avg.") + [
        ("exp_avg_sq_row_dense.weight", (2,), "Float32"), ("exp_avg_sq_row_dense.bias", (1,), "Float32"),
        ("exp_avg_sq_row_bn.gamma", (1,), "Float32"), ("exp_avg_sq_col_dense.weight", (3,), "Float32"),
        ("exp_avg_sq_col_dense.bias", (1,), "Float32"), ("exp_avg_sq_col_bn.gamma", (1,), "Float32"),
        ("exp_avg_sq_dense.weight", (1,), "Float32"), ("exp_avg_sq_dense.bias", (2,), "Float16"),
        ("exp_avg_sq_bn.gamma", (2,), "Float16"), ("afactor_step", (1,), "Float32")],
}
# one measured case per optimizer: the checkpoint test saves after 2 steps and resumes
RESUMED = {"ASGD": "asgd_t0", "AdaMax": "adamax_wd_ls", "Adadelta": "adadelta_wd_ls",
           "ProximalAdagrad": "prox_l1l2", "Rprop": "rprop_flip", "LazyAdam": "lazy_nest", "AdaFactor": "af_compress"}


@pytest.mark.parametrize("cls", list(MS_STATE))
def test_state_saves_as_mindspores_and_training_resumes_from_a_checkpoint(cls, tmp_path):
    """save_checkpoint(optimizer) lists MindSpore's names, shapes and dtypes in its order (the
    weights themselves aside; AdaFactor with compression=True for its float16 state); the state
    saved after 2 steps, loaded into a fresh optimizer, gives MindSpore's weights after the rest."""
    name = RESUMED[cls]
    grads = _grads(name)
    params = _params()
    opt = CASES[name][0](params)
    assert type(opt).__name__ == cls
    for gs in grads[:2]:
        opt(tuple(T(g) for g in gs))
    path = str(tmp_path / "opt.ckpt")
    ms.save_checkpoint(opt, path)
    saved = read_ckpt_file(path)
    weights = {n for n, _ in WEIGHTS}
    dtype_names = {np.float32: "Float32", np.float16: "Float16", np.int32: "Int32"}
    listed = [(n, tuple(v.shape), dtype_names[v.dtype.type]) for n, v in saved.items() if n not in weights]
    assert listed == MS_STATE[cls]
    assert saved["global_step"].tolist() == [2]

    fresh = _params()
    resumed = CASES[name][0](fresh)
    ms.load_param_into_net(resumed, ms.load_checkpoint(path))
    for p in fresh:
        np.testing.assert_array_equal(p.asnumpy(), saved[p.name])
    for gs in grads[2:]:
        resumed(tuple(T(g) for g in gs))
    got = np.concatenate([p.asnumpy().ravel() for p in fresh])
    np.testing.assert_allclose(got, MS_FINAL[name], rtol=2e-6, atol=1e-6)


def test_asgd_and_rprop_state_before_a_dynamic_rate_is_read():
    """As measured on MindSpore 2.10: ASGD's eta and Rprop's step sizes hold the rate when it
    is a float, zeros for a list or a schedule until the first step reads it."""
    assert float(nn.ASGD(_params(), 0.1).eta[0].asnumpy()) == pytest.approx(0.1)
    assert float(nn.ASGD(_params(), LIST2).eta[0].asnumpy()) == 0.0
    np.testing.assert_allclose(nn.Rprop(_params(), 0.1).step_size[0].asnumpy(), np.full((2, 3), 0.1))
    assert not nn.Rprop(_params(), Inverse()).step_size[2].asnumpy().any()
    opt = nn.Rprop(_params(), Inverse())
    opt(tuple(T(g) for g in GRADS[0]))
    np.testing.assert_allclose(opt.step_size[0].asnumpy(), 0.3)   # Inverse's first rate, read once


AF_CONV_W3 = [  # MindSpore 2.10: AdaFactor() on a [2, 3, 2, 2] weight, 3 steps (rng below)
    2.03956795, -2.56665373, 0.415294796, -0.563255131, -0.456055939, -0.220723853, -2.01475716, -0.226539344,
    -0.870638669, 3.3231535, 0.218925208, -0.359325469, -0.276805937, -0.669111252, -1.05129015, -0.387402356,
    0.481384873, -0.238251805, 0.959800065, -0.1995693, 0.0255785771, 1.55182493, 0.542861283, -0.50310421]


def test_adafactor_factors_a_4d_weight_over_its_last_two_axes():
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((2, 3, 2, 2)).astype(np.float32)
    grads = [rng.standard_normal(w0.shape).astype(np.float32) for _ in range(3)]
    w = ms.Parameter(T(w0.copy()), name="conv.weight")
    opt = nn.AdaFactor([w])
    assert opt.exp_avg_sq_row[0].shape == (2, 3, 2) and opt.exp_avg_sq_col[0].shape == (2, 3, 2)
    assert opt.exp_avg_sq[0].shape == (1,)
    step = ms.jit(opt)
    for g in grads:
        step((T(g),))
    np.testing.assert_allclose(w.asnumpy().ravel(), AF_CONV_W3, rtol=2e-6, atol=2e-7)
    update, init = adafactor()
    ref, state = w0.astype(np.float64), init(w0, 0.0)
    state["decay"] = 0.0
    for t, g in enumerate(grads, 1):
        ref = update(ref, g.astype(np.float64), state, 0.0, t)
    np.testing.assert_allclose(ref.ravel(), AF_CONV_W3, rtol=2e-6, atol=2e-7)


# -- ensembles and ONNX -----------------------------------------------------------------------------

MAKERS = {
    "ASGD": lambda p: nn.ASGD(p, 0.1, lambd=0.1, t0=1.0, weight_decay=0.01),
    "AdaMax": lambda p: nn.AdaMax(p, [0.01, 0.02, 0.03]),
    "Adadelta": lambda p: nn.Adadelta(p, nn.ExponentialDecayLR(1.0, 0.5, 1)),
    "ProximalAdagrad": lambda p: nn.ProximalAdagrad(p, learning_rate=0.1, l1=0.01, l2=0.01),
    "Rprop": lambda p: nn.Rprop(p, 0.01),
    "LazyAdam": lambda p: nn.LazyAdam(p, 0.01, use_nesterov=True),
    "AdaFactor": lambda p: nn.AdaFactor(p, weight_decay=0.01),
}


@pytest.mark.parametrize("cls", list(MAKERS))
def test_an_ensemble_trains_as_its_members(cls):
    """Two members vmapped (different weights, so different states): each step's losses and the
    final weights and states equal each member trained on its own."""
    def build():
        cells = []
        for k in range(2):
            ms.set_seed(k)
            net = nn.Dense(3, 2)
            cells.append(nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), MAKERS[cls](net.trainable_params())))
        return cells

    assert_ensemble_steps_match_members(build)


@pytest.mark.parametrize("cls", ["AdaFactor", "Rprop"])
def test_a_training_step_exports_to_onnx(cls):
    """The whole step (forward, backward, update) in onnxruntime: three steps give the losses,
    weights and state of three XLA steps."""
    def make():
        ms.set_seed(0)
        net = nn.Dense(3, 2)
        return nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), MAKERS[cls](net.trainable_params()))
    rng = np.random.default_rng(1)
    x = T(rng.standard_normal((4, 3)).astype(np.float32))
    y = T(rng.standard_normal((4, 2)).astype(np.float32))
    exported = to_onnx(make(), x, y, dynamic_axes=False, params_as_inputs=True)
    session = ort.InferenceSession(exported.model.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    state = {name: np.asarray(p._payload) for name, p in zip(inputs[2:], exported.traced.params)}
    reference = make()
    run = ms.jit(reference)
    for _ in range(3):
        results = session.run(None, {inputs[0]: x.asnumpy(), inputs[1]: y.asnumpy(), **state})
        state.update({name[:-len(".new")]: value for name, value in zip(outputs[1:], results[1:])})
        np.testing.assert_allclose(results[0], run(x, y).asnumpy(), rtol=1e-5, atol=1e-6)
    by_name = {p.name: p for p in reference.get_parameters()}
    compared = 0
    for name, value in state.items():
        if name in by_name:
            np.testing.assert_allclose(value, by_name[name].asnumpy(), rtol=1e-5, atol=1e-6, err_msg=name)
            compared += 1
    assert compared >= 6, sorted(state)


# -- arguments: MindSpore 2.10's errors --------------------------------------------------------------

@pytest.mark.parametrize("make,error,match", [
    (lambda p: nn.ASGD(p, lambd=1), TypeError, "For 'ASGD', the type of 'lambd' should be 'float'"),
    (lambda p: nn.AdaMax(p, beta1=1.0), ValueError, r"'beta1' must be in range of \(0.0, 1.0\)"),
    (lambda p: nn.AdaMax(p, eps=1), TypeError, "the type of 'eps' should be 'float'"),
    (lambda p: nn.Adadelta(p, rho=1.5), ValueError, r"'rho' must be in range of \[0.0, 1.0\]"),
    (lambda p: nn.ProximalAdagrad(p, l1=-1.0), ValueError, "'l1' must be a float >= 0"),
    (lambda p: nn.ProximalAdagrad(p, use_locking=1), TypeError, "'use_locking' should be 'bool'"),
    (lambda p: nn.Rprop(p, etas=[0.5, 1.2]), TypeError, "etas must be a tuple"),
    (lambda p: nn.Rprop(p, etas=(0.5, 0.9)), ValueError, "etaplus must be greater than 1.0"),
    (lambda p: nn.Rprop(p, step_sizes=(1.0, 0.5)), ValueError, "maximal step size should not be less"),
    (lambda p: nn.LazyAdam(p, use_amsgrad=True), TypeError, "use_amsgrad"),
    (lambda p: nn.AdaFactor(p, learning_rate=0.1), ValueError, "Cannot combine manual lr and relative_step"),
    (lambda p: nn.AdaFactor(p, relative_step=False), ValueError, "learning_rate is None and relative_step=False"),
    (lambda p: nn.AdaFactor(p, eps=(1e-30,)), ValueError, "eps must have 2 value"),
    (lambda p: nn.AdaFactor(p, decay_rate=1.5), ValueError, r"'decay_rate' must be in range of \(0, 1\)"),
    (lambda p: nn.AdaFactor(p, scale_parameter=1), TypeError, "'scale_parameter' should be 'bool'"),
])
def test_bad_arguments_raise_mindspores_errors(make, error, match):
    with pytest.raises(error, match=match):
        make(_params())
