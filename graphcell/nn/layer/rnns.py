"""nn.RNN, nn.GRU and nn.LSTM: multi-layer, optionally bidirectional recurrences over a
sequence, with MindSpore 2.10's arguments, parameters, initialisation and seq_length masking
(measured; they compute torch's numbers, packed sequences included).

`construct(x, hx=None, seq_length=None)`:
- x: [seq_len, batch, input_size] ([batch, seq_len, input_size] with batch_first);
- hx: [num_layers * num_directions, batch, hidden_size], zeros when None; for LSTM a tuple
  (h_0, c_0) of two such Tensors; its dtype must be x's;
- seq_length: int32/int64 [batch], each sequence's length. Steps at or past it leave the state
  as it was and output zeros, so h_n is each sequence's state after its last step, and the
  reverse direction starts at each sequence's last step (torch's pack_padded_sequence).
  A length of 0 gives zeros and h_n = h_0; a length beyond seq_len counts as seq_len (MindSpore
  does that for one direction; its bidirectional ReverseSequence refuses it).
Returns (output, h_n), for LSTM (output, (h_n, c_n)): output [seq_len, batch, num_directions *
hidden_size] (batch first with batch_first), h_n layer by layer, forward before reverse.

The parameters are weight_ih_l{k}[_reverse] [G*hidden, in], weight_hh_l{k}[_reverse]
[G*hidden, hidden], bias_ih_l{k}[_reverse], bias_hh_l{k}[_reverse] [G*hidden] (G: 1 RNN, 3 GRU,
4 LSTM), named exactly so: torch's state_dict keys, and MindSpore's checkpoint keys. MindSpore
draws them from numpy's global generator, np.random.uniform(-1/sqrt(hidden), 1/sqrt(hidden)),
one layer and direction after the other (w_ih, w_hh, b_ih, b_hh), and so does graphcell: after
graphcell.set_seed(s) the values are MindSpore's bit for bit. They are cast to x's dtype.
Dropout (probability `dropout`) applies to every layer's output but the last, in training.

Each layer and direction is one `scan` node (ops/scan_loop.py; ONNX Scan), not seq_len
unrolled steps: XLA's compile time for an unrolled recurrence grows far faster than its
length. Every step's input projection x_t W_ih^T + b_ih is one matmul over the whole sequence
before the scan, so a step is the hidden matmul and the gates.
"""
from __future__ import annotations

import warnings

import numpy as np

from ... import dtype as mstype
from ... import ops
from ...dtype import to_dtype
from ...ops import functional as F
from ...ops.scan_loop import scan
from ...tensor import Parameter, ParameterTuple, Tensor
from ..cell import Cell
from .basic import Dropout
from .rnn_cells import (GATES, STEPS, check_bool, check_nonlinearity, check_positive_int, check_state,
                        lstm_state_pair)


def run_direction(step, gi, state, w_hh, b_hh, mask, reverse: bool):
    """One direction of one layer, as one `ops.scan`. gi: [T, batch, G*hidden], the input
    projections; state: the initial state tuple; mask: None or bool [T, batch, 1] (step t
    counts for that sequence). Returns the outputs [T, batch, hidden] in time order and the
    final state tuple."""
    def one_step(carry, xs):
        gi_t, m = xs
        new = step(gi_t, carry, w_hh, b_hh)
        if m is None:
            return new, new[0]
        # Past its length a sequence keeps its state and outputs zeros (MindSpore's Select);
        # run backwards, its state thus stays h_0 until its last step.
        return tuple(F.select(m, n, s) for n, s in zip(new, carry)), F.select(m, new[0], 0.0)
    state, outputs = scan(one_step, tuple(state), (gi, mask), reverse=reverse)
    return outputs, state


class _RNNBase(Cell):
    def __init__(self, mode: str, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype="float32"):
        super().__init__()
        cls = type(self).__name__
        hidden_size = check_positive_int(hidden_size, "hidden_size", cls)
        input_size = check_positive_int(input_size, "input_size", cls)
        num_layers = check_positive_int(num_layers, "num_layers", cls)
        if not isinstance(dropout, float):   # MindSpore refuses an int, 0 included
            raise TypeError(f"For '{cls}', the type of 'dropout' must be 'float', but got "
                            f"'{type(dropout).__name__}'.")
        for name, value in (("has_bias", has_bias), ("batch_first", batch_first), ("bidirectional", bidirectional)):
            check_bool(value, name, cls)
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{cls}', the 'dropout' must be a number in range [0, 1) representing the "
                             f"probability of an element being zeroed, but got {dropout}.")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"{cls}: dropout applies after every recurrent layer but the last, so a non-zero "
                          f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=3)
        self._mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.batch_first, self.bidirectional = has_bias, batch_first, bidirectional
        self.dropout = dropout
        self.dropout_op = Dropout(p=float(dropout))
        self.is_lstm = mode == "LSTM"
        dtype = to_dtype(dtype)
        gate_size = GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        bound = 1.0 / np.sqrt(hidden_size)
        w_ih, w_hh, b_ih, b_hh = [], [], [], []

        def draw(shape, name):   # MindSpore's draw: numpy's global generator, in this order
            value = np.random.uniform(-bound, bound, shape).astype(np.float32)
            return Parameter(value.astype(dtype.np_dtype), name=name)
        for layer in range(num_layers):
            for direction in range(directions):
                suffix = "_reverse" if direction else ""
                layer_input = input_size if layer == 0 else hidden_size * directions
                w_ih.append(draw((gate_size, layer_input), f"weight_ih_l{layer}{suffix}"))
                w_hh.append(draw((gate_size, hidden_size), f"weight_hh_l{layer}{suffix}"))
                if has_bias:
                    b_ih.append(draw((gate_size,), f"bias_ih_l{layer}{suffix}"))
                    b_hh.append(draw((gate_size,), f"bias_hh_l{layer}{suffix}"))
        # MindSpore's attributes: parameters_and_names lists all w_ih, then w_hh, b_ih, b_hh
        self.w_ih_list = ParameterTuple(w_ih)
        self.w_hh_list = ParameterTuple(w_hh)
        self.b_ih_list = ParameterTuple(b_ih)
        self.b_hh_list = ParameterTuple(b_hh)

    # -- checks --------------------------------------------------------------------------------
    def _check_x(self, x):
        if self.is_lstm and isinstance(x, Tensor):   # 2.10's LSTM primitive checks these shapes in its words
            if x.ndim != 3:
                raise ValueError(f"For primitive[LSTM], the x_shape.size() must be equal to 3, but got {x.ndim}.")
            if x.shape[2] != self.input_size:
                raise ValueError(f"For primitive[LSTM], the x_shape[2] must be equal to {self.input_size}, but got "
                                 f"{x.shape[2]}.")
        self.check_input(x, rank=3, what="x ([batch, seq_len, input_size])" if self.batch_first
                         else "x ([seq_len, batch, input_size])")
        self.check_input(x, axis=-1, size=self.input_size, what=f"x (input_size={self.input_size})")
        if not x.dtype.is_floating:
            raise TypeError(f"For '{type(self).__name__}', 'x' must be a float Tensor, got {x.dtype}; cast it "
                            f"with x.astype(graphcell.float32)")
        if x.shape[1 if self.batch_first else 0] == 0:
            raise ValueError(f"For '{type(self).__name__}', 'x' has no time steps (shape {list(x.shape)})")

    def _initial_states(self, hx, batch: int, dtype) -> list:
        """One initial state tuple per layer and direction (h, or (h, c) for LSTM)."""
        count = self.num_layers * (2 if self.bidirectional else 1)
        if hx is None:
            zeros = F.broadcast_to(Tensor(0, dtype), (batch, self.hidden_size))   # not a [batch, hidden] constant
            return [(zeros, zeros) if self.is_lstm else (zeros,)] * count
        shape = (count, batch, self.hidden_size)
        if self.is_lstm:
            h, c = lstm_state_pair(self, hx)
            for name, state in (("h", h), ("c", c)):   # 2.10's LSTM primitive's words
                if isinstance(state, Tensor) and state.ndim == 3 and tuple(state.shape) != shape:
                    axis = next(i for i in range(3) if state.shape[i] != shape[i])
                    raise ValueError(f"For primitive[LSTM], the {name}_shape[{axis}] must be equal to {shape[axis]}, "
                                     f"but got {state.shape[axis]}.")
            check_state(self, h, "hx[0]", shape, dtype)
            check_state(self, c, "hx[1]", shape, dtype)
            states = (h, c)
        else:
            check_state(self, hx, "hx", shape, dtype)
            states = (hx,)
        return [tuple(F.squeeze(F.slice_axis(s, 0, k, k + 1), 0) for s in states) for k in range(count)]

    def _mask(self, seq_length, x, batch: int):
        """bool [T, batch, 1]: step t counts for sequence b (t < seq_length[b])."""
        cls = type(self).__name__
        if not isinstance(seq_length, Tensor):
            raise TypeError(f"For '{cls}', the 'seq_length' must be a Tensor, but got {type(seq_length).__name__}")
        if seq_length.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{cls}', the 'seq_length' should be one of [mindspore.int32, mindspore.int64], "
                            f"but got 'mindspore.{seq_length.dtype.name}'.")
        if seq_length.ndim != 1 or seq_length.shape[0] != batch:
            got = seq_length.shape[0] if seq_length.ndim == 1 else list(seq_length.shape)
            raise ValueError(f"For '{cls}' batch size of x and seq_length must be equal, but got {batch} of x "
                             f"and {got} of seq_length.")
        # Step t counts when t + 1 <= length. The step numbers are a cumsum of broadcast ones,
        # not an arange constant, so that an ONNX export can keep seq_len dynamic.
        ones = F.broadcast_to(Tensor(1, seq_length.dtype), (x.shape[0], 1, 1))
        return F.less_equal(ops.cumsum(ones, 0), F.reshape(seq_length, (1, batch, 1)))

    # -- the recurrence --------------------------------------------------------------------------
    def construct(self, x, hx=None, seq_length=None):
        self._check_x(x)
        if self.batch_first:
            x = F.transpose(x, (1, 0, 2))
        batch = x.shape[1]
        initial = self._initial_states(hx, batch, x.dtype)
        mask = None if seq_length is None else self._mask(seq_length, x, batch)
        step = STEPS[self._mode]
        directions = 2 if self.bidirectional else 1
        finals = []
        layer_input = x
        for layer in range(self.num_layers):
            outs = []
            for direction in range(directions):
                k = layer * directions + direction
                w_ih = F.cast(self.w_ih_list[k], x.dtype)
                w_hh = F.cast(self.w_hh_list[k], x.dtype)
                b_ih = b_hh = None
                if self.has_bias:
                    b_ih, b_hh = F.cast(self.b_ih_list[k], x.dtype), F.cast(self.b_hh_list[k], x.dtype)
                    if self._mode != "GRU":   # both biases add to the gates: fold them in once
                        b_ih, b_hh = F.add(b_ih, b_hh), None
                gi = F.dense(layer_input, w_ih, b_ih)   # every step's input projection at once
                out, state = run_direction(step, gi, initial[k], w_hh, b_hh, mask, reverse=direction == 1)
                outs.append(out)
                finals.append(state)
            layer_input = outs[0] if directions == 1 else F.concat(outs, 2)
            if layer < self.num_layers - 1 and self.dropout > 0:
                layer_input = self.dropout_op(layer_input)
        output = F.transpose(layer_input, (1, 0, 2)) if self.batch_first else layer_input
        h_n = F.stack([s[0] for s in finals], 0)
        if self.is_lstm:
            return output, (h_n, F.stack([s[1] for s in finals], 0))
        return output, h_n

    def extend_repr(self):
        text = (f"input_size={self.input_size}, hidden_size={self.hidden_size}, num_layers={self.num_layers}, "
                f"has_bias={self.has_bias}, batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")
        return text + (f", nonlinearity={self.nonlinearity}" if self._mode.startswith("RNN") else "")


class RNN(_RNNBase):
    """An Elman RNN: RNN(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=float32, nonlinearity="tanh") (nonlinearity by
    keyword only, as MindSpore's). h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)."""

    def __init__(self, *args, nonlinearity: str = "tanh", **kwargs):
        check_nonlinearity(nonlinearity, "RNN")
        super().__init__("RNN_RELU" if nonlinearity == "relu" else "RNN_TANH", *args, **kwargs)
        self.nonlinearity = nonlinearity


class GRU(_RNNBase):
    """A GRU: GRU(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=float32); gate rows r, z, n, the reset gate applied
    to h W_hn^T + b_hn (torch's and cuDNN's GRU)."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class LSTM(_RNNBase):
    """An LSTM: LSTM(input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=float32); gate rows i, f, g, o (torch's order).
    hx and the second output are tuples (h, c)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


__all__ = ["RNN", "GRU", "LSTM"]
