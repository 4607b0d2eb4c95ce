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


def test_cross_entropy_loss_with_float_class_labels_gives_2_10s_errors():
    import numpy as np
    loss, logits = nn.CrossEntropyLoss(), Tensor(np.ones((2, 3), np.float32))
    # measured on MindSpore 2.10 (graphcell said "class probabilities 'target' must have the input's shape")
    with pytest.raises(TypeError, match=r"^For 'CrossEntropyLoss', the 'labels' should be Int32, but got "
                                        r"'mindspore.float32'\.$"):
        loss(logits, Tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"but get 'logits' shape: \(2, 3\) and 'labels' shape: \(1, 2\)\.$"):
        loss(logits, Tensor([[0.0, 1.0]]))
    probs = Tensor(np.array([[1, 0, 0], [0, 0.5, 0.5]], np.float32))   # probabilities still work
    assert np.isclose(loss(logits, probs).asnumpy(), np.log(3.0))


def test_an_integer_index_out_of_range_gives_2_10s_message():
    # measured on MindSpore 2.10: x[5] and x[0, 5] of a [2, 3] Tensor
    x = Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with pytest.raises(IndexError, match="^index 5 is out of bounds for dimension with size 2$"):
        x[5]
    with pytest.raises(IndexError, match="^index 5 is out of bounds for dimension with size 3$"):
        x[0, 5]
