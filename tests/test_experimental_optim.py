"""graphcell.experimental.optim and its lr_scheduler against torch.optim (the independent
reference; MindSpore 2.10's experimental optimizers and schedulers measured equal to torch's
within float32 rounding, GRAPH_MODE and PYNATIVE alike) and against values measured on
MindSpore 2.10 (CPU)."""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Parameter, Tensor, mint
from graphcell.experimental import optim
from graphcell.experimental.optim import lr_scheduler

W0, B0 = [1.0, -2.0, 3.0], [[0.5, -0.25]]
GRADS = [([0.3, -0.1, 0.2], [[0.4, -0.6]]), ([-0.2, -0.1, 0.4], [[0.4, 0.2]]), ([0.1, 0.05, -0.3], [[-0.1, -0.7]])]

# optimizer: (constructor kwargs (group 0, w), group 1's (b) overrides)
CASES = {
    "ASGD": (dict(lr=0.05, lambd=0.01, alpha=0.75, t0=1.0, weight_decay=0.1), dict(lr=0.02, weight_decay=0.0)),
    "Adadelta": (dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.1), dict(lr=0.5, rho=0.8)),
    "Adagrad": (dict(lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.1),
                dict(lr=0.05, lr_decay=0.0)),
    "Adam": (dict(lr=0.1, weight_decay=0.1), dict(lr=0.05, amsgrad=True, betas=(0.8, 0.99))),
    "AdamW": (dict(lr=0.1, weight_decay=0.1), dict(lr=0.05, amsgrad=True, maximize=True)),
    "Adamax": (dict(lr=0.1, weight_decay=0.1), dict(lr=0.05, betas=(0.8, 0.99))),
    "NAdam": (dict(lr=0.1, weight_decay=0.1), dict(lr=0.05, momentum_decay=0.01)),
    "RAdam": (dict(lr=0.1, weight_decay=0.1, betas=(0.5, 0.6)), dict(lr=0.05, betas=(0.9, 0.999))),
    "RMSprop": (dict(lr=0.1, weight_decay=0.1, momentum=0.9), dict(lr=0.05, centered=True, momentum=0.0)),
    "Rprop": (dict(lr=0.1), dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.06))),
    "SGD": (dict(lr=0.1, momentum=0.9, weight_decay=0.1), dict(lr=0.05, nesterov=True, momentum=0.5)),
}
# w then b after the three steps, measured on MindSpore 2.10 (GRAPH_MODE; PYNATIVE gave the same)
MEASURED = {
    "ASGD": [0.9737062454223633, -1.9597758054733276, 2.9360058307647705, 0.48570555448532104, -0.22785767912864685],
    "Adagrad": [0.911289393901825, -1.8592649698257446, 2.847810983657837, 0.43163129687309265, -0.18247154355049133],
    "AdamW": [0.8301305770874023, -1.6920228004455566, 2.6909890174865723, 0.6242836117744446, -0.3497556149959564],
    "NAdam": [0.8647859692573547, -1.7738453149795532, 2.7988240718841553, 0.4085570275783539, -0.16528794169425964],
    "RMSprop": [-0.9798134565353394, 1.5091065168380737, -0.8471099138259888, -0.22876223921775818,
                0.44655129313468933],
    "Rprop": [0.8499999642372131, -1.7799999713897705, 2.7800002098083496, 0.38999998569488525, -0.1850000023841858],
}
# 2.10's state Parameters after w and b (get_parameters, trainable_params and checkpoint names,
# with one group or two: measured); the group rates and NAdam's mu products are in none of them
STATE_NAMES = {
    "ASGD": ["ax.w", "ax.b", "step_t"],
    "Adadelta": ["accum.w", "accum.b", "accum_update.w", "accum_update.b"],
    "Adagrad": ["accum.w", "accum.b", "step_t"],
    "Adam": ["exp_avg.w", "exp_avg.b", "exp_avg_sq.w", "exp_avg_sq.b", "max_exp_avg_sq.w", "max_exp_avg_sq.b",
             "state_step"],
    "AdamW": ["exp_avg.w", "exp_avg.b", "exp_avg_sq.w", "exp_avg_sq.b", "max_exp_avg_sq.w", "max_exp_avg_sq.b",
              "state_step"],
    "Adamax": ["step_t", "exp_avg.w", "exp_avg.b", "exp_inf.w", "exp_inf.b"],
    "NAdam": ["step_t", "exp_avg.w", "exp_avg.b", "exp_avg_sq.w", "exp_avg_sq.b"],
    "RAdam": ["step_t", "exp_avg.w", "exp_avg.b", "exp_avg_sq.w", "exp_avg_sq.b"],
    "RMSprop": ["mean_grad.w", "mean_grad.b", "mean_square.w", "mean_square.b", "moment.w", "moment.b"],
    "Rprop": ["prev.w", "prev.b", "step_size.w", "step_size.b", "step_t"],
    "SGD": ["accum.w", "accum.b", "stat.w", "stat.b"],
}


def run_graphcell(name):
    kwargs, group1 = CASES[name]
    w = Parameter(np.array(W0, np.float32), name="w")
    b = Parameter(np.array(B0, np.float32), name="b")
    opt = getattr(optim, name)([{"params": [w]}, dict(params=[b], **group1)], **kwargs)
    for gw, gb in GRADS:   # one compiled update, called three times
        opt((Tensor(np.array(gw, np.float32)), Tensor(np.array(gb, np.float32))))
    return np.concatenate([w.asnumpy().ravel(), b.asnumpy().ravel()]), opt


def run_torch(name):
    kwargs, group1 = CASES[name]
    w = torch.tensor(W0, requires_grad=True)
    b = torch.tensor(B0, requires_grad=True)
    opt = getattr(torch.optim, name)([{"params": [w]}, dict(params=[b], **group1)], **kwargs)
    for gw, gb in GRADS:
        w.grad, b.grad = torch.tensor(gw), torch.tensor(gb)
        opt.step()
    return torch.cat([w.detach().ravel(), b.detach().ravel()]).numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_optimizer_against_torch_and_measured(name):
    got, opt = run_graphcell(name)
    np.testing.assert_allclose(got, run_torch(name), rtol=0, atol=2e-6)   # float32 ulps
    if name in MEASURED:
        np.testing.assert_allclose(got, np.array(MEASURED[name], np.float32), rtol=0, atol=2e-6)
    names = [p.name for p in opt.get_parameters()]
    assert names == ["w", "b"] + STATE_NAMES[name]


# Measured on MindSpore 2.10: mint.optim's and experimental.optim's get_parameters(),
# trainable_params() and save_checkpoint names after the parameters w and b, the same with one
# group or two. 2.10 keeps the group rates (and NAdam's mu products) as Python values: graphcell's
# are Parameters that the compiled update reads, held out of these lists.
MINT_STATE = {
    ("mint", "Adam"): ["exp_avg.w", "exp_avg.b", "exp_avg_sq.w", "exp_avg_sq.b", "state_step"],
    ("mint", "AdamW"): ["exp_avg.w", "exp_avg.b", "exp_avg_sq.w", "exp_avg_sq.b", "state_step"],
    ("mint", "SGD"): ["momentum_buf.w", "momentum_buf.b", "step_t"],
}   # and experimental.optim's: STATE_NAMES


def test_mint_and_experimental_optimizers_list_and_save_what_2_10_does(tmp_path):
    import graphcell.mint.optim as mint_optim
    table = {**MINT_STATE, **{("experimental", name): state for name, state in STATE_NAMES.items()}}
    for (module, name), state in table.items():
        cls = getattr(mint_optim if module == "mint" else optim, name)
        for groups in (1, 2):
            w, b = Parameter(np.ones(2, np.float32), name="w"), Parameter(np.ones(1, np.float32), name="b")
            opt = cls([w, b] if groups == 1 else [{"params": [w], "lr": 0.2}, {"params": [b]}], lr=0.1)
            want = ["w", "b"] + state
            assert [p.name for p in opt.get_parameters()] == want, (module, name, groups)
            assert [p.name for p in opt.trainable_params()] == want, (module, name, groups)
            assert [n for n, _ in opt.parameters_and_names()] == want, (module, name, groups)
            path = str(tmp_path / f"{module}_{name}_{groups}.ckpt")
            ms.save_checkpoint(opt, path)
            assert list(ms.load_checkpoint(path)) == want, (module, name, groups)
            rates = [g["lr"].asnumpy() for g in opt.param_groups]   # Parameters all the same
            assert rates == ([np.float32(0.1)] if groups == 1 else [np.float32(0.2), np.float32(0.1)])


def test_radam_rectified_steps_against_torch_and_measured():
    """RAdam rectifies once rho_t > 5 (step 6 with beta2 0.99): eight steps."""
    grads = [np.array([0.3, -0.1, 0.2], np.float32) * (1 + 0.1 * k) * (-1) ** k for k in range(8)]
    w = Parameter(np.array(W0, np.float32), name="w")
    opt = optim.RAdam([w], lr=0.1, betas=(0.9, 0.99))
    tw = torch.tensor(W0, requires_grad=True)
    topt = torch.optim.RAdam([tw], lr=0.1, betas=(0.9, 0.99))
    for g in grads:
        opt((Tensor(g),))
        tw.grad = torch.from_numpy(g)
        topt.step()
    np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=0, atol=1e-6)
    # measured on MindSpore 2.10
    np.testing.assert_allclose(w.asnumpy(), [0.9576584696769714, -1.9860175848007202, 2.9718379974365234],
                               rtol=0, atol=1e-6)


def test_relation_to_mint_optim_and_defaults():
    # 2.10: one base class; Adam, AdamW and SGD are distinct classes (measured)
    assert optim.Optimizer is mint.optim.Optimizer
    assert optim.Adam is not mint.optim.Adam and optim.SGD is not mint.optim.SGD
    assert issubclass(optim.Adam, mint.optim.Optimizer)
    w = Parameter(np.zeros(2, np.float32), name="w")
    assert optim.NAdam([w]).defaults == dict(lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0,
                                             momentum_decay=0.004)   # measured
    sgd = optim.SGD([w], lr=0.1, momentum=0.9)
    assert sgd.stat[0].asnumpy().tolist() == [1.0, 1.0]
    sgd((Tensor(np.ones(2, np.float32)),))
    assert sgd.stat[0].asnumpy().tolist() == [0.0, 0.0] and sgd.accum[0].asnumpy().tolist() == [1.0, 1.0]
    adam = optim.Adam([w], lr=Tensor(np.array(0.1, np.float32)))   # 2.10's experimental Adam takes a Tensor rate
    assert adam.state_step.asnumpy().dtype == np.int32 and adam.state_step.shape == ()


SCHEDULERS = {   # each as (module, optimizer) -> scheduler, for graphcell's and torch's
    "StepLR": lambda ls, o: ls.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda ls, o: ls.MultiStepLR(o, milestones=[2, 5, 9], gamma=0.3),
    "ConstantLR": lambda ls, o: ls.ConstantLR(o, factor=0.25, total_iters=4),
    "LinearLR": lambda ls, o: ls.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=7),
    "ExponentialLR": lambda ls, o: ls.ExponentialLR(o, gamma=0.8),
    "PolynomialLR": lambda ls, o: ls.PolynomialLR(o, total_iters=8, power=2.0),
    "CosineAnnealingLR": lambda ls, o: ls.CosineAnnealingLR(o, T_max=6, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda ls, o: ls.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.002),
    "CyclicLR": lambda ls, o: ls.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2,
                                          mode="triangular2"),
    "CyclicLR_exp_range": lambda ls, o: ls.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=4,
                                                    mode="exp_range", gamma=0.9),
    "LambdaLR": lambda ls, o: ls.LambdaLR(o, lr_lambda=[lambda e: 0.9 ** e, lambda e: 1.0 / (e + 1)]),
    "MultiplicativeLR": lambda ls, o: ls.MultiplicativeLR(o, lr_lambda=lambda e: 0.95),
    "SequentialLR": lambda ls, o: ls.SequentialLR(o, schedulers=[ls.LinearLR(o, start_factor=0.1, total_iters=3),
                                                                 ls.ExponentialLR(o, gamma=0.7)], milestones=[4]),
    "ReduceLROnPlateau": lambda ls, o: ls.ReduceLROnPlateau(o, factor=0.5, patience=1, threshold=0.01, cooldown=1,
                                                            min_lr=0.004),
}
LOSSES = [1.0, 0.9, 0.95, 0.91, 0.905, 0.8, 0.85, 0.86, 0.87, 0.7, 0.71, 0.72, 0.73, 0.74, 0.6, 0.61, 0.62, 0.63,
          0.64, 0.65]


def scheduled_rates(name, ls, opt, rate_of):
    """The groups' rates before each of 20 epochs, and get_last_lr() after each."""
    scheduler = SCHEDULERS[name](ls, opt)
    rates, last = [], []
    for epoch in range(20):
        rates.append([rate_of(g["lr"]) for g in opt.param_groups])
        scheduler.step(LOSSES[epoch]) if name == "ReduceLROnPlateau" else scheduler.step()
        last.append([rate_of(r) for r in scheduler.get_last_lr()])
    return np.array(rates), np.array(last)


@pytest.mark.filterwarnings(r"ignore:Detected call of `lr_scheduler.step\(\)` before")
@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_scheduler_against_torch(name):
    w, b = Parameter(np.ones(2, np.float32), name="w"), Parameter(np.ones(2, np.float32), name="b")
    opt = optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1, momentum=0.9)
    rates, last = scheduled_rates(name, lr_scheduler, opt, lambda r: float(r.asnumpy()))
    tw, tb = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    topt = torch.optim.SGD([{"params": [tw]}, {"params": [tb], "lr": 0.05}], lr=0.1, momentum=0.9)
    trates, tlast = scheduled_rates(name, torch.optim.lr_scheduler, topt, float)
    np.testing.assert_allclose(rates, trates, rtol=2e-6, atol=1e-9)   # rates live in float32 Parameters
    np.testing.assert_allclose(last, tlast, rtol=2e-6, atol=1e-9)
    assert np.ptp(rates[:, 0]) > 0   # the schedule did move


def test_scheduler_drives_a_jitted_training_step():
    """A jitted step (forward, grad, Adam with two groups) with StepLR stepped between calls: the
    new rates reach the compiled step. Against torch and values measured on 2.10 (GRAPH_MODE)."""
    w = Parameter(np.array([[0.5, -0.3], [0.2, 0.8]], np.float32), name="w")
    b = Parameter(np.array([0.1, -0.1], np.float32), name="b")
    opt = optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1)
    scheduler = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    y = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    grad_fn = ms.value_and_grad(lambda x, y: ((ms.ops.matmul(x, w) + b - y) ** 2).mean(), None, opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    tw, tb = torch.tensor(w.asnumpy(), requires_grad=True), torch.tensor(b.asnumpy(), requires_grad=True)
    topt = torch.optim.Adam([{"params": [tw]}, {"params": [tb], "lr": 0.05}], lr=0.1)
    tscheduler = torch.optim.lr_scheduler.StepLR(topt, step_size=1, gamma=0.5)
    losses = []
    for _ in range(3):
        losses.append(float(step(Tensor(x), Tensor(y)).asnumpy()))
        scheduler.step()
        topt.zero_grad()
        tloss = ((torch.from_numpy(x) @ tw + tb - torch.from_numpy(y)) ** 2).mean()
        tloss.backward()
        topt.step()
        tscheduler.step()
        np.testing.assert_allclose(losses[-1], tloss.item(), rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=0, atol=1e-6)
    # measured on MindSpore 2.10
    np.testing.assert_allclose(losses, [2.81000018119812, 1.9375001192092896, 1.5824215412139893], rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), [[0.32759568095207214, -0.12598887085914612],
                                             [0.3707825243473053, 0.6254377365112305]], rtol=0, atol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [0.013612850569188595, -0.013368765823543072], rtol=0, atol=1e-6)
    assert [float(r.asnumpy()) for r in scheduler.get_last_lr()] == [np.float32(0.0125), np.float32(0.00625)]
    assert scheduler.get_last_lr()[0].dtype == ms.float32


def test_checkpoint_round_trip(tmp_path):
    """Saved after three steps, loaded into a fresh optimizer: the next step is the same. (Not
    NAdam's: its mu product is out of the checkpoint, as 2.10's, so a restored NAdam restarts it.)"""
    _, opt = run_graphcell("Adamax")
    path = str(tmp_path / "adamax.ckpt")
    ms.save_checkpoint(opt, path)
    saved = ms.load_checkpoint(path)
    assert saved["step_t"].asnumpy() == 3 and saved["step_t"].asnumpy().dtype == np.int32

    def fresh():
        w, b = Parameter(np.array(W0, np.float32), name="w"), Parameter(np.array(B0, np.float32), name="b")
        return optim.Adamax([{"params": [w]}, dict(params=[b], **CASES["Adamax"][1])], **CASES["Adamax"][0])
    restored = fresh()
    ms.load_param_into_net(restored, saved)
    grads = (Tensor(np.array([0.1, 0.2, 0.3], np.float32)), Tensor(np.array([[0.2, -0.1]], np.float32)))
    opt(grads)
    restored(grads)
    for a, b in zip(opt.get_parameters(), restored.get_parameters()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy(), err_msg=a.name)


def params():
    return [Parameter(np.ones(2, np.float32), name="w")]


@pytest.mark.parametrize("make, error, message", [   # measured on MindSpore 2.10
    (lambda: optim.Adam(params(), lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda: optim.Adam(params(), betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0: 1.0"),
    (lambda: optim.ASGD(params(), lr=-1), ValueError, "For ASGD, the lr must be greater than 0.0, but got -1."),
    (lambda: optim.Adadelta(params(), rho=2), TypeError, "For 'Adadelta', the 'rho' must be 'float',  but got 'int'."),
    (lambda: optim.Adagrad(params(), lr_decay=-1), ValueError,
     "For Adagrad, the lr_decay must be greater than or equal to 0.0, but got -1."),
    (lambda: optim.NAdam(params(), momentum_decay=-1), ValueError,
     "For NAdam, the momentum_decay must be greater than or equal to 0.0, but got -1."),
    (lambda: optim.RMSprop(params(), alpha=-1), ValueError,
     "For RMSprop, the alpha must be greater than or equal to 0.0, but got -1."),
    (lambda: optim.Rprop(params(), etas=(1.5, 1.2)), ValueError,
     "For 'Rprop', the 'etas[0]' must be in range of (0.0, 1.0), but got 1.5 with type 'float'."),
    (lambda: optim.Adamax(params(), eps=-1), ValueError, "For Adamax, the eps must be greater than 0.0, but got -1."),
    (lambda: lr_scheduler.StepLR(object(), 2), TypeError, "object is not an Optimizer"),
    (lambda: lr_scheduler.LinearLR(optim.SGD(params(), lr=0.1), start_factor=0), ValueError,
     "Starting multiplicative factor expected to be greater than 0 and less than or equal to 1."),
    (lambda: lr_scheduler.CyclicLR(optim.SGD(params(), lr=0.1), 0.01, 0.1, mode="foo"), ValueError,
     "mode is invalid and scale_fn is None"),
    (lambda: lr_scheduler.ReduceLROnPlateau(optim.SGD(params(), lr=0.1), factor=1.0), ValueError,
     "The lr factor should be less than 1.0."),
    (lambda: lr_scheduler.CosineAnnealingWarmRestarts(optim.SGD(params(), lr=0.1), T_0=0), ValueError,
     "T_0 should be an integer and equal or greater than 0, but got 0"),
    (lambda: lr_scheduler.LambdaLR(optim.SGD(params(), lr=0.1), [lambda e: 1, lambda e: 2]), ValueError,
     "Expected 1 lr_lambdas, but got 2"),
    (lambda: lr_scheduler.StepLR(optim.SGD(params(), lr=0.1), 2, last_epoch=3), KeyError,
     "param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer"),
])
def test_errors_as_measured(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert message in str(info.value)


def test_add_param_group_as_torch():
    """Rprop's added parameters start their step sizes at their group's rate, as torch's do."""
    w, b = Parameter(np.ones(2, np.float32), name="w"), Parameter(np.ones(3, np.float32), name="b")
    opt = optim.Rprop([w], lr=0.1)
    tw, tb = torch.ones(2, requires_grad=True), torch.ones(3, requires_grad=True)
    topt = torch.optim.Rprop([tw], lr=0.1)
    opt((Tensor(np.ones(2, np.float32)),))
    tw.grad = torch.ones(2)
    topt.step()
    opt.add_param_group({"params": [b], "lr": 0.2})
    topt.add_param_group({"params": [tb], "lr": 0.2})
    for sign in (1.0, -1.0):
        opt((Tensor(np.full(2, sign, np.float32)), Tensor(np.full(3, sign, np.float32))))
        tw.grad, tb.grad = torch.full((2,), sign), torch.full((3,), sign)
        topt.step()
    np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), tb.detach().numpy(), rtol=1e-6)


def test_reached_from_the_package():
    assert ms.experimental.optim.lr_scheduler.StepLR is lr_scheduler.StepLR   # as mindspore.experimental


# constructor signatures measured on MindSpore 2.10 (inspect.signature of __init__)
SIGNATURES = {
    "ASGD": "(self, params, lr=0.01, lambd=0.0001, alpha=0.75, t0=1000000.0, weight_decay=0.0, maximize=False)",
    "Adadelta": "(self, params, lr=1.0, rho=0.9, eps=1e-06, weight_decay=0.0, *, maximize=False)",
    "Adagrad": "(self, params, lr=0.01, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, "
               "eps=1e-10, *, maximize=False)",
    "Adam": "(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0, amsgrad=False, *, "
            "maximize=False)",
    "AdamW": "(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.01, amsgrad=False, *, "
             "maximize=False)",
    "Adamax": "(self, params, lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0, *, maximize=False)",
    "ConstantLR": "(self, optimizer, factor=0.3333333333333333, total_iters=5, last_epoch=-1)",
    "CosineAnnealingLR": "(self, optimizer, T_max, eta_min=0.0, last_epoch=-1)",
    "CosineAnnealingWarmRestarts": "(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1)",
    "CyclicLR": "(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode='triangular', "
                "gamma=1.0, scale_fn=None, scale_mode='cycle', last_epoch=-1)",
    "ExponentialLR": "(self, optimizer, gamma, last_epoch=-1)",
    "LRScheduler": "(self, optimizer, last_epoch=-1)",
    "LambdaLR": "(self, optimizer, lr_lambda, last_epoch=-1)",
    "LinearLR": "(self, optimizer, start_factor=0.3333333333333333, end_factor=1.0, total_iters=5, last_epoch=-1)",
    "MultiStepLR": "(self, optimizer, milestones, gamma=0.1, last_epoch=-1)",
    "MultiplicativeLR": "(self, optimizer, lr_lambda, last_epoch=-1)",
    "NAdam": "(self, params, lr=0.002, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0, momentum_decay=0.004)",
    "PolynomialLR": "(self, optimizer, total_iters=5, power=1.0, last_epoch=-1)",
    "RAdam": "(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0)",
    "RMSprop": "(self, params, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0, momentum=0.0, centered=False, "
               "maximize=False)",
    "ReduceLROnPlateau": "(self, optimizer, mode='min', factor=0.1, patience=10, threshold=0.0001, "
                         "threshold_mode='rel', cooldown=0, min_lr=0, eps=1e-08)",
    "Rprop": "(self, params, lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-06, 50), *, maximize=False)",
    "SGD": "(self, params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *, maximize=False)",
    "SequentialLR": "(self, optimizer, schedulers, milestones, last_epoch=-1)",
    "StepLR": "(self, optimizer, step_size, gamma=0.1, last_epoch=-1)",
}


def test_constructor_signatures_as_measured():
    import inspect
    for name, signature in SIGNATURES.items():
        cls = getattr(optim, name, None) or getattr(lr_scheduler, name)
        assert str(inspect.signature(cls.__init__)) == signature, name
