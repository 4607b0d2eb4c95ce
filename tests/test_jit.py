import gc

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops


def test_jit_retraces_on_new_shape_and_hits_cache():
    calls = []

    @ms.jit
    def f(x, y):
        calls.append(1)
        return x * y + 1.0

    a = ms.Tensor(np.ones((2, 3), np.float32))
    f(a, a)
    f(a, a)
    assert len(calls) == 1 and f.cache_size == 1
    b = ms.Tensor(np.ones((4, 3), np.float32))
    out = f(b, b)
    assert len(calls) == 2 and f.cache_size == 2
    np.testing.assert_array_equal(out.asnumpy(), np.full((4, 3), 2.0, np.float32))
    f(a.astype(ms.float64), a.astype(ms.float64))
    assert len(calls) == 3


def test_jit_method_decorator_writes_state_back():
    class Counter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.count = ms.Parameter(ms.Tensor(0.0), name="count")

        def construct(self, x):
            ops.assign(self.count, self.count + x.sum())
            return self.count * 2

    class Trainer:
        def __init__(self):
            self.net = Counter()

        @ms.jit
        def step(self, x):
            return self.net(x)

    t = Trainer()
    x = ms.Tensor(np.ones(3, np.float32))
    assert float(t.step(x)) == 6.0
    assert float(t.step(x)) == 12.0
    assert float(t.net.count) == 6.0


def test_static_python_arguments_are_part_of_the_key():
    @ms.jit
    def scale(x, k):
        return x * k

    x = ms.Tensor(np.ones(2, np.float32))
    assert scale(x, 2).asnumpy().tolist() == [2.0, 2.0]
    assert scale(x, 3).asnumpy().tolist() == [3.0, 3.0]
    assert scale.cache_size == 2


def test_training_flag_retraces():
    net = nn.Dropout(p=0.5)
    x = ms.Tensor(np.ones((100,), np.float32))
    j = ms.jit(net)
    np.testing.assert_array_equal(j(x).asnumpy(), x.asnumpy())
    net.set_train()
    out = j(x).asnumpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and 0 < (out == 0).sum() < 100


def _dropout_net():
    net = nn.SequentialCell([nn.Dense(4, 4), nn.Dropout(p=0.5)])
    return net, ms.Tensor(np.ones((64, 4), np.float32))


def _drops(out) -> bool:
    return bool((out.asnumpy() == 0).any())


def test_a_trace_is_kept_per_training_mode_of_the_cells_it_called():
    net, x = _dropout_net()
    j = ms.jit(net)
    assert not _drops(j(x))
    net.set_train()
    assert _drops(j(x)) and j.cache_size == 2
    for mode in (False, True, False, True):   # eval between epochs: both traces are found again
        net.set_train(mode)
        assert _drops(j(x)) == mode
    assert j.cache_size == 2
    net[1].set_train(False)             # one sub-cell's mode: a third set of modes, a third trace
    assert not _drops(j(x)) and j.cache_size == 3


def test_other_cells_modes_and_lifetimes_do_not_retrace():
    # The key once held every training Cell in the process: another test's network, freed
    # between two calls, made a third trace (a flaky CI failure, test_model.py).
    net, x = _dropout_net()
    net.set_train()
    j = ms.jit(net)
    j(x)
    other = nn.Dense(2, 2).set_train()
    j(x)
    del other
    gc.collect()
    nn.ReLU().set_train(False)
    j(x)
    assert j.cache_size == 1


def test_cells_made_inside_the_function_do_not_retrace():
    @ms.jit
    def f(x):
        return nn.Dropout(p=0.5)(x) + 1.0   # a fresh Cell each trace, in its default (inference) mode

    x = ms.Tensor(np.ones(8, np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(f(x).asnumpy(), 2.0)
    assert f.cache_size == 1


def test_an_outer_trace_depends_on_the_modes_of_a_cached_inner_one():
    net, x = _dropout_net()
    inner = ms.jit(net)
    inner(x)                                  # cached before the outer trace
    outer = ms.jit(lambda t: inner(t) * 1.0)
    assert not _drops(outer(x))
    net.set_train()
    assert _drops(outer(x)) and outer.cache_size == 2


def test_a_jitted_method_depends_on_its_cells_mode():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(p=0.5)

        def construct(self, x):
            return x

        @ms.jit
        def step(self, x):
            return self.drop(x) if self.training else x * 1.0

    net, x = Net(), ms.Tensor(np.ones((64, 4), np.float32))
    assert not _drops(net.step(x))
    net.set_train()
    assert _drops(net.step(x))


_CACHED_PROGRAM = """
import sys
import jax
events = []
jax.monitoring.register_event_listener(lambda name, **kw: events.append(name))
import numpy as np
import graphcell as ms
from graphcell import nn

net = nn.Dense(3, 2)
y = ms.jit(net)(ms.Tensor(np.ones((4, 3), np.float32)))
print(events.count("/jax/compilation_cache/cache_hits"), float(y.asnumpy().sum() * 0))
"""


def test_compile_cache_dir_is_reused_by_a_later_process(tmp_path):
    """GRAPHCELL_COMPILE_CACHE (or set_context(compile_cache_dir=...)) turns on jax's persistent
    compilation cache: a second process compiles nothing it compiled before."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "GRAPHCELL_COMPILE_CACHE": str(tmp_path / "xla")}

    def run():
        out = subprocess.run([sys.executable, "-c", _CACHED_PROGRAM], env=env, capture_output=True, text=True,
                             timeout=120, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        assert out.returncode == 0, out.stderr
        return int(out.stdout.split()[0])

    assert run() == 0 and any((tmp_path / "xla").iterdir())
    assert run() > 0


def test_set_context_compile_cache_dir_configures_jax(tmp_path):
    import jax
    before = jax.config.jax_compilation_cache_dir
    try:
        ms.set_context(compile_cache_dir=tmp_path / "cache")
        assert jax.config.jax_compilation_cache_dir == str(tmp_path / "cache")
        assert (tmp_path / "cache").is_dir()
    finally:
        ms.set_context(compile_cache_dir=None)
    assert jax.config.jax_compilation_cache_dir is None and before is None


def test_tracing_and_export_pause_the_garbage_collector_and_restore_it(tmp_path):
    """Full collections walk every object in the process; a trace or an export runs without
    them, and leaves the collector as it found it (on, or off when the user turned it off)."""
    import gc
    seen = []

    def f(x):
        seen.append(gc.isenabled())
        return x * 2.0

    x = ms.Tensor(np.ones((2, 3), np.float32))
    assert gc.isenabled()
    ms.jit(f)(x)
    ms.export(f, x, file_name=str(tmp_path / "f"))
    assert seen and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        ms.jit(f)(ms.Tensor(np.ones((3, 3), np.float32)))
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(AttributeError):
        ms.jit(lambda t: t.undefined_method())(x)
    assert gc.isenabled()   # restored after a failed trace too
