"""Writes rnn_mindspore.npz, the MindSpore 2.10 numbers tests/test_rnn.py compares with.

Run with a MindSpore 2.10 install (CPU), from this folder: `python make_rnn_mindspore.py`.
The tests do not need MindSpore: they read the file (np.load, allow_pickle=False).

Saved: each net's parameters by name after `set_seed(5)` (and one `np.random.random()` drawn
after building them all, which shows how many numbers the builds drew), and the outputs of
the nets on fixed inputs, seq_length edge cases included (0, and beyond seq_len).
"""
import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

out = {}
ms.set_seed(5)
nets = {
    "gru": nn.GRU(3, 4, num_layers=2, bidirectional=True),
    "lstmcell": nn.LSTMCell(3, 4),
    "rnn": nn.RNN(3, 4, has_bias=False, nonlinearity="relu"),
    "lstm": nn.LSTM(3, 4, bidirectional=True, batch_first=True),
    "gru1": nn.GRU(3, 4),
}
out["after_init"] = np.array(np.random.random())
for key, net in nets.items():
    out[f"{key}/names"] = np.array([p.name for p in net.get_parameters()])
    for p in net.get_parameters():
        out[f"{key}/p/{p.name}"] = p.asnumpy()

rng = np.random.RandomState(0)
x = rng.randn(5, 2, 3).astype(np.float32)
out["gru1/x"] = x
out["gru1/h0"] = np.ones((1, 2, 4), np.float32)
out["gru1/seq"] = np.array([0, 7], np.int32)      # a length of 0, and one beyond seq_len
o, h = nets["gru1"](Tensor(x), Tensor(out["gru1/h0"]), Tensor(out["gru1/seq"]))
out["gru1/out"], out["gru1/hn"] = o.asnumpy(), h.asnumpy()

x = rng.randn(2, 5, 3).astype(np.float32)            # batch_first
out["lstm/x"] = x
out["lstm/h0"] = rng.randn(2, 2, 4).astype(np.float32)
out["lstm/c0"] = rng.randn(2, 2, 4).astype(np.float32)
out["lstm/seq"] = np.array([5, 2], np.int64)
o, (h, c) = nets["lstm"](Tensor(x), (Tensor(out["lstm/h0"]), Tensor(out["lstm/c0"])), Tensor(out["lstm/seq"]))
out["lstm/out"], out["lstm/hn"], out["lstm/cn"] = o.asnumpy(), h.asnumpy(), c.asnumpy()

x = rng.randn(5, 2, 3).astype(np.float32)
out["rnn/x"] = x
o, h = nets["rnn"](Tensor(x))
out["rnn/out"], out["rnn/hn"] = o.asnumpy(), h.asnumpy()

x = rng.randn(2, 3).astype(np.float32)
out["lstmcell/x"], out["lstmcell/h0"], out["lstmcell/c0"] = x, rng.randn(2, 4).astype(np.float32), \
    rng.randn(2, 4).astype(np.float32)
h, c = nets["lstmcell"](Tensor(x), (Tensor(out["lstmcell/h0"]), Tensor(out["lstmcell/c0"])))
out["lstmcell/hn"], out["lstmcell/cn"] = h.asnumpy(), c.asnumpy()

np.savez_compressed("rnn_mindspore.npz", **out)
