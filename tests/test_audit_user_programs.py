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


class _Frozen(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor([2.0, 3.0]), name="w")
        self.f = ms.Parameter(Tensor([5.0, 7.0]), name="f", requires_grad=False)

    def construct(self, x):
        return (x * self.w * self.f).sum()


def test_an_eager_gradient_of_a_frozen_parameter_is_zeros_and_a_compiled_one_is_not():
    """Measured on MindSpore 2.10 (PYNATIVE): grad, value_and_grad and GradOperation called
    eagerly give zeros for a Parameter whose requires_grad is False when called (so a layer frozen
    after its optimizer was built stays put); inside ms.jit the real gradient."""
    import numpy as np
    n, x = _Frozen(), Tensor([1.0, 2.0])
    g = ms.grad(n, None, [n.w, n.f])(x)
    assert np.array_equal(g[0].asnumpy(), [5.0, 14.0]) and np.array_equal(g[1].asnumpy(), [0.0, 0.0])
    assert np.array_equal(ms.ops.GradOperation(get_by_list=True)(n, ms.ParameterTuple([n.w, n.f]))(x)[1].asnumpy(),
                          [0.0, 0.0])
    vg = ms.value_and_grad(n, None, [n.w, n.f])
    assert np.array_equal(ms.jit(lambda t: vg(t))(x)[1][1].asnumpy(), [2.0, 6.0])
    n.w.requires_grad, n.f.requires_grad = False, True   # read at each call
    g = vg(x)[1]
    assert np.array_equal(g[0].asnumpy(), [0.0, 0.0]) and np.array_equal(g[1].asnumpy(), [2.0, 6.0])
