"""graphcell.runtime: running exported models with onnxruntime, and MindSpore 2.10's
`mindspore.runtime` names (streams, events, memory statistics, executor settings) over jax."""
from .session import PROVIDERS, OnnxModelError, Session, SessionInputError, run_traced_onnx  # noqa: F401
from .streams import (Event, Stream, StreamCtx, communication_stream, current_stream, default_stream,  # noqa: F401
                      set_cur_stream, synchronize)
from .memory import (empty_cache, max_memory_allocated, max_memory_reserved, memory_allocated,  # noqa: F401
                     memory_reserved, memory_stats, memory_summary, reset_max_memory_allocated,
                     reset_max_memory_reserved, reset_peak_memory_stats, set_memory)
from .executor import dispatch_threads_num, launch_blocking, set_cpu_affinity  # noqa: F401
