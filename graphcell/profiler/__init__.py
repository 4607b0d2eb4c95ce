"""graphcell.profiler: MindSpore 2.10's profiler names over jax.profiler (see profiler.py)."""
from .mstx import mstx  # noqa: F401
from .profiler import (AicoreMetrics, ExportType, HostSystem, Profiler, ProfilerActivity,  # noqa: F401
                       ProfilerLevel, _ExperimentalConfig, profile, tensorboard_trace_handler)
from .schedule import ProfilerAction, Schedule, schedule  # noqa: F401
