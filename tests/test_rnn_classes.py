"""ops.LSTM / DynamicRNN / DynamicGRUV2 / BasicLSTMCell and ops.RNNTLoss against torch and numpy.

ops.LSTM's flat weight layout (all W_ih, all W_hh, then b_ih + b_hh per layer and direction) was
measured on MindSpore 2.10's CPU kernel against torch.nn.LSTM (max difference 0.0 for one layer,
bidirectional, two stacked layers); the three Ascend ops follow 2.10's documentation."""
import numpy as np
import pytest
import torch

import graphcell as gc
from graphcell import Tensor, ops


def _flat_from_torch(lstm, layers, dirs):
    w_ih, w_hh, bias = [], [], []
    for layer in range(layers):
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            w_ih.append(getattr(lstm, "weight_ih" + sfx).detach().numpy().ravel())
            w_hh.append(getattr(lstm, "weight_hh" + sfx).detach().numpy().ravel())
            bias.append((getattr(lstm, "bias_ih" + sfx) + getattr(lstm, "bias_hh" + sfx)).detach().numpy())
    unread = [np.zeros(b.size, np.float32) for b in bias]   # 2.10 sizes two biases, reads one
    return np.concatenate(w_ih + w_hh + bias + unread).astype(np.float32)


@pytest.mark.parametrize("layers,dirs", [(1, 2), (2, 1)])
def test_lstm_primitive_matches_torch(layers, dirs):
    torch.manual_seed(0)
    size_in, hidden, steps, batch = 3, 3, 4, 2
    lstm = torch.nn.LSTM(size_in, hidden, layers, bidirectional=dirs == 2)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((steps, batch, size_in)).astype(np.float32)
    h0, c0 = (rng.standard_normal((layers * dirs, batch, hidden)).astype(np.float32) for _ in range(2))
    y, (hn, cn) = lstm(torch.tensor(x), (torch.tensor(h0), torch.tensor(c0)))
    op = ops.LSTM(size_in, hidden, layers, True, dirs == 2, 0.0)
    w = _flat_from_torch(lstm, layers, dirs).reshape(-1, 1, 1)
    assert w.size == op.weight_size()
    out = gc.jit(lambda *a: op(*a))(Tensor(x), Tensor(h0), Tensor(c0), Tensor(w))
    assert len(out) == 5 and out[3].shape == (1, 1)
    for got, want in zip(out[:3], (y, hn, cn)):
        np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), atol=1e-5)


def test_lstm_primitive_errors_as_2_10():
    with pytest.raises(ValueError, match=r"the 'dropout' must be in range of \[0, 1\], but got 1.5"):
        ops.LSTM(4, 3, 1, True, False, 1.5)
    with pytest.raises(TypeError, match="the type of 'has_bias' should be 'bool', but got type 'int'"):
        ops.LSTM(4, 3, 1, 1, False, 0.0)
    with pytest.raises(ValueError, match=r"the x_shape\[2\] must be equal to 4, but got 5"):
        ops.LSTM(4, 3, 1, True, False, 0.0)(np.zeros((5, 2, 5), np.float32), np.zeros((1, 2, 3), np.float32),
                                            np.zeros((1, 2, 3), np.float32), np.zeros((108, 1, 1), np.float32))
    assert repr(ops.LSTM(4, 3, 1, True, False, 0.0)) == ("Prim[LSTM]<input_size=4, hidden_size=3, num_layers=1, "
                                                         "has_bias=True, bidirectional=False, dropout=0.0, proj_size=0>")


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _np_lstm_block(x, h, c, w, b, forget_bias):
    gates = np.concatenate([x, h], -1) @ w + b
    i, j, f, o = np.split(gates, 4, -1)
    i, j, f, o = _sigmoid(i), np.tanh(j), _sigmoid(f + forget_bias), _sigmoid(o)
    c = f * c + i * j
    return o * np.tanh(c), c, i, j, f, o, np.tanh(c)


def test_dynamic_rnn_and_basic_lstm_cell_follow_the_documented_block():
    rng = np.random.default_rng(1)
    steps, batch, size_in, hidden = 3, 2, 4, 3
    x = rng.standard_normal((steps, batch, size_in)).astype(np.float16)
    w = (rng.standard_normal((size_in + hidden, 4 * hidden)) * 0.5).astype(np.float16)
    b = rng.standard_normal(4 * hidden).astype(np.float32)
    h0, c0 = (rng.standard_normal((1, batch, hidden)).astype(np.float16) for _ in range(2))
    outs = ops.DynamicRNN(forget_bias=0.5)(Tensor(x), Tensor(w), Tensor(b), None, Tensor(h0), Tensor(c0))
    assert len(outs) == 8 and outs[0].dtype == gc.float32 and outs[1].dtype == gc.float16
    h, c = h0[0].astype(np.float32), c0[0].astype(np.float32)
    for t in range(steps):
        want = _np_lstm_block(x[t].astype(np.float32), h, c, w.astype(np.float32), b, 0.5)
        h, c = want[0], want[1]
        order = (want[0], want[0], want[1]) + want[2:]
        for got, ref in zip(outs[:1] + outs[2:], order[:1] + order[2:]):
            np.testing.assert_allclose(got.asnumpy()[t], ref, atol=1e-5)
    # BasicLSTMCell: one step, outputs (ct, ht, it, jt, ft, ot, tanhct), forget_bias 1.0 by default
    x1, w1 = x[0].astype(np.float32), w.astype(np.float32)
    cell = ops.BasicLSTMCell()(Tensor(x1), Tensor(h0[0].astype(np.float32)), Tensor(c0[0].astype(np.float32)),
                               Tensor(w1), Tensor(b))
    want = _np_lstm_block(x1, h0[0].astype(np.float32), c0[0].astype(np.float32), w1, b, 1.0)
    for got, ref in zip(cell, (want[1], want[0]) + want[2:]):
        np.testing.assert_allclose(got.asnumpy(), ref, atol=1e-5)
    with pytest.raises(TypeError, match=r"input argument\[x\] must be a type of \{Tensor\[Float16\]\}"):
        ops.DynamicRNN()(Tensor(x.astype(np.float32)), Tensor(w), Tensor(b), None, Tensor(h0), Tensor(c0))


@pytest.mark.parametrize("gate_order", ["rzh", "zrh"])
def test_dynamic_gru_v2_matches_torch_gru(gate_order):
    torch.manual_seed(1)
    steps, batch, size_in, hidden = 3, 2, 4, 3
    gru = torch.nn.GRU(size_in, hidden)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((steps, batch, size_in)).astype(np.float16)
    h0 = rng.standard_normal((batch, hidden)).astype(np.float32)
    w_ih, w_hh = (getattr(gru, n).detach().numpy() for n in ("weight_ih_l0", "weight_hh_l0"))   # rows r, z, n
    b_ih, b_hh = (getattr(gru, n).detach().numpy() for n in ("bias_ih_l0", "bias_hh_l0"))
    perm = np.r_[hidden:2 * hidden, 0:hidden, 2 * hidden:3 * hidden] if gate_order == "zrh" else np.arange(3 * hidden)
    w_ih16, w_hh16 = w_ih.astype(np.float16), w_hh.astype(np.float16)
    gru.weight_ih_l0.data = torch.tensor(w_ih16.astype(np.float32))
    gru.weight_hh_l0.data = torch.tensor(w_hh16.astype(np.float32))
    y, _ = gru(torch.tensor(x.astype(np.float32)), torch.tensor(h0[None]))
    outs = ops.DynamicGRUV2(gate_order=gate_order)(
        Tensor(x), Tensor(np.ascontiguousarray(w_ih16[perm].T)), Tensor(np.ascontiguousarray(w_hh16[perm].T)),
        Tensor(b_ih[perm]), Tensor(b_hh[perm]), None, Tensor(h0))
    assert len(outs) == 6
    np.testing.assert_allclose(outs[0].asnumpy(), y.detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(outs[1].asnumpy(), y.detach().numpy(), atol=1e-5)


# -- RNNTLoss ------------------------------------------------------------------------------------

def _np_rnnt(acts, labels, t_len, u_len, blank):
    """The transducer loss and its gradient with respect to the logits, by numpy's
    forward-backward (Graves 2012)."""
    costs, grads = [], np.zeros_like(acts, dtype=np.float64)
    for b in range(acts.shape[0]):
        lp = acts[b].astype(np.float64)
        lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
        t_n, u_n = t_len[b], u_len[b] + 1
        y = labels[b]
        alpha = np.full((t_n, u_n), -np.inf)
        beta = np.full((t_n, u_n), -np.inf)
        for t in range(t_n):
            for u in range(u_n):
                if t == 0 and u == 0:
                    alpha[t, u] = 0.0
                    continue
                a = alpha[t - 1, u] + lp[t - 1, u, blank] if t else -np.inf
                c = alpha[t, u - 1] + lp[t, u - 1, y[u - 1]] if u else -np.inf
                alpha[t, u] = np.logaddexp(a, c)
        for t in reversed(range(t_n)):
            for u in reversed(range(u_n)):
                if t == t_n - 1 and u == u_n - 1:
                    beta[t, u] = lp[t, u, blank]
                    continue
                a = beta[t + 1, u] + lp[t, u, blank] if t < t_n - 1 else -np.inf
                c = beta[t, u + 1] + lp[t, u, y[u]] if u < u_n - 1 else -np.inf
                beta[t, u] = np.logaddexp(a, c)
        log_z = beta[0, 0]
        costs.append(-log_z)
        d_lp = np.zeros_like(lp)
        for t in range(t_n):
            for u in range(u_n):
                nxt = beta[t + 1, u] if t < t_n - 1 else (0.0 if u == u_n - 1 else -np.inf)
                d_lp[t, u, blank] -= np.exp(alpha[t, u] + lp[t, u, blank] + nxt - log_z)
                if u < u_n - 1:
                    d_lp[t, u, y[u]] -= np.exp(alpha[t, u] + lp[t, u, y[u]] + beta[t, u + 1] - log_z)
        grads[b] = d_lp - np.exp(lp) * d_lp.sum(-1, keepdims=True)
    return np.array(costs), grads


def test_rnnt_loss_against_numpy_forward_backward():
    rng = np.random.default_rng(3)
    acts = rng.standard_normal((2, 4, 3, 5)).astype(np.float32)
    labels = np.array([[1, 2], [3, 0]], np.int32)
    t_len, u_len = np.array([4, 3], np.int32), np.array([2, 1], np.int32)
    for blank in (0, 4):
        costs, grads = gc.jit(lambda *a: ops.RNNTLoss(blank_label=blank)(*a))(
            Tensor(acts), Tensor(labels), Tensor(t_len), Tensor(u_len))
        want_costs, want_grads = _np_rnnt(acts, labels, t_len, u_len, blank)
        np.testing.assert_allclose(costs.asnumpy(), want_costs, rtol=1e-5)
        np.testing.assert_allclose(grads.asnumpy(), want_grads, atol=1e-5)
    with pytest.raises(TypeError, match=r"the element of 'labels' must be Tensor\[Int32\], but got Tensor\[Int64\]"):
        ops.RNNTLoss()(Tensor(acts), Tensor(labels.astype(np.int64)), Tensor(t_len), Tensor(u_len))
    with pytest.raises(ValueError, match="the 'acts_rank' must be int and must = 4, but got '3'"):
        ops.RNNTLoss()(Tensor(acts[0]), Tensor(labels), Tensor(t_len), Tensor(u_len))
    with pytest.raises(TypeError, match="the type of 'blank_label' should be 'int', but got type 'float'"):
        ops.RNNTLoss(blank_label=1.5)
