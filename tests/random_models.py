"""Random small models for the ensemble property tests: CNN architectures drawn by hypothesis
(`architectures`), the Cells they build, transformer blocks, and the members' reference run."""
import numpy as np
from hypothesis import strategies as st

import graphcell as ms
from graphcell import nn, ops

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "gelu": nn.GELU, "sigmoid": nn.Sigmoid, "none": None}


def out_size(size, kernel, stride, dilation, pad_mode, padding):
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
        if out_size(h, kernel, stride, dilation, pad_mode, padding) < 1:
            break
        h = out_size(h, kernel, stride, dilation, pad_mode, padding)
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


def members(arch, n, seed):
    channels, side, specs, features, hidden = arch
    rng = np.random.default_rng(seed)
    nets = []
    for k in range(n):
        ms.set_seed(seed + k)
        nets.append(RandomCNN(specs, features, hidden, rng))
    return nets


def inputs(arch, n, shared, batch, seed):
    channels, side = arch[0], arch[1]
    shape = (batch, channels, side, side) if shared else (n, batch, channels, side, side)
    return np.random.default_rng(seed + 1).standard_normal(shape).astype(np.float32)


def one_by_one(nets, x, shared):
    return np.stack([net(ms.Tensor(x if shared else x[k])).asnumpy() for k, net in enumerate(nets)])


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
