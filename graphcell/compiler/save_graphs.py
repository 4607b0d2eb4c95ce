"""MindSpore's `save_graphs`: every compile writes graphcell's IR, stage by stage, to a folder.

    ms.set_context(save_graphs=1, save_graphs_path="./ir")   # or MS_DEV_SAVE_GRAPHS=1 MS_DEV_SAVE_GRAPHS_PATH=./ir

A compile (jit, a GRAPH_MODE Cell, a grad or vmap graph, jit(backend="onnx"), ONNX export)
writes files named as MindSpore 2.10 names them, `<stage index>_<stage>_<file number>.<ext>`:

    00_trace_0000.ir  01_cse_0001.ir   02_merge_scans_0002.ir ... 07_tile_rows_0007.ir
    00_trace_0008.ir  01_grad_0009.ir  02_cse_0010.ir ...   (the next compile: a grad graph)

The stage index restarts at every compile; the file number runs on over the process. The
stages: `trace`, then `grad` or `vmap` for graphs those transforms built, then each pass of
the pipeline in the order it runs (rounds continue the count; passes/manager.py): the XLA
one, or for jit(backend="onnx") the ONNX one; an export writes the passes it kept
(compiler/export_passes.py). Levels, as 2.10's (measured):
1 `.ir` per stage; 2 also the backend's program, `<n>_stablehlo_<k>.mlir` (XLA) or
`<n>_onnx_<k>.onnx.txt` (ONNX text, parameters as inputs); 3 also a `.dot` beside each `.ir`.

Off (level 0, the default) costs one lookup per compile and nothing per call.
"""
from __future__ import annotations

import itertools
import os

from ..context import _CONTEXT

# The file number, process-wide as MindSpore's (every file written takes the next).
_FILE_NUMBER = itertools.count()

_BAD_LEVEL = "value for save_graphs should be 0-3 but got '{}'"   # MindSpore 2.10's words


def check_settings(kwargs: dict) -> dict:
    """`set_context`'s save_graphs and save_graphs_path checked with MindSpore 2.10's error
    types and words, and stored as 2.10 stores them (True as level 2, the path absolute).
    Returns kwargs with those two values normalised."""
    out = dict(kwargs)
    if "save_graphs" in kwargs:
        level = kwargs["save_graphs"]
        if not isinstance(level, (bool, int)):
            raise TypeError(f"The parameter 'save_graphs' must be (<class 'bool'>, <class 'int'>), "
                            f"but got {type(level)}")
        if level is True:
            level = 2
        if not 0 <= level <= 3:   # 2.10 stores a negative level (which saves nothing); refused here
            raise ValueError(_BAD_LEVEL.format(level))
        out["save_graphs"] = int(level)
    if "save_graphs_path" in kwargs:
        path = kwargs["save_graphs_path"]
        if path is not None and not isinstance(path, str):
            raise TypeError(f"The parameter 'save_graphs_path' must be <class 'str'>, but got {type(path)}")
        if not path:
            raise ValueError("For 'context.set_context', the 'save_graphs_path' or the 'print_file_path' is "
                             f"invalid type, it should be Non-empty string, but got '{path}'.")
        out["save_graphs_path"] = os.path.realpath(path)
    return out


def level() -> int:
    """The save_graphs level a compile uses: MS_DEV_SAVE_GRAPHS when set (it wins over
    set_context, as in 2.10), else the context's."""
    env = os.environ.get("MS_DEV_SAVE_GRAPHS")
    if not env:
        return _CONTEXT["save_graphs"]
    if len(env) != 1 or not env.isdigit():   # 2.10's check and words, at compile time
        raise RuntimeError("MS_DEV_SAVE_GRAPHS should be a single number with one digit.")
    if int(env) > 3:
        raise RuntimeError("Dump level can only be from 0 to 3")
    return int(env)


def folder() -> str:
    """MS_DEV_SAVE_GRAPHS_PATH when set (it wins over set_context, as in 2.10), else the context's."""
    return os.environ.get("MS_DEV_SAVE_GRAPHS_PATH") or _CONTEXT["save_graphs_path"]


class Recorder:
    """Writes one compile's stages: `stage(name, graph)` for each graph, `backend(...)` once."""

    def __init__(self, level: int, directory: str):
        self.level, self.directory, self.index = level, directory, 0
        os.makedirs(directory, exist_ok=True)

    def _write(self, name: str, suffix: str, text: str) -> None:
        path = os.path.join(self.directory, f"{self.index:02d}_{name}_{next(_FILE_NUMBER):04d}{suffix}")
        with open(path, "w") as f:
            f.write(text if text.endswith("\n") else text + "\n")

    def stage(self, name: str, graph) -> None:
        """The graph after stage `name` (a pass manager's `on_pass`)."""
        self._write(name, ".ir", graph.format(source=True))
        if self.level >= 3:
            from ..ir.views import to_dot
            self._write(name, ".dot", to_dot(graph))
        self.index += 1

    def backend(self, name: str, suffix: str, program_text) -> None:
        """At level 2 and up, the backend's program: `program_text()`'s result."""
        if self.level < 2:
            return
        try:
            text = program_text()
        except Exception:   # the compile itself reports why the graph does not lower
            return
        self._write(name, suffix, text)
        self.index += 1


def start(traced) -> Recorder | None:
    """None when save_graphs is off. Else a Recorder that has written the stages that made
    `traced.graph` (the trace, then grad or vmap: `made_from` in traced.cache); once per
    Traced, as a compile is (jit(backend="onnx") may build two sessions from one trace)."""
    lvl = level()
    if not lvl or traced.cache.get("graphs_saved"):
        return None
    traced.cache["graphs_saved"] = True
    stages = []
    while True:
        made_from = traced.cache.get("made_from")
        if made_from is None:
            stages.append(("trace", traced.graph))
            break
        stages.append((made_from[0], traced.graph))
        traced = made_from[1]
    recorder = Recorder(lvl, folder())
    for name, graph in reversed(stages):
        recorder.stage(name, graph)
    return recorder


def made_from(traced, stage: str, source) -> None:
    """Records that `traced` is stage `stage` ("grad", "vmap") applied to the Traced `source`,
    so that save_graphs writes `source`'s stages before it."""
    traced.cache["made_from"] = (stage, source)


def onnx_compile(traced, optimize=None) -> None:
    """save_graphs for an ONNX compile (jit(backend="onnx"), export): the stages, then at
    level 2 the model's text. An export's graph names the trace it was optimized from and
    the passes it took (`passes` in its cache, compiler/export_passes.py): one file each.
    jit's passes run here (`optimize(on_pass)` returns the graph it lowers), as the XLA path's."""
    source, passes = traced.cache.get("passes", (traced, ()))
    recorder = start(source)
    if recorder is not None:
        for name, graph in passes:
            recorder.stage(name, graph)
        graph = traced.graph if optimize is None else optimize(recorder.stage)
        from .onnx import model_text
        recorder.backend("onnx", ".onnx.txt", lambda: model_text(graph))
