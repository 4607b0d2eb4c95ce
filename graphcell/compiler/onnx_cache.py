"""An on-disk cache of lowered ONNX models, in the folder `set_context(compile_cache_dir=...)`
(or GRAPHCELL_COMPILE_CACHE) names, beside jax's compilation cache: `<folder>/onnx/<key>.onnx`.

A later process tracing the same graph skips the lowering (N=16 LeNet5 training step under
`jit(backend="onnx")`: 0.2-0.3 s of a 0.8 s first call); an export of the same network with the
same weights skips the lowering and the small-batch form. The key is a SHA-256 of the graph
(structure, attributes, constants by content, input names), of everything else the lowering
reads (the caller's `parts`: options, weights), of graphcell's compiler and ops sources and of
the onnx version, so a changed graph, weight or graphcell never reads a stale model. Files are
written atomically and read as protobuf only (no pickle); an unreadable one is rebuilt.
"""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from google.protobuf.message import DecodeError

from ..ir.core import Graph, graph_signature
from .onnx import PROTO_LIMIT


def cached_model(graph_parts: tuple, build: Callable[[], onnx.ModelProto]) -> onnx.ModelProto:
    """The model `build()` makes, from the cache when one is set and holds it. `graph_parts`:
    the graphs and values the model depends on (Graphs, arrays, plain Python values)."""
    folder = cache_folder()
    if folder is None:
        return build()
    try:
        key = _digest(graph_parts)
    except _Unstable:   # a value without a stable encoding: no caching, never a wrong model
        return build()
    path = folder / f"{key}.onnx"
    try:
        model = onnx.ModelProto()
        model.ParseFromString(path.read_bytes())
        if model.graph.node:
            return model
    except (OSError, DecodeError):
        pass   # missing or damaged (an empty file parses as an empty model): rebuilt below
    model = build()
    data = model.SerializeToString() if model.ByteSize() < PROTO_LIMIT else None
    if data is not None:
        from ..train.atomic import atomic_write
        try:
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data)
        except OSError:
            pass   # a read-only or full cache folder costs the next process a lowering, nothing else
    return model


def cache_folder(kind: str = "onnx") -> Path | None:
    """`<compile_cache_dir>/<kind>` ("onnx": lowered models; "onnxruntime": onnxruntime's
    optimised ones, runtime/optimized_cache.py), or None when no compile cache is set."""
    from ..context import get_context
    root = get_context("compile_cache_dir")
    return None if root is None else Path(os.fspath(root)) / kind


class _Unstable(Exception):
    """A value whose text differs between processes (an object address)."""


def _digest(parts: tuple) -> str:
    h = hashlib.sha256(b"graphcell-onnx-cache-1\0")
    h.update(_sources_digest().encode())
    h.update(onnx.__version__.encode())
    _feed(h, parts)
    return h.hexdigest()


def _feed(h, x) -> None:
    """A stable, unambiguous encoding of `x` into hash `h` (type tag, then content). Graphs go
    in as the repr of their signature (Literals print their content's digest): one C-speed
    repr instead of a call per attribute (N=16 training step: 58 -> 22-25 ms)."""
    if isinstance(x, Graph):
        _feed_text(h, b"G", repr((graph_signature(x), tuple((v.name, v.kind) for v in x.inputs),
                                  tuple(x.state_names))))
    elif isinstance(x, (tuple, list)):
        h.update(b"T%d(" % len(x))
        for item in x:
            _feed(h, item)
        h.update(b")")
    elif isinstance(x, np.ndarray):
        h.update(b"A%s%s(" % (x.dtype.str.encode(), repr(x.shape).encode()))
        h.update(np.ascontiguousarray(x).tobytes())
        h.update(b")")
    else:
        _feed_text(h, b"R", repr(x))


def _feed_text(h, tag: bytes, text: str) -> None:
    if " at 0x" in text:   # an object's address: differs between processes
        raise _Unstable(text)
    data = text.encode()
    h.update(b"%s%d:" % (tag, len(data)))
    h.update(data)


@functools.cache
def _sources_digest() -> str:
    """graphcell's compiler, IR and ops sources: what decides the graph and its lowering."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for sub in ("compiler", "ir", "ops", "passes"):
        for path in sorted((root / sub).glob("*.py")):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()
