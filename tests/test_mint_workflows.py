"""graphcell.mint as a PyTorch migrant uses it: whole programs (an MLP, a CNN, a
Transformer-ish block, vmapped ensembles, ONNX export) checked against torch 2.13 on the
same initial weights, or against values measured on MindSpore 2.10."""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Parameter, Tensor, mint

# Measured on MindSpore 2.10: print(mint.optim.Adam(groups, lr=1e-2)) with two groups.
ADAM_REPR_2_10 = """Adam (
Parameter Group 0
    amsgrad: False
    betas: (0.9, 0.999)
    eps: 1e-08
    lr: 0.01
    maximize: False
    weight_decay: 0.05

Parameter Group 1
    amsgrad: False
    betas: (0.9, 0.999)
    eps: 1e-08
    lr: 0.003
    maximize: False
    weight_decay: 0.0
)"""


def test_optimizer_repr_is_torch_and_2_10_format():
    w = Parameter(np.ones(3, np.float32), name="w")
    b = Parameter(np.ones(1, np.float32), name="b")
    opt = mint.optim.Adam([{"params": [w], "weight_decay": 0.05}, {"params": [b], "lr": 3e-3}], lr=1e-2)
    assert repr(opt) == ADAM_REPR_2_10


def test_assigning_a_group_lr_as_torch_does_changes_the_jitted_update():
    """`group['lr'] = x` (torch's idiom) acts at the next step, inside jit too, as torch's does;
    the group keeps its rate Parameter (2.10 under jit ignores the assignment: measured)."""
    grads = ([0.1, -0.2, 0.3], [0.4, 0.1, -0.5], [-0.3, 0.2, 0.1], [0.2, 0.2, -0.1])
    w = Parameter(np.array([1.0, -2.0, 3.0], np.float32), name="w")
    opt = mint.optim.Adam([w], lr=0.1)
    step = ms.jit(lambda g: opt((g,)))
    tw = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    topt = torch.optim.Adam([tw], lr=0.1)
    for i, g in enumerate(grads):
        if i == 2:
            opt.param_groups[0]["lr"] = 0.02
            topt.param_groups[0]["lr"] = 0.02
        step(Tensor(np.array(g, np.float32)))
        tw.grad = torch.tensor(g)
        topt.step()
    np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert isinstance(opt.param_groups[0]["lr"], Parameter)
    assert "lr: 0.02\n" in repr(opt)
    try:
        opt.param_groups[0]["lr"] = -1.0
    except ValueError as e:
        assert str(e) == "Invalid learning rate: -1.0"
    else:
        raise AssertionError("a negative learning rate was accepted")


def _train_with_added_group(make, steps=3):
    """Steps 1 on w alone, then adds a group {b, lr 0.2, ...} and steps twice more, in graphcell
    (jitted) and torch; returns (graphcell, torch) [w, b] and the graphcell optimizer."""
    x = np.array([1.0, -1.0], np.float32)
    w = Parameter(np.array([1.0, 2.0], np.float32), name="w")
    b = Parameter(np.array([0.5], np.float32), name="b")
    tw = torch.tensor([1.0, 2.0], requires_grad=True)
    tb = torch.tensor([0.5], requires_grad=True)
    opt, topt, extra = make("graphcell", [w]), make("torch", [tw]), make("group", None)

    def loss():
        return (w * Tensor(x)).sum() + (b * b).sum()

    def step():
        grads = ms.grad(loss, None, opt.parameters)()
        opt(grads)
    step = ms.jit(step)
    for i in range(steps):
        if i == 1:
            opt.add_param_group({"params": b, **extra})
            topt.add_param_group({"params": tb, **extra})
        step()
        topt.zero_grad()
        ((tw * torch.tensor(x)).sum() + (tb * tb).sum()).backward()
        topt.step()
    return np.concatenate([w.asnumpy(), b.asnumpy()]), torch.cat([tw, tb]).detach().numpy(), opt


def _maker(name, kwargs, group):
    def make(kind, params):
        if kind == "group":
            return group
        module = mint.optim if kind == "graphcell" else torch.optim
        return getattr(module, name)(params, **kwargs)
    return make


def test_add_param_group_trains_the_new_group_as_torch():
    """2.10's add_param_group appends the group but not its state, so the next step fails
    ("The tuples in HyperMap should have the same length", measured); graphcell follows torch,
    an added Adam group counting its own steps for its bias corrections."""
    cases = [("SGD", dict(lr=0.1, momentum=0.9), dict(lr=0.2)),
             ("Adam", dict(lr=0.1), dict(lr=0.2)),
             ("Adam", dict(lr=0.1), dict(lr=0.2, amsgrad=True, eps=0.1)),
             ("AdamW", dict(lr=0.1, amsgrad=True), dict(lr=0.2, weight_decay=0.1))]
    for name, kwargs, group in cases:
        got, want, opt = _train_with_added_group(_maker(name, kwargs, group))
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7, err_msg=f"{name} {kwargs} + {group}")
        assert opt.param_groups[1]["lr"].name == "learning_rate_group_1"
    names = sorted(n for n, _ in opt.parameters_and_names())
    assert names == ["b", "exp_avg.b", "exp_avg.w", "exp_avg_sq.b", "exp_avg_sq.w", "max_exp_avg_sq.b",
                     "max_exp_avg_sq.w", "state_step", "state_step_group_1", "w"]


def test_group_errors_and_tensor_rates_as_2_10():
    w = Parameter(np.ones(2, np.float32), name="w")
    opt = mint.optim.SGD([w], lr=Tensor(0.1, ms.float32))     # 2.10 and torch take a scalar Tensor rate
    assert float(opt.param_groups[0]["lr"].asnumpy()) == np.float32(0.1)
    for call, error, message in [
            (lambda: opt.add_param_group({"params": [w]}), ValueError,
             "some parameters appear in more than one parameter group."),
            (lambda: mint.optim.SGD([w], lr=Tensor([0.1], ms.float32)), ValueError,
             "For 'Optimizer', if 'learning_rate' is a Tensor, then it should be scalar Tensor"),
            (lambda: mint.optim.Adam([w], lr=Tensor(0.1, ms.float32)), TypeError,
             "For 'Adam', the type of 'lr' should be 'float', but got type 'Tensor'.")]:
        try:
            call()
        except error as e:
            assert str(e) == message      # measured on MindSpore 2.10
        else:
            raise AssertionError(f"no {error.__name__}: {message}")


def test_tensor_repeat_is_torchs_as_in_2_10():
    """A torch migrant's `x.repeat(1, 2, 1)` / `x.repeat(2, 1)`: 2.10's Tensor.repeat is torch's
    (it refuses numpy's `axis=`, measured); before, graphcell's `x.repeat(2, 1)` was numpy's
    repeat along axis 1, a silently different result."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    cases = [(1, 2, 1), (2, 1), ((2, 1, 1, 1),), ([1, 1, 2],), (1, 0)]
    got = ms.jit(lambda t: tuple(t.repeat(*r) for r in cases))(Tensor(x))
    for r, g in zip(cases, got):
        np.testing.assert_array_equal(g.asnumpy(), torch.tensor(x).repeat(*r).numpy(), err_msg=str(r))


def test_products_of_mixed_dtypes_are_refused_as_2_10():
    """mint.matmul(float16, float32) and friends: 2.10 and torch refuse them (messages measured
    on 2.10), where graphcell promoted; a program that ran here then failed on MindSpore."""
    h, f = Tensor(np.ones((2, 3), np.float16)), Tensor(np.ones((3, 2), np.float32))
    i = Tensor(np.ones((2, 3), np.int32))
    cases = [
        (lambda: mint.matmul(h, f), "For 'MatMulExt', the type of 'x2' should be same as 'x1', but got 'x1' with "
                                    "type Tensor[Float16] and 'x2' with type Tensor[Float32]."),
        (lambda: mint.matmul(i, f), "For 'MatMulExt', the type of 'x2' should be same as 'x1', but got 'x1' with "
                                    "type Tensor[Int32] and 'x2' with type Tensor[Float32]."),
        (lambda: mint.bmm(h[None], f[None]), "For 'BatchMatMulExt', the type of 'x2' should be same as 'x1', but got "
                                             "'x1' with type Tensor[Float16] and 'x2' with type Tensor[Float32]."),
        (lambda: mint.nn.functional.linear(h, f.T), "For 'Dense', the type of 'x2' should be same as 'x1', but got "
                                                    "'x1' with type Tensor[Float16] and 'x2' with type Tensor[Float32]."),
        (lambda: mint.nn.functional.linear(f.T, f.T, Tensor(np.ones(3, np.float16))),
         "For Dense, all dtypes should be the same, but got 'input' with dtype: Float32 and 'bias' with dtype: Float16."),
    ]
    for call, message in cases:
        try:
            call()
        except TypeError as e:
            assert str(e) == message
        else:
            raise AssertionError(f"accepted: {message}")
    assert mint.matmul(h, h.T).dtype is ms.float16


class _Step(ms.nn.Cell):
    def __init__(self, net, opt):
        super().__init__()
        self.loss, self.optimizer, self.weights = ms.nn.WithLossCell(net, ms.nn.MSELoss()), opt, net.trainable_params()

    def construct(self, x, y):
        loss, grads = ms.value_and_grad(self.loss, None, self.weights)(x, y)
        self.optimizer(grads)
        return loss


@pytest.mark.slow
def test_an_ensemble_keeps_each_members_rate_and_nadam_products():
    """The group rates and NAdam's mu products are out of get_parameters (as 2.10's), but an
    ensemble still stacks them: each member trains at its own rate, as a per-member loop."""
    from graphcell.experimental.optim import NAdam

    def members():
        nets = [ms.nn.Dense(2, 1, weight_init="ones", bias_init="zeros") for _ in range(2)]
        return [_Step(net, NAdam(net.trainable_params(), lr=lr)) for net, lr in zip(nets, (0.1, 0.5))]
    x, y = Tensor(np.array([[1.0, 2.0]], np.float32)), Tensor(np.array([[0.5]], np.float32))
    stacked, loop = members(), members()
    step = ms.vmap(ms.nn.CellList(stacked), in_axes=None)
    for _ in range(2):
        step(x, y)
        for member in loop:
            member(x, y)
    for member in (stacked[1], loop[1]):
        member.optimizer.param_groups[0]["lr"] = 0.0   # the compiled step reads the new rate
    before = stacked[1].weights[0].asnumpy()
    step(x, y)
    for member in loop:
        member(x, y)
    np.testing.assert_array_equal(stacked[1].weights[0].asnumpy(), before)
    for a, b in zip(stacked, loop):
        np.testing.assert_allclose(a.weights[0].asnumpy(), b.weights[0].asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(a.optimizer._mu_products[0].asnumpy(), b.optimizer._mu_products[0].asnumpy(),
                                   rtol=1e-6)
    assert not np.allclose(stacked[0].weights[0].asnumpy(), stacked[1].weights[0].asnumpy())
