"""`Profiler` / `profile`: MindSpore 2.10's profiler over jax.profiler.

A recording is a jax trace (XLA's XPlane, with host threads and the device's kernels) written
into one run folder laid out as 2.10 lays its out (measured on its CPU build:
`<output_path>/<host>_<pid>_<yyyymmddHHMMSSmmm>_ascend_ms/ASCEND_PROFILER_OUTPUT/trace_view.json`):

    <run>/plugins/profile/<time>/*.xplane.pb      jax's raw trace (TensorBoard's profile plugin, XProf)
    <run>/ASCEND_PROFILER_OUTPUT/trace_view.json  the Chrome/Perfetto trace, written by `analyse()`
    <run>/profiler_metadata.json                  `add_metadata`'s entries

With a `schedule`, `step()` ends a step: recording starts at the first RECORD step (jax keeps
no warm-up data, so WARM_UP steps run unrecorded) and the trace is saved after the
RECORD_AND_SAVE step, which then calls `on_trace_ready(profiler)`.
"""
from __future__ import annotations

import datetime
import enum
import glob
import gzip
import json
import os
import shutil
import socket
import warnings

from .schedule import ProfilerAction, Schedule


class ProfilerActivity(enum.Enum):
    NPU = "NPU"
    GPU = "GPU"
    CPU = "CPU"


class ProfilerLevel(enum.Enum):
    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ExportType(enum.Enum):
    Db = "db"
    Text = "text"


class AicoreMetrics(enum.Enum):
    PipeUtilization = "PipeUtilization"
    ArithmeticUtilization = "ArithmeticUtilization"
    Memory = "Memory"
    MemoryL0 = "MemoryL0"
    MemoryUB = "MemoryUB"
    ResourceConflictRatio = "ResourceConflictRatio"
    L2Cache = "L2Cache"
    MemoryAccess = "MemoryAccess"
    AiCoreNone = "None"


class HostSystem(enum.Enum):
    CPU = "cpu"
    MEM = "mem"
    DISK = "disk"
    NETWORK = "network"
    OSRT = "osrt"


class _ExperimentalConfig:
    """2.10's extra settings (Ascend counters, export formats): kept; jax's trace has its own."""

    def __init__(self, profiler_level=ProfilerLevel.Level0, aic_metrics=AicoreMetrics.AiCoreNone, l2_cache=False,
                 mstx=False, data_simplification=True, export_type=None, mstx_domain_include=None,
                 mstx_domain_exclude=None, sys_io=False, sys_interconnection=False, host_sys=None):
        self.__dict__.update({k: v for k, v in locals().items() if k != "self"})


# 2.10's Profiler keywords and defaults; those past the trace itself (Ascend counters, memory
# and shape records) are accepted and kept
_DEFAULTS = {"output_path": "./data", "profiler_level": ProfilerLevel.Level0, "activities": None,
             "schedule": None, "on_trace_ready": None, "profile_memory": False, "aic_metrics": AicoreMetrics.AiCoreNone,
             "with_stack": False, "data_simplification": True, "l2_cache": False, "hbm_ddr": False, "pcie": False,
             "sync_enable": True, "data_process": False, "parallel_strategy": False, "start_profile": True,
             "record_shapes": False, "mstx": False, "export_type": None, "experimental_config": None,
             "mstx_domain_include": None, "mstx_domain_exclude": None, "sys_io": False, "sys_interconnection": False,
             "host_sys": None}

_ACTIVE = [None]   # jax records one trace at a time


class _TraceHandler:
    """What `tensorboard_trace_handler` returns: saves a finished recording under `dir_name`."""

    def __init__(self, dir_name, worker_name, analyse_flag):
        self.dir_name = os.path.abspath(dir_name or "./data")
        self.worker_name = worker_name
        self.analyse_flag = analyse_flag

    def __call__(self, prof: "Profiler") -> None:
        if self.analyse_flag:
            prof.analyse()


def tensorboard_trace_handler(dir_name: str = None, worker_name: str = None, analyse_flag: bool = True,
                              async_mode: bool = False):
    """An `on_trace_ready` that puts each recording in `dir_name` (run folders named
    `<worker_name>_<time>_ascend_ms`, worker_name `<host>_<pid>` by default) and writes its
    trace_view.json (when `analyse_flag`). TensorBoard's profile plugin reads the raw traces
    under `<run>/plugins/profile`. `async_mode` is accepted (the export is quick)."""
    if dir_name is not None and not isinstance(dir_name, (str, os.PathLike)):
        raise TypeError(f"For 'tensorboard_trace_handler', 'dir_name' must be str, but got {type(dir_name)}.")
    return _TraceHandler(dir_name, worker_name, bool(analyse_flag))


class Profiler:
    """Records what graphcell runs (compiles, jitted steps, kernels) with jax.profiler."""

    def __init__(self, **kwargs) -> None:
        unknown = sorted(set(kwargs) - set(_DEFAULTS))
        if unknown:
            warnings.warn(f"Profiler: the arguments {unknown} are not Profiler's; they are ignored.", stacklevel=2)
        options = {**_DEFAULTS, **{k: v for k, v in kwargs.items() if k in _DEFAULTS}}
        self._options = options
        self.schedule = options["schedule"]
        if self.schedule is not None and not callable(self.schedule):
            raise TypeError(f"For 'Profiler', 'schedule' must be a mindspore.profiler.schedule, but got "
                            f"{type(self.schedule)}.")
        self.on_trace_ready = options["on_trace_ready"]
        if self.on_trace_ready is not None and not callable(self.on_trace_ready):
            raise TypeError(f"For 'Profiler', 'on_trace_ready' must be callable, but got {type(self.on_trace_ready)}.")
        activities = options["activities"] or [ProfilerActivity.CPU, ProfilerActivity.NPU]
        bad = [a for a in activities if not isinstance(a, ProfilerActivity)]
        if bad:
            raise TypeError(f"For 'Profiler', 'activities' holds ProfilerActivity members, but got {bad}.")
        self.activities = list(activities)
        handler = self.on_trace_ready
        output = handler.dir_name if isinstance(handler, _TraceHandler) else options["output_path"]
        if not isinstance(output, (str, os.PathLike)):
            raise TypeError(f"For 'Profiler', 'output_path' must be str, but got {type(output)}.")
        self.output_path = os.path.abspath(output)
        self._worker = (handler.worker_name if isinstance(handler, _TraceHandler) else None) \
            or f"{socket.gethostname()}_{os.getpid()}"
        self._metadata: dict = {}
        self.run_dirs: list[str] = []     # one folder per recording, oldest first
        self.step_num = 0
        self._recording = False
        if options["start_profile"]:
            self.start()

    # -- recording --------------------------------------------------------------------------
    def _action(self) -> ProfilerAction:
        return ProfilerAction.RECORD if self.schedule is None else self.schedule(self.step_num)

    def _begin(self) -> None:
        import jax
        if _ACTIVE[0] is not None and _ACTIVE[0] is not self:
            raise RuntimeError("Profiler: another Profiler is recording; jax records one trace at a time "
                               "(stop it first).")
        stamp = datetime.datetime.now().strftime("%Y%m%d%H%M%S%f")[:-3]
        run_dir = os.path.join(self.output_path, f"{self._worker}_{stamp}_ascend_ms")
        os.makedirs(run_dir, exist_ok=True)
        jax.profiler.start_trace(run_dir, create_perfetto_trace=True)
        _ACTIVE[0] = self
        self._recording = True
        self.run_dirs.append(run_dir)

    def _end(self) -> None:
        import jax
        from ..runtime.streams import synchronize
        if not self._recording:
            return
        synchronize()   # the recorded steps' work belongs in the trace (sync_enable)
        jax.profiler.stop_trace()
        _ACTIVE[0] = None
        self._recording = False
        if self._metadata:
            with open(os.path.join(self.run_dirs[-1], "profiler_metadata.json"), "w") as f:
                json.dump(self._metadata, f, indent=4)

    def start(self) -> None:
        if not self._recording and self._action() in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def stop(self) -> None:
        self._end()

    def step(self) -> None:
        """Ends a step of a scheduled recording."""
        if self.schedule is None:
            raise RuntimeError("For 'Profiler.step', the Profiler needs a 'schedule'.")
        finished = self._action()
        self.step_num += 1
        if finished is ProfilerAction.RECORD_AND_SAVE and self._recording:
            self._end()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if not self._recording and self._action() in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._begin()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        was_recording = self._recording
        self._end()
        if was_recording and self.schedule is None and self.on_trace_ready is not None:
            self.on_trace_ready(self)
        return False

    # -- results ----------------------------------------------------------------------------
    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync") -> None:
        """Writes trace_view.json (the Chrome/Perfetto trace jax recorded) into each finished
        run folder's ASCEND_PROFILER_OUTPUT (the runs under `offline_path` when given)."""
        self._end()
        run_dirs = self.run_dirs if offline_path is None else _run_dirs(offline_path)
        for run_dir in run_dirs:
            _export_trace_view(run_dir, pretty)

    @staticmethod
    def offline_analyse(path: str, pretty=False, step_list=None, data_simplification=True) -> None:
        for run_dir in _run_dirs(path):
            _export_trace_view(run_dir, pretty)

    def add_metadata(self, key: str, value: str) -> None:
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("For 'add_metadata', 'key' and 'value' must be str.")
        self._metadata[key] = value

    def add_metadata_json(self, key: str, value: str) -> None:
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("For 'add_metadata_json', 'key' and 'value' must be str.")
        self._metadata[key] = json.loads(value)

    def op_analyse(self, op_name, device_id=None):
        raise NotImplementedError("Profiler.op_analyse reads Ascend operator counters; jax's trace has none. "
                                  "Open trace_view.json in Perfetto (ui.perfetto.dev) for per-op times.")


def _run_dirs(path) -> list[str]:
    if glob.glob(os.path.join(path, "plugins", "profile", "*")):
        return [path]
    return sorted(d for d in glob.glob(os.path.join(path, "*_ascend_ms")) if os.path.isdir(d))


def _export_trace_view(run_dir: str, pretty: bool) -> None:
    traces = sorted(glob.glob(os.path.join(run_dir, "plugins", "profile", "*", "perfetto_trace.json.gz")))
    if not traces:
        raise FileNotFoundError(f"Profiler.analyse: no jax trace under {run_dir}/plugins/profile; was the "
                                "Profiler started and stopped?")
    out_dir = os.path.join(run_dir, "ASCEND_PROFILER_OUTPUT")
    os.makedirs(out_dir, exist_ok=True)
    with gzip.open(traces[-1], "rb") as src, open(os.path.join(out_dir, "trace_view.json"), "wb") as dst:
        if pretty:
            dst.write(json.dumps(json.load(src), indent=4).encode())
        else:
            shutil.copyfileobj(src, dst)


class profile(Profiler):
    """2.10's `mindspore.profiler.profile`: a Profiler with keyword arguments, for `with`."""

    def __init__(self, activities=None, with_stack=False, profile_memory=False, data_process=False,
                 parallel_strategy=False, start_profile=True, hbm_ddr=False, pcie=False, sync_enable=True,
                 record_shapes=False, schedule=None, on_trace_ready=None, experimental_config=None):
        kwargs = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__(**kwargs)


__all__ = ["Profiler", "profile", "Schedule", "ProfilerAction", "ProfilerActivity", "ProfilerLevel",
           "ExportType", "AicoreMetrics", "HostSystem", "tensorboard_trace_handler", "_ExperimentalConfig"]
