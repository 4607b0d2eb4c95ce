"""MindSpore 2.10's mindspore.runtime / mindspore.hal / device_context / utils names over jax.
Literals were measured on MindSpore 2.10's CPU build (its CPU answers: one stream, memory
counts 0, device name 'CPU'); waiting and timing are checked against jax itself."""
import os
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import device_context as dc
from graphcell import hal, runtime


def test_streams_and_events_on_one_in_order_stream():
    s = runtime.Stream(priority=1)
    assert repr(s) == "Stream(device_name=CPU, device_id:0, stream id:0)"          # 2.10 CPU
    assert s == runtime.default_stream() == hal.current_stream() and s.id == 0 and s.device_id == 0
    assert ms.Stream is runtime.Stream and ms.current_stream is runtime.current_stream and hal.Stream is runtime.Stream
    e = runtime.Event()
    assert repr(e) == "Event(enable_timing=0, blocking:0, is_created:0, event:0)"   # 2.10 CPU
    assert isinstance(s.record_event(e), runtime.Event) and e.query()
    with runtime.StreamCtx(s) as entered:
        assert entered is None and runtime.current_stream() is s
    with pytest.raises(TypeError, match="For 'StreamCtx', the argument 'ctx_stream' should be Stream, but got <class 'int'>."):
        runtime.StreamCtx(1)
    with pytest.raises(TypeError, match="For 'set_cur_stream', the argument 'stream' should be Stream"):
        runtime.set_cur_stream(1)


def test_synchronize_waits_for_jax_and_events_time_it():
    start = runtime.Event(enable_timing=True)
    end = runtime.Event(enable_timing=True)
    start.record()
    x = jnp.ones((400, 400))
    y = x @ x @ x                      # dispatched asynchronously
    ms.synchronize()
    assert y.is_ready() and runtime.Stream().query()
    end.record()
    assert start.elapsed_time(end) > 0 and end.elapsed_time(start) == -start.elapsed_time(end)
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        runtime.Event().elapsed_time(end)


def test_memory_queries_follow_jax():
    stats = runtime.memory_stats()
    jax_stats = jax.devices()[0].memory_stats()
    if jax_stats is None:   # jax's CPU keeps no counts; 2.10's CPU build answers zeros (measured)
        assert stats == {'total_reserved_memory': 0, 'total_allocated_memory': 0, 'total_idle_memory': 0,
                         'total_eager_free_memory': 0, 'max_reserved_memory': 0, 'max_allocated_memory': 0,
                         'common_mem_pool_stats': {'block_unit_size': 0, 'block_counts': 0, 'blocks_info': {}},
                         'persistent_mem_pool_stats': {'block_counts': 0, 'block_unit_size': 0, 'blocks_info': {}}}
        assert runtime.memory_allocated() == runtime.max_memory_reserved() == hal.memory_reserved("CPU") == 0
        assert runtime.memory_summary().splitlines()[1:6] == [   # 2.10 CPU
            "|               Memory summary                |", "|=============================================|",
            "| Metric               | Data                 |", "|---------------------------------------------|",
            "| Reserved memory      |      0 B             |"]
    else:
        assert stats["total_allocated_memory"] >= 0 and stats["bytes_in_use"] == jax_stats["bytes_in_use"]
    assert runtime.reset_peak_memory_stats() is None and runtime.empty_cache() is None
    runtime.set_memory(init_size="1GB", max_size="0.5GB")
    with pytest.raises(ValueError, match=r"The '2G' is illegal, it must be match regular"):
        runtime.set_memory(init_size="2G")
    with pytest.raises(ValueError, match=r"The optimize_level must be one of \['O0', 'O1'\], but got O3."):
        runtime.set_memory(optimize_level="O3")


def test_executor_settings():
    with pytest.raises(ValueError, match="The 'threads_num' must be int and must > 0, but got '0' with type 'int'."):
        runtime.dispatch_threads_num(0)
    with pytest.raises(TypeError, match="The parameter 'threads_num' must be <class 'int'>, but got <class 'str'>"):
        runtime.dispatch_threads_num("a")
    runtime.dispatch_threads_num(5)
    before = os.sched_getaffinity(0)
    cpu = min(before)
    try:
        runtime.set_cpu_affinity(True, [cpu])
        assert os.sched_getaffinity(0) == {cpu}
        with pytest.raises(RuntimeError, match="'mindspore.runtime.set_cpu_affinity' cannot be set repeatedly"):
            runtime.set_cpu_affinity(True)
    finally:
        os.sched_setaffinity(0, before)
        from graphcell.runtime import executor
        executor._SETTINGS["cpu_affinity"] = None


def test_launch_blocking_makes_jitted_calls_wait():
    from graphcell.runtime import executor
    f = ms.jit(lambda a: ms.ops.matmul(a, a))
    x = ms.Tensor(np.ones((64, 64), np.float32))
    try:
        runtime.launch_blocking()
        assert f(x)._payload.is_ready()
    finally:
        executor._SETTINGS["launch_blocking"] = False


def test_hal_devices():
    assert hal.device_count() == hal.device_count("CPU") == 1 and hal.is_available("CPU")    # 2.10 CPU
    assert hal.get_device_name(0) == "CPU" and hal.is_initialized("CPU")
    assert hal.get_device_properties(0) is None and hal.get_device_capability(0) is None and hal.get_arch_list() is None
    assert hal.is_available("Ascend") is False
    with pytest.raises(ValueError, match=r"For 'hal.is_available', the argument 'device_target' must be one of "
                                         r"\['CPU', 'GPU', 'Ascend'\], but got TPU."):
        hal.is_available("TPU")
    with pytest.raises(ValueError, match="The argument 'device_id' must be less than device count: 1, but got 1."):
        hal.get_device_name(1)
    if not hal.is_available("GPU"):
        with pytest.raises(ValueError, match="GPU backend is not available"):
            hal.memory_allocated("GPU")


def test_device_context_and_utils():
    assert dc.cpu.device_count() == 1 and dc.cpu.is_available() and dc.ascend.is_available() is False
    assert dc.cpu.threads_num is dc.cpu.op_tuning.threads_num
    with pytest.raises(ValueError, match="The 'num' must be int and must > 0, but got '0' with type 'int'."):
        dc.cpu.op_tuning.threads_num(0)
    with pytest.raises(RuntimeError, match="Device Ascend not exist."):
        dc.ascend.device_count()
    if not dc.gpu.is_available():
        with pytest.raises(RuntimeError, match="Device_target GPU not exist."):
            dc.gpu.device_count()
    with pytest.raises(TypeError, match="must be bool"):
        dc.gpu.op_precision.matmul_allow_tf32(1)
    t = ms.Tensor([1., 2.])
    np.testing.assert_array_equal(ms.utils.from_dlpack(ms.utils.to_dlpack(t)).asnumpy(), [1., 2.])
