"""MindSpore 2.10's recurrent operator classes: `ops.LSTM` (the CPU kernel's primitive, one flat
weight), and the Ascend-only `ops.DynamicRNN`, `ops.DynamicGRUV2` and `ops.BasicLSTMCell`
(TensorFlow's LSTM-block gate order i, j, f, o). Each is graphcell's recurrence from
nn/layer/rnns.py (one `scan` per layer and direction), so jit, vmap, grad and ONNX follow.

ops.LSTM's flat weight, as measured on 2.10's CPU kernel against torch.nn.LSTM: every layer's and
direction's W_ih [4H, in] (layer by layer, forward before reverse), then every W_hh [4H, H], then
with has_bias one bias [4H] per layer and direction, b_ih + b_hh (the kernel reads that one; the
rest of the weight's 2 * L * D * 4H bias entries are not read). Gates i, f, g, o as torch's.
2.10's `reserve` and `state` are oneDNN's workspace (uninitialised memory, sized by the
machine's kernel); graphcell returns zeros [1, 1] for both.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .op_base import Operator, check_bool, check_choice, check_float, check_int, check_positive_int, exporter

CLASSES: list[str] = []
_export = exporter(CLASSES)


def _recurrence():
    # nn.layer imports graphcell.ops: read the recurrence from it when first called
    from ..nn.layer.rnn_cells import gru_step, lstm_step
    from ..nn.layer.rnns import run_direction
    return run_direction, lstm_step, gru_step


def _float_check(op: str, name: str, x, allowed=(mstype.float16, mstype.float32, mstype.float64)) -> Tensor:
    x = F.as_tensor(x)
    if x.dtype not in allowed:
        names = ", ".join(f"Tensor[{d}]" for d in allowed)
        raise TypeError(f"For primitive[{op}], the input argument[{name}] must be a type of {{{names}}}, "
                        f"but got Tensor[{x.dtype}].")
    return x


def _shape_check(op: str, name: str, x: Tensor, shape: tuple) -> None:
    if tuple(x.shape) != tuple(shape):
        raise ValueError(f"For primitive[{op}], the {name}_shape: {list(x.shape)} must be equal to {list(shape)}")


@_export
class LSTM(Operator):
    """LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size=0)
    (x [T, N, input_size], h [L*D, N, H], c [L*D, N, H], w [W, 1, 1])
    -> (output [T, N, D*H], h_n, c_n, reserve, state). Dropout is not applied (2.10's CPU
    kernel runs inference)."""

    def __init__(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size=0):
        op = "LSTM"
        attrs = dict(input_size=check_positive_int(op, "input_size", input_size),
                     hidden_size=check_positive_int(op, "hidden_size", hidden_size),
                     num_layers=check_positive_int(op, "num_layers", num_layers),
                     has_bias=check_bool(op, "has_bias", has_bias),
                     bidirectional=check_bool(op, "bidirectional", bidirectional),
                     dropout=check_float(op, "dropout", dropout))
        if not 0 <= attrs["dropout"] <= 1:
            raise ValueError(f"For 'LSTM', the 'dropout' must be in range of [0, 1], but got {dropout} with type "
                             f"'{type(dropout).__name__}'.")
        attrs["proj_size"] = check_int(op, "proj_size", proj_size, minimum=0)
        if attrs["proj_size"]:
            raise NotImplementedError("ops.LSTM: proj_size > 0 is not supported by graphcell (2.10's CPU kernel "
                                      "does not apply the projection either); use nn.LSTM")
        super().__init__(**attrs)

    def weight_size(self) -> int:
        """The flat weight's length as 2.10 sizes it (two biases per layer and direction)."""
        hidden, dirs = self.hidden_size, 2 if self.bidirectional else 1
        size = 0
        for layer in range(self.num_layers):
            inputs = self.input_size if layer == 0 else dirs * hidden
            size += dirs * (4 * hidden * (inputs + hidden) + (8 * hidden if self.has_bias else 0))
        return size

    def __call__(self, x, h, c, w):
        x = _float_check("LSTM", "x", x, (mstype.float16, mstype.float32))
        h, c, w = (F.as_tensor(v) for v in (h, c, w))
        hidden, layers, dirs = self.hidden_size, self.num_layers, 2 if self.bidirectional else 1
        if x.ndim != 3 or x.shape[2] != self.input_size:
            raise ValueError(f"For primitive[LSTM], the x_shape[2] must be equal to {self.input_size}, but got "
                             f"{x.shape[-1]}.")
        state_shape = (layers * dirs, x.shape[1], hidden)
        _shape_check("LSTM", "h", h, state_shape)
        _shape_check("LSTM", "c", c, state_shape)
        if w.size < self.weight_size():
            raise ValueError(f"For 'LSTM', the weight must hold at least {self.weight_size()} elements "
                             f"(2.10's size for these arguments), but got {w.size}.")
        run_direction, lstm_step, _ = _recurrence()
        flat = F.reshape(F.cast(w, x.dtype), (-1,))
        offset = 0

        def take(shape):
            nonlocal offset
            count = 1
            for s in shape:
                count *= s
            part = F.reshape(F.slice_axis(flat, 0, offset, offset + count), shape)
            offset += count
            return part
        sizes = [self.input_size if layer == 0 else dirs * hidden for layer in range(layers) for _ in range(dirs)]
        w_ih = [take((4 * hidden, size)) for size in sizes]
        w_hh = [take((4 * hidden, hidden)) for _ in sizes]
        biases = [take((4 * hidden,)) if self.has_bias else None for _ in sizes]
        h_n, c_n, layer_input = [], [], x
        for layer in range(layers):
            outputs = []
            for direction in range(dirs):
                k = layer * dirs + direction
                gi = F.dense(layer_input, w_ih[k], biases[k])
                out, (h_k, c_k) = run_direction(lstm_step, gi, (h[k], c[k]), w_hh[k], None, None, direction == 1)
                outputs.append(out)
                h_n.append(h_k)
                c_n.append(c_k)
            layer_input = outputs[0] if dirs == 1 else F.concat(outputs, -1)
        zeros = F.zeros((1, 1), x.dtype)
        return layer_input, F.stack(h_n), F.stack(c_n), zeros, zeros


# -- TensorFlow's LSTM block (DynamicRNN, BasicLSTMCell) ----------------------------------------

def _lstm_block_step(x_h, c, w, b, forget_bias: float, cell_clip: float):
    """One step of TF's LSTM block: gates [x, h] @ w + b split i, j, f, o. Returns
    (h, c, i, j, f, o, tanh(c)) after the activations."""
    gates = F.add(F.matmul(x_h, w), b)
    i, j, f, o = F.split(gates, gates.shape[-1] // 4, axis=-1)
    i, j, f, o = F.sigmoid(i), F.tanh(j), F.sigmoid(F.add(f, forget_bias)), F.sigmoid(o)
    c_new = F.add(F.mul(f, c), F.mul(i, j))
    if cell_clip > 0:
        c_new = F.clip_by_value(c_new, -cell_clip, cell_clip)
    tanh_c = F.tanh(c_new)
    return F.mul(o, tanh_c), c_new, i, j, f, o, tanh_c


@_export
class DynamicRNN(Operator):
    """DynamicRNN(cell_type='LSTM', direction='UNIDIRECTIONAL', cell_depth=1, use_peephole=False,
    keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True, activation='tanh', forget_bias=0.0,
    is_training=True)(x, w [I+H, 4H], b [4H], seq_length=None, init_h [1, N, H], init_c [1, N, H])
    -> (y, output_h, output_c, i, j, f, o, tanhc), each [T, N, H] in b's dtype: 2.10's documented
    Ascend op (no CPU kernel), with the gates after their activations."""

    def __init__(self, cell_type="LSTM", direction="UNIDIRECTIONAL", cell_depth=1, use_peephole=False,
                 keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True, activation="tanh", forget_bias=0.0,
                 is_training=True):
        op = "DynamicRNN"
        super().__init__(cell_type=check_choice(op, "cell_type", cell_type, ["LSTM"]),
                         direction=check_choice(op, "direction", direction, ["UNIDIRECTIONAL"]),
                         cell_depth=check_int(op, "cell_depth", cell_depth),
                         use_peephole=check_bool(op, "use_peephole", use_peephole),
                         keep_prob=check_float(op, "keep_prob", keep_prob),
                         cell_clip=check_float(op, "cell_clip", cell_clip),
                         num_proj=check_int(op, "num_proj", num_proj, minimum=0),
                         time_major=check_bool(op, "time_major", time_major),
                         activation=check_choice(op, "activation", activation, ["tanh"]),
                         forget_bias=check_float(op, "forget_bias", forget_bias),
                         is_training=check_bool(op, "is_training", is_training))

    def __call__(self, x, w, b, seq_length, init_h, init_c):
        op = "DynamicRNN"
        x, w, init_h, init_c = (_float_check(op, n, v, (mstype.float16,)) for n, v in
                                (("x", x), ("w", w), ("init_h", init_h), ("init_c", init_c)))
        b = _float_check(op, "b", b, (mstype.float16, mstype.float32))
        if seq_length is not None:
            raise ValueError("For 'DynamicRNN', only None is supported for 'seq_length' (2.10's documentation).")
        if x.ndim != 3:
            raise ValueError(f"For 'DynamicRNN', the dimension of 'x' must be 3, but got {x.ndim}.")
        hidden = init_h.shape[-1]
        _shape_check(op, "w", w, (x.shape[2] + hidden, 4 * hidden))
        _shape_check(op, "b", b, (4 * hidden,))
        _shape_check(op, "init_h", init_h, (1, x.shape[1], hidden))
        _shape_check(op, "init_c", init_c, (1, x.shape[1], hidden))
        from .scan_loop import scan
        work = b.dtype
        w, x = F.cast(w, work), F.cast(x, work)
        forget_bias, cell_clip = self.forget_bias, self.cell_clip

        def step(carry, x_t):
            h, c = carry
            out = _lstm_block_step(F.concat([x_t, h], -1), c, w, b, forget_bias, cell_clip)
            return (out[0], out[1]), out
        _, outs = scan(step, (F.cast(init_h[0], work), F.cast(init_c[0], work)), x)
        h, c, i, j, f, o, tanh_c = outs
        return h, F.cast(h, mstype.float16), c, i, j, f, o, tanh_c


@_export
class BasicLSTMCell(Operator):
    """BasicLSTMCell(keep_prob=1.0, forget_bias=1.0, state_is_tuple=True, activation='tanh')
    (x [N, I], h [N, H], c [N, H], w [I+H, 4H], b [4H]) -> (ct, ht, it, jt, ft, ot, tanhct): one
    step of DynamicRNN's cell (2.10 deprecates it in DynamicRNN's favour and documents no more)."""

    def __init__(self, keep_prob=1.0, forget_bias=1.0, state_is_tuple=True, activation="tanh"):
        op = "BasicLSTMCell"
        keep_prob = check_float(op, "keep_prob", keep_prob)
        if not 0 < keep_prob <= 1:
            raise ValueError(f"For 'BasicLSTMCell', the 'keep_prob' must be in range of (0, 1], but got {keep_prob}.")
        super().__init__(keep_prob=keep_prob, forget_bias=check_float(op, "forget_bias", forget_bias),
                         state_is_tuple=check_bool(op, "state_is_tuple", state_is_tuple),
                         activation=check_choice(op, "activation", activation, ["tanh"]))

    def __call__(self, x, h, c, w, b):
        op = "BasicLSTMCell"
        x, h, c, w, b = (_float_check(op, n, v) for n, v in (("x", x), ("h", h), ("c", c), ("w", w), ("b", b)))
        hidden = h.shape[-1]
        _shape_check(op, "w", w, (x.shape[-1] + hidden, 4 * hidden))
        _shape_check(op, "b", b, (4 * hidden,))
        _shape_check(op, "c", c, tuple(h.shape))
        h_new, c_new, i, j, f, o, tanh_c = _lstm_block_step(F.concat([x, F.cast(h, x.dtype)], -1), c, w, b,
                                                           self.forget_bias, -1.0)
        return c_new, h_new, i, j, f, o, tanh_c


@_export
class DynamicGRUV2(Operator):
    """DynamicGRUV2(direction='UNIDIRECTIONAL', cell_depth=1, keep_prob=1.0, cell_clip=-1.0,
    num_proj=0, time_major=True, activation='tanh', gate_order='rzh', reset_after=True,
    is_training=True)(x, weight_input [I, 3H], weight_hidden [H, 3H], bias_input, bias_hidden,
    seq_length=None, init_h [N, H]) -> (y, output_h, update, reset, new, hidden_new), each
    [T, N, H]: 2.10's documented Ascend op. hidden_new is W_hn h + b_hn, before the reset gate."""

    def __init__(self, direction="UNIDIRECTIONAL", cell_depth=1, keep_prob=1.0, cell_clip=-1.0, num_proj=0,
                 time_major=True, activation="tanh", gate_order="rzh", reset_after=True, is_training=True):
        op = "DynamicGRUV2"
        super().__init__(direction=check_choice(op, "direction", direction, ["UNIDIRECTIONAL"]),
                         cell_depth=check_int(op, "cell_depth", cell_depth),
                         keep_prob=check_float(op, "keep_prob", keep_prob),
                         cell_clip=check_float(op, "cell_clip", cell_clip),
                         num_proj=check_int(op, "num_proj", num_proj, minimum=0),
                         time_major=check_bool(op, "time_major", time_major),
                         activation=check_choice(op, "activation", activation, ["tanh"]),
                         gate_order=check_choice(op, "gate_order", gate_order, ["zrh", "rzh"]),
                         reset_after=check_bool(op, "reset_after", reset_after),
                         is_training=check_bool(op, "is_training", is_training))

    def __call__(self, x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length, init_h):
        op = "DynamicGRUV2"
        x, w_i, w_h = (_float_check(op, n, v, (mstype.float16,)) for n, v in
                       (("x", x), ("weight_input", weight_input), ("weight_hidden", weight_hidden)))
        init_h = _float_check(op, "init_h", init_h, (mstype.float16, mstype.float32))
        if seq_length is not None:
            raise ValueError("For 'DynamicGRUV2', only None is supported for 'seq_length' (2.10's documentation).")
        hidden = init_h.shape[-1]
        _shape_check(op, "weight_input", w_i, (x.shape[-1], 3 * hidden))
        _shape_check(op, "weight_hidden", w_h, (hidden, 3 * hidden))
        _shape_check(op, "init_h", init_h, (x.shape[1], hidden))
        biases = [None if v is None else _float_check(op, n, v, (mstype.float16, mstype.float32))
                  for n, v in (("bias_input", bias_input), ("bias_hidden", bias_hidden))]
        work = next((v.dtype for v in biases if v is not None), init_h.dtype)
        zeros = F.zeros((3 * hidden,), work)
        b_i, b_h = (zeros if v is None else F.cast(v, work) for v in biases)
        w_i, w_h = F.cast(w_i, work), F.cast(w_h, work)
        order = (1, 0, 2) if self.gate_order == "zrh" else (0, 1, 2)   # where r, z, n sit
        reset_after = self.reset_after
        gi_all = F.add(F.matmul(F.cast(x, work), w_i), b_i)     # [T, N, 3H]: the input parts, at once
        from .scan_loop import scan

        def step(h, gi):
            gh = F.add(F.matmul(h, w_h), b_h)
            parts_i, parts_h = F.split(gi, hidden, axis=-1), F.split(gh, hidden, axis=-1)
            r = F.sigmoid(F.add(parts_i[order[0]], parts_h[order[0]]))
            z = F.sigmoid(F.add(parts_i[order[1]], parts_h[order[1]]))
            hn = parts_h[2]
            if reset_after:
                n = F.tanh(F.add(parts_i[2], F.mul(r, hn)))
            else:   # the reset gate applied to h before its product
                hn = F.add(F.matmul(F.mul(r, h), F.slice_axis(w_h, 1, 2 * hidden, 3 * hidden)),
                           F.slice_axis(b_h, 0, 2 * hidden, 3 * hidden))
                n = F.tanh(F.add(parts_i[2], hn))
            h_new = F.add(F.mul(z, h), F.mul(F.sub(1.0, z), n))
            return h_new, (h_new, z, r, n, hn)
        _, (h, z, r, n, hn) = scan(step, F.cast(init_h, work), gi_all)
        return h, h, z, r, n, hn
