"""`graphcell demo` (`make demo`): the main job, end to end on the 8x8 handwritten digits.

1. An ensemble of 8 LeNet5 trained in ONE vmapped training loop (`vmap(nn.CellList([...]))`
   over a loss-gradient-Adam step): each member has its own initial weights, its own
   learning rate and its own order of the data.
2. The ensemble exported to one ONNX file with a mean head (the mean of the members' softmax
   probabilities), served by onnxruntime.
3. Each member's test accuracy, the ensemble's, how often the members disagree, and the
   time of each stage.

Where the time goes (measured on the 2-core development machine): the first call of the
vmapped step (trace, vmap, grad, passes, and above all XLA compiling the ~550-node step) and
the steps themselves, which are XLA CPU convolution time (forward and both gradients),
not graphcell overhead: see `bench/bench_train.py` and the lead's notes in the CLI report.
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np

import graphcell as ms
from graphcell import nn

DIGITS = Path(__file__).parent / "data" / "digits.npz"

# Tuned so that the run fits in a minute on 2 CPU cores and the ensemble is at least as good
# as its best member for every seed we tried (see the CLI report): members learn at rates
# spread over [LR_LOW, LR_HIGH] and each sees the data in its own order.
EPOCHS = 3
BATCH = 32
LR_LOW, LR_HIGH = 2e-3, 8e-3
SEED = 20261130


class LeNet5(nn.Cell):
    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class TrainOneStep(nn.Cell):
    """Loss, gradients and an Adam step: one member's training step."""

    def __init__(self, net, lr):
        super().__init__()
        self.loss_fn = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
        self.weights = ms.ParameterTuple(net.trainable_params())
        self.optimizer = nn.Adam(self.weights, learning_rate=lr)
        # Made once: a grad function re-created inside construct would re-trace on every
        # eager call.
        self.grad_fn = ms.value_and_grad(self.loss_fn, None, self.weights)

    def construct(self, images, labels):
        loss, grads = self.grad_fn(images, labels)
        self.optimizer(grads)
        return loss


def load_digits(path=DIGITS):
    """The 1,797 8x8 digits, each pixel repeated 4x4 to 1x32x32, split 80/20 (first/last)."""
    d = np.load(path)
    images = upsample(d["images"].astype(np.float32) / 16.0)
    labels = d["labels"].astype(np.int32)
    split = int(len(images) * 0.8)
    return images[:split], labels[:split], images[split:], labels[split:]


def upsample(images8: np.ndarray) -> np.ndarray:
    """[..., 8, 8] digits to [..., 1, 32, 32] (LeNet5's input), each pixel a 4x4 block."""
    return images8[..., None, :, :].repeat(4, -2).repeat(4, -1)


def shifted_copies(images32: np.ndarray) -> np.ndarray:
    """[9, N, 1, 32, 32]: every image moved by -1, 0 or +1 digit pixel (4 input pixels) in
    each direction, zero-filled: cheap augmentation against the test writers' offsets."""
    out = np.zeros((9,) + images32.shape, images32.dtype)
    k = 0
    for dy in (-4, 0, 4):
        for dx in (-4, 0, 4):
            src = images32[..., max(0, -dy):32 - max(0, dy), max(0, -dx):32 - max(0, dx)]
            out[k][..., max(0, dy):32 - max(0, -dy), max(0, dx):32 - max(0, -dx)] = src
            k += 1
    return out


def train_ensemble(nets, lrs, x, y, epochs: int, batch: int, rng, reporter=None, timings=None,
                   augment: bool = True):
    """Trains `nets` in one vmapped loop; member i uses learning rate lrs[i], its own data
    order and (with `augment`) its own random one-pixel shifts of the digits."""
    shifted = shifted_copies(x) if augment else x[None]
    trainer = ms.vmap(nn.CellList([TrainOneStep(n, float(lr)) for n, lr in zip(nets, lrs)]))
    for net in nets:
        net.set_train()
    members, steps = len(nets), len(x) // batch
    progress = reporter.progress(epochs * steps, f"training {members} members") if reporter else None
    t_start = time.perf_counter()
    with (progress or _Quiet()) as bar:
        for epoch in range(epochs):
            orders = np.stack([rng.permutation(len(x)) for _ in range(members)])
            for s in range(steps):
                idx = orders[:, s * batch:(s + 1) * batch]
                shift = rng.integers(0, len(shifted), idx.shape)
                loss = trainer(ms.Tensor(shifted[shift, idx]), ms.Tensor(y[idx]))
                if timings is not None and epoch == 0 and s == 0:
                    loss.asnumpy()  # the first call traces and compiles: time it apart
                    timings["first step (trace + vmap + grad + XLA compile)"] = time.perf_counter() - t_start
                    t_start = time.perf_counter()
                status = None
                if s == steps - 1:
                    status = f"epoch {epoch + 1}/{epochs}, mean loss {float(loss.asnumpy().mean()):.3f}"
                bar.advance(1, status)
    if timings is not None:
        timings["training steps"] = time.perf_counter() - t_start
        timings["per step (ms)"] = 1e3 * timings["training steps"] / max(1, epochs * steps - 1)
    for net in nets:
        net.set_train(False)


class _Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def advance(self, n=1, status=None):
        pass


def time_one_model(x, y, reporter) -> dict:
    """Median time of one LeNet5 training step (batch 32), eager (PYNATIVE) and jitted."""
    step = TrainOneStep(LeNet5(), 1e-3)
    images, labels = ms.Tensor(x[:32]), ms.Tensor(y[:32])
    times = {}
    for mode, fn, runs in (("eager (PYNATIVE)", step, 3), ("jit (XLA)", ms.jit(step), 10)):
        fn(images, labels)  # warm-up: compiles the jitted step and eager's cached gradient graph
        samples = []
        for _ in range(runs):
            t0 = time.perf_counter()
            fn(images, labels).asnumpy()
            samples.append(time.perf_counter() - t0)
        times[mode] = 1e3 * float(np.median(samples))
    reporter.table("One LeNet5 training step, batch 32", ["mode", "median ms"],
                   [[k, f"{v:.2f}"] for k, v in times.items()])
    return times


def run(members: int = 8, epochs: int = EPOCHS, batch: int = BATCH, seed: int = SEED,
        out_dir: str | None = None, reporter=None) -> dict:
    """Runs the demo; returns accuracies, disagreement, stage times and the ONNX path."""
    from .cli.output import Reporter
    from .runtime import Session
    reporter = reporter or Reporter()
    stages: dict[str, float] = {}
    t0 = time.perf_counter()
    ms.set_seed(seed)
    x_train, y_train, x_test, y_test = load_digits()
    nets = [LeNet5() for _ in range(members)]
    lrs = np.geomspace(LR_LOW, LR_HIGH, members)
    stages["data + models"] = time.perf_counter() - t0
    reporter.line(f"digits: {len(x_train)} training and {len(x_test)} test images (1x32x32); "
                  f"{members} LeNet5, learning rates {lrs[0]:.1e}..{lrs[-1]:.1e}, {epochs} epochs, batch {batch}")

    t0 = time.perf_counter()
    single = time_one_model(x_train, y_train, reporter)
    stages["one model: eager vs jit step"] = time.perf_counter() - t0

    train_ensemble(nets, lrs, x_train, y_train, epochs, batch, np.random.default_rng(seed), reporter, stages)
    step_ms = stages.pop("per step (ms)")

    # The product: one ONNX file, the ensemble with a mean head, served by onnxruntime.
    t0 = time.perf_counter()
    folder = out_dir or tempfile.mkdtemp(prefix="graphcell-demo-")
    os.makedirs(folder, exist_ok=True)
    ensemble = ms.vmap(nn.CellList(nets), in_axes=None)
    example = ms.Tensor(x_test[:16])
    path = ms.export(ensemble, example, file_name=os.path.join(folder, "ensemble"), reduce="mean",
                     input_names=["x"], metadata={"graphcell.demo.learning_rates": list(map(float, lrs))})
    session = Session(path, providers=["cpu"])
    probs = np.asarray(session.run(x_test)[0])                     # [batch, 10]
    stages["export + onnxruntime (mean head)"] = time.perf_counter() - t0

    # The members one by one, for comparison: the same ensemble without a head ([N, batch, 10]).
    t0 = time.perf_counter()
    members_path = ms.export(ensemble, example, file_name=os.path.join(folder, "members"), input_names=["x"])
    logits = np.asarray(Session(members_path, providers=["cpu"]).run(x_test)[0])
    member_pred = logits.argmax(-1)
    member_acc = (member_pred == y_test).mean(1)
    ensemble_acc = float((probs.argmax(-1) == y_test).mean())
    disagree = float(1 - (member_pred == member_pred[0]).all(0).mean())
    stages["member evaluation"] = time.perf_counter() - t0

    rows = [[f"member {i}", f"{lr:.2e}", f"{a:.4f}"] for i, (lr, a) in enumerate(zip(lrs, member_acc))]
    rows.append(["ensemble (ONNX, mean head)", "", f"{ensemble_acc:.4f}"])
    reporter.table(f"Test accuracy ({len(y_test)} images)", ["model", "learning rate", "accuracy"], rows)
    verdict = "at least as good as" if ensemble_acc >= member_acc.max() else "BELOW"
    reporter.line(f"members disagree on {100 * disagree:.1f}% of the test images; the ensemble is {verdict} "
                  f"the best member ({member_acc.max():.4f})")
    reporter.line(f"ONNX file: {path} ({os.path.getsize(path) / 1e6:.2f} MB, {members} members, "
                  f"provider {session.provider})")
    total = sum(stages.values())
    reporter.table(f"Stage times (total {total:.1f} s; {step_ms:.0f} ms per training step)", ["stage", "seconds"],
                   [[k, f"{v:.2f}"] for k, v in stages.items()])
    return {"member_accuracy": member_acc.tolist(), "ensemble_accuracy": ensemble_acc, "disagreement": disagree,
            "learning_rates": lrs.tolist(), "stages": stages, "step_ms": step_ms, "single_step_ms": single,
            "path": path}


if __name__ == "__main__":
    run()
