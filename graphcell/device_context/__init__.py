"""MindSpore 2.10's `mindspore.device_context`: per-backend settings (cpu, gpu, ascend), over jax."""
from . import ascend, cpu, gpu  # noqa: F401
