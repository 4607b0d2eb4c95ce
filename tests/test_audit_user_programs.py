"""Findings of the session-20 audit by user programs (custom graph-mode loops, model_zoo idioms,
checkpoints, export), each pinned to MindSpore 2.10's measured behaviour."""
import pytest

import graphcell as ms
from graphcell import nn, Tensor


def test_export_of_an_unknown_file_format_gives_2_10s_message(tmp_path):
    net = nn.Dense(2, 2)
    # measured on MindSpore 2.10: ms.export(net, x, file_name=..., file_format="PB")
    with pytest.raises(ValueError, match=r"^For 'export', 'file_format' must be one of \['AIR', 'ONNX', 'MINDIR'\], "
                                         r"but got PB\.$"):
        ms.export(net, Tensor([[1.0, 2.0]]), file_name=str(tmp_path / "n"), file_format="PB")
    with pytest.raises(ValueError, match="graphcell writes file_format='ONNX' only, got 'MINDIR'"):
        ms.export(net, Tensor([[1.0, 2.0]]), file_name=str(tmp_path / "n"), file_format="MINDIR")
