"""Layers and losses against torch (an independent implementation) and MindSpore's rules."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import graphcell as ms
from graphcell import Tensor, nn

RNG = np.random.default_rng(3)


def rand(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def t(a):
    return torch.from_numpy(np.array(a))


@pytest.mark.parametrize("k,s,d,hw", [(2, 1, 1, (7, 8)), (3, 2, 1, (9, 10)), (4, 3, 1, (11, 11)), (3, 1, 2, (8, 9))])
def test_conv2d_same_puts_extra_padding_bottom_right(k, s, d, hw):
    conv = nn.Conv2d(2, 3, k, stride=s, dilation=d, pad_mode="same", has_bias=True)
    x = rand(1, 2, *hw)
    out = conv(Tensor(x)).asnumpy()
    pads = []
    for size in hw:
        o = -(-size // s)
        total = max((o - 1) * s + d * (k - 1) + 1 - size, 0)
        pads.append((total // 2, total - total // 2))
    tx = TF.pad(t(x), (pads[1][0], pads[1][1], pads[0][0], pads[0][1]))
    want = TF.conv2d(tx, t(conv.weight.asnumpy()), t(conv.bias.asnumpy()), stride=s, dilation=d).numpy()
    assert out.shape == (1, 3, -(-hw[0] // s), -(-hw[1] // s))
    np.testing.assert_allclose(out, want, atol=1e-5)


def test_conv2d_pad_mode_pad_and_groups():
    conv = nn.Conv2d(4, 6, 3, pad_mode="pad", padding=(1, 2, 0, 1), group=2)
    x = rand(2, 4, 6, 6)
    want = TF.conv2d(TF.pad(t(x), (0, 1, 1, 2)), t(conv.weight.asnumpy()), groups=2).numpy()
    np.testing.assert_allclose(conv(Tensor(x)).asnumpy(), want, atol=1e-5)
    assert conv.weight.shape == (6, 2, 3, 3) and conv.bias is None


def test_conv2d_rejects_padding_without_pad_mode():
    with pytest.raises(ValueError, match="For 'Conv2D', the 'pad' must be zero when 'pad_mode' is not 'pad', "
                                         "but got 'pad': 1 and 'pad_mode': same."):
        nn.Conv2d(1, 1, 3, padding=1)


def test_pooling_modes():
    x = rand(2, 3, 7, 7)
    np.testing.assert_allclose(nn.MaxPool2d(2, 2)(Tensor(x)).asnumpy(), TF.max_pool2d(t(x), 2, 2).numpy())
    assert nn.MaxPool2d(3)(Tensor(x)).shape == (2, 3, 5, 5)  # stride defaults to 1
    same = nn.MaxPool2d(2, 2, pad_mode="SAME")(Tensor(x)).asnumpy()
    want = TF.max_pool2d(TF.pad(t(x), (0, 1, 0, 1), value=-np.inf), 2, 2).numpy()
    np.testing.assert_allclose(same, want)
    avg = nn.AvgPool2d(2, 2, pad_mode="same")(Tensor(x)).asnumpy()
    # 'same' divides by the real elements: the last row/column windows hold 2 (or 1) values.
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)))
    ones = np.pad(np.ones((7, 7)), ((0, 1), (0, 1)))
    sums = padded.reshape(2, 3, 4, 2, 4, 2).sum((3, 5))
    counts = ones.reshape(4, 2, 4, 2).sum((1, 3))
    np.testing.assert_allclose(avg, sums / counts, atol=1e-6)
    pad = nn.AvgPool2d(3, 1, pad_mode="pad", padding=1)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(pad, TF.avg_pool2d(t(x), 3, 1, 1, count_include_pad=True).numpy(), atol=1e-6)
    nopad = nn.AvgPool2d(3, 1, pad_mode="pad", padding=1, count_include_pad=False)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(nopad, TF.avg_pool2d(t(x), 3, 1, 1, count_include_pad=False).numpy(), atol=1e-6)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(size=st.tuples(st.integers(1, 9), st.integers(1, 9)), kernel=st.tuples(st.integers(1, 4), st.integers(1, 4)),
       stride=st.tuples(st.integers(1, 3), st.integers(1, 3)), pad=st.tuples(st.integers(0, 2), st.integers(0, 2)),
       ceil_mode=st.booleans(), max_pool=st.booleans(), count_include_pad=st.booleans(),
       divisor_override=st.sampled_from([None, 3]))
def test_pools_in_pad_mode_match_torch(size, kernel, stride, pad, ceil_mode, max_pool, count_include_pad, divisor_override):
    """'pad' mode as torch: padding an int or (height, width); with ceil_mode the last window
    counts unless it would start in the bottom/right padding, and an average's divisor counts
    the explicit padding (count_include_pad) but never ceil_mode's overhang. (Measured against
    torch: 2-tuple padding raised, and those windows and divisors differed in 73 of 400
    random configurations.)"""
    assume(pad[0] <= kernel[0] // 2 and pad[1] <= kernel[1] // 2)     # torch's limit
    x = rand(2, 3, *size)
    if max_pool:
        pool = lambda: TF.max_pool2d(t(x), kernel, stride, pad, ceil_mode=ceil_mode)   # noqa: E731
        cell = nn.MaxPool2d(kernel, stride, pad_mode="pad", padding=pad, ceil_mode=ceil_mode)
    else:
        pool = lambda: TF.avg_pool2d(t(x), kernel, stride, pad, ceil_mode=ceil_mode,  # noqa: E731
                                     count_include_pad=count_include_pad, divisor_override=divisor_override)
        cell = nn.AvgPool2d(kernel, stride, pad_mode="pad", padding=pad, ceil_mode=ceil_mode,
                            count_include_pad=count_include_pad, divisor_override=divisor_override)
    try:
        want = pool().numpy()
    except RuntimeError:   # the window is larger than the padded input
        with pytest.raises(ValueError, match="larger than the"):
            cell(Tensor(x))
        return
    np.testing.assert_allclose(cell(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_dense_activation_and_higher_rank_input():
    dense = nn.Dense(4, 3, activation="relu")
    x = rand(2, 5, 4)
    want = np.maximum(x @ dense.weight.asnumpy().T + dense.bias.asnumpy(), 0)
    np.testing.assert_allclose(dense(Tensor(x)).asnumpy(), want, atol=1e-6)
    assert isinstance(dense.activation, nn.ReLU)
    with pytest.raises(ValueError, match="Dense 'Dense': expected input \\(in_channels=4\\)"):
        dense(Tensor(rand(2, 5)))


def test_batchnorm2d_train_and_eval_against_torch():
    bn = nn.BatchNorm2d(3)
    assert [p.name for p in bn.get_parameters()] == ["mean", "variance", "gamma", "beta"]
    tbn = torch.nn.BatchNorm2d(3, eps=1e-5, momentum=0.1)
    x = rand(4, 3, 5, 5)
    bn.set_train()
    out = bn(Tensor(x)).asnumpy()
    want = tbn.train()(t(x)).detach().numpy()
    np.testing.assert_allclose(out, want, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), tbn.running_mean.numpy(), atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), tbn.running_var.numpy(), atol=1e-6)
    bn.set_train(False)
    np.testing.assert_allclose(bn(Tensor(x)).asnumpy(), tbn.eval()(t(x)).detach().numpy(), atol=1e-5)


def test_batchnorm_inside_jit_updates_statistics():
    bn = nn.BatchNorm2d(2).set_train()
    x = rand(3, 2, 2, 2)
    ms.jit(bn)(Tensor(x))
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * x.mean((0, 2, 3)), atol=1e-6)


def test_layernorm_epsilon_and_axes():
    ln = nn.LayerNorm((5,))
    x = rand(2, 3, 5)
    want = TF.layer_norm(t(x), (5,), eps=1e-7).numpy()
    np.testing.assert_allclose(ln(Tensor(x)).asnumpy(), want, atol=1e-5)
    ln2 = nn.LayerNorm((3, 5), begin_norm_axis=1, begin_params_axis=1)
    np.testing.assert_allclose(ln2(Tensor(x)).asnumpy(), TF.layer_norm(t(x), (3, 5), eps=1e-7).numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="normalized_shape"):
        nn.LayerNorm((3, 5))(Tensor(x))


def test_activations_against_torch():
    x = rand(3, 4)
    pairs = [(nn.ReLU(), TF.relu), (nn.Sigmoid(), torch.sigmoid), (nn.Tanh(), torch.tanh),
             (nn.GELU(), lambda v: TF.gelu(v, approximate="tanh")),
             (nn.GELU(approximate=False), TF.gelu), (nn.Softmax(), lambda v: TF.softmax(v, -1)),
             (nn.LogSoftmax(), lambda v: TF.log_softmax(v, -1)), (nn.SiLU(), TF.silu),
             (nn.LeakyReLU(0.2), lambda v: TF.leaky_relu(v, 0.2)), (nn.ELU(), TF.elu), (nn.ReLU6(), TF.relu6),
             (nn.HSwish(), TF.hardswish), (nn.HSigmoid(), TF.hardsigmoid), (nn.Mish(), TF.mish),
             (nn.Softplus(), TF.softplus)]
    for cell, fn in pairs:
        np.testing.assert_allclose(cell(Tensor(x)).asnumpy(), fn(t(x)).numpy(), atol=1e-5, err_msg=type(cell).__name__)
    # Far out and at 0, with gradients, in every backend (softplus's gradient was -0.5 at 0).
    x = np.array([-1e4, -100, -30, -5, -1e-3, 0, 1e-3, 5, 30, 100, 1e4], np.float32)
    for cell, fn in pairs:
        if isinstance(cell, (nn.Softmax, nn.LogSoftmax, nn.LeakyReLU)):   # leaky: jax's slope 1 at 0
            continue
        leaf = t(x).requires_grad_(True)
        want = fn(leaf)
        want.sum().backward()
        for run in (cell, ms.jit(cell), ms.jit(cell, backend="onnx")):
            np.testing.assert_allclose(run(Tensor(x)).asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5,
                                       err_msg=type(cell).__name__)
        np.testing.assert_allclose(ms.grad(lambda v: cell(v).sum())(Tensor(x)).asnumpy(), leaf.grad.numpy(),
                                   rtol=1e-4, atol=1e-5, err_msg=type(cell).__name__)
    half = np.array([-30, 0, 5, 10.5, 11.5, 30], np.float16)
    np.testing.assert_allclose(nn.Softplus()(Tensor(half)).asnumpy(), TF.softplus(t(half).float()).numpy(), rtol=2e-3, atol=1e-3)


def test_prelu_against_torch_with_gradients_in_every_backend():
    """One slope per channel (axis 1) or one shared; the slope's gradient too, and at x == 0 (torch
    takes the negative side there)."""
    x = rand(2, 3, 4, 4)
    x[0, :, 0, 0] = 0.0
    for channel, w in [(3, 0.1), (1, 0.25), (3, [0.1, -0.2, 0.3])]:
        cell, torch_cell = nn.PReLU(channel, w), torch.nn.PReLU(channel)
        torch_cell.weight.data = torch.tensor(np.broadcast_to(np.float32(w), (channel,)).copy())
        leaf = t(x).requires_grad_(True)
        want = torch_cell(leaf)
        (want ** 2).sum().backward()
        for run in (cell, ms.jit(cell), ms.jit(cell, backend="onnx")):
            np.testing.assert_allclose(run(Tensor(x)).asnumpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)
        dx, (dw,) = ms.grad(lambda v: (cell(v) ** 2).sum(), 0, cell.trainable_params())(Tensor(x))
        np.testing.assert_allclose(dx.asnumpy(), leaf.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(dw.asnumpy(), torch_cell.weight.grad.numpy(), rtol=1e-5, atol=1e-5)
    assert isinstance(nn.Dense(3, 2, activation="prelu").activation, nn.PReLU)
    with pytest.raises(ValueError, match="'w' must be a float or hold 3 value"):
        nn.PReLU(3, [0.1, 0.2])


def test_dropout_modes():
    x = Tensor(np.ones((1000,), np.float32))
    d = nn.Dropout(p=0.3)
    np.testing.assert_array_equal(d(x).asnumpy(), x.asnumpy())  # eval by default
    d.set_train()
    out = d(x).asnumpy()
    assert set(np.unique(out)) <= {0.0, np.float32(1 / 0.7)} and 200 < (out == 0).sum() < 400
    assert nn.Dropout().p == 0.5 and nn.Dropout(keep_prob=0.9).p == pytest.approx(0.1)


def test_embedding_and_flatten():
    emb = nn.Embedding(10, 4, padding_idx=0)
    ids = np.array([[0, 3], [9, 3]], np.int32)
    table = emb.embedding_table.asnumpy()
    assert np.all(table[0] == 0) and abs(table[1:].std() - 0.01) < 0.005
    np.testing.assert_array_equal(emb(Tensor(ids)).asnumpy(), table[ids])
    one_hot = nn.Embedding(10, 4, use_one_hot=True)
    np.testing.assert_allclose(one_hot(Tensor(ids)).asnumpy(), one_hot.embedding_table.asnumpy()[ids])
    assert nn.Flatten()(Tensor(rand(2, 3, 4))).shape == (2, 12)


def test_losses_against_torch():
    logits, target = rand(5, 4), rand(5, 4)
    labels = np.array([0, 3, 1, 1, 2], np.int32)
    np.testing.assert_allclose(nn.MSELoss()(Tensor(logits), Tensor(target)).asnumpy(),
                               TF.mse_loss(t(logits), t(target)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(nn.L1Loss(reduction="sum")(Tensor(logits), Tensor(target)).asnumpy(),
                               TF.l1_loss(t(logits), t(target), reduction="sum").numpy(), rtol=1e-6)
    sce = nn.SoftmaxCrossEntropyWithLogits(sparse=True)(Tensor(logits), Tensor(labels))
    np.testing.assert_allclose(sce.asnumpy(), TF.cross_entropy(t(logits), t(labels).long(), reduction="none").numpy(),
                               rtol=1e-5)
    mean = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(Tensor(logits), Tensor(labels))
    np.testing.assert_allclose(mean.asnumpy(), TF.cross_entropy(t(logits), t(labels).long()).numpy(), rtol=1e-5)
    for eps in (0.0, 0.1):
        got = nn.CrossEntropyLoss(label_smoothing=eps)(Tensor(logits), Tensor(labels)).asnumpy()
        want = TF.cross_entropy(t(logits), t(labels).long(), label_smoothing=eps).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5)
    w = np.array([1.0, 2.0, 0.5, 1.5], np.float32)
    got = nn.CrossEntropyLoss(weight=Tensor(w))(Tensor(logits), Tensor(labels)).asnumpy()
    np.testing.assert_allclose(got, TF.cross_entropy(t(logits), t(labels).long(), weight=t(w)).numpy(), rtol=1e-5)
    probs = TF.softmax(t(target), -1).numpy()
    got = nn.CrossEntropyLoss(label_smoothing=0.2)(Tensor(logits), Tensor(probs)).asnumpy()
    np.testing.assert_allclose(got, TF.cross_entropy(t(logits), t(probs), label_smoothing=0.2).numpy(), rtol=1e-5)
    ignore = labels.copy()
    ignore[1] = -100
    got = nn.CrossEntropyLoss()(Tensor(logits), Tensor(ignore)).asnumpy()
    np.testing.assert_allclose(got, TF.cross_entropy(t(logits), t(ignore).long()).numpy(), rtol=1e-5)
    with pytest.raises(TypeError, match="For 'CrossEntropyLoss', the 'labels' should be Int32, but got "
                                        "'mindspore.int64'."):
        nn.CrossEntropyLoss()(Tensor(logits), Tensor(labels.astype(np.int64)))


def test_sequential_and_celllist_naming():
    seq = nn.SequentialCell([nn.Dense(2, 3), nn.ReLU(), nn.Dense(3, 1)])
    assert [p.name for p in seq.get_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    x = rand(4, 2)
    w0, b0, w2, b2 = [p.asnumpy() for p in seq.get_parameters()]
    np.testing.assert_allclose(seq(Tensor(x)).asnumpy(), np.maximum(x @ w0.T + b0, 0) @ w2.T + b2, atol=1e-6)


def test_mindspore_naming_through_wrappers():
    from tests.models.lenet import LeNet5

    class Outer(nn.Cell):
        def __init__(self, net):
            super().__init__()
            self.loss_fn = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True))

    net = LeNet5()
    wrapped = nn.WithLossCell(net, nn.MSELoss())
    assert net.fc1.weight.name == "fc1.weight"  # WithLossCell has auto_prefix=False
    Outer(net)
    assert net.fc1.weight.name == "loss_fn._backbone.fc1.weight"
    nn.CellList([net])
    assert net.fc1.weight.name == "0.fc1.weight"
    assert wrapped is not None


def test_set_train_propagates():
    from tests.models.lenet import LeNet5
    net = LeNet5()
    assert net.training is False and net.conv1.training is False
    net.set_train()
    assert net.conv1.training is True
    net.set_train(False)
    assert net.fc3.training is False


def test_out_of_range_ids_and_labels_are_errors_eagerly():
    """Found by fuzzing the layers against torch: Embedding clamped ids 4 and 100 to the last
    row; CrossEntropyLoss and NLLLoss gave an out-of-range label loss 0. Eagerly (ids known)
    they raise, naming the Cell, as MindSpore's Gather does (a negative id counts from the end
    in MindSpore 2.10's Embedding: tests/test_seq_audit.py)."""
    emb = nn.Embedding(4, 2)
    for ids in ([0, 4], [-5, 2]):
        with pytest.raises(ValueError, match=r"Embedding 'Embedding': ids must be in \[-4, 4\), got"):
            emb(Tensor(np.array(ids, np.int32)))
    logits = Tensor(np.zeros((2, 3), np.float32))
    for loss in (nn.CrossEntropyLoss(), nn.NLLLoss()):
        with pytest.raises(ValueError, match=r"labels must be in \[0, 3\), got 7"):
            loss(logits, Tensor(np.array([0, 7], np.int32)))
        loss(logits, Tensor(np.array([0, -100], np.int32)))   # ignore_index is not out of range
    with pytest.raises(TypeError, match="labels must be integers"):
        nn.NLLLoss()(logits, Tensor(np.array([0.0, 1.0], np.float32)))


def test_nhwc_and_integer_inputs_are_refused_by_norms_and_pools():
    """data_format='NHWC' was accepted and ignored (normalised and pooled the wrong axes)."""
    for make in (lambda: nn.BatchNorm2d(3, data_format="NHWC"), lambda: nn.MaxPool2d(2, data_format="NHWC"),
                 lambda: nn.AvgPool2d(2, data_format="NHWC")):
        with pytest.raises(ValueError, match="only data_format='NCHW' is supported, got 'NHWC'"):
            make()
    with pytest.raises(TypeError, match="input has dtype Int32"):
        nn.BatchNorm2d(3)(Tensor(np.zeros((1, 3, 2, 2), np.int32)))


@pytest.mark.parametrize("kwargs", [{}, {"weight": True}, {"pos_weight": True}, {"weight": True, "pos_weight": True}])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_weight_and_pos_weight_match_torch(kwargs, reduction):
    """MindSpore's BCEWithLogitsLoss(reduction, weight, pos_weight) (the arguments were missing)."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((4, 3)) * 5).astype(np.float32)
    y = (rng.random((4, 3)) > 0.5).astype(np.float32)
    values = {"weight": rng.random(3).astype(np.float32), "pos_weight": (rng.random(3) * 3).astype(np.float32)}
    args = {k: values[k] for k in kwargs}
    want = torch.nn.functional.binary_cross_entropy_with_logits(
        torch.tensor(x, requires_grad=True), torch.tensor(y), reduction=reduction,
        **{k: torch.tensor(v) for k, v in args.items()})
    loss = nn.BCEWithLogitsLoss(reduction, **{k: Tensor(v) for k, v in args.items()})
    for run in (loss, ms.jit(loss), ms.jit(loss, backend="onnx")):
        np.testing.assert_allclose(run(Tensor(x), Tensor(y)).asnumpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_l1_loss_gradient_at_a_tie_is_zero_as_torch():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    got = ms.grad(lambda a, b: nn.L1Loss()(a, b))(Tensor(x), Tensor(np.array([1.0, 0.0, 3.0], np.float32)))
    t = torch.tensor(x, requires_grad=True)
    torch.nn.functional.l1_loss(t, torch.tensor([1.0, 0.0, 3.0])).backward()
    np.testing.assert_allclose(got.asnumpy(), t.grad.numpy())


def test_slicing_a_container_keeps_its_parameters_names():
    """seq[1:] re-added the cells under new indices, renaming the original's Parameters
    ('2.weight' -> '1.weight'): a checkpoint of seq then had the wrong keys."""
    seq = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU(), nn.Dense(2, 2)])
    cells = nn.CellList([nn.Dense(2, 2) for _ in range(3)])
    names = [[p.name for p in c.get_parameters()] for c in (seq, cells)]
    tail, part = seq[1:], cells[1:]
    assert [p.name for p in tail.get_parameters()] == ["2.weight", "2.bias"]
    assert [[p.name for p in c.get_parameters()] for c in (seq, cells)] == names
    x = Tensor(np.ones((1, 2), np.float32))
    np.testing.assert_allclose(tail(seq[0](x)).asnumpy(), seq(x).asnumpy())
    part.append(nn.Dense(2, 2))   # the next free index
    assert [p.name for p in part.get_parameters()][-2:] == ["3.weight", "3.bias"]


def test_slices_inside_construct_keep_the_parents_checkpoint_whole(tmp_path):
    """Measured on MindSpore 2.10: self.a[:1](x) and self.b[:1](x) in construct renamed
    'a.0.weight' and 'b.0.weight' both to '0.weight' at the slicing, so the parent's checkpoint
    held 2 of its 4 Parameters (and seq[:2] left a fresh net's 'seq.0.weight' unloaded).
    graphcell keeps the names: the checkpoint round-trips."""
    class Two(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.SequentialCell([nn.Dense(2, 2)]), nn.SequentialCell([nn.Dense(2, 2)])

        def construct(self, x):
            return self.b[:1](self.a[:1](x))
    net = Two()
    net(Tensor(np.ones((1, 2), np.float32)))
    ms.save_checkpoint(net, str(tmp_path / "two.ckpt"))
    assert list(ms.load_checkpoint(str(tmp_path / "two.ckpt"))) == ["a.0.weight", "a.0.bias", "b.0.weight", "b.0.bias"]
    assert ms.load_param_into_net(Two(), ms.load_checkpoint(str(tmp_path / "two.ckpt"))) == ([], [])


def test_container_list_operations_as_mindspore():
    """insert, item assignment, del and += (they were missing)."""
    cells = nn.CellList([nn.Dense(2, 2) for _ in range(2)])
    first, second, new = cells[0], cells[1], nn.Dense(2, 2)
    cells.insert(1, new)
    assert list(cells) == [first, new, second] and second.weight.name == "2.weight"
    del cells[0]
    assert list(cells) == [new, second] and len(cells) == 2
    cells += [nn.Dense(2, 2)]
    replacement = nn.Dense(2, 2)
    cells[0] = replacement
    assert cells[0] is replacement and replacement.weight.name == "0.weight" and len(cells) == 3
    seq = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU(), nn.Dense(2, 2)])
    del seq[1]
    x = Tensor(np.ones((1, 2), np.float32))
    np.testing.assert_allclose(seq(x).asnumpy(), seq[1](seq[0](x)).asnumpy())


@pytest.mark.parametrize("make,message", [
    (lambda: nn.Embedding(5, 2, padding_idx=7), r"'padding_idx' must be in range of \[0, 5\), but got 7"),
    (lambda: nn.Dropout(keep_prob=0.0), r"'keep_prob' must be a number in range \(0, 1\], but got 0.0"),
])
def test_layer_arguments_are_checked(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_norms_keep_a_float16_input_dtype_and_batchnorm1d_takes_3d():
    """MindSpore 2.10 (measured): BatchNorm1d and LayerNorm on float16 input return Float16, and
    BatchNorm1d normalises [N, C, L] inputs over N and L (torch's BatchNorm1d agrees)."""
    x = rand(4, 3, 5)
    bn, tbn = nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3, momentum=0.1, eps=1e-5)
    bn.set_train()
    np.testing.assert_allclose(bn(Tensor(x)).asnumpy(), tbn(t(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), tbn.running_var.numpy(), rtol=1e-5)
    half = Tensor(x[:, :, 0].astype(np.float16))
    for cell in (bn, nn.LayerNorm((3,))):
        for mode in (True, False):
            cell.set_train(mode)
            for run in (cell, ms.jit(cell)):
                assert run(half).dtype is ms.float16


def test_train_one_step_cell_takes_mindspore_2_arguments():
    net = nn.WithLossCell(nn.Dense(3, 1), nn.MSELoss())
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepCell(net, opt, sens=None, return_grad=True)
    x, y = Tensor(rand(4, 3)), Tensor(rand(4, 1))
    want = ms.grad(net, None, opt.parameters)(x, y)
    loss, grads = step(x, y)
    assert step.sens == 1.0 and loss.shape == ()
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)


def test_cell_insert_methods_check_their_arguments_as_mindspore():
    cell = nn.SequentialCell([nn.Dense(2, 2)])
    with pytest.raises(TypeError, match="'param' must be a Parameter"):
        cell.insert_param_to_cell("w", Tensor(np.ones(2, np.float32)))
    with pytest.raises(KeyError, match="'0' is already the name of a child Cell"):
        cell.insert_param_to_cell("0", ms.Parameter(np.ones(2, np.float32)))
    with pytest.raises(KeyError, match="without '.'"):
        cell.insert_child_to_cell("a.b", nn.ReLU())
    cell.insert_param_to_cell("w", None)
    assert [n for n, _ in cell.parameters_and_names()] == ["0.weight", "0.bias"]


def test_functional_conv2d_and_clip_take_mindspore_arguments():
    """ops.conv2d(input, weight, bias=None, stride=1, pad_mode='valid', padding=0, ...) against
    torch; ops.clip_by_value's and ops.clamp's keyword names."""
    x, w, b = rand(2, 3, 7, 7), rand(4, 3, 3, 3), rand(4)
    for kwargs, torch_kwargs in [({"padding": 1}, {"padding": 1}), ({"pad_mode": "pad", "padding": (1, 2)}, {"padding": (1, 2)}),
                                 ({"pad_mode": "same"}, {"padding": "same"}), ({"stride": 2, "dilation": 2}, {"stride": 2, "dilation": 2})]:
        got = ms.ops.conv2d(Tensor(x), Tensor(w), Tensor(b), **kwargs)
        np.testing.assert_allclose(got.asnumpy(), TF.conv2d(t(x), t(w), t(b), **torch_kwargs).numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ms.ops.clip_by_value(Tensor(x), clip_value_min=-0.5, clip_value_max=0.5).asnumpy(),
                               np.clip(x, -0.5, 0.5))
    np.testing.assert_allclose(ms.ops.clamp(input=Tensor(x), min=0.0).asnumpy(), np.maximum(x, 0))
    with pytest.raises(ValueError, match="at least one of 'min' and 'max'"):
        ms.ops.clamp(Tensor(x))
