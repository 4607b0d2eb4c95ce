"""onnxruntime's optimized models, kept on disk so that a later session skips the optimisation.

Creating an onnxruntime session optimises the graph first (constant folding, fusions, the
NCHWc layout of convolutions): for the N=16 LeNet5 training step under `jit(backend="onnx")`,
0.45-0.53 s of session creation, against 0.15-0.26 s to load the model onnxruntime wrote after
optimising it. `Session(..., optimized_cache=folder)` keeps those models in
`<folder>/<key>.onnx`; `jit(backend="onnx")` passes `<compile_cache_dir>/onnxruntime`.

The fully optimised model is specific to the machine: the NCHWc block follows the CPU's
vector width (16 floats with AVX-512, 8 with AVX2), and onnxruntime warns that such a file
"should only be used in the same environment". So the key hashes, with the model's bytes and
the session config entries, onnxruntime's version and the CPU (the model name and feature flags
from /proc/cpuinfo); where the CPU cannot be read (not Linux) nothing is cached. Only CPU-only
sessions at the "all" level use the cache: other providers partition the graph their own way.
Files are written under a temporary name and renamed into place; a file onnxruntime cannot
load is optimised again and replaced.
"""
from __future__ import annotations

import functools
import hashlib
import os
import platform
from pathlib import Path

import onnxruntime as ort

# Past this size onnxruntime would need external data for the optimised copy (it holds the
# folded weights too, up to twice the model): such models are not cached.
MAX_MODEL_BYTES = 1 << 30


def cache_path(folder, model_bytes: bytes, config: dict) -> Path | None:
    """Where the optimised form of `model_bytes` lives (whether or not it exists yet), or
    None when it must not be cached (unknown CPU, too large)."""
    cpu = cpu_fingerprint()
    if cpu is None or len(model_bytes) > MAX_MODEL_BYTES:
        return None
    h = hashlib.sha256(b"graphcell-ort-optimized-1\0")
    for part in (ort.__version__, cpu, repr(sorted((str(k), str(v)) for k, v in config.items()))):
        h.update(part.encode() + b"\0")
    h.update(model_bytes)
    return Path(os.fspath(folder)) / f"{h.hexdigest()}.onnx"


@functools.cache
def cpu_fingerprint() -> str | None:
    """The CPU's model name and feature flags (Linux), what onnxruntime's kernels choose by."""
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return None
    model = flags = None
    for line in info.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model is None:
            model = value.strip()
        elif key in ("flags", "Features") and flags is None:   # x86 / arm64
            flags = " ".join(sorted(value.split()))
    if flags is None:
        return None
    return f"{platform.machine()}|{model}|{flags}"


def temporary_path(path: Path) -> Path:
    """A name beside `path` for onnxruntime to write to before the rename (per process, so
    that two processes optimising the same model do not write one file)."""
    return path.with_name(f"{path.name}.{os.getpid()}.tmp")


def publish(tmp: Path, path: Path) -> None:
    """Moves a written optimised model into place; a cache that cannot be written costs the
    next session an optimisation, nothing else."""
    try:
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
