"""RNNCell, GRUCell and LSTMCell (one time step), and the step functions that nn.RNN, nn.GRU and
nn.LSTM run at every step: MindSpore 2.10's formulas, gate order and parameters, as measured.

Formulas (MindSpore's rnn_cells.py; torch's RNNCell/GRUCell/LSTMCell compute the same numbers
with the same weight layout, so a state_dict copies across either way):

    RNN   h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)        (relu with nonlinearity="relu")
    LSTM  i, f, g, o = split(x W_ih^T + b_ih + h W_hh^T + b_hh, 4)      gate order i, f, g, o
          c' = sigmoid(f) c + sigmoid(i) tanh(g);   h' = sigmoid(o) tanh(c')
    GRU   r, z, n rows of W_ih / W_hh (in that order):
          r = sigmoid(x_r + h_r);  z = sigmoid(x_z + h_z)
          n = tanh(x_n + r * (h W_hn^T + b_hn))       the reset gate scales the hidden part,
          h' = n + z (h - n)  (= (1 - z) n + z h)     bias included, as torch and cuDNN

A step function takes `gi`, the input's part x W_ih^T + b_ih (the sequence layers compute it
for every time step in one matmul), the state tuple, W_hh and b_hh (None when a layer has
folded it into `gi`, which the GRU cannot: b_hn sits inside r * (...)), and returns the new
state tuple, the output first.

Initialisation, as MindSpore's RNNCellBase: each parameter is first filled with
np.random.randn (which advances numpy's global generator, so the draws after a Cell follow
MindSpore's), then every one is refilled from Uniform(1/sqrt(hidden_size)) on MindSpore's
Philox stream, bit for bit.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ...common.initializer import Uniform, initialize
from ...dtype import to_dtype
from ...ops import functional as F
from ...tensor import Parameter, Tensor
from ..cell import Cell

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


# -- the step functions ------------------------------------------------------------------------

def _hidden_part(h, w_hh, b_hh):
    return F.dense(h, w_hh, b_hh)


def rnn_tanh_step(gi, state, w_hh, b_hh):
    (h,) = state
    return (F.tanh(F.add(gi, _hidden_part(h, w_hh, b_hh))),)


def rnn_relu_step(gi, state, w_hh, b_hh):
    (h,) = state
    return (F.relu(F.add(gi, _hidden_part(h, w_hh, b_hh))),)


def lstm_step(gi, state, w_hh, b_hh):
    h, c = state
    gates = F.add(gi, _hidden_part(h, w_hh, b_hh))
    i, f, g, o = F.split(gates, h.shape[-1], axis=-1)
    c_new = F.add(F.mul(F.sigmoid(f), c), F.mul(F.sigmoid(i), F.tanh(g)))
    return F.mul(F.sigmoid(o), F.tanh(c_new)), c_new


def gru_step(gi, state, w_hh, b_hh):
    (h,) = state
    size = h.shape[-1]
    i_r, i_z, i_n = F.split(gi, size, axis=-1)
    h_r, h_z, h_n = F.split(_hidden_part(h, w_hh, b_hh), size, axis=-1)
    r = F.sigmoid(F.add(i_r, h_r))
    z = F.sigmoid(F.add(i_z, h_z))
    n = F.tanh(F.add(i_n, F.mul(r, h_n)))
    return (F.add(n, F.mul(z, F.sub(h, n))),)


STEPS = {"RNN_TANH": rnn_tanh_step, "RNN_RELU": rnn_relu_step, "GRU": gru_step, "LSTM": lstm_step}


# -- argument checks, in MindSpore's words -----------------------------------------------------

def check_positive_int(value, name: str, cls: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{cls}', the '{name}' must be int, but got '{type(value).__name__}'")
    if value <= 0:
        raise ValueError(f"For '{cls}', the '{name}' must be int and must > 0, but got '{value}' with type 'int'.")
    return int(value)


def check_bool(value, name: str, cls: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', the type of '{name}' should be 'bool', but got type "
                        f"'{type(value).__name__}'.")
    return value


def check_nonlinearity(value, cls: str) -> str:
    if value not in ("tanh", "relu"):
        raise ValueError(f"For '{cls}', the 'nonlinearity' must be in ['tanh', 'relu'], but got {value}.")
    return value


def check_state(cell: Cell, value, what: str, shape: tuple, dtype) -> None:
    """`value` is a Tensor of `shape` and `dtype` (an initial hidden or cell state)."""
    cls = type(cell).__name__
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{cls}', the '{what}' must be a Tensor, but got {type(value).__name__}")
    if tuple(value.shape) != tuple(shape):
        raise ValueError(f"For '{cls}', the '{what}' must have shape {list(shape)}, but got {list(value.shape)}")
    if value.dtype is not dtype:
        raise TypeError(f"For '{cls}', the type of '{what}' should be same as 'x', but got 'x' with type "
                        f"{dtype} and '{what}' with type {value.dtype}.")


def lstm_state_pair(cell: Cell, hx):
    """An LSTM's (h, c): MindSpore takes a tuple (graphcell a list too) of two Tensors."""
    cls = type(cell).__name__
    if not isinstance(hx, (tuple, list)):
        raise TypeError(f"For '{cls}', the 'hx' must be a tuple (h, c) of two Tensors, but got "
                        f"{type(hx).__name__}")
    if len(hx) != 2:
        raise TypeError(f"For '{cls}', the length of 'hx' must be '2', but got '{len(hx)}'")
    return tuple(hx)


# -- the Cells ---------------------------------------------------------------------------------

class _RNNCellBase(Cell):
    """Parameters weight_ih [G*hidden, input], weight_hh [G*hidden, hidden], bias_ih and bias_hh
    [G*hidden] (with has_bias), G the number of gates; MindSpore's names, shapes and draws."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool, mode: str, dtype):
        super().__init__()
        cls = type(self).__name__
        check_bool(has_bias, "has_bias", cls)
        self.hidden_size = check_positive_int(hidden_size, "hidden_size", cls)
        self.input_size = check_positive_int(input_size, "input_size", cls)
        self.has_bias, self._mode = has_bias, mode
        dtype = to_dtype(dtype)
        rows = GATES[mode] * hidden_size
        shapes = [(rows, input_size), (rows, hidden_size)] + ([(rows,), (rows,)] if has_bias else [])
        for shape in shapes:   # MindSpore's placeholder values: they advance numpy's generator
            np.random.randn(*shape)
        bound = 1.0 / math.sqrt(hidden_size)
        params = [Parameter(initialize(Uniform(bound), shape, dtype.np_dtype)) for shape in shapes]
        self.weight_ih, self.weight_hh = params[0], params[1]
        self.bias_ih, self.bias_hh = (params[2], params[3]) if has_bias else (None, None)

    def _check_x(self, x):
        self.check_input(x, rank=2, what="x")
        self.check_input(x, axis=-1, size=self.input_size, what=f"x (input_size={self.input_size})",
                         dtype=self.weight_ih.dtype)

    def _step(self, x, state):
        gi = F.dense(x, self.weight_ih, self.bias_ih)
        return STEPS[self._mode](gi, state, self.weight_hh, self.bias_hh)

    def extend_repr(self):
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(_RNNCellBase):
    """An Elman RNN cell: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (relu with
    nonlinearity="relu"). `construct(x, hx)`: x [batch, input_size], hx [batch, hidden_size]
    -> h' [batch, hidden_size]."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, nonlinearity: str = "tanh",
                 dtype="float32"):
        super().__init__(input_size, hidden_size, has_bias, "RNN_TANH", dtype)
        if not isinstance(nonlinearity, str) or nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNNCell', the 'nonlinearity' must be str and must be in '['tanh', 'relu']', "
                             f"but got '{nonlinearity}'.")
        self.nonlinearity = nonlinearity
        self._mode = "RNN_RELU" if nonlinearity == "relu" else "RNN_TANH"

    def construct(self, x, hx):
        self._check_x(x)
        check_state(self, hx, "hx", (x.shape[0], self.hidden_size), x.dtype)
        return self._step(x, (hx,))[0]


class GRUCell(_RNNCellBase):
    """A GRU cell (gate rows r, z, n; the reset gate scales h W_hn^T + b_hn). `construct(x, hx)`:
    x [batch, input_size], hx [batch, hidden_size] -> h' [batch, hidden_size]."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype="float32"):
        super().__init__(input_size, hidden_size, has_bias, "GRU", dtype)

    def construct(self, x, hx):
        self._check_x(x)
        check_state(self, hx, "hx", (x.shape[0], self.hidden_size), x.dtype)
        return self._step(x, (hx,))[0]


class LSTMCell(_RNNCellBase):
    """An LSTM cell (gate rows i, f, g, o). `construct(x, hx)`: x [batch, input_size], hx a tuple
    (h, c) of [batch, hidden_size] -> the tuple (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype="float32",
                 *legacy, **legacy_kwargs):
        # MindSpore's check for the pre-1.6 LSTMCell (a whole layer, with more arguments)
        if legacy or {"batch_size", "dropout", "bidirectional"} & set(legacy_kwargs):
            raise ValueError("The arguments of `nn.LSTMCell` from old MindSpore version(<1.6) are detected, "
                             "if you still need use single LSTM layer, please use `nn.LSTM` instead.")
        if legacy_kwargs:
            raise TypeError(f"LSTMCell got unexpected arguments {sorted(legacy_kwargs)}")
        super().__init__(input_size, hidden_size, has_bias, "LSTM", dtype)

    def construct(self, x, hx):
        self._check_x(x)
        h, c = lstm_state_pair(self, hx)
        state_shape = (x.shape[0], self.hidden_size)
        check_state(self, h, "hx[0]", state_shape, x.dtype)
        check_state(self, c, "hx[1]", state_shape, x.dtype)
        return self._step(x, (h, c))


__all__ = ["RNNCell", "GRUCell", "LSTMCell"]
