"""2.10's parallel-checkpoint utilities on one host (graphcell/train/parallel_ckpt.py) and
Parameter.layerwise_parallel. References: the values written, MindSpore 2.10's results and
messages (measured, recorded as literals)."""
import json
import pickle

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn


def _save(path, **values):
    fmt = "safetensors" if str(path).endswith(".safetensors") else "ckpt"
    ms.save_checkpoint([{"name": n, "data": ms.Tensor(np.array(v, np.float32))} for n, v in values.items()],
                       str(path), format=fmt)


def _values(params):
    return {n: p.asnumpy().tolist() for n, p in params.items()}


def test_load_segmented_checkpoints_joins_a_folders_ckpt_files(tmp_path):
    for name, v in (("a", 1.0), ("m", 2.0), ("z", 3.0)):
        _save(tmp_path / f"{name}.ckpt", w=[v], **{name: [v]})
    _save(tmp_path / "other.safetensors", s=[9.0])   # not a .ckpt: skipped, as in 2.10
    (tmp_path / "notes.txt").write_text("x")
    # 2.10 (measured on these files): the later file in name order gives w, keys in this order
    got = ms.load_segmented_checkpoints(str(tmp_path))
    assert list(got) == ["w", "a", "m", "z"] and _values(got) == {"w": [3.0], "a": [1.0], "m": [2.0], "z": [3.0]}

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="w")
            self.m = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="m")

        def construct(self, x):
            return x

    net = Net()
    ms.load_segmented_checkpoints(str(tmp_path), net=net, filter_prefix="w")
    assert net.w.asnumpy().tolist() == [0.0] and net.m.asnumpy().tolist() == [2.0]   # every file's w filtered out
    with pytest.raises(TypeError, match=r"^The ckpt_file_dir should be a str\.$"):
        ms.load_segmented_checkpoints(3)
    with pytest.raises(ValueError, match=r"^The dst_strategy_file: .*nope doesn't exist\. Or it's not a directory$"):
        ms.load_segmented_checkpoints(str(tmp_path / "nope"))


def test_unified_safetensors_merges_replicated_ranks(tmp_path):
    src = tmp_path / "src"
    for rank in (0, 1):
        (src / f"rank_{rank}").mkdir(parents=True)
        _save(src / f"rank_{rank}" / f"net_rank{rank}.safetensors", w=[1.0, 2.0], b=[3.0], **{f"only{rank}": [rank]})
    ms.unified_safetensors(str(src), None, str(tmp_path / "out"),
                           choice_func=lambda n: "bias" if n == "b" else n != "only1")
    merged = ms.load_checkpoint(str(tmp_path / "out" / "part0.safetensors"), format="safetensors")
    assert _values(merged) == {"w": [1.0, 2.0], "bias": [3.0], "only0": [0.0]}
    assert json.loads((tmp_path / "out" / "param_name_map.json").read_text()) == dict.fromkeys(merged,
                                                                                            "part0.safetensors")
    _save(src / "rank_1" / "net_rank1.safetensors", w=[1.0, 5.0])   # a slice, not a replica
    with pytest.raises(ValueError, match="parameter 'w' differs between rank 0 and rank 1.*strategy file"):
        ms.unified_safetensors(str(src), None, str(tmp_path / "out2"))
    # a strategy file: 2.10's check of the path, then the refusal
    with pytest.raises(ValueError, match="no such strategy file"):
        ms.unified_safetensors(str(src), str(tmp_path / "strategy.ckpt"), str(tmp_path / "out3"))


@pytest.mark.parametrize("call", [
    lambda: ms.transform_checkpoints("src", "dst", "net"),
    lambda: ms.transform_checkpoint_by_rank(0, {0: "a.ckpt"}, "b.ckpt"),
    lambda: ms.get_ckpt_path_with_strategy("a.ckpt", "strategy.ckpt"),
    lambda: ms.train.get_ckpt_path_with_strategy("a.ckpt", "strategy.ckpt"),
])
def test_strategy_transforms_refuse_naming_what_to_do(call):
    with pytest.raises(NotImplementedError, match="parallel strateg.*load_checkpoint \\+ load_param_into_net"):
        call()


def test_parameter_layerwise_parallel():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    assert p.layerwise_parallel is False   # 2.10's default (measured)
    q = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="q", layerwise_parallel=True)
    assert q.layerwise_parallel is True
    assert q.copy().layerwise_parallel and q.clone().layerwise_parallel and pickle.loads(pickle.dumps(q)).layerwise_parallel
    for make in (lambda: setattr(p, "layerwise_parallel", 1),
                 lambda: ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="r", layerwise_parallel=1)):
        with pytest.raises(TypeError, match=r"^The argument `layerwise_parallel` must be bool type\.$"):   # 2.10's
            make()
