"""Inference of wider models than LeNet5, alone and as ensembles: graphcell vs jax and torch.

    python bench/bench_models.py            # every model; N in 1,4,16 x batch 1,32,256
    python bench/bench_models.py --quick    # N in 1,4 x batch 1,32
    python bench/bench_models.py --model mlp

Models (graphcell nn Cells below, written again in plain jax and torch with the same parameters):
  resnet  3x32x32 input; stem Conv3x3(16)-BN-ReLU; two residual blocks
          [Conv3x3-BN-ReLU-Conv3x3-BN, + skip, ReLU]; global average pool; Dense(16, 10).
          BatchNorm in eval mode with random moving statistics (so BN is not an identity).
  mlp     784-512-512-10, ReLU.
  encoder a pre-norm transformer encoder block over 16 tokens of 64 features: LayerNorm,
          4-head self-attention (softmax), residual, LayerNorm, 64-256-64 GELU MLP, residual;
          the tokens' mean; Dense(64, 10). torch's row uses scaled_dot_product_attention.
Rows (N = 1 is the single model; N > 1 an ensemble of N models on one shared minibatch):
  gc xla      graphcell on XLA: jit(net) for N = 1, vmap(nn.CellList(nets), in_axes=None) for N > 1
  gc onnx     graphcell.export of the same at opset 23 (the default is 18; 23 has Attention), run
              by graphcell.runtime.Session (onnxruntime, CPU)
  jax         jax.jit(model) for N = 1, jax.jit(jax.vmap(model)) over stacked parameters for N > 1
  jax loop    a jitted single model called N times in a Python loop, outputs stacked
  torch       torch eval modules in inference_mode, called N times in a loop
  torch.func  torch.func.vmap(functional_call) over stacked parameters and buffers (N > 1)
  torch.onnx  torch.onnx.export (dynamo=False) of a module running the N models one after
              another (opset 18: its TorchScript exporter writes no Attention), in an
              onnxruntime InferenceSession
Every row's output is checked against the jax row before timing. Times are medians in ms, timed
round-robin; ratio = min(gc xla, gc onnx) / min(peers) (goal: <= 1.0); GFLOP/s counts the
convolutions and matmuls of graphcell's best row, %peak against the float32 matmul rate
(the better of two measurements, at the start and at the end).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.common import BURST, matmul_gflops, medians_ms, numpy_params, ort_session_options, table  # noqa: E402


import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402

import graphcell as ms  # noqa: E402
from graphcell import nn, ops  # noqa: E402
from graphcell.runtime import Session  # noqa: E402

WIDTH = 16  # channels of the ResNet-style CNN
TOKENS, DIM, HEADS = 16, 64, 4  # the transformer encoder block's input [TOKENS, DIM] and heads


# -- graphcell models ---------------------------------------------------------------------------
class ConvBN(nn.Cell):
    """Conv3x3 ('same', no bias) then BatchNorm."""

    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, pad_mode="same")
        self.bn = nn.BatchNorm2d(cout)

    def construct(self, x):
        return self.bn(self.conv(x))


class ResidualBlock(nn.Cell):
    def __init__(self, width):
        super().__init__()
        self.a, self.b = ConvBN(width, width), ConvBN(width, width)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(x + self.b(self.relu(self.a(x))))


class SmallResNet(nn.Cell):
    def __init__(self, width=WIDTH, num_class=10):
        super().__init__()
        self.stem = ConvBN(3, width)
        self.block1, self.block2 = ResidualBlock(width), ResidualBlock(width)
        self.relu = nn.ReLU()
        self.fc = nn.Dense(width, num_class)

    def construct(self, x):
        x = self.block2(self.block1(self.relu(self.stem(x))))
        return self.fc(ops.mean(x, (2, 3)))


class MLP(nn.Cell):
    def __init__(self, sizes=(784, 512, 512, 10)):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = (nn.Dense(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


class Encoder(nn.Cell):
    """A pre-norm transformer encoder block over [B, TOKENS, DIM] tokens (HEADS-head
    self-attention, a GELU MLP), then a classifier on the tokens' mean."""

    def __init__(self, dim=DIM, heads=HEADS, num_class=10):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm((dim,), epsilon=1e-5), nn.LayerNorm((dim,), epsilon=1e-5)
        self.qkv, self.proj = nn.Dense(dim, 3 * dim), nn.Dense(dim, dim)
        self.fc1, self.fc2 = nn.Dense(dim, 4 * dim), nn.Dense(4 * dim, dim)
        self.gelu = nn.GELU(approximate=False)
        self.head = nn.Dense(dim, num_class)

    def construct(self, x):
        b, t, d = x.shape
        q, k, v = (ops.transpose(ops.reshape(z, (b, t, self.heads, d // self.heads)), (0, 2, 1, 3))
                   for z in ops.split(self.qkv(self.ln1(x)), d, axis=-1))
        attention = ops.softmax(ops.matmul(q, ops.swapaxes(k, -1, -2)) * (1.0 / math.sqrt(d // self.heads)), -1)
        x = x + self.proj(ops.reshape(ops.transpose(ops.matmul(attention, v), (0, 2, 1, 3)), (b, t, d)))
        x = x + self.fc2(self.gelu(self.fc1(self.ln2(x))))
        return self.head(ops.mean(x, 1))


def randomize_bn(net, rng):
    """Random BN statistics and affine parameters, so a wrong BN lowering cannot pass the check."""
    for name, p in net.parameters_and_names():   # (a LayerNorm's gamma and beta too)
        if name.endswith(("moving_mean", "beta")):
            p.set_data(ms.Tensor(rng.normal(0, 0.1, p.shape).astype(np.float32)))
        elif name.endswith(("moving_variance", "gamma")):
            p.set_data(ms.Tensor(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))


# -- plain jax peers, parameters keyed by graphcell's names -----------------------------------------
def _jax_conv_bn(p, x, prefix, eps=1e-5):
    x = jax.lax.conv_general_dilated(x, p[prefix + "conv.weight"], (1, 1), "SAME")
    scale = p[prefix + "bn.gamma"] * jax.lax.rsqrt(p[prefix + "bn.moving_variance"] + eps)
    shift = p[prefix + "bn.beta"] - p[prefix + "bn.moving_mean"] * scale
    return x * scale[:, None, None] + shift[:, None, None]


def jax_resnet(p, x):
    x = jax.nn.relu(_jax_conv_bn(p, x, "stem."))
    for block in ("block1.", "block2."):
        y = jax.nn.relu(_jax_conv_bn(p, x, block + "a."))
        x = jax.nn.relu(x + _jax_conv_bn(p, y, block + "b."))
    return x.mean((2, 3)) @ p["fc.weight"].T + p["fc.bias"]


def jax_mlp(p, x):
    x = jax.nn.relu(x @ p["fc1.weight"].T + p["fc1.bias"])
    x = jax.nn.relu(x @ p["fc2.weight"].T + p["fc2.bias"])
    return x @ p["fc3.weight"].T + p["fc3.bias"]


def _jax_layer_norm(p, x, prefix, eps=1e-5):
    centered = x - x.mean(-1, keepdims=True)
    var = (centered * centered).mean(-1, keepdims=True)
    return centered * jax.lax.rsqrt(var + eps) * p[prefix + ".gamma"] + p[prefix + ".beta"]


def jax_encoder(p, x):
    b, t, d = x.shape
    dense = lambda name, z: z @ p[name + ".weight"].T + p[name + ".bias"]  # noqa: E731
    q, k, v = (z.reshape(b, t, HEADS, d // HEADS).transpose(0, 2, 1, 3)
               for z in jnp.split(dense("qkv", _jax_layer_norm(p, x, "ln1")), 3, -1))
    attention = jax.nn.softmax(q @ k.swapaxes(-1, -2) / math.sqrt(d // HEADS), -1)
    x = x + dense("proj", (attention @ v).transpose(0, 2, 1, 3).reshape(b, t, d))
    x = x + dense("fc2", jax.nn.gelu(dense("fc1", _jax_layer_norm(p, x, "ln2")), approximate=False))
    return dense("head", x.mean(1))


# -- torch peers: modules with the same attribute names ------------------------------------------------
class TorchConvBN(torch.nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(cout, eps=1e-5)

    def forward(self, x):
        return self.bn(self.conv(x))


class TorchResNet(torch.nn.Module):
    def __init__(self, width=WIDTH, num_class=10):
        super().__init__()
        self.stem = TorchConvBN(3, width)
        self.blocks = torch.nn.ModuleList(
            torch.nn.ModuleDict({"a": TorchConvBN(width, width), "b": TorchConvBN(width, width)}) for _ in range(2))
        self.fc = torch.nn.Linear(width, num_class)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        for b in self.blocks:
            x = torch.relu(x + b["b"](torch.relu(b["a"](x))))
        return self.fc(x.mean((2, 3)))


class TorchMLP(torch.nn.Module):
    def __init__(self, sizes=(784, 512, 512, 10)):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = (torch.nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class TorchEncoder(torch.nn.Module):
    def __init__(self, dim=DIM, heads=HEADS, num_class=10):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(dim), torch.nn.LayerNorm(dim)
        self.qkv, self.proj = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)
        self.fc1, self.fc2 = torch.nn.Linear(dim, 4 * dim), torch.nn.Linear(4 * dim, dim)
        self.head = torch.nn.Linear(dim, num_class)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for z in self.qkv(self.ln1(x)).split(d, -1))
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        x = x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))
        return self.head(x.mean(1))


_BN_NAMES = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean", "moving_variance": "running_var"}


def torch_state(params: dict) -> dict:
    """graphcell names -> the torch modules' state_dict names (BN fields; block1 -> blocks.0)."""
    out = {}
    for name, value in params.items():
        parts = name.split(".")
        if parts[0].startswith("block"):
            parts = ["blocks", str(int(parts[0][5:]) - 1)] + parts[1:]
        if parts[-2:-1] in (["bn"], ["ln1"], ["ln2"]):
            parts[-1] = _BN_NAMES.get(parts[-1], parts[-1])
        out[".".join(parts)] = torch.from_numpy(value.copy())
    return out


class TorchUnrolled(torch.nn.Module):
    """N torch models one after another, outputs stacked: what torch.onnx exports."""

    def __init__(self, members):
        super().__init__()
        self.members = torch.nn.ModuleList(members)

    def forward(self, x):
        return torch.stack([m(x) for m in self.members])


# -- the workloads ----------------------------------------------------------------------------------
MODELS = {
    # name: (graphcell Cell, torch Module, jax function, input shape per example, FLOPs per example)
    "resnet": (SmallResNet, TorchResNet, jax_resnet, (3, 32, 32),
               2 * 32 * 32 * (3 * WIDTH * 9 + 4 * WIDTH * WIDTH * 9) + 2 * WIDTH * 10),
    "mlp": (MLP, TorchMLP, jax_mlp, (784,), 2 * (784 * 512 + 512 * 512 + 512 * 10)),
    "encoder": (Encoder, TorchEncoder, jax_encoder, (TOKENS, DIM),
                2 * TOKENS * DIM * (3 * DIM + DIM + 8 * DIM) + 4 * TOKENS * TOKENS * DIM + 2 * DIM * 10),
}


class Contenders:
    """Every row's callable for one model and N, built once and reused for every batch size."""

    def __init__(self, model: str, n: int, tmp: str):
        cell_cls, torch_cls, jax_fn, shape, _ = MODELS[model]
        ms.set_seed(n)
        rng = np.random.default_rng(n)
        nets = [cell_cls() for _ in range(n)]
        for net in nets:
            randomize_bn(net, rng)
        params = [numpy_params(net) for net in nets]
        example = ms.Tensor(np.zeros((3, *shape), np.float32))
        path = os.path.join(tmp, f"{model}{n}.onnx")
        self.n = n
        # Opset 23 (the default is 18): the encoder's attention becomes one Attention node.
        if n == 1:
            self.gc = ms.jit(nets[0])
            ms.export(nets[0], example, file_name=path, input_names=["x"], opset=23)
        else:
            self.gc = ms.vmap(nn.CellList(nets), in_axes=None)
            ms.export(self.gc, example, file_name=path, input_names=["x"], opset=23)
        self.gc_onnx = Session(path, providers=["cpu"])

        jparams = [{k: jnp.asarray(v) for k, v in p.items()} for p in params]
        self.jax_one = jax.jit(jax_fn)
        self.jax_vmap = jax.jit(jax.vmap(jax_fn, in_axes=(0, None)))
        self.jax_stacked = {k: jnp.stack([p[k] for p in jparams]) for k in jparams[0]}
        self.jparams = jparams

        self.torch_nets = []
        for p in params:
            module = torch_cls().eval()
            module.load_state_dict(torch_state(p), strict=False)  # (num_batches_tracked stays)
            self.torch_nets.append(module)
        base = self.torch_nets[0]
        stacked = {k: torch.stack([dict(m.named_parameters(), **dict(m.named_buffers()))[k] for m in self.torch_nets])
                   for k, v in {**dict(base.named_parameters()), **dict(base.named_buffers())}.items()
                   if v.dtype.is_floating_point}
        call = lambda state, x: torch.func.functional_call(base, state, (x,))  # noqa: E731
        self.torch_func = lambda x: torch.func.vmap(call, in_dims=(0, None))(stacked, x)  # noqa: E731
        tpath = os.path.join(tmp, f"torch_{model}{n}.onnx")
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(TorchUnrolled(self.torch_nets).eval(), (torch.zeros(3, *shape),), tpath,
                              input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "batch"}, "y": {1: "batch"}},
                              opset_version=18, dynamo=False)
        self.torch_onnx = ort.InferenceSession(tpath, ort_session_options(), providers=["CPUExecutionProvider"])

    def rows(self, x_np: np.ndarray) -> dict:
        """{row name: fn() -> output [N, batch, 10] (or [batch, 10] for N = 1)}."""
        x, xj, xt = ms.Tensor(x_np), jnp.asarray(x_np), torch.from_numpy(x_np)
        single = self.n == 1

        def torch_loop():
            with torch.inference_mode():
                outs = [m(xt) for m in self.torch_nets]
            return outs[0] if single else torch.stack(outs)

        def torch_func():
            with torch.inference_mode():
                return self.torch_func(xt)

        fns = {
            "gc xla": lambda: self.gc(x),
            "gc onnx": lambda: self.gc_onnx(x_np),
            "jax": (lambda: self.jax_one(self.jparams[0], xj)) if single
            else (lambda: self.jax_vmap(self.jax_stacked, xj)),
            "jax loop": None if single else (lambda: jnp.stack([self.jax_one(p, xj) for p in self.jparams])),
            "torch": torch_loop,
            "torch.func": None if single else torch_func,
            "torch.onnx": lambda: self.torch_onnx.run(None, {"x": x_np})[0],
        }
        return {k: f for k, f in fns.items() if f is not None}


def as_numpy(out) -> np.ndarray:
    if isinstance(out, ms.Tensor):
        return out.asnumpy()
    if isinstance(out, torch.Tensor):
        return out.detach().numpy()
    return np.asarray(out)


def check_rows(fns: dict, reference: str, what: str) -> None:
    """Every row must compute the reference row's answer (a fast wrong answer is no result)."""
    want = as_numpy(fns[reference]())
    scale = max(1.0, float(np.abs(want).max()))
    for name, fn in fns.items():
        got = as_numpy(fn())
        got = got.reshape(want.shape) if got.size == want.size else got
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-3, atol=1e-4 * scale):
            err = np.abs(got - want).max() if got.shape == want.shape else f"shape {got.shape} vs {want.shape}"
            raise AssertionError(f"{what}: row {name!r} disagrees with {reference!r} (max error {err})")


PEERS = ("jax", "jax loop", "torch", "torch.func", "torch.onnx")


def run(model: str, ns, batches, budget_s: float) -> list[dict]:
    flops = MODELS[model][4]
    tmp = tempfile.mkdtemp()
    rows = []
    for n in ns:
        contenders = Contenders(model, n, tmp)
        for b in batches:
            x_np = np.random.default_rng(b).standard_normal((b, *MODELS[model][3])).astype(np.float32)
            fns = contenders.rows(x_np)
            check_rows(fns, "jax", f"{model} N={n} batch={b}")
            got = medians_ms(fns, budget_s=budget_s, min_rounds=3, burst=BURST)
            best_gc = min(got["gc xla"], got["gc onnx"])
            gflops = n * b * flops / (best_gc * 1e-3) / 1e9
            row = {"model": model, "N": n, "batch": b, **got,
                   "ratio": best_gc / min(v for k, v in got.items() if k in PEERS), "GFLOP/s": gflops}
            rows.append(row)
            print(", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()),
                  file=sys.stderr, flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N in 1,4 x batch 1,32")
    parser.add_argument("--model", choices=sorted(MODELS), action="append", help="default: every model")
    parser.add_argument("--budget", type=float, default=None, help="seconds of round-robin timing per row")
    args = parser.parse_args()
    ns, batches = ((1, 4), (1, 32)) if args.quick else ((1, 4, 16), (1, 32, 256))
    budget = args.budget if args.budget is not None else (1.0 if args.quick else 3.0)
    peak = matmul_gflops()
    rows = []
    for model in args.model or sorted(MODELS, reverse=True):
        rows += run(model, ns, batches, budget)
    # The shared machine's load changes during the run: the better of two measurements of the
    # peak is the closer to the machine's real limit.
    peak = max(peak, matmul_gflops())
    for row in rows:
        row["%peak"] = 100 * row["GFLOP/s"] / peak
    print(f"torch {torch.__version__} ({torch.get_num_threads()} threads), onnxruntime {ort.__version__}, "
          f"jax {jax.__version__}; {os.cpu_count()} cores; float32 matmul peak (XLA, best of start and end) "
          f"{peak:.0f} GFLOP/s; median ms")
    print(table(rows, ["model", "N", "batch", "gc xla", "gc onnx", *PEERS, "ratio", "GFLOP/s", "%peak"]))


if __name__ == "__main__":
    main()
