"""graphcell.mint.optim against torch.optim (same formulas as MindSpore 2.10's mint.optim) and
against values measured on MindSpore 2.10 (CPU, GRAPH_MODE: in PYNATIVE its CPU optimizers
leave the parameters unchanged, measured)."""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Parameter, Tensor, mint

GRADS = ([0.1, -0.2, 0.3], [0.4, 0.1, -0.5], [-0.3, 0.2, 0.1])

# (optimizer, kwargs), run on w=[1,-2,3] (group 0) and b=[0.5] (group 1: lr 0.05, weight_decay 0)
CASES = {
    "sgd_momentum_dampening": ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    "sgd_nesterov": ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "sgd_plain_maximize": ("SGD", dict(lr=0.1, maximize=True)),
    "adam_weight_decay": ("Adam", dict(lr=0.1, weight_decay=0.01)),
    "adam_amsgrad_maximize": ("Adam", dict(lr=0.1, eps=0.1, amsgrad=True, maximize=True)),
    "adamw": ("AdamW", dict(lr=0.1)),
    "adamw_amsgrad": ("AdamW", dict(lr=0.1, eps=0.1, amsgrad=True, betas=(0.8, 0.99))),
}
# w and b after each of the three steps, measured on MindSpore 2.10 (its CPU build has no AdamW kernel)
MEASURED = {
    "sgd_momentum_dampening": [[0.9890000224113464, -1.9780000448226929, 2.9670000076293945, 0.4950000047683716],
                               [0.9422098994255066, -1.965419888496399, 2.9796297550201416, 0.4724999964237213],
                               [0.9262508153915405, -1.9703288078308105, 2.9793148040771484, 0.4657500088214874]],
    "sgd_nesterov": [[0.9790999889373779, -1.9581999778747559, 2.937299966812134, 0.49050000309944153],
                     [0.8923296928405762, -1.9556593894958496, 2.9999890327453613, 0.4484499990940094],
                     [0.9064221978187561, -1.9804195165634155, 2.9893529415130615, 0.45710501074790955]],
    "adam_weight_decay": [[0.8999999761581421, -1.899999976158142, 2.9000000953674316, 0.44999998807907104],
                          [0.8107431530952454, -1.8628463745117188, 2.922518014907837, 0.4057812988758087],
                          [0.7902057766914368, -1.8792510032653809, 2.9254865646362305, 0.39694586396217346]],
    "adam_amsgrad_maximize": [[1.0499999523162842, -2.066666603088379, 3.075000047683716, 0.5249999761581421],
                              [1.1158545017242432, -2.0829806327819824, 3.0513734817504883, 0.5579272508621216],
                              [1.1290453672409058, -2.06569242477417, 3.042430877685547, 0.5645226836204529]],
}


def run_graphcell(name, kwargs):
    w = Parameter(np.array([1.0, -2.0, 3.0], np.float32), name="w")
    b = Parameter(np.array([0.5], np.float32), name="b")
    opt = getattr(mint.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05, "weight_decay": 0.0}], **kwargs)
    out = []
    for g in GRADS:
        opt((Tensor(np.array(g, np.float32)), Tensor(np.array([g[0]], np.float32))))
        out.append(np.concatenate([w.asnumpy(), b.asnumpy()]))
    return np.array(out), opt


def run_torch(name, kwargs):
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = torch.tensor([0.5], requires_grad=True)
    opt = getattr(torch.optim, name.replace("Fused", ""))(
        [{"params": [w]}, {"params": [b], "lr": 0.05, "weight_decay": 0.0}], **kwargs)
    out = []
    for g in GRADS:
        w.grad, b.grad = torch.tensor(g), torch.tensor([g[0]])
        opt.step()
        out.append(torch.cat([w, b]).detach().numpy().copy())
    return np.array(out)


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if "amsgrad" in c else c
                                  for c in sorted(CASES)])
def test_against_torch_and_measured(case):
    name, kwargs = CASES[case]
    got, _ = run_graphcell(name, kwargs)
    np.testing.assert_allclose(got, run_torch(name, kwargs), rtol=0, atol=5e-7)   # float32 ulps
    if case in MEASURED:
        np.testing.assert_allclose(got, np.array(MEASURED[case], np.float32), rtol=0, atol=1e-6)


def test_state_names_and_checkpoint(tmp_path):
    _, opt = run_graphcell("Adam", dict(lr=0.1, amsgrad=True))
    names = [p.name for p in opt.get_parameters()]
    # 2.10's names (measured); graphcell also saves max_exp_avg_sq
    assert names == ["w", "b", "exp_avg.w", "exp_avg.b", "exp_avg_sq.w", "exp_avg_sq.b", "max_exp_avg_sq.w",
                     "max_exp_avg_sq.b", "state_step"]
    assert float(opt.state_step.asnumpy()[0]) == 3.0
    path = str(tmp_path / "opt.ckpt")
    ms.save_checkpoint(opt, path)
    assert ms.load_checkpoint(path)["state_step"].asnumpy().tolist() == [3.0]
    _, sgd = run_graphcell("SGD", dict(lr=0.1))
    assert [p.name for p in sgd.get_parameters()][2:5] == ["momentum_buf.w", "momentum_buf.b", "step_t"]
    assert sgd.step_t.asnumpy().dtype == np.int32


def test_changing_a_group_rate_takes_effect():
    w = Parameter(np.array([1.0], np.float32), name="w")
    opt = mint.optim.SGD([w], lr=0.1)
    opt((Tensor(np.array([1.0], np.float32)),))
    opt.param_groups[0]["lr"].set_data(Tensor(np.array(0.5, np.float32)))
    opt((Tensor(np.array([1.0], np.float32)),))
    np.testing.assert_allclose(w.asnumpy(), [0.4], rtol=1e-6)


@pytest.mark.parametrize("kwargs, message", [
    (dict(lr=-1.0), "Invalid learning rate: -1.0"),
    (dict(lr=0.1, momentum=-1), "Invalid momentum value: -1"),
    (dict(lr=0.1, nesterov=True), "if 'nesterov' is true, 'momentum' must be > 0.0"),
])
def test_sgd_errors_as_measured(kwargs, message):
    with pytest.raises(ValueError, match=message):
        mint.optim.SGD([Parameter(np.zeros(1, np.float32), name="w")], **kwargs)


def test_adam_beta_error_as_measured():
    with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
        mint.optim.Adam([Parameter(np.zeros(1, np.float32), name="w")], betas=(1.0, 0.9))


def test_training_step_under_jit_matches_torch():
    """A jitted step (forward, grad, AdamW with two groups) of a mint.nn model, three times,
    against the same model and optimizer in torch."""
    ms.set_seed(3)
    fc1, fc2 = mint.nn.Linear(4, 5), mint.nn.Linear(5, 3)
    net = ms.nn.SequentialCell([fc1, mint.nn.GELU(), fc2])
    loss_fn = mint.nn.CrossEntropyLoss()
    opt = mint.optim.AdamW([{"params": fc1.trainable_params()}, {"params": fc2.trainable_params(), "lr": 0.02}],
                           lr=0.05, weight_decay=0.1)
    tnet = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.GELU(), torch.nn.Linear(5, 3))
    with torch.no_grad():
        for tp, p in zip(tnet.parameters(), net.trainable_params()):
            tp.copy_(torch.from_numpy(p.asnumpy()))
    topt = torch.optim.AdamW([{"params": tnet[0].parameters()}, {"params": tnet[2].parameters(), "lr": 0.02}],
                             lr=0.05, weight_decay=0.1)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    rng = np.random.RandomState(1)
    for _ in range(3):
        x, y = rng.randn(6, 4).astype(np.float32), rng.randint(0, 3, 6)
        loss = step(Tensor(x), Tensor(y))
        topt.zero_grad()
        tloss = torch.nn.functional.cross_entropy(tnet(torch.from_numpy(x)), torch.from_numpy(y))
        tloss.backward()
        topt.step()
        np.testing.assert_allclose(loss.asnumpy(), tloss.item(), rtol=1e-5)
    for tp, p in zip(tnet.parameters(), net.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), tp.detach().numpy(), rtol=1e-5, atol=1e-6)
