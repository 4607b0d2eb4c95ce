"""The session-18 parity audit of the nn layers against MindSpore 2.10 (229 layer cases: outputs,
input and parameter gradients, initial values, names, reprs and constructor errors, run in both
frameworks). Forward values and gradients already agreed; what differed were constructor errors
and printed reprs. Every message and repr below was measured on MindSpore 2.10 (CPU)."""
import pytest

import graphcell as ms
from graphcell import nn

ERRORS = [
    (lambda: nn.Conv2d(3, 4, 0), ValueError,
     "For 'Conv2d', the 'kernel_size item' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.Conv2d(3, 4, (3, 3, 3)), TypeError,
     "When expanding an int number to tuple, input tuple dimension must be 2, but got (3, 3, 3)"),
    (lambda: nn.Conv2d(3, 4, 3.0), TypeError,
     "When expanding an int number to tuple, input type must be integer or tuple[int], but got <class 'float'>"),
    (lambda: nn.Conv2d(3, 4, 3, stride=0), ValueError,
     "For 'Conv2d', the 'stride item' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.Conv2d(3, 4, 3, dilation=0), ValueError,
     "For 'Conv2d', the 'dilation item' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.Conv2d(3, 4, 3, pad_mode="pad", padding=-1), ValueError,
     "For 'Conv2d', the 'padding' must be int and must >= 0, but got '-1' with type 'int'."),
    (lambda: nn.Conv2d(3, 4, 3, pad_mode="pad", padding=(1, 1, 1)), ValueError,
     "For 'Conv2D', the 'pad size' must be int and must = 4, but got '3' with type 'int'."),
    (lambda: nn.Conv2d(3, 4, 3, pad_mode="pad", padding=(1, 1, -1, 1)), ValueError,
     "For 'Conv2d', the 'padding item' must be int and must >= 0, but got '-1' with type 'int'."),
    (lambda: nn.Conv2d(0, 4, 3), ValueError,
     "For 'Conv2d', the 'in_channels' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.Conv2d(3, 3, 3, group=0), ValueError,
     "For 'Conv2d', the 'group' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.Conv2d(3, 4, 3, group=2), ValueError,
     "The argument 'group' should be divisible by 'in_channels' and 'out_channels', but got group:2, "
     "in_channels:3, out_channels:4."),
    (lambda: nn.Conv2d(3, 4, 3, pad_mode="zeros"), ValueError,
     "For 'Conv2D', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', but got 'zeros'."),
    (lambda: nn.Conv2dTranspose(3, 4, 0), ValueError,
     "For 'Conv2dTranspose', the 'kernel_size item' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.Conv2dTranspose(3, 4, 3, stride=0), ValueError,
     "For 'Conv2dTranspose', the 'stride item' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.Conv2dTranspose(3, 4, 3, pad_mode="pad", padding=-1), ValueError,
     "For 'Conv2dTranspose', the 'padding' must be int and must >= 0, but got '-1' with type 'int'."),
    (lambda: nn.Conv2dTranspose(3, 4, 3, pad_mode="x"), ValueError,
     "For 'Conv2dTranspose', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', but got 'x'."),
    (lambda: nn.Conv2dTranspose(3, 4, 3, group=2), ValueError,
     "For 'Conv2dTranspose', the attr 'in_channels' must be divisible by attr 'group', but got 'in_channels': 3 "
     "and 'group': 2."),
    (lambda: nn.Conv1d(3, 4, 0), ValueError,
     "For 'Conv1d', the 'kernel_size' must be int and must >= 1, but got '0' with type 'int'."),
    (lambda: nn.Conv1d(3, 4, 3, pad_mode="pad", padding=-1), ValueError,
     "For 'Conv1d', the 'padding' must be int and must >= 0, but got '-1' with type 'int'."),
    (lambda: nn.Conv1d(3, 4, 3, pad_mode="x"), ValueError,
     "For 'Conv1d', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', but got 'x'."),
    (lambda: nn.Conv1d(3, 4, 3, group=2), ValueError,
     "The argument 'group' should be divisible by 'in_channels' and 'out_channels', but got group:2, "
     "in_channels:3, out_channels:4."),
    (lambda: nn.Conv1dTranspose(3, 4, 3, group=2), ValueError,
     "For 'Conv1dTranspose', the attr 'in_channels' must be divisible by attr 'group', but got 'in_channels': 3 "
     "and 'group': 2."),
    (lambda: nn.MaxPool2d(0), ValueError,
     "For 'MaxPool2d', the 'kernel_size' must be an positive int number or a tuple, but got 0"),
    (lambda: nn.MaxPool2d(2, 0), ValueError,
     "For 'MaxPool2d', the 'stride' must be an positive int number or a tuple, but got 0"),
    (lambda: nn.MaxPool2d((2, 0)), ValueError,
     "For 'MaxPool2d', the 'kernel_size' must be an positive int number or a tuple, but got (2, 0)"),
    (lambda: nn.MaxPool2d(2.0), TypeError,
     "For 'MaxPool2d', the type of 'kernel_size' should be one of '['int', 'tuple']', but got type 'float'."),
    (lambda: nn.AvgPool2d(0), ValueError,
     "For 'AvgPool2d', the 'kernel_size' must be an positive int number or a tuple, but got 0"),
    (lambda: nn.AvgPool2d(2, pad_mode="x"), ValueError,
     "For 'AvgPool2d', the 'pad_mode' must be str and must be in '['VALID', 'SAME', 'PAD']', but got 'X'."),
    (lambda: nn.BatchNorm2d(0), ValueError, "For 'BatchNorm2d', the 'num_features' must be at least 1, but got 0."),
    (lambda: nn.BatchNorm1d(0), ValueError, "For 'BatchNorm1d', the 'num_features' must be at least 1, but got 0."),
    (lambda: nn.BatchNorm2d(3, momentum=1.5), ValueError,
     "For 'BatchNorm2d', the 'momentum' must be a number in range [0, 1], but got 1.5."),
    (lambda: nn.BatchNorm2d(3, use_batch_statistics="x"), ValueError,
     "For 'BatchNorm2d', the 'use_batch_statistics' must be a boolean value or None, but got x."),
    (lambda: nn.LayerNorm(5), TypeError,
     "For 'LayerNorm', the type of 'normalized_shape' must be tuple[int] or list[int], but got 5 and the type is "
     "<class 'int'>."),
    (lambda: nn.Embedding(5, 3, padding_idx=7), ValueError,
     "For 'Embedding', the 'padding_idx' must be in range of [0, 5), but got 7 with type 'int'."),
    (lambda: nn.Dropout(p=1.0), ValueError, "For 'Dropout', the 'p' must be a number in range [0, 1), but got 1.0."),
    (lambda: nn.Dropout(keep_prob=0.0), ValueError,
     "For 'Dropout', the 'keep_prob' must be a number in range (0, 1], but got 0.0."),
    (lambda: nn.PReLU(w="a"), TypeError, "For 'PReLU', the 'w' only supported float, list and tensor, but got str."),
    (lambda: nn.PReLU(w=1), TypeError, "For 'PReLU', the 'w' only supported float, list and tensor, but got int."),
    (lambda: nn.GELU(approximate="tanh"), TypeError, "For 'GELU', the 'approximate' must be a bool, but got str."),
    (lambda: nn.BiDense(0, 3, 2), ValueError,
     "For 'BiDense', the 'in1_channels' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.BiDense(3, 3, 0), ValueError,
     "For 'BiDense', the 'out_channels' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.Dense(0, 3), ValueError,
     "For 'Dense', the 'in_channels' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.Dense(3, 0), ValueError,
     "For 'Dense', the 'out_channels' must be int and must > 0, but got '0' with type 'int'."),
    (lambda: nn.RReLU(0.5, 0.1), ValueError,
     "For RReLU, the value of 'upper' must be greater than or equal to 'lower', but got upper: 0.1, lower: 0.5. "),
    (lambda: nn.Hardtanh(1.0, -1.0), ValueError, "For Hardtanh, min_val should be less than max_val,but got 1.0 and -1.0"),
    (lambda: nn.SequentialCell([1, 2]), TypeError,
     "For 'insert_child_to_cell', the argument 'child_cell' must be 'Cell' if not None, but got type <class 'int'>."),
    (lambda: nn.CellList([1]), TypeError, "For 'CellList', each cell must be subclass of Cell, but got int."),
]


@pytest.mark.parametrize("make, error, message", ERRORS)
def test_constructor_errors_are_mindspore_s(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value) == message


def _param(name, shape, trainable=True):
    return f"Parameter (name={name}, shape={shape}, dtype=Float32, requires_grad={trainable})"


REPRS = [
    (lambda: nn.BatchNorm2d(3, momentum=0.7, eps=1e-3),
     f"BatchNorm2d(num_features=3, eps=0.001, momentum=0.7, gamma={_param('gamma', '(3,)')}, "
     f"beta={_param('beta', '(3,)')}, moving_mean={_param('mean', '(3,)', False)}, "
     f"moving_variance={_param('variance', '(3,)', False)})"),
    (lambda: nn.InstanceNorm1d(3),
     f"InstanceNorm1d(num_features=3, eps=1e-05, momentum=0.1, gamma={_param('gamma', '(3,)')}, "
     f"beta={_param('beta', '(3,)')}, moving_mean={_param('mean', '(3,)', False)}, "
     f"moving_variance={_param('variance', '(3,)', False)})"),
    # 2.10's text: no '=' after gamma, no epsilon
    (lambda: nn.LayerNorm((2, 3), 1, 1, epsilon=1e-3),
     f"LayerNorm(normalized_shape=(2, 3), begin_norm_axis=1, begin_params_axis=1, gamma{_param('gamma', '(2, 3)')}, "
     f"beta={_param('beta', '(2, 3)')})"),
    (lambda: nn.Embedding(5, 3, dtype=ms.int64),
     f"Embedding(vocab_size=5, embedding_size=3, use_one_hot=False, embedding_table="
     f"{_param('embedding_table', '(5, 3)')}, dtype=Int64, padding_idx=None)"),
    (lambda: nn.MaxPool2d(3, 2, pad_mode="same"), "MaxPool2d(kernel_size=3, stride=2, pad_mode=SAME)"),
    (lambda: nn.AvgPool2d(3, 2, pad_mode="pad", padding=1), "AvgPool2d(kernel_size=3, stride=2, pad_mode=PAD)"),
    (lambda: nn.MaxPool1d(3, 2), "MaxPool1d(kernel_size=(1, 3), stride=(1, 2), pad_mode=VALID)"),
    (lambda: nn.MaxPool1d(3, 2, pad_mode="pad", padding=1),
     "MaxPool1d(kernel_size=(1, 1, 3), stride=(1, 1, 2), pad_mode=PAD)"),
    (lambda: nn.AvgPool1d(3, 2, pad_mode="same"), "AvgPool1d(kernel_size=(1, 3), stride=(1, 2), pad_mode=SAME)"),
    (lambda: nn.AvgPool1d(3, 2, pad_mode="pad", padding=1), "AvgPool1d(kernel_size=3, stride=2, pad_mode=PAD)"),
    (lambda: nn.Dropout(keep_prob=1.0), "Dropout(keep_prob=1.0)"),
    (lambda: nn.Dropout(p=0.3), "Dropout(p=0.3)"),
    (lambda: nn.Dense(5, 3, activation="relu"),
     "Dense(\n  input_channels=5, output_channels=3, has_bias=True, activation=ReLU()\n  (activation): ReLU()\n)"),
]


@pytest.mark.parametrize("make, text", REPRS)
def test_reprs_are_mindspore_s(make, text):
    assert repr(make()) == text


def test_convolution_reprs_print_initializers_and_format():
    # measured: "..., has_bias=True, weight_init=<...HeUniform object at 0x...>, bias_init=<...Uniform
    # object ...>, format=NCHW" (no output_padding); graphcell's initializers print their arguments
    text = repr(nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="pad", padding=1, output_padding=1, has_bias=True))
    assert text.startswith("Conv2dTranspose(input_channels=4, output_channels=6, kernel_size=(3, 3), stride=(2, 2), "
                           "pad_mode=pad, padding=1, dilation=(1, 1), group=1, has_bias=True, weight_init=HeUniform(")
    assert "bias_init=Uniform(" in text and text.endswith(", format=NCHW)") and "output_padding" not in text
    assert repr(nn.Conv3d(4, 6, 3, weight_init="normal")).endswith(
        "has_bias=False, weight_init=normal, bias_init=None, format=NCDHW)")
    assert "format=NCDHW" in repr(nn.Conv3dTranspose(4, 6, 3))
