"""Backward hooks on the members of an ensemble (`vmap(nn.CellList)`), and Tensor hooks of a
jitted function's arguments.

An ensemble traces one member's graph for all members; each member's hooks must still run on
that member's gradients (ops/member_hooks.py). The reference is a loop over the members, each
alone under grad with its own hooks, and torch's per-member loop. MindSpore 2.10 runs no hook of
an ensemble member (measured: the gradient is the unhooked one; pre-hooks on every member raise
"The backward pre hook return value size is 1 not equal to input size 2").
"""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Parameter, Tensor, nn

X = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], np.float32)
SCALES = (1.0, 2.0, -0.5)


class Lin(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.w = Parameter(Tensor(np.array([k, 1.5 * k], np.float32)), name="w")

    def construct(self, x):
        return x * self.w


class Net(nn.Cell):
    """A member: the hooks sit on its sub-cell `lin`."""

    def __init__(self, k):
        super().__init__()
        self.lin = Lin(k)
        self.v = Parameter(Tensor(np.array([1.0, -2.0], np.float32) * k), name="v")

    def construct(self, x):
        return ms.ops.sin(self.lin(x)) * self.v


def hook_members(nets, seen):
    """Member 0: a post-hook scaling grad_input by 10; member 1: a pre-hook scaling grad_output
    by 3; member 2: none. Each records (member, whether it got its own Cell, the gradients)."""
    def post(cell, grad_input, grad_output):
        seen.append((0, cell is nets[0].lin, grad_input[0].asnumpy(), grad_output[0].asnumpy()))
        return (grad_input[0] * 10,)

    def pre(cell, grad_output):
        seen.append((1, cell is nets[1].lin, grad_output[0].asnumpy()))
        return (grad_output[0] * 3,)
    return [nets[0].lin.register_backward_hook(post), nets[1].lin.register_backward_pre_hook(pre)]


def loop_reference(x_rows):
    """Each member alone under grad (x and its weights) with its hooks: the gradients and what
    the hooks saw. `x_rows[i]` is member i's input."""
    nets, seen = [Net(k) for k in SCALES], []
    hook_members(nets, seen)
    grads = []
    for net, x in zip(nets, x_rows):
        gx, (gw, gv) = ms.grad(lambda x, net=net: net(x).sum(), grad_position=0,
                               weights=[net.lin.w, net.v])(Tensor(x))
        grads.append((gx.asnumpy(), gw.asnumpy(), gv.asnumpy()))
    return grads, seen


def torch_reference(x_rows):
    """torch's per-member loop with the same hooks (full backward hooks on `lin`)."""
    out = []
    for k, x in zip(SCALES, x_rows):
        w = torch.tensor([k, 1.5 * k], requires_grad=True)
        v = torch.tensor([1.0 * k, -2.0 * k], requires_grad=True)

        class TLin(torch.nn.Module):
            def forward(self, x):
                return x * w
        lin = TLin()
        if k == SCALES[0]:
            lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
        elif k == SCALES[1]:
            lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
        xt = torch.tensor(x, requires_grad=True)
        (torch.sin(lin(xt)) * v).sum().backward()
        out.append((xt.grad.numpy(), w.grad.numpy(), v.grad.numpy()))
    return out


def check_seen(seen, expected):
    """By member: an ensemble's backward pass meets every member's pre-hooks at once."""
    seen, expected = sorted(seen, key=lambda s: s[0]), sorted(expected, key=lambda s: s[0])
    assert [s[0] for s in seen] == [e[0] for e in expected]
    for got, want in zip(seen, expected):
        assert got[1], "a hook got another member's Cell"
        for a, b in zip(got[2:], want[2:]):
            np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
@pytest.mark.parametrize("in_axes", [None, 0])
def test_grad_of_an_ensemble_runs_each_members_hooks_on_its_gradients(mode, in_axes):
    x = X if in_axes is None else np.stack([X * (i + 1) for i in range(3)])
    rows = [X] * 3 if in_axes is None else list(x)
    nets, seen = [Net(k) for k in SCALES], []
    hook_members(nets, seen)
    ensemble = ms.vmap(nn.CellList(nets), in_axes=in_axes)
    stacked = {s.stacked.name: s.stacked for s in ensemble.ensemble.slots}
    grad_fn = ms.grad(lambda x: ensemble(x).sum(), grad_position=0, weights=[stacked["lin.w"], stacked["v"]])
    if mode == "jit":
        grad_fn = ms.jit(grad_fn)
    gx, (gw, gv) = grad_fn(Tensor(x))
    loop, loop_seen = loop_reference(rows)
    check_seen(seen, loop_seen)
    torch_grads = torch_reference(rows)
    for i, (lg, tg) in enumerate(zip(loop, torch_grads)):
        for a, b in zip(lg, tg):
            np.testing.assert_allclose(a, b, rtol=1e-5)
        np.testing.assert_allclose(gw.asnumpy()[i], lg[1], rtol=1e-5)
        np.testing.assert_allclose(gv.asnumpy()[i], lg[2], rtol=1e-5)
    want_x = sum(g[0] for g in loop) if in_axes is None else np.stack([g[0] for g in loop])
    np.testing.assert_allclose(gx.asnumpy(), want_x, rtol=1e-5)


class GradNet(nn.Cell):
    """A member that takes its own gradient: vmap of grad."""

    def __init__(self, k):
        super().__init__()
        self.net = Net(k)

    def construct(self, x):
        return ms.grad(lambda x: self.net(x).sum())(x)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_an_ensemble_of_gradients_runs_each_members_hooks(mode):
    members, seen = [GradNet(k) for k in SCALES], []
    hook_members([m.net for m in members], seen)
    ensemble = ms.vmap(nn.CellList(members), in_axes=None)
    run = ms.jit(ensemble) if mode == "jit" else ensemble
    got = run(Tensor(X)).asnumpy()
    loop, loop_seen = loop_reference([X] * 3)
    check_seen(seen, loop_seen)
    np.testing.assert_allclose(got, np.stack([g[0] for g in loop]), rtol=1e-5)


def test_a_removed_member_hook_stops_and_unhooked_members_are_untouched():
    nets, seen = [Net(k) for k in SCALES], []
    handles = hook_members(nets, seen)
    ensemble = ms.vmap(nn.CellList(nets), in_axes=None)
    grad_fn = ms.jit(ms.grad(lambda x: ensemble(x).sum()))
    grad_fn(Tensor(X))
    assert [s[0] for s in seen] == [1, 0]   # the backward pass meets the pre-hook first
    handles[0].remove()
    handles[1].remove()
    seen.clear()
    plain = [Net(k) for k in SCALES]
    want = sum(ms.grad(lambda x, n=n: n(x).sum())(Tensor(X)).asnumpy() for n in plain)
    np.testing.assert_allclose(grad_fn(Tensor(X)).asnumpy(), want, rtol=1e-5)
    assert seen == []


# -- Tensor hooks of a jitted function's arguments ---------------------------------------------

def square_sum(x):
    return (x * x).sum()


def test_a_hooked_argument_of_a_jitted_grad_runs_its_hook():
    """The hook registered outside the jitted function runs (MindSpore 2.10: the gradient is
    [20, 40], measured) and a call with another Tensor does not reuse the hooked program
    (2.10 does: an unhooked Tensor got [20, 40] too, and so did x after remove())."""
    seen = []

    def hook(g):
        seen.append(g.asnumpy().tolist())
        return g * 10
    x = Tensor(np.array([1.0, 2.0], np.float32))
    handle = x.register_hook(hook)
    inner = ms.jit(lambda x: ms.grad(square_sum)(x))
    outer = ms.jit(ms.grad(square_sum))
    for fn in (inner, outer):
        np.testing.assert_allclose(fn(x).asnumpy(), [20.0, 40.0])
        assert seen == [[2.0, 4.0]]
        seen.clear()
        np.testing.assert_allclose(fn(Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [2.0, 4.0])
        assert seen == []
    handle.remove()
    np.testing.assert_allclose(inner(x).asnumpy(), [2.0, 4.0])
    assert seen == []


def test_remove_of_a_handle_made_inside_the_function_stops_the_cached_program():
    """An eager grad reuses its compiled program for the same graph: the hook it runs is this
    call's registration, live or removed, not the first call's."""
    seen, remove = [], [False]

    def hook(g):
        seen.append(1)
        return g * 10

    def f(x):
        y = x * 2
        handle = y.register_hook(hook)
        if remove[0]:
            handle.remove()
        return (y * y).sum()
    grad_fn, x = ms.grad(f), Tensor(np.array([1.0, 2.0], np.float32))
    for removed in (False, True, False):
        remove[0] = removed
        np.testing.assert_allclose(grad_fn(x).asnumpy(), np.array([8.0, 16.0]) * (1 if removed else 10))
        assert seen == ([] if removed else [1])
        seen.clear()
    assert len(grad_fn.cache) == 1   # one program for the three calls
