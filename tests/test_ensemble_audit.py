"""Ensemble audit (session 18): what realistic ensemble programs found wrong, each against an
independent reference (numpy, or a per-member loop over deep copies of the same Cells)."""
import copy

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops
from graphcell.runtime import Session


class SignedNet(nn.Cell):
    """A Tensor `if` on a Parameter: members with g > 0 and g <= 0 take different branches."""

    def __init__(self, g):
        super().__init__()
        self.fc = nn.Dense(4, 2)
        self.g = Parameter(Tensor(np.float32(g)), name="g")

    def construct(self, x):
        y = self.fc(x)
        if self.g > 0:
            y = ops.sin(y) * self.g
        else:
            y = y * y * self.g
        return y.sum()


def _dense_out(net, x):
    return x @ net.fc.weight.asnumpy().T + net.fc.bias.asnumpy()


def test_a_condition_on_a_parameter_follows_its_value_in_a_jitted_grad():
    """The grad inside jit traced with the Parameter's value of the first call and kept that
    branch after the value changed (a stale gradient)."""
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    net = SignedNet(1.0)
    grad_g = ms.jit(lambda v: ms.grad(net, None, net.trainable_params())(v)[0])
    np.testing.assert_allclose(grad_g(Tensor(x)).asnumpy(), np.sin(_dense_out(net, x)).sum(), rtol=1e-5)
    net.g.set_data(Tensor(np.float32(-1.0)))
    np.testing.assert_allclose(grad_g(Tensor(x)).asnumpy(), (_dense_out(net, x) ** 2).sum(), rtol=1e-5)


@pytest.mark.slow   # ~2 s: the root cause is the jitted-grad test's
def test_members_taking_different_branches_train_as_a_loop_over_them():
    """Every member's TrainOneStepCell ran member 0's branch: its grad fixed the branch from
    member 0's Parameter value, and the members' equal configurations spared tracing the rest."""
    ms.set_seed(1)
    nets = [SignedNet(g) for g in (1.0, -1.0, 0.5)]
    loop = copy.deepcopy(nets)
    steps = lambda ns: [nn.TrainOneStepCell(n, nn.SGD(n.trainable_params(), 0.1)).set_train() for n in ns]  # noqa: E731
    ensemble = ms.vmap(nn.CellList(steps(nets)), in_axes=0)
    singles = steps(loop)
    x = np.random.default_rng(0).standard_normal((3, 5, 4)).astype(np.float32)
    for _ in range(2):
        losses = ensemble(Tensor(x)).asnumpy()
        want = [singles[i](Tensor(x[i])).asnumpy() for i in range(3)]
        np.testing.assert_allclose(losses, want, rtol=1e-5, atol=1e-6)
    for a, b in zip(nets, loop):
        for p, q in zip(a.get_parameters(), b.get_parameters()):
            np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)


class Two(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x, m):
        return self.fc(x) * m


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.fixture(scope="module")
def members():
    ms.set_seed(0)
    return [Two() for _ in range(3)]


def _per_member(nets, x, m, m_axis):
    return np.stack([n(Tensor(x), Tensor(m[i] if m_axis == 0 else m)).asnumpy() for i, n in enumerate(nets)])


def test_export_heads_reduce_over_the_member_axis_that_out_axes_names(members, tmp_path):
    """With out_axes=1 the output is [batch, members, classes]: the heads averaged the batch."""
    ensemble = ms.vmap(nn.CellList(members), in_axes=None, out_axes=1)
    rng = np.random.default_rng(1)
    example = [Tensor(rng.standard_normal((2, 4)).astype(np.float32)), Tensor(np.ones((2, 3), np.float32))]
    mean = Session(ms.export(ensemble, *example, file_name=str(tmp_path / "mean"), reduce="mean"))
    vote = Session(ms.export(ensemble, *example, file_name=str(tmp_path / "vote"), reduce="vote"))
    for batch in (1, 7):
        x = rng.standard_normal((batch, 4)).astype(np.float32)
        m = rng.standard_normal((batch, 3)).astype(np.float32)
        per = _per_member(members, x, m, None)
        np.testing.assert_allclose(mean.run(x, m)[0], _softmax(per).mean(0), atol=1e-6)
        counts = (per.argmax(-1)[..., None] == np.arange(3)).sum(0)
        np.testing.assert_array_equal(vote.run(x, m)[0], counts.argmax(-1))


def test_export_finds_the_batch_of_inputs_mapped_differently(members, tmp_path):
    """in_axes=(None, 0): x's batch is its axis 0, m's its axis 1; the export was static."""
    ensemble = ms.vmap(nn.CellList(members), in_axes=(None, 0))
    rng = np.random.default_rng(2)
    example = [Tensor(rng.standard_normal((2, 4)).astype(np.float32)),
               Tensor(rng.standard_normal((3, 2, 3)).astype(np.float32))]
    session = Session(ms.export(ensemble, *example, file_name=str(tmp_path / "mixed"), reduce="mean_std"))
    for batch in (1, 7):
        x = rng.standard_normal((batch, 4)).astype(np.float32)
        m = rng.standard_normal((3, batch, 3)).astype(np.float32)
        probs = _softmax(_per_member(members, x, m, 0).astype(np.float64))
        mean, std = session.run(x, m)
        np.testing.assert_allclose(mean, probs.mean(0), atol=1e-6)
        np.testing.assert_allclose(std, probs.std(0), atol=1e-6)


class HeldEnsemble(nn.Cell):
    """The ensemble as a Cell attribute: its members' Parameters are named `nets.<i>.<path>`."""

    def __init__(self, nets):
        super().__init__()
        self.nets = nn.CellList(nets)
        self.ensemble = ms.vmap(self.nets, in_axes=None)

    def construct(self, x):
        return self.ensemble(x)


class MeanMemberLoss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ce = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, logits, labels):
        return (self.ce(logits[0], labels) + self.ce(logits[1], labels)) / 2


def test_a_celllist_held_by_a_cell_stacks_and_trains_with_model():
    """`nets.0.fc.weight` and `nets.1.fc.weight` are one parameter (MindSpore 2.10 stacks them,
    measured); graphcell stripped a leading index only and refused them. Model.train on the
    mean of the members' losses is each member's SGD step at half the rate."""
    import graphcell.dataset as ds
    from graphcell.train import Model
    ms.set_seed(4)
    nets = [nn.Dense(4, 3) for _ in range(2)]
    loop = copy.deepcopy(nets)
    held = HeldEnsemble(nets)
    assert [p.name for p in held.trainable_params()][:2] == ["nets.0.weight", "nets.0.bias"]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 4)).astype(np.float32)
    y = rng.integers(0, 3, 4).astype(np.int32)
    Model(held, MeanMemberLoss(), nn.SGD(held.trainable_params(), 0.4)).train(
        1, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4))
    for net, single in zip(nets, loop):
        step = nn.TrainOneStepCell(nn.WithLossCell(single, nn.SoftmaxCrossEntropyWithLogits(
            sparse=True, reduction="mean")), nn.SGD(single.trainable_params(), 0.2))
        step(Tensor(x), Tensor(y))
        for p, q in zip(net.get_parameters(), single.get_parameters()):
            np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)


def test_members_renamed_by_two_celllists_are_refused_as_mindspore_does():
    """Put in a CellList, then wrapped in TrainOneStepCells put in another: `0.0.weight` and
    `1.1.weight` (MindSpore 2.10 names them so and refuses them with this message, measured)."""
    nets = [nn.Dense(2, 2) for _ in range(2)]
    nn.CellList(nets)
    steps = nn.CellList([nn.TrainOneStepCell(n, nn.SGD(n.trainable_params(), 0.1)) for n in nets])
    assert [p.name for p in nets[1].get_parameters()] == ["1.1.weight", "1.1.bias"]
    with pytest.raises(RuntimeError, match="but get 0.0.weight and 1.1.weight"):
        ms.vmap(steps, in_axes=0)
