"""Property tests of the signature use: random small CNN architectures (convolutions of every
padding mode, stride, dilation and group count, with or without bias; BatchNorm; activations;
max and average pools; a head of one or two dense layers) as N-member ensembles,
`vmap(nn.CellList(...))` with a shared input (in_axes=None) or one per member (in_axes=0):
eagerly, under XLA with each convolution strategy, through jit(backend="onnx"), and exported to
one ONNX file (opset 17, 18 or 23, with or without an ensemble head) served at two batch sizes
by onnxruntime (the file's batch dispatch picks the stacked form at batch 1 and per-member
chains above), each against the members run one by one; their training steps, vmapped, against
each member's own; and a member's gradients against central differences. `make test-fuzz` runs
them with many more examples."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphcell as ms
from graphcell import nn, ops
from graphcell.runtime import Session
from tests.conftest import fuzz_derandomized, fuzz_examples

pytestmark = pytest.mark.fuzz
ENSEMBLES = settings(max_examples=fuzz_examples(8), deadline=None, derandomize=fuzz_derandomized(),
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
HEADS = [None, "mean", "vote", "mean_std"]   # export's ensemble heads (reduce=)
ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "gelu": nn.GELU, "sigmoid": nn.Sigmoid, "none": None}


def _out_size(size, kernel, stride, dilation, pad_mode, padding):
    if pad_mode == "same":
        return -(-size // stride)
    span = dilation * (kernel - 1) + 1
    return (size + 2 * (padding if pad_mode == "pad" else 0) - span) // stride + 1


@st.composite
def architectures(draw):
    """(input channels, input side, the convolutions' specs, the features they leave, the
    head's hidden layer or None): every spatial size stays >= 1."""
    channels, side = draw(st.integers(1, 3)), draw(st.integers(6, 9))
    specs, c, h = [], channels, side
    for _ in range(draw(st.integers(1, 2))):
        out = draw(st.integers(1, 6))
        group = draw(st.sampled_from([g for g in (1, 2, 3) if c % g == 0 and out % g == 0]))
        kernel, stride, dilation = draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
        pad_mode = draw(st.sampled_from(["same", "valid", "pad"]))
        padding = draw(st.integers(0, 1)) if pad_mode == "pad" else 0
        if _out_size(h, kernel, stride, dilation, pad_mode, padding) < 1:
            break
        h = _out_size(h, kernel, stride, dilation, pad_mode, padding)
        conv = dict(in_channels=c, out_channels=out, kernel_size=kernel, stride=stride, pad_mode=pad_mode,
                    padding=padding, dilation=dilation, group=group, has_bias=draw(st.booleans()))
        norm = draw(st.booleans())
        act = draw(st.sampled_from(sorted(ACTIVATIONS)))
        pool = draw(st.sampled_from([None, "max", "avg"]))
        pool_k, pool_s = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        if pool is not None and h >= pool_k:
            h = (h - pool_k) // pool_s + 1
        else:
            pool = None
        specs.append((conv, norm, act, (pool, pool_k, pool_s)))
        c = out
    if not specs:   # the first convolution already left nothing: a 1x1 one
        specs.append((dict(in_channels=c, out_channels=2, kernel_size=1, has_bias=True), False, "none", (None, 1, 1)))
        c = 2
    hidden = draw(st.sampled_from([None, (5, "relu"), (4, "tanh"), (6, "none")]))  # a dense layer before the last
    return channels, side, specs, c * h * h, hidden


class RandomCNN(nn.Cell):
    def __init__(self, specs, features, hidden, rng):
        super().__init__()
        layers = []
        for conv, norm, act, (pool, k, s) in specs:
            layers.append(nn.Conv2d(**conv))
            if norm:
                bn = nn.BatchNorm2d(conv["out_channels"])
                shape = (conv["out_channels"],)
                bn.moving_mean.set_data(ms.Tensor(rng.uniform(-0.5, 0.5, shape).astype(np.float32)))
                bn.moving_variance.set_data(ms.Tensor(rng.uniform(0.5, 2.0, shape).astype(np.float32)))
                bn.gamma.set_data(ms.Tensor(rng.uniform(0.5, 1.5, shape).astype(np.float32)))
                bn.beta.set_data(ms.Tensor(rng.uniform(-0.5, 0.5, shape).astype(np.float32)))
                layers.append(bn)
            if ACTIVATIONS[act] is not None:
                layers.append(ACTIVATIONS[act]())
            if pool is not None:
                layers.append((nn.MaxPool2d if pool == "max" else nn.AvgPool2d)(kernel_size=k, stride=s))
        self.features = nn.SequentialCell(layers)
        self.flatten = nn.Flatten()
        head = []
        if hidden is not None:
            width, act = hidden
            head.append(nn.Dense(features, width, has_bias=act != "relu"))
            if ACTIVATIONS[act] is not None:
                head.append(ACTIVATIONS[act]())
            features = width
        self.head = nn.SequentialCell(head + [nn.Dense(features, 3)])

    def construct(self, x):
        return self.head(self.flatten(self.features(x)))


def _members(arch, n, seed):
    channels, side, specs, features, hidden = arch
    rng = np.random.default_rng(seed)
    nets = []
    for k in range(n):
        ms.set_seed(seed + k)
        nets.append(RandomCNN(specs, features, hidden, rng))
    return nets


def _inputs(arch, n, shared, batch, seed):
    channels, side = arch[0], arch[1]
    shape = (batch, channels, side, side) if shared else (n, batch, channels, side, side)
    return np.random.default_rng(seed + 1).standard_normal(shape).astype(np.float32)


def _one_by_one(nets, x, shared):
    return np.stack([net(ms.Tensor(x if shared else x[k])).asnumpy() for k, net in enumerate(nets)])


@ENSEMBLES
@given(arch=architectures(), n=st.integers(2, 3), shared=st.booleans(),
       strategy=st.sampled_from([None, "wide", "grouped", "unrolled"]), reduce=st.sampled_from(HEADS),
       opset=st.sampled_from([17, 18, 23]), seed=st.integers(0, 2**16))
def test_cnn_ensembles_equal_their_members_one_by_one(tmp_path, arch, n, shared, strategy, reduce, opset, seed):
    nets = _members(arch, n, seed)
    in_axes = None if shared else 0
    x = _inputs(arch, n, shared, 4, seed)
    want = _one_by_one(nets, x, shared)
    ensemble = ms.vmap(nn.CellList(nets), in_axes=in_axes, conv_strategy=strategy)
    np.testing.assert_allclose(ensemble(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ms.jit(ensemble)(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ms.jit(ensemble, backend="onnx")(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)

    # One file for every batch size; batch 1 runs the stacked form, batch 4 the members' chains;
    # with an ensemble head in the graph or without.
    path = str(tmp_path / "ensemble.onnx")
    ms.export(ms.vmap(nn.CellList(nets), in_axes=in_axes), ms.Tensor(x), file_name=path, reduce=reduce, opset=opset)
    session = Session(path, providers=["cpu"])
    for batch in (1, 4):
        xb = _inputs(arch, n, shared, batch, seed + batch)
        got, want = session(xb), _head(reduce, _one_by_one(nets, xb, shared))
        for g, w in zip(got if isinstance(got, list) else [got], want):
            if reduce == "vote":   # a near tie of two members' logits may go either way
                assert (g == w).mean() >= 0.75, (g, w)
                continue
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"onnxruntime at batch {batch}")


def _head(reduce, outputs):
    """export's ensemble heads on the members' outputs [N, batch, classes], in numpy."""
    if reduce is None:
        return [outputs]
    shifted = np.exp(outputs - outputs.max(-1, keepdims=True))
    probs = shifted / shifted.sum(-1, keepdims=True)
    if reduce == "mean":
        return [probs.mean(0)]
    if reduce == "mean_std":
        return [probs.mean(0), probs.std(0)]
    votes = np.eye(outputs.shape[-1])[outputs.argmax(-1)].sum(0)   # [batch, classes]
    return [votes.argmax(-1)]                                      # ties: the lower class


def _train_steps(arch, n, seed, lr, train_mode):
    """Each member's TrainOneStepCell (softmax cross-entropy, SGD with momentum; Adam would turn
    float32 noise in a near-zero gradient into a full step), and its members' nets (in training
    mode: BatchNorm normalises by the batch's statistics and updates its moving ones)."""
    nets = _members(arch, n, seed)
    for net in nets:
        net.set_train(train_mode)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return nets, [nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), learning_rate=lr,
                                                                           momentum=0.9))
                  for net in nets]


@ENSEMBLES
@given(arch=architectures(), n=st.integers(2, 3), backend=st.sampled_from(["xla", "onnx"]),
       strategy=st.sampled_from([None, "wide", "grouped", "unrolled"]), train_mode=st.booleans(),
       seed=st.integers(0, 2**16))
def test_cnn_ensemble_training_steps_equal_their_members_one_by_one(arch, n, backend, strategy, train_mode, seed):
    """Two vmapped steps (member k's minibatch: x[k]) under XLA or through onnxruntime, against
    each member's own jitted steps: the losses and every updated parameter."""
    x = _inputs(arch, n, False, 4, seed)
    y = np.random.default_rng(seed + 2).integers(0, 3, (n, 4)).astype(np.int32)
    lr = 0.1
    alone, alone_steps = _train_steps(arch, n, seed, lr, train_mode)
    together, together_steps = _train_steps(arch, n, seed, lr, train_mode)
    one_by_one = [ms.jit(step) for step in alone_steps]
    ensemble = ms.jit(ms.vmap(nn.CellList(together_steps), conv_strategy=strategy), backend=backend)
    for _ in range(2):
        want = np.array([float(step(ms.Tensor(x[k]), ms.Tensor(y[k])).asnumpy()) for k, step in enumerate(one_by_one)])
        np.testing.assert_allclose(ensemble(ms.Tensor(x), ms.Tensor(y)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    for a, b in zip(alone, together):
        for (name, p), q in zip(a.parameters_and_names(), b.get_parameters()):
            np.testing.assert_allclose(q.asnumpy(), p.asnumpy(), rtol=1e-4, atol=2e-5, err_msg=name)


@ENSEMBLES
@given(arch=architectures(), seed=st.integers(0, 2**16))
def test_cnn_gradients_equal_central_differences_in_float64(arch, seed):
    """A member's gradients with respect to every parameter (every padding mode, stride,
    dilation and group count of the convolutions, the pools, BatchNorm in training mode and the
    head), in float64, against central differences at a few random elements of each."""
    net = _members(arch, 1, seed)[0]
    net.set_train(True)
    for p in net.get_parameters():
        p.set_dtype(ms.float64)
    x = ms.Tensor(_inputs(arch, 1, True, 3, seed).astype(np.float64))
    probe = ms.Tensor(np.random.default_rng(seed + 3).standard_normal((3, 3)))

    def loss():
        return (net(x) * probe).sum()

    weights = net.trainable_params()
    grads = ms.grad(loss, grad_position=None, weights=weights)()
    rng = np.random.default_rng(seed + 4)
    eps = 1e-6
    for p, g in zip(weights, grads):
        value = p.asnumpy().copy()
        for flat in rng.choice(value.size, min(3, value.size), replace=False):
            index = np.unravel_index(flat, value.shape)
            losses = []
            for step in (eps, -eps):
                moved = value.copy()
                moved[index] += step
                p.set_data(ms.Tensor(moved))
                losses.append(float(loss().asnumpy()))
            p.set_data(ms.Tensor(value))
            numeric = (losses[0] - losses[1]) / (2 * eps)
            np.testing.assert_allclose(g.asnumpy()[index], numeric, rtol=1e-5, atol=1e-7, err_msg=f"{p.name}{index}")


class RandomEncoder(nn.Cell):
    """A pre-norm transformer block of random size (the Attention and LayerNormalization
    fusions' pattern at opset 23), optionally causal, then a classifier on the tokens' mean."""

    def __init__(self, dim, heads, causal, tokens, rng):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.ln1, self.ln2 = nn.LayerNorm((dim,)), nn.LayerNorm((dim,))
        self.qkv, self.proj = nn.Dense(dim, 3 * dim), nn.Dense(dim, dim)
        self.fc1, self.fc2, self.gelu = nn.Dense(dim, 2 * dim), nn.Dense(2 * dim, dim), nn.GELU()
        self.head = nn.Dense(dim, 3)
        for ln in (self.ln1, self.ln2):
            ln.gamma.set_data(ms.Tensor(rng.uniform(0.5, 1.5, dim).astype(np.float32)))
            ln.beta.set_data(ms.Tensor(rng.uniform(-0.5, 0.5, dim).astype(np.float32)))
        self.mask = ms.Tensor(np.triu(np.full((tokens, tokens), -1e9, np.float32), 1))

    def construct(self, x):
        b, t, d = x.shape
        q, k, v = (ops.transpose(ops.reshape(z, (b, t, self.heads, d // self.heads)), (0, 2, 1, 3))
                   for z in ops.split(self.qkv(self.ln1(x)), d, axis=-1))
        scores = ops.matmul(q, ops.swapaxes(k, -1, -2)) * (1.0 / float(np.sqrt(d // self.heads)))
        if self.causal:
            scores = scores + self.mask
        attended = ops.matmul(ops.softmax(scores, -1), v)
        x = x + self.proj(ops.reshape(ops.transpose(attended, (0, 2, 1, 3)), (b, t, d)))
        x = x + self.fc2(self.gelu(self.fc1(self.ln2(x))))
        return self.head(ops.mean(x, 1))


@ENSEMBLES
@given(heads=st.integers(1, 2), head_dim=st.integers(2, 4), tokens=st.integers(2, 5), causal=st.booleans(),
       n=st.integers(2, 3), shared=st.booleans(), opset=st.sampled_from([18, 23]), seed=st.integers(0, 2**16))
def test_encoder_ensembles_equal_their_members_one_by_one(tmp_path, heads, head_dim, tokens, causal, n, shared,
                                                          opset, seed):
    dim = heads * head_dim
    rng = np.random.default_rng(seed)
    nets = []
    for k in range(n):
        ms.set_seed(seed + k)
        nets.append(RandomEncoder(dim, heads, causal, tokens, rng))
    in_axes = None if shared else 0

    def inputs(batch, offset):
        shape = (batch, tokens, dim) if shared else (n, batch, tokens, dim)
        return np.random.default_rng(seed + offset).standard_normal(shape).astype(np.float32)
    x = inputs(3, 1)
    want = _one_by_one(nets, x, shared)
    ensemble = ms.vmap(nn.CellList(nets), in_axes=in_axes)
    np.testing.assert_allclose(ms.jit(ensemble)(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ms.jit(ensemble, backend="onnx")(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    path = str(tmp_path / "encoders.onnx")
    ms.export(ms.vmap(nn.CellList(nets), in_axes=in_axes), ms.Tensor(x), file_name=path, opset=opset)
    session = Session(path, providers=["cpu"])
    for batch in (1, 4):
        xb = inputs(batch, batch + 2)
        np.testing.assert_allclose(session(xb), _one_by_one(nets, xb, shared), rtol=1e-4, atol=1e-5,
                                   err_msg=f"onnxruntime at batch {batch}")
