"""Adaptive and 1-D pooling, GroupNorm and InstanceNorm, the newer losses and activations
(graphcell/ops/pooling.py, normalization.py, losses.py, activations.py and their nn Cells):
eagerly, under jit (XLA), under jit(backend="onnx") and in an exported model, under vmap and
under grad.

References: torch with the same weights (autograd for gradients), numpy formulas and finite
differences, and numbers measured on MindSpore 2.10 CPU where MindSpore and torch differ
(written out below, each with what it shows). Where MindSpore agrees with torch that was
measured too: adaptive pools to 1.2e-7, 1-D pools exactly, GroupNorm to 4.8e-7, SmoothL1, Huber,
KL, margin ranking and cosine embedding values and gradients to 1e-6 on ordinary inputs.

Each test runs many cases through one function, so each backend compiles once.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.runtime import Session
from tests.modes import MODES, call, compiled

RNG = np.random.default_rng(23)
COMPILED = ["jit", "onnx"]   # gradients: an eager grad runs the same graph op by op


def sample(cases, mode, jit=1, eager=3):
    """Every case in onnxruntime, every `jit`-th under XLA, every `eager`-th (or an `eager`
    slice) eagerly: compiling dominates these tests' time, and XLA's compiles (and the eager
    path's, one per op and shape) are the slow ones. The graphs, and so the vmap and grad rules,
    are the same for all three."""
    step = {"onnx": 1, "jit": jit, "eager": eager}[mode]
    return cases[step if isinstance(step, slice) else slice(None, None, step)]


def torch_grads(fn, *arrays):
    """The gradients of fn's output (summed) with respect to each array, by torch autograd."""
    leaves = [torch.tensor(a).requires_grad_(True) for a in arrays]
    fn(*leaves).sum().backward()
    return [leaf.grad.numpy() for leaf in leaves]


def close(got, want, tol=1e-6):
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# -- pooling ---------------------------------------------------------------------------------------

def _same_1d(x, kernel, stride, reduce):
    """MindSpore's 'same' over the last axis: out = ceil(L / stride), the odd padding after;
    a max ignores the padding, an average divides by the real elements (measured)."""
    x = np.asarray(x)
    length = x.shape[-1]
    out = -(-length // stride)
    lo = max((out - 1) * stride + kernel - length, 0) // 2
    windows = [(max(i * stride - lo, 0), min(i * stride - lo + kernel, length)) for i in range(out)]
    return np.stack([reduce(x[..., a:b], -1) for a, b in windows], -1)


# Adaptive sizes that divide (one reduce_window), that do not (a gather per axis), larger than
# the input, None (keeps the axis) and the identity; each 2-D pool on [N, C, 7, 5], each 1-D
# one on [N, C, 12]. (graphcell function of (x2d, x1d), reference of torch tensors (x2d, x1d)).
SIZES_2D = [3, (3, 2), (None, 2), (4, 3), (8, 5), (14, 10), 1, (7, 5)]


def _adaptive_2d():
    for size in SIZES_2D:
        yield (lambda a, b, c=nn.AdaptiveAvgPool2d(size): c(a), lambda a, b, s=size: TF.adaptive_avg_pool2d(a, s))
        yield (lambda a, b, c=nn.AdaptiveMaxPool2d(size): c(a), lambda a, b, s=size: TF.adaptive_max_pool2d(a, s))


POOLS = [
    *_adaptive_2d(),
    (lambda a, b: ops.adaptive_avg_pool2d(a[0], (3, 2)), lambda a, b: TF.adaptive_avg_pool2d(a[0], (3, 2))),
    (lambda a, b, c=nn.MaxPool1d(3): c(b), lambda a, b: TF.max_pool1d(b, 3, 1)),
    (lambda a, b, c=nn.MaxPool1d(3, 2): c(b[0]), lambda a, b: TF.max_pool1d(b[0], 3, 2)),   # [C, L]
    (lambda a, b, c=nn.MaxPool1d(3, 2, pad_mode="PAD", padding=1): c(b), lambda a, b: TF.max_pool1d(b, 3, 2, 1)),
    (lambda a, b, c=nn.MaxPool1d(4, 2, pad_mode="pad", padding=(1,), ceil_mode=True): c(b),
     lambda a, b: TF.max_pool1d(b, 4, 2, 1, ceil_mode=True)),
    (lambda a, b, c=nn.MaxPool1d(4, 3, pad_mode="same"): c(b), lambda a, b: _same_1d(b, 4, 3, np.max)),
    (lambda a, b, c=nn.AvgPool1d(3): c(b), lambda a, b: TF.avg_pool1d(b, 3, 1)),
    (lambda a, b, c=nn.AvgPool1d((3,), (2,), pad_mode="pad", padding=1): c(b), lambda a, b: TF.avg_pool1d(b, 3, 2, 1)),
    (lambda a, b, c=nn.AvgPool1d(4, 2, pad_mode="pad", padding=1, ceil_mode=True): c(b),
     lambda a, b: TF.avg_pool1d(b, 4, 2, 1, ceil_mode=True)),
    (lambda a, b, c=nn.AvgPool1d(4, 3, ceil_mode=True): c(b),                        # valid mode takes ceil_mode
     lambda a, b: TF.avg_pool1d(b, 4, 3, ceil_mode=True)),
    (lambda a, b, c=nn.AvgPool1d(3, 2, pad_mode="pad", padding=1, count_include_pad=False): c(b),
     lambda a, b: TF.avg_pool1d(b, 3, 2, 1, count_include_pad=False)),
    (lambda a, b, c=nn.AvgPool1d(4, 3, pad_mode="same"): c(b), lambda a, b: _same_1d(b, 4, 3, np.mean)),
    (lambda a, b, c=nn.AdaptiveAvgPool1d(4): c(b), lambda a, b: TF.adaptive_avg_pool1d(b, 4)),
    (lambda a, b, c=nn.AdaptiveMaxPool1d(3): c(b), lambda a, b: TF.adaptive_max_pool1d(b, 3)),
    (lambda a, b: ops.adaptive_avg_pool1d(b, 12), lambda a, b: b),
    (lambda a, b: ops.avg_pool1d(b, 3, 2, 1), lambda a, b: TF.avg_pool1d(b, 3, 2, 1)),
    (lambda a, b: ops.avg_pool1d(b, 4, 2, (1,), True, False), lambda a, b: TF.avg_pool1d(b, 4, 2, 1, True, False)),
]


def _pool_inputs(ties=False):
    x2d = (RNG.integers(0, 3, (2, 3, 7, 5)) if ties else RNG.standard_normal((2, 3, 7, 5))).astype(np.float32)
    return x2d, RNG.standard_normal((2, 3, 12)).astype(np.float32)


@pytest.mark.parametrize("mode", MODES)
def test_pools_match_torch(mode):
    x2d, x1d = _pool_inputs()
    cases = sample(POOLS, mode, jit=2, eager=slice(7, None, 7))
    got = call(lambda a, b: (*(f(a, b) for f, _ in cases), *ops.adaptive_max_pool2d(a, (4, 3), return_indices=True)),
               mode, x2d, x1d)
    ta, tb = torch.tensor(x2d), torch.tensor(x1d)
    for g, (_, ref) in zip(got, cases):
        close(g, ref(ta, tb))
    values, index = TF.adaptive_max_pool2d(ta, (4, 3), return_indices=True)
    close(got[-2], values)
    np.testing.assert_array_equal(got[-1], index)
    assert got[-1].dtype == np.int64   # indices into each H*W plane, as MindSpore's


@pytest.mark.parametrize("mode", COMPILED)
def test_pool_gradients_match_torch_and_finite_differences(mode):
    """Integer-valued 2-D input has many equal values in a window: the gradient goes to the first
    maximum in row-major order, as torch's (separable pooling reduces W first to keep that)."""
    x2d, x1d = _pool_inputs(ties=True)
    ta, tb = torch.tensor(x2d), torch.tensor(x1d)
    cases = [(f, ref, RNG.standard_normal(np.shape(ref(ta, tb))).astype(np.float32))
             for f, ref in sample(POOLS, mode, jit=7)]
    grad = ms.grad(lambda a, b: sum((f(a, b) * Tensor(w)).sum() for f, _, w in cases), (0, 1))
    got = [g.asnumpy() for g in compiled(grad, mode)(Tensor(x2d), Tensor(x1d))]
    by_torch = [(ref, w) for _, ref, w in cases if isinstance(ref(ta, tb), torch.Tensor)]
    # (+ 0 * b.sum(): b gets a gradient even where no torch-referenced case reads it)
    want = torch_grads(lambda a, b: sum((ref(a, b) * torch.tensor(w)).sum() for ref, w in by_torch) + 0 * b.sum(),
                       x2d, x1d)
    # the 'same' pools' numpy references: central differences (in float64; no ties in x1d)
    by_numpy = [(ref, w) for _, ref, w in cases if not isinstance(ref(ta, tb), torch.Tensor)]
    f = lambda b: sum(float((ref(None, b) * w).sum()) for ref, w in by_numpy)  # noqa: E731
    for i in np.ndindex(x1d.shape if by_numpy else ()):
        step = np.zeros(x1d.shape)
        step[i] = 1e-4
        want[1][i] += (f(x1d + step) - f(x1d - step)) / 2e-4
    close(got[0], want[0], 1e-5)
    close(got[1], want[1], 1e-5)


def _pools_with_indices(a, b):
    return (*(f(a, b) for f, _ in POOLS), *ops.adaptive_max_pool2d(a, (4, 3), return_indices=True))


def test_pools_under_vmap_match_a_loop():
    a = RNG.standard_normal((3, 2, 4, 7, 5)).astype(np.float32)
    b = RNG.standard_normal((3, 2, 3, 12)).astype(np.float32)
    # compiled for onnxruntime, the cheaper compile: the vmap pass is the same for both backends
    batched = ms.jit(ms.vmap(_pools_with_indices, in_axes=0), backend="onnx")(Tensor(a), Tensor(b))
    looped = ms.jit(backend="onnx")(lambda a, b: tuple(
        ops.stack(outs) for outs in zip(*(_pools_with_indices(a[i], b[i]) for i in range(3)))))(Tensor(a), Tensor(b))
    for out, want in zip(batched, looped):
        np.testing.assert_array_equal(out.asnumpy(), want.asnumpy())


@pytest.mark.parametrize("make,error,message", [
    # MindSpore 2.10's limits and (where it has them) messages, measured
    (lambda x, y: ops.adaptive_avg_pool2d(x[0, 0], 2), ValueError, "must be 3-D or 4-D"),
    (lambda x, y: nn.AdaptiveMaxPool2d(2)(x[None]), ValueError, "must be 3-D or 4-D"),
    (lambda x, y: ops.adaptive_avg_pool2d(x.astype(ms.int32), 2), TypeError, "must be float16, float32 or float64"),
    (lambda x, y: nn.AdaptiveAvgPool2d((3,)), ValueError, "'output_size' must have 2 entries"),
    (lambda x, y: nn.AdaptiveAvgPool2d(3.0), TypeError, "'output_size' must be an int or a tuple"),
    (lambda x, y: nn.AdaptiveMaxPool2d((2, 0)), ValueError, r"'output_size\[1\]' must be a positive int or None"),
    (lambda x, y: nn.AdaptiveMaxPool2d(True), TypeError, "'output_size' must be an int"),
    (lambda x, y: nn.AdaptiveMaxPool2d(2, return_indices=1), TypeError, "'return_indices' must be a bool"),
    (lambda x, y: nn.AdaptiveAvgPool1d((3,)), TypeError,
     "the type of 'output_size' should be 'int', but got type 'tuple'"),
    (lambda x, y: nn.AdaptiveMaxPool1d(0), ValueError, "the 'output_size' must be int and must >= 1, but got '0'"),
    (lambda x, y: nn.AdaptiveAvgPool1d(5)(y), ValueError,
     "the input's last dimension must be divisible by output size 5, but got 12"),
    (lambda x, y: nn.AdaptiveMaxPool1d(13)(y), ValueError, "must be greater or equal to output size 13, but got 12"),
    (lambda x, y: ops.adaptive_avg_pool1d(y[0], 3), ValueError, "must has 3 dim, but got 2"),
    (lambda x, y: nn.AdaptiveMaxPool1d(3)(y.astype(ms.int32)), TypeError, "must be float16, float32"),
    (lambda x, y: nn.MaxPool1d(3, 2, padding=1), ValueError,
     "can not be set to non-default value when pad_mode is not 'pad', but got pad_mode:valid"),
    (lambda x, y: nn.MaxPool1d(4, 3, ceil_mode=True), ValueError, "when pad_mode is not 'pad'"),
    (lambda x, y: nn.MaxPool1d((3,)), TypeError, "For 'MaxPool1d', the 'kernel_size' must be int, but got 'tuple'"),
    (lambda x, y: nn.AvgPool1d(0), ValueError, "the 'kernel_size' must be an positive int number"),
    (lambda x, y: nn.MaxPool1d(3, 0), ValueError, "the 'stride' must be an positive int number"),
    (lambda x, y: nn.AvgPool1d(3, pad_mode="foo"), ValueError,
     r"must be in '\['VALID', 'SAME', 'PAD'\]', but got 'FOO'"),
    (lambda x, y: nn.AvgPool1d(3, 2, pad_mode="pad", padding=2), ValueError, "at most half the kernel size"),
    (lambda x, y: nn.MaxPool1d(3, 2, pad_mode="pad", padding=(1, 1)), ValueError,
     "contains one int, but got tuple/list with length:2"),
    (lambda x, y: nn.AvgPool1d(3, 2, padding=1), ValueError, "'padding' must be 0 when 'pad_mode' is not 'pad'"),
    (lambda x, y: nn.MaxPool1d(3, 2, pad_mode="pad", padding=1, dilation=0), ValueError,
     "'dilation' must be a positive int"),
    (lambda x, y: nn.MaxPool1d(3, 2, dilation=2), ValueError, "when pad_mode is not 'pad'"),
    (lambda x, y: nn.MaxPool1d(3)(x[None]), ValueError, "expected a 2-D or 3-D input"),
    (lambda x, y: ops.avg_pool1d(y[0], 3), ValueError, "must be 3-D"),
    (lambda x, y: ops.avg_pool1d(y, (3,)), TypeError, "'kernel_size' should be 'int'"),
    (lambda x, y: ops.avg_pool1d(y, 3, 2, (1, 1)), ValueError, "padding should be int or tuple of length 1"),
])
def test_pool_arguments_are_checked(make, error, message):
    with pytest.raises(error, match=message):
        make(Tensor(np.ones((2, 3, 7, 5), np.float32)), Tensor(np.ones((2, 3, 12), np.float32)))


# -- GroupNorm and InstanceNorm ------------------------------------------------------------------

def _randomized(cell):
    for p in cell.trainable_params():
        p.set_data(RNG.standard_normal(p.shape).astype(np.float32))
    return cell


@pytest.mark.parametrize("mode", MODES)
def test_norms_match_torch(mode):
    gn, gn2d, in2d, in1d = (_randomized(c) for c in (nn.GroupNorm(3, 6), nn.GroupNorm(2, 6, eps=0.5),
                                                      nn.InstanceNorm2d(6), nn.InstanceNorm1d(6)))
    x = (RNG.standard_normal((2, 6, 4, 5)) * 3 + 1).astype(np.float32)
    tx, p = torch.tensor(x), lambda param: torch.tensor(param.asnumpy())  # noqa: E731
    cases = sample([
        (lambda t: gn(t), TF.group_norm(tx, 3, p(gn.gamma), p(gn.beta))),
        (lambda t: in2d(t), TF.instance_norm(tx, weight=p(in2d.gamma), bias=p(in2d.beta))),
        (lambda t: gn2d(t[:, :, 0, 0]), TF.group_norm(tx[:, :, 0, 0], 2, p(gn2d.gamma), p(gn2d.beta), eps=0.5)),
        (lambda t: in1d(t[..., 0]), TF.instance_norm(tx[..., 0], weight=p(in1d.gamma), bias=p(in1d.beta))),
        (lambda t: ops.group_norm(t, 2), TF.group_norm(tx, 2)),
        (lambda t: ops.group_norm(t[..., 0], 6, gn.gamma, gn.beta),
         TF.group_norm(tx[..., 0], 6, p(gn.gamma), p(gn.beta))),
    ], mode, eager=slice(0, 2))
    got = call(lambda t: tuple(f(t) for f, _ in cases), mode, x)
    for g, (_, want) in zip(got, cases):
        close(g, want, 2e-6)


@pytest.mark.parametrize("mode", COMPILED)
def test_norm_gradients_match_torch(mode):
    gn, inn = _randomized(nn.GroupNorm(2, 4)), _randomized(nn.InstanceNorm2d(4))
    x = RNG.standard_normal((3, 4, 3, 5)).astype(np.float32)
    w1, w2 = (RNG.standard_normal(x.shape).astype(np.float32) for _ in range(2))
    params = [gn.gamma, gn.beta, inn.gamma, inn.beta]
    dx, dparams = compiled(ms.grad(lambda v: (gn(v) * Tensor(w1)).sum() + (inn(v) * Tensor(w2)).sum(), 0, params),
                           mode)(Tensor(x))
    want = torch_grads(lambda v, g1, b1, g2, b2: (TF.group_norm(v, 2, g1, b1) * torch.tensor(w1)).sum()
                       + (TF.instance_norm(v, weight=g2, bias=b2) * torch.tensor(w2)).sum(),
                       x, *(p.asnumpy() for p in params))
    for got, ref in zip([dx, *dparams], want):
        close(got.asnumpy(), ref, 1e-5)


def test_norm_parameters_are_named_as_mindspore_and_instance_stats_serve_both_modes():
    """MindSpore 2.10, measured: GroupNorm holds gamma, beta; InstanceNorm2d holds mean,
    variance, gamma, beta in that order (as a child: inn.moving_mean, ...), gamma/beta trainable
    unless affine=False, and normalises with instance statistics in training and evaluation
    alike. Its GPU kernel writes the moving statistics to a scratch copy only (CPU has none),
    so they never change."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gn = nn.GroupNorm(2, 4)
            self.inn = nn.InstanceNorm2d(4)

        def construct(self, x):
            return self.inn(self.gn(x))

    net = Net()
    assert [(p.name, p.requires_grad) for p in net.get_parameters()] == [
        ("gn.gamma", True), ("gn.beta", True), ("inn.moving_mean", False), ("inn.moving_variance", False),
        ("inn.gamma", True), ("inn.beta", True)]
    assert [p.name for p in nn.InstanceNorm2d(4).get_parameters()] == ["mean", "variance", "gamma", "beta"]
    assert [p.requires_grad for p in nn.GroupNorm(2, 4, affine=False).get_parameters()] == [False, False]
    assert not any(p.requires_grad for p in nn.InstanceNorm2d(4, affine=False).get_parameters())
    x = Tensor(RNG.standard_normal((2, 4, 3, 3)).astype(np.float32))
    run = ms.jit(net, backend="onnx")
    evaluated = run(x).asnumpy()
    net.set_train(True)
    np.testing.assert_array_equal(run(x).asnumpy(), evaluated)
    np.testing.assert_array_equal(net.inn.moving_mean.asnumpy(), np.zeros(4, np.float32))
    np.testing.assert_array_equal(net.inn.moving_variance.asnumpy(), np.ones(4, np.float32))
    # float16 in, float16 out (computed in float32), as MindSpore's dtype
    half = ms.jit(lambda v: (net.gn(v), net.inn(v), ops.group_norm(v, 1)))(x.astype(ms.float16))
    assert [h.dtype for h in half] == [ms.float16] * 3
    close(half[0].asnumpy().astype(np.float32), net.gn(x).asnumpy(), 3e-3)


def test_norm_ensembles_under_vmap_match_their_members():
    """Members with different gamma/beta: vmap over a CellList, and vmap of grad over the
    functional form with per-member weights, against each member alone (torch for the grads)."""
    members = [_randomized(nn.SequentialCell([nn.GroupNorm(2, 4), nn.InstanceNorm2d(4)])) for _ in range(3)]
    x = Tensor(RNG.standard_normal((2, 4, 3, 5)).astype(np.float32))
    out = ms.vmap(nn.CellList(members), in_axes=None)(x)
    p = lambda param: torch.tensor(param.asnumpy())  # noqa: E731
    want = [TF.instance_norm(TF.group_norm(torch.tensor(x.asnumpy()), 2, p(m[0].gamma), p(m[0].beta)),
                             weight=p(m[1].gamma), bias=p(m[1].beta)).numpy() for m in members]
    np.testing.assert_allclose(out.asnumpy(), np.stack(want), rtol=1e-5, atol=1e-5)

    gammas, betas = (RNG.standard_normal((3, 4)).astype(np.float32) for _ in range(2))
    loss = lambda v, g, b: (ops.group_norm(v, 2, g, b) ** 2).mean()  # noqa: E731
    dg, db = ms.jit(ms.vmap(ms.grad(loss, (1, 2)), in_axes=(None, 0, 0)), backend="onnx")(
        x, Tensor(gammas), Tensor(betas))
    for i in range(3):
        want = torch_grads(lambda g, b: (TF.group_norm(torch.tensor(x.asnumpy()), 2, g, b) ** 2).mean(),
                           gammas[i], betas[i])
        close(dg.asnumpy()[i], want[0], 1e-5)
        close(db.asnumpy()[i], want[1], 1e-5)


def test_norms_and_adaptive_pools_export_with_a_dynamic_batch(tmp_path):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gn = _randomized(nn.GroupNorm(2, 4))
            self.pool = nn.AdaptiveAvgPool2d((4, 3))
            self.inn = _randomized(nn.InstanceNorm2d(4))
            self.top = nn.AdaptiveMaxPool2d((3, None))

        def construct(self, x):
            return self.top(self.inn(self.pool(self.gn(x))))

    net = Net()
    path = ms.export(net, Tensor(RNG.standard_normal((2, 4, 7, 5)).astype(np.float32)),
                     file_name=str(tmp_path / "norms"))
    session = Session(path, providers=["cpu"])
    p = lambda param: torch.tensor(param.asnumpy())  # noqa: E731
    for batch in (1, 3):
        x = RNG.standard_normal((batch, 4, 7, 5)).astype(np.float32)
        y = TF.adaptive_avg_pool2d(TF.group_norm(torch.tensor(x), 2, p(net.gn.gamma), p(net.gn.beta)), (4, 3))
        y = TF.adaptive_max_pool2d(TF.instance_norm(y, weight=p(net.inn.gamma), bias=p(net.inn.beta)), (3, 3))
        close(session(x), y, 1e-5)


@pytest.mark.parametrize("make,error,message", [
    # MindSpore 2.10's checks and messages, measured
    (lambda: nn.GroupNorm(4, 6), ValueError,
     "the 'num_channels' must be divided by 'num_groups', but got 'num_channels': 6, 'num_groups': 4"),
    (lambda: nn.GroupNorm(0, 6), ValueError, "the 'num_groups' must be int and must > 0, but got '0'"),
    (lambda: nn.GroupNorm(3.0, 6), TypeError, "For 'GroupNorm', the 'num_groups' must be int, but got 'float'"),
    (lambda: nn.GroupNorm(3, 6, eps=0), TypeError, "the type of 'eps' should be 'float', but got type 'int'"),
    (lambda: nn.GroupNorm(3, 6, affine=1), TypeError, "the type of 'affine' should be 'bool'"),
    (lambda: nn.InstanceNorm2d(0), ValueError, "the 'num_features' must be at least 1, but got 0"),
    (lambda: nn.InstanceNorm2d(6.0), TypeError, "the type of 'num_features' should be 'int', but got type 'float'"),
    (lambda: nn.InstanceNorm2d(6, momentum=1.5), ValueError, r"'momentum' must be a number in range \[0, 1\]"),
    (lambda: nn.InstanceNorm2d(6, eps=0), TypeError, "the type of 'eps' should be 'float'"),
    (lambda: nn.GroupNorm(3, 9)(Tensor(np.ones((2, 6, 2), np.float32))), ValueError, "num_channels=9"),
    (lambda: nn.InstanceNorm2d(6)(Tensor(np.ones((6, 2, 2), np.float32))), ValueError, "expected a 4-D input"),
    (lambda: nn.InstanceNorm1d(2)(Tensor(np.ones((2, 2, 2), np.int32))), TypeError, "must be a float Tensor"),
    (lambda: ops.group_norm(Tensor(np.ones((2, 6), np.float32)), 4), ValueError, "must be divided by 'num_groups'"),
])
def test_norm_arguments_are_checked(make, error, message):
    with pytest.raises(error, match=message):
        make()


# -- losses ----------------------------------------------------------------------------------------

LOSS_W = RNG.uniform(0.5, 2.0, (5,)).astype(np.float32)
# name: (Cell for a reduction, its graphcell arguments from (a, b, p, y, t), the torch loss)
LOSSES = {
    "smooth_l1": (lambda r: nn.SmoothL1Loss(0.5, r), lambda a, b, p, y, t: (a, b),
                  lambda a, b, p, y, t, r: TF.smooth_l1_loss(a, b, reduction=r, beta=0.5)),
    "huber": (lambda r: nn.HuberLoss(r, 2.0), lambda a, b, p, y, t: (a, b),
              lambda a, b, p, y, t, r: TF.huber_loss(a, b, reduction=r, delta=2.0)),
    "bce": (lambda r: nn.BCELoss(None, r), lambda a, b, p, y, t: (p, y),
            lambda a, b, p, y, t, r: TF.binary_cross_entropy(p, y, reduction=r)),
    "bce_weight": (lambda r: nn.BCELoss(Tensor(LOSS_W), r), lambda a, b, p, y, t: (p, y),
                   lambda a, b, p, y, t, r: TF.binary_cross_entropy(p, y, weight=torch.tensor(LOSS_W), reduction=r)),
    "kl": (lambda r: nn.KLDivLoss(r), lambda a, b, p, y, t: (a, y),
           lambda a, b, p, y, t, r: TF.kl_div(a, y, reduction=r)),
    "cosine": (lambda r: nn.CosineEmbeddingLoss(0.3, r), lambda a, b, p, y, t: (a, b, t),
               lambda a, b, p, y, t, r: TF.cosine_embedding_loss(a, b, t, margin=0.3, reduction=r)),
    "ranking": (lambda r: nn.MarginRankingLoss(0.2, r), lambda a, b, p, y, t: (a[:, 0], b[:, 0], t),
                lambda a, b, p, y, t, r: TF.margin_ranking_loss(a[:, 0], b[:, 0], t, margin=0.2, reduction=r)),
}
CASES = [(name, r, make(r)) for name, (make, _, _) in LOSSES.items() for r in ("none", "mean", "sum")]
CASES.append(("kl", "batchmean", nn.KLDivLoss("batchmean")))


def _loss_inputs():
    a, b = (RNG.standard_normal((4, 5)).astype(np.float32) for _ in range(2))
    b[0, :3] = a[0, :3] + np.array([1.0, 2.0, 0.0], np.float32)     # |d| at 0 and at delta
    p = RNG.uniform(0.05, 0.95, (4, 5)).astype(np.float32)            # probabilities
    y = RNG.uniform(0.0, 1.0, (4, 5)).astype(np.float32)
    y[1, :2] = 0.0                                                     # KL: labels of 0
    t = np.where(RNG.random(4) < 0.5, -1.0, 1.0).astype(np.float32)    # +-1 targets
    return a, b, p, y, t


def _all_losses(*xs, cases=CASES):
    return tuple(cell(*LOSSES[name][1](*xs)) for name, _, cell in cases)


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss")   # torch's kl_div 'mean'
@pytest.mark.parametrize("mode", MODES)
def test_losses_match_torch_in_every_reduction(mode):
    inputs, cases = _loss_inputs(), sample(CASES, mode, jit=2, eager=slice(1, None, 7))
    got = call(lambda *xs: _all_losses(*xs, cases=cases), mode, *inputs)
    tensors = [torch.tensor(v) for v in inputs]
    for g, (name, r, _) in zip(got, cases):
        close(g, LOSSES[name][2](*tensors, r), 1e-5)


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss")
@pytest.mark.parametrize("mode", COMPILED)
def test_loss_gradients_match_torch(mode):
    """KLDivLoss's labels get no gradient (MindSpore's, below): the torch sum leaves them out."""
    inputs, cases = _loss_inputs(), sample(CASES, mode, jit=2)
    got = compiled(ms.grad(lambda *xs: sum(out.sum() for out in _all_losses(*xs, cases=cases)), (0, 1, 2, 3, 4)),
                   mode)(*(Tensor(v) for v in inputs))
    leaves = [torch.tensor(v).requires_grad_(True) for v in inputs]
    total = sum(LOSSES[name][2](*leaves[:3], leaves[3] if name != "kl" else leaves[3].detach(), leaves[4], r).sum()
                for name, r, _ in cases) + 0 * sum(leaf.sum() for leaf in leaves)
    total.backward()
    for g, leaf in zip(got, leaves):
        close(g.asnumpy(), leaf.grad, 1e-5)


def test_losses_under_vmap_match_a_loop():
    stacks = [Tensor(np.stack([v, v[::-1].copy(), v * 0.5])) for v in _loss_inputs()]
    batched = ms.jit(ms.vmap(_all_losses, in_axes=0), backend="onnx")(*stacks)
    looped = ms.jit(backend="onnx")(lambda *xs: tuple(
        ops.stack(outs) for outs in zip(*(_all_losses(*(x[i] for x in xs)) for i in range(3)))))(*stacks)
    for out, want in zip(batched, looped):
        np.testing.assert_allclose(out.asnumpy(), want.asnumpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_losses_take_mindspore_values_where_torch_differs(mode):
    """Numbers measured on MindSpore 2.10 CPU."""
    p = np.array([0.0, 1.0, 1e-30, 1.0 - 1e-8, 1e-13, 1e-11], np.float32)
    y = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 1.0], np.float32)
    kl_x = np.array([[0.3, -1.0, 2.0], [0.0, 0.0, 0.0]], np.float32)
    kl_y = np.array([[0.2, 0.0, -1.0], [0.5, 1e-30, 0.0]], np.float32)
    x1 = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, -1.0], [1.0, 1.0]], np.float32)
    x2 = np.array([[1.0, 1.0], [2.0, 4.0], [-3.0, 1.0], [1.0, -1.0]], np.float32)
    targets = Tensor(np.array([-1, 1, 2, 0], np.int32))
    got = call(lambda p, y, kx, ky, u, v: (
        nn.BCELoss(reduction="none")(p, y), nn.KLDivLoss("none")(kx, ky), nn.KLDivLoss("batchmean")(kx, ky),
        nn.CosineEmbeddingLoss(0.5, "none")(u, v, targets),
        nn.CosineEmbeddingLoss(0.5, "none")(u[:1], v[:1], targets[1:2]),
        nn.SmoothL1Loss()(u, v)), mode, p, y, kl_x, kl_y, x1, x2)
    # 1e-12 inside the logs: -log(1e-12) = 27.631021 at 0 and 1 (torch clamps the log at -100: 100),
    # -log(1.1e-12) at 1e-13, -log(1.1e-11) at 1e-11
    close(got[0], [27.631021, 27.631021, 27.631021, 27.631021, 27.535711, 25.233126])
    # labels <= 0 count 0 (torch: NaN at -1); 1e-30 * (log(1e-30) - 0) = -6.9077552e-29
    close(got[1], [[-0.38188758, 0.0, 0.0], [-0.34657359, -6.9077552e-29, 0.0]])
    close(got[2], -0.36423057)
    # a zero vector's cosine is NaN: max(NaN - margin, 0) is 0 where target == -1 (NaN where it
    # is 1), and targets other than 1 and -1 count 0 (torch counts them as -1)
    close(got[3], [0.0, 0.0, 0.0, 0.0])
    assert np.isnan(got[4]).all()
    assert got[5].shape == (4, 2)   # SmoothL1Loss's default reduction is 'none'


def test_loss_gradients_and_dtypes_take_mindspore_values_where_torch_differs():
    """MindSpore 2.10, measured: KLDivLoss gives its labels no gradient; margin ranking passes the
    gradient where the hinge is exactly 0; a cosine hinge at exactly 0 takes half. HuberLoss
    takes integers (in float32); float16 stays float16."""
    x = np.array([[0.3, -1.0, 2.0], [0.0, 0.0, 0.0]], np.float32)
    y = np.array([[0.2, 0.0, 0.7], [0.5, 1e-30, 0.0]], np.float32)
    cos_y = Tensor(np.array([[0.0, 1.0]], np.float32))
    grads = ms.jit(lambda kx, ky, r1, r2, c: (
        *ms.grad(lambda u, v: nn.KLDivLoss("sum")(u, v), (0, 1))(kx, ky),
        *ms.grad(lambda u, v: nn.MarginRankingLoss(0.0, "sum")(u, v, ops.ones_like(u)), (0, 1))(r1, r2),
        ms.grad(lambda u: nn.CosineEmbeddingLoss(0.0, "sum")(u, cos_y, Tensor(np.array([-1], np.int32))))(c)))(
        Tensor(x), Tensor(y), Tensor(np.array([1.0, 1.0], np.float32)), Tensor(np.array([1.0, 2.0], np.float32)),
        Tensor(np.array([[1.0, 0.0]], np.float32)))
    close(grads[0].asnumpy(), -y)
    np.testing.assert_array_equal(grads[1].asnumpy(), np.zeros_like(y))
    close(grads[2].asnumpy(), [-1.0, -1.0])
    close(grads[3].asnumpy(), [1.0, 1.0])
    close(grads[4].asnumpy(), [[0.0, 0.5]])
    huber = nn.HuberLoss("none")(Tensor(np.array([1, 5], np.int32)), Tensor(np.array([0.5, 1.0], np.float32)))
    assert huber.dtype == ms.float32
    close(huber.asnumpy(), [0.125, 3.5])
    half = Tensor(np.array([[0.2, 0.7], [0.9, 0.1]], np.float16))
    traced = ms.trace(lambda h: tuple(loss(h, h[::-1]) for loss in (nn.SmoothL1Loss(), nn.BCELoss(), nn.KLDivLoss(),
                                                                     nn.HuberLoss())), half)
    assert [out.dtype for out in traced.graph.outputs] == [ms.float16] * 4


@pytest.mark.parametrize("make,error,message", [
    # MindSpore 2.10's checks, measured (it raises the beta one at the first call)
    (lambda: nn.SmoothL1Loss(0.0), ValueError, "'beta' must be a number greater than 0"),
    (lambda: nn.SmoothL1Loss(1.0, "batchmean"), ValueError, "reduction must be 'mean', 'sum' or 'none'"),
    (lambda: nn.SmoothL1Loss()(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((1, 3), np.float32))),
     ValueError, "must have one shape"),
    (lambda: nn.SmoothL1Loss()(Tensor(np.ones(2, np.int32)), Tensor(np.ones(2, np.int32))), TypeError, "float Tensor"),
    (lambda: nn.HuberLoss(delta=0.0), ValueError, "'delta' must be a number > 0"),
    (lambda: nn.BCELoss()(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float16))), TypeError, "one dtype"),
    (lambda: nn.BCELoss(Tensor(np.ones(3, np.float32)))(Tensor(np.ones((2, 2), np.float32)) / 2,
                                                        Tensor(np.ones((2, 2), np.float32))),
     ValueError, "can not broadcast"),
    (lambda: nn.BCELoss([1.0, 2.0]), TypeError, "'weight' must be a Tensor"),
    (lambda: nn.KLDivLoss("foo"), ValueError,
     r"For 'KLDivLoss', the 'reduction' must be in \['none', 'mean', 'batchmean', 'sum'\], but got foo"),
    (lambda: nn.KLDivLoss()(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float64))), TypeError, "one dtype"),
    (lambda: nn.CosineEmbeddingLoss(0), TypeError, "the type of 'margin' should be 'float', but got type 'int'"),
    (lambda: nn.CosineEmbeddingLoss(2.0), ValueError, r"must be in range of \[-1.0, 1.0\], but got 2.0"),
    (lambda: nn.MarginRankingLoss(1), TypeError, "the type of 'margin' should be 'float'"),
    (lambda: nn.MarginRankingLoss()(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32)),
                                    Tensor(np.ones(2, np.int32))), TypeError,
     "the target dtype should be equal to input1 dtype, but got target dtype:Int32"),
])
def test_loss_arguments_are_checked(make, error, message):
    with pytest.raises(error, match=message):
        make()


# -- activations -----------------------------------------------------------------------------------

FAR = np.array([-1e4, -100, -30, -5, -2, -1, -0.5, -1e-3, 0, 1e-3, 0.5, 1, 2, 5, 30, 100, 1e4], np.float32)
ACTIVATIONS = [
    (nn.Softsign(), TF.softsign), (nn.LogSigmoid(), TF.logsigmoid), (nn.SeLU(), TF.selu),
    (nn.CELU(), TF.celu), (nn.CELU(0.5), lambda v: TF.celu(v, 0.5)), (nn.Tanhshrink(), TF.tanhshrink),
    (nn.Softmin(), lambda v: TF.softmin(v, -1)), (nn.Hardtanh(-0.5, 2.0), lambda v: TF.hardtanh(v, -0.5, 2.0)),
]


def _all_activations(rows, cases=ACTIVATIONS):
    """Activation i over row i, so one gradient holds each one's."""
    return ops.stack([cell(rows[i]) for i, (cell, _) in enumerate(cases)])


@pytest.mark.parametrize("mode", MODES)
def test_activations_and_their_gradients_match_torch(mode):
    """Far out and at the kinks. MindSpore's CPU kernels, measured, are less exact there:
    LogSigmoid is -inf below -88 (NaN gradient), Tanhshrink is off by 1e-4 at 5 (its tanh(5) is
    1.00001), SeLU's gradient below 0 is wrong (-0.80 at -1e4); these keep torch's values, which
    MindSpore matches elsewhere. Hardtanh's gradient at its limits is 0.5, MindSpore's (torch: 0)."""
    cases = sample(ACTIVATIONS[::-1], mode, eager=3)   # Hardtanh first: always run
    rows = np.tile(FAR, (len(cases), 1))
    w = RNG.standard_normal(rows.shape).astype(np.float32)
    grad = ms.grad(lambda v: (_all_activations(v, cases) * Tensor(w)).sum())
    values, grad = compiled(lambda r: (_all_activations(r, cases), grad(r) if mode != "eager" else r),
                            mode)(Tensor(rows))
    for i, (_, fn) in enumerate(cases):
        close(values.asnumpy()[i], fn(torch.tensor(FAR)), 1e-5)
        if mode == "eager":   # the gradients: compiled (an eager grad runs the same graph op by op)
            continue
        want = torch_grads(lambda v: fn(v) * torch.tensor(w[i]), FAR)[0]
        if fn is ACTIVATIONS[-1][1]:   # Hardtanh
            at_limits = np.isin(FAR, [-0.5, 2.0])
            want[at_limits] = 0.5 * w[i][at_limits]
        close(grad.asnumpy()[i], want, 1e-5)


def test_activations_under_vmap_match_a_loop():
    rows = Tensor(RNG.standard_normal((3, len(ACTIVATIONS), 6)).astype(np.float32))
    batched = ms.jit(ms.vmap(_all_activations, in_axes=0), backend="onnx")(rows).asnumpy()
    looped = ms.jit(backend="onnx")(lambda r: ops.stack([_all_activations(r[i]) for i in range(3)]))(rows).asnumpy()
    np.testing.assert_allclose(batched, looped, rtol=1e-6, atol=1e-7)


def test_activation_dtypes_and_arguments_as_mindspore():
    """MindSpore 2.10, measured: Hardtanh keeps integers (limits truncated toward 0), Tanhshrink
    computes them in float32, the others refuse them; CELU takes a negative alpha."""
    ints = Tensor(np.array([-2, 0, 3], np.int32))
    got = nn.Hardtanh(-0.5, 2.0)(ints)
    assert got.dtype == ms.int32 and got.asnumpy().tolist() == [0, 0, 2]
    assert nn.Tanhshrink()(ints).dtype == ms.float32
    for cell in (nn.Softsign(), nn.LogSigmoid(), nn.SeLU(), nn.CELU(), nn.Softmin()):
        with pytest.raises(TypeError, match="must be a float Tensor"):
            cell(ints)
    for dtype in (ms.float16, ms.float64):
        traced = ms.trace(lambda v: tuple(cell(v) for cell, _ in ACTIVATIONS), Tensor(FAR).astype(dtype))
        assert [out.dtype for out in traced.graph.outputs] == [dtype] * len(ACTIVATIONS)
    x = FAR[2:-2].astype(np.float64)
    want = np.maximum(0, x) + np.minimum(0, -1.0 * (np.exp(x / -1.0) - 1))   # CELU's formula, alpha = -1
    close(nn.CELU(-1.0)(Tensor(FAR[2:-2])).asnumpy(), want.astype(np.float32), 1e-5)
    close(ops.softmin(Tensor(FAR[None]), (0,)).asnumpy(), np.ones((1, FAR.size)))
    assert ops.softmin(Tensor(FAR), dtype=ms.float16).dtype == ms.float16
    assert isinstance(nn.Dense(2, 2, activation="softmin").activation, nn.Softmin)
    assert isinstance(nn.get_activation("logsigmoid"), nn.LogSigmoid)
    with pytest.raises(ValueError, match="min_val should be less than max_val"):
        nn.Hardtanh(1.0, 1.0)
    with pytest.raises(ValueError, match="'alpha' must be not equal to 0"):
        nn.CELU(0.0)
    with pytest.raises(TypeError, match="the type of 'alpha' should be 'float'"):
        nn.CELU(2)
