"""Ensemble inference of N LeNet5 models in onnxruntime (CPU): graphcell's one-file ensemble
vs three other ways to serve the same N models.

    python bench/bench_onnx.py             # N in 4,16,64 x batch 1,32,256, plus export times
    python bench/bench_onnx.py --quick     # N in 4,16 x batch 1,32
    python bench/bench_onnx.py --single    # single-model rows only (no vmap needed)

Peers, all run by onnxruntime on CPU with the same session options:
  (a) torch     torch.onnx.export (dynamo=False) of a torch module that runs the N models
                one after another and stacks their outputs
  (b) batched   a hand-built ONNX graph of the batched-weights form: the first convolution
                widened to N*6 channels over the shared input, a grouped convolution after it,
                batched MatMul for the dense layers
  (c) sessions  N separate single-model sessions, called in turn, outputs stacked
graphcell: `export(vmap(nn.CellList(nets), in_axes=None), x)`, one file for every batch size.
Export time (N=16): trace, passes, write and session ready, the median of 5 exports timed in
turn with torch.onnx.export plus its session.
Times are medians in ms, timed round-robin (every contender alike under this shared machine's
load); (c), whose N sessions leave 2N threads spinning, is timed after the others.
ratio = graphcell / min(a, b) (goal: <= 1.0). GFLOP/s counts the convolutions and matmuls of
N * batch LeNet5 forwards (0.83 MFLOP each).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from bench.common import (BURST, matmul_gflops, medians_ms, numpy_params as params_of,  # noqa: E402
                          ort_session_options, table)

EXPORT_REPEATS = 5
FLOPS_PER_IMAGE = 2 * (6 * 28 * 28 * 25 + 16 * 10 * 10 * 150 + 400 * 120 + 120 * 84 + 84 * 10)


def make_nets(n: int):
    import graphcell as ms
    from tests.models.lenet import LeNet5
    ms.set_seed(1)
    return [LeNet5() for _ in range(n)]


def session(model_or_path):
    options = ort_session_options()
    source = model_or_path.SerializeToString() if isinstance(model_or_path, onnx.ModelProto) else model_or_path
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


# -- graphcell -----------------------------------------------------------------------------------
def graphcell_file(nets, path):
    import graphcell as ms
    from graphcell import nn
    x = ms.Tensor(np.zeros((3, 1, 32, 32), np.float32))
    t0 = time.perf_counter()
    if len(nets) == 1:
        ms.export(nets[0], x, file_name=path)
    else:
        ms.export(ms.vmap(nn.CellList(nets), in_axes=None), x, file_name=path, input_names=["x"])
    sess = session(path)
    return sess, time.perf_counter() - t0


# -- (a) torch.onnx of the unrolled module ----------------------------------------------------------
def torch_file(nets, path):
    import torch
    import torch.nn.functional as F

    class Unrolled(torch.nn.Module):
        def __init__(self, params):
            super().__init__()
            self.ps = torch.nn.ParameterList([torch.nn.Parameter(torch.from_numpy(p[k]), requires_grad=False)
                                              for p in params for k in sorted(p)])
            self.keys = sorted(params[0])
            self.n = len(params)

        def construct_one(self, x, p):
            x = F.max_pool2d(F.relu(F.conv2d(x, p["conv1.weight"])), 2)
            x = F.max_pool2d(F.relu(F.conv2d(x, p["conv2.weight"])), 2)
            x = torch.flatten(x, 1)
            x = F.relu(F.linear(x, p["fc1.weight"], p["fc1.bias"]))
            x = F.relu(F.linear(x, p["fc2.weight"], p["fc2.bias"]))
            return F.linear(x, p["fc3.weight"], p["fc3.bias"])

        def forward(self, x):
            k = len(self.keys)
            outs = [self.construct_one(x, dict(zip(self.keys, self.ps[i * k:(i + 1) * k]))) for i in range(self.n)]
            return torch.stack(outs, 0)

    module = Unrolled([params_of(n) for n in nets]).eval()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (torch.zeros(3, 1, 32, 32),), path, input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch"}, "y": {1: "batch"}}, opset_version=18, dynamo=False)
    sess = session(path)
    return sess, time.perf_counter() - t0


# -- (b) the hand-built batched-weights graph ---------------------------------------------------------
def batched_model(nets) -> onnx.ModelProto:
    n = len(nets)
    ps = [params_of(net) for net in nets]
    stack = lambda k: np.stack([p[k] for p in ps])  # noqa: E731
    init = {
        "w1": stack("conv1.weight").reshape(n * 6, 1, 5, 5),
        "w2": stack("conv2.weight").reshape(n * 16, 6, 5, 5),
        "f1": stack("fc1.weight").transpose(0, 2, 1).copy(), "b1": stack("fc1.bias")[:, None, :],
        "f2": stack("fc2.weight").transpose(0, 2, 1).copy(), "b2": stack("fc2.bias")[:, None, :],
        "f3": stack("fc3.weight").transpose(0, 2, 1).copy(), "b3": stack("fc3.bias")[:, None, :],
        "shape": np.array([0, n, 400], np.int64),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], kernel_shape=[5, 5]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], kernel_shape=[5, 5], group=n),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("MaxPool", ["r2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["p2", "shape"], ["h0"]),
        helper.make_node("Transpose", ["h0"], ["h"], perm=[1, 0, 2]),
        helper.make_node("MatMul", ["h", "f1"], ["m1"]), helper.make_node("Add", ["m1", "b1"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["z1"]),
        helper.make_node("MatMul", ["z1", "f2"], ["m2"]), helper.make_node("Add", ["m2", "b2"], ["a2"]),
        helper.make_node("Relu", ["a2"], ["z2"]),
        helper.make_node("MatMul", ["z2", "f3"], ["m3"]), helper.make_node("Add", ["m3", "b3"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "batched", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 1, 32, 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, "batch", 10])],
                              [numpy_helper.from_array(v, k) for k, v in init.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def run_all(sessions):
    def go(x):
        return np.stack([s.run(None, {"x": x})[0] for s in sessions])
    return go


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--quick", action="store_true", help="N in 4,16 x batch 1,32")
    parser.add_argument("--single", action="store_true", help="single-model rows only (no vmap needed)")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds of timing per point")
    args = parser.parse_args()
    ns = [1] if args.single else ([4, 16] if args.quick else [4, 16, 64])
    batches = [1, 32] if args.quick else [1, 32, 256]
    tmp = tempfile.mkdtemp()
    rng = np.random.default_rng(0)
    rows, export_rows = [], []
    peak = matmul_gflops()
    # Every file first, while no session has run: onnxruntime's worker threads spin for a while
    # after each call and would slow whichever export came next (see README "Reading the numbers").
    files = {}
    for n in ns:
        nets = make_nets(n)
        # N=16's export is timed EXPORT_REPEATS times in turn with torch's (medians): one
        # export is a few hundred ms of Python, where this machine's noise is 10-30%.
        times = {"graphcell": [], "torch": []}
        for _ in range(EXPORT_REPEATS if n == 16 else 1):
            gc, gc_s = graphcell_file(nets, os.path.join(tmp, f"gc{n}.onnx"))
            th, th_s = torch_file(nets, os.path.join(tmp, f"torch{n}.onnx"))
            times["graphcell"].append(gc_s)
            times["torch"].append(th_s)
        bt = session(batched_model(nets)) if n > 1 else None
        singles = [graphcell_file([net], os.path.join(tmp, f"one{n}_{i}.onnx"))[0] for i, net in enumerate(nets)]
        files[n] = (gc, th, bt, singles)
        if n == 16:
            gc_s, th_s = statistics.median(times["graphcell"]), statistics.median(times["torch"])
            export_rows.append({"N": n, "graphcell export+session s": round(gc_s, 3),
                                "torch.onnx.export+session s": round(th_s, 3), "ratio": round(gc_s / th_s, 2),
                                "exports": len(times["graphcell"])})
    for n in ns:
        gc, th, bt, singles = files[n]
        for b in batches:
            x = rng.standard_normal((b, 1, 32, 32)).astype(np.float32)
            ref = th.run(None, {"x": x})[0]
            got = gc.run(None, {"x": x})[0]
            assert np.abs(got.reshape(ref.shape) - ref).max() < 1e-3, "graphcell and torch disagree"
            feed = {"x": x}
            fns = {"graphcell": lambda: gc.run(None, feed), "(a) torch": lambda: th.run(None, feed)}
            if bt is not None:
                fns["(b) batched"] = lambda: bt.run(None, feed)
            row = {"N": n, "batch": b, **medians_ms(fns, budget_s=args.budget, burst=BURST)}
            # (c) is timed on its own, after the ratio's contenders: its N sessions leave 2N
            # onnxruntime threads spinning after every call, which slowed whichever contender
            # came next by more than one dropped call (load average 25 at N=64).
            row.update(medians_ms({"(c) sessions": lambda: run_all(singles)(x)},
                                  budget_s=args.budget / 2, burst=BURST))
            best = min(v for k, v in row.items() if k in ("(a) torch", "(b) batched"))
            row["ratio"] = row["graphcell"] / best
            row["GFLOP/s"] = n * b * FLOPS_PER_IMAGE / (row["graphcell"] * 1e-3) / 1e9
            rows.append(row)
            print(row, flush=True)
    print()
    print(f"onnxruntime {ort.__version__} CPU, {os.cpu_count()} cores; float32 matmul peak (XLA) "
          f"{peak:.0f} GFLOP/s; median ms")
    print(table(rows, ["N", "batch", "graphcell", "(a) torch", "(b) batched", "(c) sessions", "ratio", "GFLOP/s"]))
    if export_rows:
        print()
        print(table(export_rows, list(export_rows[0])))


if __name__ == "__main__":
    main()
