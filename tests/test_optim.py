"""Optimizers against numpy implementations of MindSpore's formulas (and torch.optim where
the formulas agree), their state Parameters, errors, and golden MindSpore 2.10 training."""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import nn
from graphcell.train.ckpt_format import read_ckpt_file
from tests.conftest import GOLDEN, golden_array, load_lenet
from tests.models.train_step import TrainOneStepNet
from tests.optim_fixtures import assert_ensemble_steps_match_members

T = ms.Tensor
rng = np.random.default_rng(0)


def _params():
    return [ms.Parameter(T(rng.standard_normal((3, 2)).astype(np.float32)), name="dense.weight"),
            ms.Parameter(T(rng.standard_normal((2,)).astype(np.float32)), name="bn.gamma")]


def _grads(n_steps, params):
    return [[rng.standard_normal(p.shape).astype(np.float32) for p in params] for _ in range(n_steps)]


def _run(opt, grads, jit=False):
    step = ms.jit(opt) if jit else opt
    for gs in grads:
        step(tuple(T(g) for g in gs))


def _np_adam(ws, grads, lrs, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, nesterov=False, amsgrad=False, scale=1.0,
             decay=(True, False)):
    ws = [w.astype(np.float64) for w in ws]
    m = [np.zeros_like(w) for w in ws]
    v = [np.zeros_like(w) for w in ws]
    vh = [np.zeros_like(w) for w in ws]
    for t, (gs, lr) in enumerate(zip(grads, lrs), 1):
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        for i, g in enumerate(gs):
            # MindSpore's Optimizer stores weight_decay * loss_scale and adds it before the
            # division: the decay does not depend on the loss scale.
            g = (g + wd * scale * ws[i] if decay[i] else g) / scale
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            if amsgrad:
                vh[i] = np.maximum(vh[i], v[i])
                ws[i] = ws[i] - alpha * m[i] / (np.sqrt(vh[i]) + eps)
            elif nesterov:
                ws[i] = ws[i] - alpha * (b1 * m[i] + (1 - b1) * g) / (np.sqrt(v[i]) + eps)
            else:
                ws[i] = ws[i] - alpha * m[i] / (np.sqrt(v[i]) + eps)
    return ws, m, v


@pytest.mark.parametrize("kwargs", [
    dict(), dict(use_nesterov=True), dict(use_amsgrad=True), dict(use_amsgrad=True, use_nesterov=True),
    dict(weight_decay=0.1, loss_scale=4.0, eps=0.1)])
def test_adam_matches_mindspore_formula(kwargs):
    params = _params()
    w0 = [p.asnumpy().copy() for p in params]
    grads = _grads(4, params)
    opt = nn.Adam(params, learning_rate=0.01, **kwargs)
    _run(opt, grads, jit=bool(kwargs))
    ws, m, v = _np_adam(w0, grads, [0.01] * 4, eps=kwargs.get("eps", 1e-8), wd=kwargs.get("weight_decay", 0.0),
                        nesterov=kwargs.get("use_nesterov", False) and not kwargs.get("use_amsgrad", False),
                        amsgrad=kwargs.get("use_amsgrad", False), scale=kwargs.get("loss_scale", 1.0))
    for p, w in zip(params, ws):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(opt.moment1[0].asnumpy(), m[0], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(opt.moment2[1].asnumpy(), v[1], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(float(opt.beta1_power.asnumpy()), 0.9 ** 4, rtol=1e-6)


def test_adam_state_names_and_shapes():
    params = _params()
    opt = nn.Adam(params, learning_rate=[0.1, 0.2], use_amsgrad=True)
    names = [p.name for p in opt.get_parameters()]
    # MindSpore 2.10's order (measured): global_step, the weights, the state, a list rate last
    assert names[:3] == ["global_step", "dense.weight", "bn.gamma"] and names[-1] == "learning_rate"
    for expected in ["learning_rate", "global_step", "beta1_power", "beta2_power", "moment1.dense.weight",
                     "moment2.bn.gamma", "vhat.dense.weight"]:
        assert expected in names
    assert opt.global_step.dtype == ms.int32 and opt.global_step.shape == (1,)
    assert opt.beta1_power.shape == () and opt.learning_rate.shape == (2,)
    assert isinstance(opt.parameters, ms.ParameterTuple) and list(opt.parameters) == params


def test_adam_weight_decay_is_decoupled_and_has_no_bias_correction():
    params = _params()
    w0 = [p.asnumpy().astype(np.float64) for p in params]
    grads = _grads(3, params)
    opt = nn.AdamWeightDecay(params, learning_rate=0.01, weight_decay=0.1)
    assert nn.AdamW is nn.AdamWeightDecay
    _run(opt, grads)
    m = [np.zeros_like(w) for w in w0]
    v = [np.zeros_like(w) for w in w0]
    for gs in grads:
        for i, g in enumerate(gs):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            update = m[i] / (np.sqrt(v[i]) + 1e-6) + (0.1 * w0[i] if i == 0 else 0)  # bn.gamma: no decay
            w0[i] = w0[i] - 0.01 * update
    for p, w in zip(params, w0):
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    assert [p.name for p in opt.moments1] == ["adam_m.dense.weight", "adam_m.bn.gamma"]


@pytest.mark.parametrize("momentum,dampening,nesterov", [(0.0, 0.0, False), (0.9, 0.0, False), (0.9, 0.3, False),
                                                         (0.8, 0.0, True)])
def test_sgd_matches_torch(momentum, dampening, nesterov):
    params = [ms.Parameter(T(rng.standard_normal((3, 2)).astype(np.float32)), name="w")]
    torch_w = torch.tensor(params[0].asnumpy().copy(), requires_grad=True)
    grads = _grads(4, params)
    opt = nn.SGD(params, learning_rate=0.1, momentum=momentum, dampening=dampening, nesterov=nesterov,
                 weight_decay=0.01)
    _run(opt, grads, jit=True)
    topt = torch.optim.SGD([torch_w], lr=0.1, momentum=momentum, dampening=dampening, nesterov=nesterov,
                           weight_decay=0.01)
    for (g,) in grads:
        torch_w.grad = torch.tensor(g)
        topt.step()
    np.testing.assert_allclose(params[0].asnumpy(), torch_w.detach().numpy(), rtol=1e-5, atol=1e-6)
    names = [p.name for p in opt.get_parameters()]
    assert "accum.w" in names and "stat.w" in names and "momentum" in names


@pytest.mark.parametrize("make", [
    lambda ps, s: nn.SGD(ps, learning_rate=0.1, momentum=0.9, weight_decay=0.5, loss_scale=s),
    lambda ps, s: nn.Momentum(ps, learning_rate=0.1, momentum=0.9, weight_decay=0.5, loss_scale=s),
    lambda ps, s: nn.Adam(ps, learning_rate=0.1, weight_decay=0.5, loss_scale=s)])
def test_weight_decay_does_not_depend_on_the_loss_scale(make):
    """Gradients of a loss scaled by 4 with loss_scale=4 take the steps the unscaled ones take
    with loss_scale=1, decay included: MindSpore adds weight_decay * loss_scale before it
    divides (the decay was divided by the loss scale: SGD's first step moved w[0] 0.0625
    where MindSpore moves it 0.1)."""
    start = np.array([[1.0, -2.0]], np.float32)
    grads = _grads(3, [ms.Parameter(T(start), name="w")])
    results = []
    for scale in (1.0, 4.0):
        params = [ms.Parameter(T(start.copy()), name="w")]
        _run(make(params, scale), [tuple(g * np.float32(scale) for g in gs) for gs in grads], jit=True)
        results.append(params[0].asnumpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)
    params = [ms.Parameter(T(start.copy()), name="w")]
    opt = make(params, 4.0)
    opt((T(np.array([[2.0, 1.0]], np.float32)),))           # g = [0.5, 0.25] scaled by 4
    if isinstance(opt, (nn.SGD, nn.Momentum)):              # first step: w - lr * (g + wd * w)
        np.testing.assert_allclose(params[0].asnumpy(), [[0.9, -1.925]], rtol=1e-6)


def test_momentum_matches_numpy_and_nesterov_changes_nothing():
    results = []
    for nesterov in (False, True):
        params = [ms.Parameter(T(np.arange(6, dtype=np.float32).reshape(3, 2)), name="w")]
        grads = [[np.full((3, 2), k + 1.0, np.float32)] for k in range(3)]
        opt = nn.Momentum(params, learning_rate=0.1, momentum=0.9, use_nesterov=nesterov)
        _run(opt, grads)
        results.append(params[0].asnumpy())
        assert opt.moments[0].name == "moments.w"
    w, v = np.arange(6, dtype=np.float64).reshape(3, 2), 0.0
    for k in range(3):
        v = 0.9 * v + (k + 1.0)
        w = w - 0.1 * v
    np.testing.assert_allclose(results[0], w, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(results[0], results[1])
    with pytest.raises(TypeError, match="'momentum' should be float"):
        nn.Momentum(_params(), 0.1, 1)


def test_list_learning_rate_uses_entry_k_and_errors_past_the_end():
    params = [ms.Parameter(T(np.zeros(2, np.float32)), name="w")]
    opt = nn.SGD(params, learning_rate=[0.1, 0.2, 0.4])
    for k in range(3):
        opt((T(np.ones(2, np.float32)),))
        assert int(opt.global_step.asnumpy()[0]) == k + 1
    np.testing.assert_allclose(params[0].asnumpy(), [-0.7, -0.7], rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"learning_rate.*3 entries.*Gather.*range \[0, 3\), but got 3"):
        opt((T(np.ones(2, np.float32)),))


def test_an_eager_step_is_one_compiled_update_that_matches_the_op_by_op_one():
    """Called eagerly, an optimizer runs its whole update as one compiled program (one trace
    per gradient signature); with check_finite on it runs op by op. Both give numpy's Adam."""
    ws = [p.asnumpy() for p in _params()]
    grads = _grads(3, ws)
    compiled, op_by_op = [[ms.Parameter(T(w.copy()), name=n) for w, n in zip(ws, ["dense.weight", "bn.gamma"])]
                          for _ in range(2)]
    opt = nn.Adam(compiled, learning_rate=0.01, use_amsgrad=True)
    _run(opt, grads)
    assert opt._graph_jit is not None and opt._graph_jit.cache_size == 1
    ms.set_context(check_finite=True)
    try:
        slow = nn.Adam(op_by_op, learning_rate=0.01, use_amsgrad=True)
        _run(slow, grads)
    finally:
        ms.set_context(check_finite=False)
    assert slow._graph_jit is None
    want, _, _ = _np_adam(ws, grads, [0.01] * 3, amsgrad=True)
    for a, b, w in zip(compiled, op_by_op, want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(a.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_an_eager_step_sees_a_changed_hyperparameter():
    """Op by op, `opt.weight_decay = 0.5` acted at the next step; the compiled eager update
    is rebuilt when a plain attribute changes, so it still does."""
    p = ms.Parameter(T(np.ones(3, np.float32)), name="w")
    opt = nn.SGD([p], learning_rate=0.1)
    g = (T(np.ones(3, np.float32)),)
    opt(g)
    np.testing.assert_allclose(p.asnumpy(), 0.9, rtol=1e-6)
    opt.weight_decay = 0.5
    opt(g)
    np.testing.assert_allclose(p.asnumpy(), 0.9 - 0.1 * (1 + 0.5 * 0.9), rtol=1e-6)


@pytest.mark.parametrize("backend", ["xla", "onnx"])
def test_a_compiled_step_sees_a_changed_hyperparameter(backend):
    """`opt.weight_decay = 0.5` between two calls of a jitted training step acts at the next
    one, as it does eagerly (the jit kept the graph traced with the old value: the weights
    then differed by backend); writes inside construct (a step counter) retrace nothing."""
    class Counting(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 1)
            self.calls = 0

        def construct(self, x):
            self.calls += 1
            return self.fc(x)
    x, y = T(np.ones((3, 2), np.float32)), T(np.zeros((3, 1), np.float32))
    weights = []
    for compiled in (False, True):
        ms.set_seed(0)
        net = Counting()
        opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        run = ms.jit(step, backend=backend) if compiled else step
        run(x, y)
        run(x, y)
        opt.weight_decay = 0.5
        run(x, y)
        weights.append(net.fc.weight.asnumpy())
        if compiled:
            assert run.cache_size == 2, "one trace per weight decay"
    np.testing.assert_allclose(weights[1], weights[0], rtol=1e-6)


def test_schedule_is_called_with_global_step():
    params = [ms.Parameter(T(np.zeros(2, np.float32)), name="w")]
    opt = nn.SGD(params, learning_rate=nn.WarmUpLR(0.4, 2))
    for _ in range(3):
        opt((T(np.ones(2, np.float32)),))
    np.testing.assert_allclose(params[0].asnumpy(), [-0.6, -0.6], rtol=1e-6)  # 0 + 0.2 + 0.4


@pytest.mark.parametrize("cls", [nn.SGD, nn.Momentum, nn.Adam, nn.AdamWeightDecay])
def test_float_learning_rate_is_a_scalar_parameter_and_every_call_counts(cls):
    """MindSpore 2.10, measured: after 3 calls with learning_rate=0.1 each optimizer's global_step is [3]."""
    opt = cls(_params(), learning_rate=0.5, **({"momentum": 0.9} if cls is nn.Momentum else {}))
    assert opt.learning_rate.shape == () and float(opt.learning_rate.asnumpy()) == 0.5
    for _ in range(3):
        opt(tuple(T(g) for g in _grads(1, opt.parameters)[0]))
    assert opt.global_step.asnumpy().tolist() == [3]
    step = ms.jit(lambda g: opt(g))
    step(tuple(T(g) for g in _grads(1, opt.parameters)[0]))
    assert opt.global_step.asnumpy().tolist() == [4]


def test_wrong_gradients_name_the_parameter():
    opt = nn.Adam(_params())
    with pytest.raises(ValueError, match=r"got 1 gradients for 2 parameters \(dense.weight, bn.gamma\)"):
        opt((T(np.ones((3, 2), np.float32)),))
    with pytest.raises(ValueError, match=r"parameter 'bn.gamma' has shape \[3\], but the parameter has shape \[2\]"):
        opt((T(np.ones((3, 2), np.float32)), T(np.ones(3, np.float32))))


@pytest.mark.parametrize("build,error,message", [
    (lambda ps: nn.SGD(ps, dampening=None), TypeError, r"'SGD', the 'dampening' must be a float >= 0.0, but got NoneType"),
    (lambda ps: nn.Adam(ps, beta1="0.9"), TypeError, r"'Adam', the 'beta1' must be a float > 0.0 and < 1.0"),
    (lambda ps: nn.SGD(ps, momentum=float("nan")), ValueError, r"'momentum' must be a float >= 0.0, but got nan"),
    (lambda ps: nn.Adam(ps, eps=float("nan")), ValueError, r"'eps' must be a float > 0.0, but got nan"),
    (lambda ps: nn.SGD(ps, weight_decay=float("nan")), ValueError, r"'weight_decay' must be a float >= 0.0"),
    (lambda ps: nn.SGD(ps, learning_rate=float("nan")), ValueError, r"'learning_rate' must be >= 0, but got nan"),
    (lambda ps: nn.SGD(ps, learning_rate=[0.1, -0.2]), ValueError, r"learning_rate\[1\] is -0.2"),
    (lambda ps: nn.SGD([ps[0], ps[1], ps[0]]), ValueError, r"params\[0\] and params\[2\] are the same Parameter"),
])
def test_bad_hyperparameters_name_the_argument(build, error, message):
    """Each was a bare Python error (None < 0) or accepted silently (NaN, a negative list
    entry, a Parameter listed twice and updated twice a step)."""
    with pytest.raises(error, match=message):
        build(_params())


def test_an_optimizer_takes_an_array_learning_rate_and_refuses_to_lose_its_parameter():
    opt = nn.SGD(_params(), learning_rate=np.array([0.1, 0.2], np.float32))
    assert opt.learning_rate.shape == (2,)
    with pytest.raises(TypeError, match=r"'learning_rate' is a Parameter.*set_data"):
        opt.learning_rate = 0.01     # it would have failed at the next step, on 'float'.ndim


def test_train_one_step_cell_matches_manual_sgd():
    net = nn.Dense(3, 2)
    w0, b0 = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    train = nn.TrainOneStepCell(loss_net, nn.SGD(net.trainable_params(), learning_rate=0.1), sens=2.0)
    x, y = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)
    loss = ms.jit(train)(T(x), T(y))
    err = x @ w0.T + b0 - y
    np.testing.assert_allclose(float(loss.asnumpy()), np.mean(err ** 2), rtol=1e-5)
    gw = 2.0 * 2 * err.T @ x / err.size
    np.testing.assert_allclose(net.weight.asnumpy(), w0 - 0.1 * gw, rtol=1e-5, atol=1e-6)
    assert net.weight.name == "weight"  # no renaming (auto_prefix=False)


# -- golden parity with MindSpore 2.10 -----------------------------------------------------------

LRS = [1e-2, 1e-3, 2e-3, 3e-3]


def _trained_diff(net, i):
    ref = read_ckpt_file(GOLDEN / f"net{i}_trained.ckpt")
    return {n: np.abs(p.asnumpy() - ref[n]) for n, p in net.parameters_and_names()}


def _train_unbatched():
    images, labels = golden_array("train_images.npy"), golden_array("train_labels.npy")
    nets, losses = [], np.zeros((10, 4), np.float32)
    for i, lr in enumerate(LRS):
        net = load_lenet(i)
        step = ms.jit(TrainOneStepNet(net, lr))
        for k in range(10):
            losses[k, i] = float(step(T(images[i]), T(labels[i])).asnumpy())
        nets.append(net)
    return nets, losses


@pytest.fixture(scope="module")
def unbatched():
    return _train_unbatched()


def test_golden_unbatched_losses(unbatched):
    np.testing.assert_allclose(unbatched[1], golden_array("train_losses.npy"), rtol=1e-4)


def test_golden_unbatched_parameters_all_but_chaotic_elements(unbatched):
    """All but at most 5 of each model's 61706 weights are within 1e-5 of MindSpore's (measured:
    4, 1, 0, 0 for models 0-3); the rest are within 5e-5 (measured max 2.2e-5; see the strict
    test below for why)."""
    for i, net in enumerate(unbatched[0]):
        diffs = _trained_diff(net, i)
        assert sum(int((d > 1e-5).sum()) for d in diffs.values()) <= 5
        assert max(d.max() for d in diffs.values()) < 5e-5


@pytest.mark.xfail(strict=True, reason="1-2 weights per model differ by up to 2.2e-5: fc weights fed by a ReLU "
                   "unit that is barely active at one step get a ~3e-6 gradient once; float32 rounding of that "
                   "tiny gradient differs from MindSpore's kernels by ~1%, and amsgrad's m/(sqrt(vhat)+eps) with "
                   "eps=1e-8 carries the difference into every later step")
def test_golden_unbatched_parameters_strict(unbatched):
    for i, net in enumerate(unbatched[0]):
        for name, d in _trained_diff(net, i).items():
            assert d.max() <= 1e-5, (i, name, d.max())


def test_where_graphcell_and_mindspore_differ_graphcell_is_nearer_float64(unbatched):
    """The elements the strict test above misses are float32 rounding, and MindSpore's is the
    larger: against the same ten steps in float64 (the exact result to ~1e-12), graphcell's
    float32 weights are off by less than MindSpore's in total over the elements where the two
    differ by more than 1e-5, and graphcell has fewer elements over 1e-5 off. Measured, total
    error there, graphcell / MindSpore: model 0 fc1 7.2e-5 / 9.2e-5, fc2 4.5e-6 / 4.7e-5,
    model 1 fc2 1.2e-5 / 2.3e-5; elements over 1e-5: 2 vs 6 and 1 vs 1. (Element by element
    the chaotic ones are a coin toss: the direct CPU convolution's rounding, ops/cpu_conv.py,
    moved one fc1 weight that both miss by 5e-5 to 6.6e-5 for graphcell, 5.2e-5 for MindSpore.)"""
    images, labels = golden_array("train_images.npy"), golden_array("train_labels.npy")
    for i in (0, 1):  # the two models with elements over 1e-5 (see the strict test)
        exact = load_lenet(i)
        for p in exact.get_parameters():
            p.set_dtype(ms.float64)
        step = ms.jit(TrainOneStepNet(exact, LRS[i]))
        for _ in range(10):
            step(T(images[i].astype(np.float64)), T(labels[i]))
        ours = dict(unbatched[0][i].parameters_and_names())
        theirs = read_ckpt_file(GOLDEN / f"net{i}_trained.ckpt")
        over = {"graphcell": 0, "MindSpore": 0}
        for name, p in exact.parameters_and_names():
            truth, mine, ms_ = p.asnumpy(), ours[name].asnumpy(), theirs[name]
            differ = np.abs(mine - ms_) > 1e-5
            assert np.abs(mine - truth)[differ].sum() <= np.abs(ms_ - truth)[differ].sum(), (i, name)
            over["graphcell"] += int((np.abs(mine - truth) > 1e-5).sum())
            over["MindSpore"] += int((np.abs(ms_ - truth) > 1e-5).sum())
        assert over["graphcell"] <= over["MindSpore"], (i, over)


def test_golden_vmapped_training():
    images, labels = golden_array("train_images.npy"), golden_array("train_labels.npy")
    nets = [load_lenet(i) for i in range(4)]
    step = ms.vmap(nn.CellList([TrainOneStepNet(n, lr) for n, lr in zip(nets, LRS)]))
    losses = np.stack([step(T(images), T(labels)).asnumpy() for _ in range(10)])
    np.testing.assert_allclose(losses, golden_array("train_losses.npy"), rtol=1e-4)
    for i, net in enumerate(nets):
        assert max(d.max() for d in _trained_diff(net, i).values()) < 5e-5
    ensemble = ms.vmap(nn.CellList(nets), in_axes=None)
    np.testing.assert_allclose(ensemble(T(golden_array("minibatch.npy"))).asnumpy(),
                               golden_array("trained_vmap_in_axes_none.npy"), atol=2e-4, rtol=1e-4)
    # Each model alone reads its slice of the stacked, trained weights.
    np.testing.assert_allclose(nets[1](T(golden_array("minibatch.npy"))).asnumpy(),
                               golden_array("trained_vmap_in_axes_none.npy")[1], atol=2e-4, rtol=1e-4)


@pytest.mark.parametrize("make_opt", [
    lambda ps, lr: nn.SGD(ps, learning_rate=lr, momentum=0.9),
    lambda ps, lr: nn.Momentum(ps, learning_rate=lr, momentum=0.9),
    lambda ps, lr: nn.AdamWeightDecay(ps, learning_rate=lr, weight_decay=0.01),
    lambda ps, lr: nn.Adam(ps, learning_rate=[lr, lr / 2, lr / 4]),
], ids=["sgd", "momentum", "adamw", "adam-list"])
def test_every_optimizer_trains_per_model_learning_rates_under_vmap(make_opt):
    def build():
        cells = []
        for k, lr in enumerate([0.1, 0.01]):
            ms.set_seed(k)
            net = nn.Dense(3, 2)
            cells.append(nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), make_opt(net.trainable_params(), lr)))
        return cells

    assert_ensemble_steps_match_members(build, rng)
