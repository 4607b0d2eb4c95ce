"""vmap over nn.CellList: MindSpore golden outputs, stacked parameters as the source of truth,
architecture checks with MindSpore's messages, per-member state and randomness."""
import re

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops
from tests.conftest import SHARED, golden_array, load_lenet


@pytest.fixture
def nets():
    return [load_lenet(i) for i in range(4)]


@pytest.mark.parametrize("mode", ["eager", "jit", "graph_mode"])
@pytest.mark.parametrize("in_axes, x_file, golden", [(None, "minibatch.npy", "vmap_in_axes_none.npy"),
                                                      (0, "minibatchs.npy", "vmap_in_axes_0.npy")])
def test_ensemble_matches_mindspore(nets, mode, in_axes, x_file, golden):
    ensemble = ms.vmap(nn.CellList(nets), in_axes=in_axes)
    x = Tensor(golden_array(x_file))
    if mode == "jit":
        out = ms.jit(ensemble)(x)
    else:
        if mode == "graph_mode":
            ms.set_context(mode=ms.GRAPH_MODE)
        out = ensemble(x)
    assert out.shape == golden_array(golden).shape
    np.testing.assert_allclose(out.asnumpy(), golden_array(golden), atol=1e-5, rtol=0)


@pytest.mark.parametrize("strategy", ["grouped", "unrolled", "wide"])
def test_every_conv_strategy_matches_mindspore(nets, strategy):
    cells = nn.CellList(nets)
    x, xs = Tensor(golden_array("minibatch.npy")), Tensor(golden_array("minibatchs.npy"))
    out = ms.vmap(cells, in_axes=None, conv_strategy=strategy)(x)
    np.testing.assert_allclose(out.asnumpy(), golden_array("vmap_in_axes_none.npy"), atol=1e-5, rtol=0)
    ms.set_context(conv_strategy=strategy)
    try:
        out = ms.vmap(cells, in_axes=0)(xs)
    finally:
        ms.set_context(conv_strategy=None)
    np.testing.assert_allclose(out.asnumpy(), golden_array("vmap_in_axes_0.npy"), atol=1e-5, rtol=0)


def test_dump_marks_the_ensemble_axis_and_the_conv_strategy(nets):
    ensemble = ms.vmap(nn.CellList(nets), in_axes=None, conv_strategy="wide")
    ensemble(Tensor(golden_array("minibatch.npy")))
    graph = next(iter(ensemble.cache.values())).graph
    text = str(graph)
    assert "%conv1.weight: f32[vmap:4,6,1,5,5] param" in text
    assert "f32[vmap:4,3,10]" in text.splitlines()[-3] or "vmap:4" in text.splitlines()[-3]
    from graphcell.ir.printer import format_graph
    assert "conv1 [conv_strategy=wide]" in format_graph(graph, source=True)


@pytest.mark.skipif(not (SHARED / "seed_programs").is_dir(), reason=f"{SHARED} is absent (CI provides ../shared)")
def test_seed_program_inference_part_runs_unchanged():
    """The seed's two inference calls (the training part needs grad, issue 4's)."""
    source = (SHARED / "seed_programs" / "seed_vmap_ensemble.py").read_text()
    source = source.split("# Ensemble training")[0].replace("print(", "_outputs.append(")
    namespace = {"_outputs": []}
    exec(compile(source, "seed_vmap_ensemble.py", "exec"), namespace)
    first, second = namespace["_outputs"]
    assert first.shape == (4, 3, 10) and second.shape == (4, 3, 10)
    nets = [namespace[f"net{i}"] for i in range(1, 5)]
    x, xs = namespace["minibatch"], namespace["minibatchs"]
    for i, net in enumerate(nets):  # against each member alone, outside any ensemble
        np.testing.assert_allclose(first.asnumpy()[i], net(x).asnumpy(), atol=1e-5)
        np.testing.assert_allclose(second.asnumpy()[i], net(xs[i]).asnumpy(), atol=1e-5)


def test_members_read_and_write_through_the_stacks(nets):
    cells = nn.CellList(nets)
    ensemble = ms.vmap(cells, in_axes=None)
    x = Tensor(golden_array("minibatch.npy"))
    ensemble(x)
    w = nets[2].fc3.bias
    stacked = w._home.stacked
    assert stacked.name == "fc3.bias" and stacked.shape == (4, 10)
    np.testing.assert_array_equal(w.asnumpy(), stacked.asnumpy()[2])
    w.set_data(np.full(10, 5.0, np.float32))                    # a member write lands in the stack
    np.testing.assert_array_equal(stacked.asnumpy()[2], np.full(10, 5.0, np.float32))
    out = ensemble(x).asnumpy()
    golden = golden_array("vmap_in_axes_none.npy")
    # Only member 2's last bias changed: its logits move by (5 - old bias), the others not at all.
    np.testing.assert_allclose(out[2], golden[2] - load_lenet(2).fc3.bias.asnumpy() + 5.0, atol=1e-5)
    np.testing.assert_allclose(np.delete(out, 2, 0), np.delete(golden, 2, 0), atol=1e-5)
    np.testing.assert_allclose(nets[2](x).asnumpy(), out[2], atol=1e-5)


def test_tracing_an_ensemble_reads_no_member_slices(monkeypatch):
    """A member's Parameters take their shape and dtype from the stack: tracing the members
    (the architecture check traces every one) slices nothing (N=16 export: 0.35 -> 0.19 s)."""
    from graphcell.frontend import ensemble as ensemble_module
    cells = nn.CellList([load_lenet(i) for i in range(4)])
    ensemble = ms.vmap(cells, in_axes=None)
    x = Tensor(golden_array("minibatch.npy"))
    sliced = []
    real = ensemble_module._member_slice
    monkeypatch.setattr(ensemble_module, "_member_slice", lambda stack, i: (sliced.append(i), real(stack, i))[1])
    ms.trace(ensemble, x)
    assert sliced == []
    w = cells[3].conv2.weight
    assert (w.shape, w.dtype) == ((16, 6, 5, 5), ms.float32) and sliced == []
    np.testing.assert_array_equal(w.asnumpy(), w._home.stacked.asnumpy()[3])   # reading the value slices
    assert sliced == [3]


def test_a_new_ensemble_over_the_same_members_in_order_copies_the_stacks(monkeypatch):
    """Wrapping members that another ensemble holds, in its order, copies its stacks (one copy
    per parameter, no member slices); in another order each member's value is read."""
    from graphcell.frontend import ensemble as ensemble_module
    cells = [load_lenet(i) for i in range(4)]
    x = Tensor(golden_array("minibatch.npy"))
    first = ms.vmap(nn.CellList(cells), in_axes=None)
    cells[1].fc3.bias.set_data(np.full(10, 0.5, np.float32))          # into first's stack
    sliced = []
    real = ensemble_module._member_slice
    monkeypatch.setattr(ensemble_module, "_member_slice", lambda stack, i: (sliced.append(i), real(stack, i))[1])
    second = ms.vmap(nn.CellList(cells), in_axes=None)
    assert sliced == []
    stack = cells[1].fc3.bias._home.stacked
    assert stack is not first.ensemble.slots[-1].stacked and np.all(stack.asnumpy()[1] == 0.5)
    cells[1].fc3.bias.set_data(np.zeros(10, np.float32))               # second's stack only
    assert np.all(first.ensemble.slots[-1].stacked._array[1] == 0.5)
    order = [2, 0, 3, 1]
    shuffled = ms.vmap(nn.CellList([cells[i] for i in order]), in_axes=None)
    assert sorted(sliced) == sorted([0, 1, 2, 3] * len(first.ensemble.slots))   # each member read from second
    expected = np.stack([cells[i](x).asnumpy() for i in order])
    np.testing.assert_allclose(shuffled(x).asnumpy(), expected, atol=1e-5)
    np.testing.assert_allclose(second(x).asnumpy(), np.stack([c(x).asnumpy() for c in cells]), atol=1e-5)


def test_a_second_ensemble_adopts_the_members_and_the_first_rebuilds(nets):
    x = Tensor(golden_array("minibatch.npy"))
    first = ms.vmap(nn.CellList(nets), in_axes=None)
    first(x)
    second = ms.vmap(nn.CellList(nets), in_axes=None)          # re-homes the same Parameters
    nets[0].fc3.bias.set_data(np.ones(10, np.float32))          # written into second's stack
    assert nets[0].fc3.bias._home.ensemble is second.ensemble and not first.ensemble.owns
    expected = np.stack([n(x).asnumpy() for n in nets])
    np.testing.assert_allclose(first(x).asnumpy(), expected, atol=1e-5)   # first re-adopts: sees the write
    assert nets[0].fc3.bias._home.ensemble is first.ensemble
    np.testing.assert_allclose(second(x).asnumpy(), expected, atol=1e-5)
    jitted = ms.jit(first)
    np.testing.assert_allclose(jitted(x).asnumpy(), expected, atol=1e-5)
    traces = jitted.cache_size, first.cache_size, second.cache_size
    nets[1].fc3.bias.set_data(np.zeros(10, np.float32))
    second(x)                                                    # adopts again
    expected = np.stack([n(x).asnumpy() for n in nets])
    np.testing.assert_allclose(jitted(x).asnumpy(), expected, atol=1e-5)  # reading first's stacks re-adopts
    assert nets[1].fc3.bias._home.ensemble is first.ensemble
    assert (jitted.cache_size, first.cache_size, second.cache_size) == traces   # nothing retraced


def test_training_and_evaluating_ensembles_alternate_without_retracing():
    """A training ensemble and an evaluation ensemble over the same LeNet5s, called in turn
    (train a step, evaluate, ...): each sees the other's latest weights, and neither retraces."""
    from tests.models.train_step import TrainOneStepNet
    rng = np.random.default_rng(0)
    images = Tensor(rng.standard_normal((4, 8, 1, 32, 32)).astype(np.float32))
    labels = Tensor(rng.integers(0, 10, (4, 8)).astype(np.int32))
    x = Tensor(golden_array("minibatch.npy"))
    nets, reference_nets = [load_lenet(i) for i in range(4)], [load_lenet(i) for i in range(4)]
    train = ms.vmap(nn.CellList([TrainOneStepNet(n, 1e-2) for n in nets]))
    evaluate = ms.vmap(nn.CellList(nets), in_axes=None)
    evaluate_jitted = ms.jit(lambda v: evaluate(v) * 1.0)   # a graph that inlined the ensemble
    reference = ms.vmap(nn.CellList([TrainOneStepNet(n, 1e-2) for n in reference_nets]))
    for _ in range(3):
        np.testing.assert_allclose(train(images, labels).asnumpy(), reference(images, labels).asnumpy(), rtol=1e-6)
        expected = np.stack([n(x).asnumpy() for n in reference_nets])
        np.testing.assert_allclose(evaluate(x).asnumpy(), expected, atol=1e-5)
        np.testing.assert_allclose(train(images, labels).asnumpy(), reference(images, labels).asnumpy(), rtol=1e-6)
        expected = np.stack([n(x).asnumpy() for n in reference_nets])
        np.testing.assert_allclose(evaluate_jitted(x).asnumpy(), expected, atol=1e-5)
    assert train.cache_size == evaluate.cache_size == evaluate_jitted.cache_size == 1


class Counter(nn.Cell):
    """State writes and a per-member hyperparameter Parameter (like an optimizer's lr)."""

    def __init__(self, lr):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.zeros(3, np.float32)), name="w")
        self.lr = ms.Parameter(Tensor(np.float32(lr)), name="learning_rate", requires_grad=False)
        self.step = ms.Parameter(Tensor(np.array([0], np.int32)), name="global_step", requires_grad=False)

    def construct(self, x):
        ops.assign(self.w, self.w + self.lr * x)
        ops.assign(self.step, self.step + 1)
        return self.w.sum()


def test_state_writes_and_hyperparameters_land_in_the_stacks():
    cells = [Counter(lr) for lr in (1.0, 0.1, 0.01)]
    step = ms.vmap(nn.CellList(cells), in_axes=0)
    x = Tensor(np.arange(9, dtype=np.float32).reshape(3, 3))
    for _ in range(2):
        out = step(x)
    expected_w = 2 * np.array([1.0, 0.1, 0.01], np.float32)[:, None] * x.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), expected_w.sum(1), rtol=1e-6)
    for i, cell in enumerate(cells):
        np.testing.assert_allclose(cell.w.asnumpy(), expected_w[i], rtol=1e-6)
        assert cell.step.asnumpy().tolist() == [2]
    assert step.cache_size == 1


def test_batchnorm_training_keeps_per_member_statistics():
    ms.set_seed(1)
    cells = [nn.BatchNorm2d(2) for _ in range(3)]
    for c in cells:
        c.set_train()
    x = np.random.default_rng(0).standard_normal((3, 4, 2, 3, 3)).astype(np.float32) * \
        np.array([1.0, 2.0, 3.0], np.float32)[:, None, None, None, None]
    out = ms.vmap(nn.CellList(cells), in_axes=0)(Tensor(x)).asnumpy()
    for i, c in enumerate(cells):
        xi = x[i]
        mean, var = xi.mean((0, 2, 3)), xi.var((0, 2, 3))
        np.testing.assert_allclose(out[i], (xi - mean[None, :, None, None]) /
                                   np.sqrt(var[None, :, None, None] + 1e-5), atol=1e-4)
        np.testing.assert_allclose(c.moving_mean.asnumpy(), 0.1 * mean, atol=1e-6)
        n = xi.size // 2
        np.testing.assert_allclose(c.moving_variance.asnumpy(), 0.9 + 0.1 * var * n / (n - 1), atol=1e-5)


def _dropout_ensemble(randomness):
    cells = [nn.Dropout(p=0.5) for _ in range(4)]
    for c in cells:
        c.set_train()
    return ms.vmap(nn.CellList(cells), in_axes=None, randomness=randomness)


def test_dropout_masks_differ_per_member_by_default_and_match_with_same():
    x = Tensor(np.ones(256, np.float32))
    ms.set_seed(3)
    out = _dropout_ensemble("different")(x).asnumpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    masks = out > 0
    assert all(0.3 < m.mean() < 0.7 for m in masks)
    assert all((masks[i] != masks[j]).mean() > 0.3 for i in range(4) for j in range(i))
    # Member i draws with fold_in(key, i): the same mask whatever the ensemble size.
    ms.set_seed(3)
    same = _dropout_ensemble("same")(x).asnumpy()
    assert all((same[i] == same[0]).all() for i in range(4))
    with pytest.raises(ValueError, match="randomness='error'"):
        _dropout_ensemble("error")(x)


def test_one_member_works(nets):
    out = ms.vmap(nn.CellList(nets[:1]), in_axes=None)(Tensor(golden_array("minibatch.npy")))
    np.testing.assert_allclose(out.asnumpy(), golden_array("vmap_in_axes_none.npy")[:1], atol=1e-5)


class Tiny(nn.Cell):
    def __init__(self, shape=(2, 4), nested=False):
        super().__init__()
        if nested:
            self.inner = nn.Dense(4, 2)
        else:
            self.weight = ms.Parameter(Tensor(np.ones(shape, np.float32)), name="weight")
        self.nested = nested

    def construct(self, x):
        return self.inner(x) if self.nested else ops.matmul(x, self.weight.T)


def test_architecture_mismatches_raise_mindspore_errors():
    x = Tensor(np.ones((2, 4), np.float32))
    with pytest.raises(RuntimeError, match=re.escape(
            "The corresponding parameter's shape in each cell should be consistent, but get  Shape: 2 4 and  "
            "Shape: 3 4 for the parameter vmap.weight.")):
        ms.vmap(nn.CellList([Tiny(), Tiny((3, 4))]), in_axes=None)(x)
    with pytest.raises(ValueError, match=re.escape("Parameter size of each cell should be consistent, but get 1 and 2.")):
        ms.vmap(nn.CellList([Tiny(), Tiny(nested=True)]), in_axes=None)(x)
    with pytest.raises(RuntimeError, match=re.escape(
            "The corresponding parameter's postfix name in each cell should be consistent, but get 0.weight and "
            "1.0.weight.")):
        ms.vmap(nn.CellList([Tiny(), nn.SequentialCell([Tiny((2, 4))])]), in_axes=None)
    with pytest.raises(ValueError, match=re.escape(
            "make sure the 'axis_size' in the scope of vmap consistent with the cell size of the input 'CellList', "
            "otherwise, please do not enter 'CellList' as the first argument, but we get axis_size: 2 and the "
            "cell size: 3.")):
        ms.vmap(nn.CellList([Tiny(), Tiny(), Tiny()]), in_axes=0)(Tensor(np.ones((2, 2, 4), np.float32)))


class Scaled(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.weight = ms.Parameter(Tensor(np.ones((2, 4), np.float32)), name="weight")
        self.k = k

    def construct(self, x):
        return ops.matmul(x, self.weight.T) * self.k


def test_members_with_different_graphs_name_the_first_difference():
    with pytest.raises(RuntimeError, match=r"member 1's traced graph differs from member 0's at node \d+"):
        ms.vmap(nn.CellList([Scaled(2.0), Scaled(3.0)]), in_axes=None)(Tensor(np.ones((2, 4), np.float32)))


class Offset(nn.Cell):
    """A constant Tensor (not a Parameter) and an arbitrary object among its attributes."""
    def __init__(self, offset, tag=None):
        super().__init__()
        self.weight = ms.Parameter(Tensor(np.ones((2, 4), np.float32)), name="weight")
        self.offset = Tensor(np.full((2,), offset, np.float32))
        self.tag = tag

    def construct(self, x):
        return ops.matmul(x, self.weight.T) + self.offset


def count_traces(monkeypatch):
    import graphcell.api.vmap as vmap_module
    traced = []
    real = vmap_module.trace
    monkeypatch.setattr(vmap_module, "trace", lambda cell, *a, **k: (traced.append(cell), real(cell, *a, **k))[1])
    return traced


def test_members_of_one_configuration_are_not_traced_one_by_one(nets, monkeypatch):
    """The architecture check traces member 0 only when every member has its class, plain
    attributes, parameter shapes and constant Tensors (by content); otherwise each member
    is traced and compared, constants included."""
    traced = count_traces(monkeypatch)
    x = Tensor(golden_array("minibatch.npy"))
    out = ms.vmap(nn.CellList(nets), in_axes=None)(x)
    assert traced == [nets[0]]
    np.testing.assert_allclose(out.asnumpy(), golden_array("vmap_in_axes_none.npy"), atol=1e-5)
    traced.clear()
    ones = Tensor(np.ones((3, 4), np.float32))
    ms.vmap(nn.CellList([Offset(1.0), Offset(1.0)]), in_axes=None)(ones)
    assert len(traced) == 1
    traced.clear()
    ms.vmap(nn.CellList([Offset(1.0, tag=object()), Offset(1.0, tag=object())]), in_axes=None)(ones)
    assert len(traced) == 2                          # an object it cannot compare: both traced
    with pytest.raises(RuntimeError, match="member 1's traced graph differs"):
        ms.vmap(nn.CellList([Offset(1.0), Offset(2.0)]), in_axes=None)(ones)
    with pytest.raises(RuntimeError, match="member 1's traced graph differs"):   # equal floats, other constants
        ms.vmap(nn.CellList([Scaled(0.0), Scaled(-0.0)]), in_axes=None)(Tensor(np.ones((2, 4), np.float32)))


@pytest.mark.parametrize("in_axes, x_file, golden", [(None, "minibatch.npy", "vmap_in_axes_none.npy"),
                                                      (0, "minibatchs.npy", "vmap_in_axes_0.npy")])
def test_split_members_run_member_by_member(nets, monkeypatch, in_axes, x_file, golden):
    """With the split threshold at 0, unrolled convolutions keep the members apart through
    the rest of the network (the path large ensembles take to bound memory)."""
    import graphcell.ops.batching as batching
    monkeypatch.setitem(batching.SPLIT_MIN_ELEMENTS, "xla", 0)
    ensemble = ms.vmap(nn.CellList(nets), in_axes=in_axes)
    out = ensemble(Tensor(golden_array(x_file)))
    np.testing.assert_allclose(out.asnumpy(), golden_array(golden), atol=1e-5, rtol=0)
    graph = next(iter(ensemble.cache.values())).graph
    assert sum(n.primitive.name == "conv" for n in graph.nodes) == 8      # 2 convs x 4 members
    assert sum(n.primitive.name == "reduce_window_max" for n in graph.nodes) == 8


def test_a_member_parameter_replaced_after_the_ensemble_was_built():
    """`net.bias = Parameter(...)` on a member: the ensemble restacks. It kept stacks standing
    for the replaced Parameters and broadcast member 0's new bias to every member (members
    1 and 2 off by ~100, a later replacement on member 2 ignored)."""
    members = [Tiny(nested=True) for _ in range(3)]
    for i, m in enumerate(members):
        m.inner.bias.set_data(Tensor(np.full(2, float(i), np.float32)))
    ens = ms.vmap(nn.CellList(members), in_axes=None)
    x = Tensor(np.ones((4, 4), np.float32))
    ens(x)
    for k in (0, 2):
        name = members[k].inner.bias.name
        members[k].inner.bias = ms.Parameter(Tensor(np.full(2, 100.0 * (k + 1), np.float32)), name=name)
        got = ens(x).asnumpy()
        for i, m in enumerate(members):
            np.testing.assert_allclose(got[i], m(x).asnumpy(), rtol=1e-6, err_msg=f"member {i} after {k}")


def test_gradients_for_members_parameters_through_the_ensemble():
    """grad(loss_of_ensemble, weights=members' Parameters): each member's row of its stack's
    gradient (they were all zeros: the function reads the stacks, not the members)."""
    ms.set_seed(0)
    members = [nn.Dense(4, 3) for _ in range(2)]
    ens = ms.vmap(nn.CellList(members), in_axes=None)
    x = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)
    weights = [p for m in members for p in m.trainable_params()]
    grad = ms.grad(lambda xx: (ens(xx) ** 2).sum(), None, weights)
    want = [g for m in members
            for g in ms.grad(lambda xx, m=m: (m(xx) ** 2).sum(), None, m.trainable_params())(x)]
    for got in (grad(x), ms.jit(grad)(x)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)
