"""graphcell.profiler: MindSpore 2.10's Profiler/profile/schedule over jax.profiler. The schedule
literals and the run-folder layout were measured on MindSpore 2.10's CPU build; the trace is
checked for the profiled step's own XLA computation."""
import glob
import json
import os
import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from graphcell import profiler as p
from graphcell.profiler import ProfilerAction as A


def test_schedule_counts_steps_as_2_10():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = p.schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
        assert repr(s) == "Schedule(wait=1, active=2, warmup=1, repeat=1, skip_first=1)"     # 2.10
        assert [s(i) for i in range(8)] == [A.NONE, A.NONE, A.WARM_UP, A.RECORD, A.RECORD_AND_SAVE,
                                            A.NONE, A.NONE, A.NONE]                            # 2.10
        s2 = p.schedule(wait=1, warmup=1, active=2, repeat=2)
        assert [s2(i).value for i in range(12)] == [0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 0, 0]     # 2.10
        assert [p.schedule(wait=0, active=1)(i) for i in range(3)] == [A.RECORD_AND_SAVE] * 3
    with pytest.warns(UserWarning, match="Parameter 'wait' should be of type int, but got float. reset to int 0."):
        assert p.schedule(wait=1.5, active=1, warmup=1).to_dict() == {
            'wait': 0, 'active': 1, 'warmup': 1, 'repeat': 0, 'skip_first': 0}
    with pytest.raises(TypeError, match="active"):
        p.schedule(wait=1)


def test_profiled_step_writes_a_trace(tmp_path):
    net = nn.Dense(3, 2)
    step = ms.jit(lambda x: net(x) * 3)
    prof = ms.Profiler(output_path=str(tmp_path), activities=[p.ProfilerActivity.CPU])
    step(ms.Tensor(np.ones((4, 3), np.float32)))
    prof.add_metadata("run", "unit")
    prof.stop()
    prof.analyse()
    (run,) = glob.glob(str(tmp_path / "*_ascend_ms"))
    assert glob.glob(os.path.join(run, "plugins", "profile", "*", "*.xplane.pb"))
    with open(os.path.join(run, "ASCEND_PROFILER_OUTPUT", "trace_view.json")) as f:
        events = json.load(f)["traceEvents"]
    names = {e.get("name", "") for e in events}
    assert any("jit" in n for n in names), "the profiled step's compiled computation is in the trace"
    with open(os.path.join(run, "profiler_metadata.json")) as f:
        assert json.load(f) == {"run": "unit"}


@pytest.mark.slow
def test_schedule_saves_each_cycle_through_the_handler(tmp_path):
    net = nn.Dense(3, 2)
    x = ms.Tensor(np.ones((4, 3), np.float32))
    ready = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = p.schedule(wait=1, warmup=1, active=2, repeat=2)
    prof = ms.Profiler(output_path=str(tmp_path / "own"), schedule=sched,
                       on_trace_ready=lambda prof: (ready.append(prof.step_num), prof.analyse()))
    for _ in range(10):
        net(x)
        prof.step()
    assert ready == [4, 8]           # after steps 3 and 7, as 2.10 calls it
    with p.profile(schedule=sched, on_trace_ready=p.tensorboard_trace_handler(str(tmp_path / "tb"))) as prof:
        for _ in range(10):
            net(x)
            prof.step()
    for folder in ("own", "tb"):
        runs = sorted(glob.glob(str(tmp_path / folder / "*_ascend_ms")))
        assert len(runs) == 2 and all(os.path.isfile(os.path.join(r, "ASCEND_PROFILER_OUTPUT", "trace_view.json"))
                                      for r in runs)
