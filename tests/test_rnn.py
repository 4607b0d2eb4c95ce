"""nn.RNN, nn.GRU, nn.LSTM and nn.RNNCell, GRUCell, LSTMCell (graphcell/nn/layer/rnns.py,
rnn_cells.py) and the `scan` primitive they run on (graphcell/ops/scan_loop.py).

References: MindSpore 2.10's own parameters and outputs (tests/data/rnn_mindspore.npz, made by
tests/data/make_rnn_mindspore.py), torch's layers with the same weights (packed sequences for
seq_length) and autograd, each member alone for ensembles, and for the primitive a Python loop
over torch tensors (jax.lax.scan's semantics) with autograd. Eagerly, under jit (XLA), under
jit(backend="onnx") and exported to ONNX.
"""
import pathlib

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.frontend.cf_build import ControlFlowError

DATA = pathlib.Path(__file__).parent / "data"
MODES = ["eager", "jit", "onnx"]
RNG = np.random.default_rng(7)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def compiled(fn, mode):
    return fn if mode == "eager" else ms.jit(fn) if mode == "jit" else ms.jit(fn, backend="onnx")


def leaves(out) -> list:
    """Every array of a nested tuple of Tensors, in order."""
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in leaves(o)]
    return [out.asnumpy()]


def close(got, want, tol=2e-5):
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, (k, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=f"result {k}")


def torch_twin(net):
    """The torch layer or cell of `net`'s configuration, holding its weights (same names)."""
    kind = type(net).__name__
    if kind.endswith("Cell"):
        kw = {"nonlinearity": net.nonlinearity} if kind == "RNNCell" else {}
        twin = getattr(torch.nn, kind)(net.input_size, net.hidden_size, bias=net.has_bias, **kw)
    else:
        kw = {"nonlinearity": net.nonlinearity} if kind == "RNN" else {}
        twin = getattr(torch.nn, kind)(net.input_size, net.hidden_size, net.num_layers, bias=net.has_bias,
                                       batch_first=net.batch_first, bidirectional=net.bidirectional, **kw)
    twin.load_state_dict({p.name.split(".")[-1]: torch.tensor(p.asnumpy()) for p in net.get_parameters()}, strict=True)
    return twin


def torch_run(twin, x, hx=None, seq=None, batch_first=False):
    """torch's layer on numpy inputs; seq_length as a packed sequence, padded back with zeros."""
    x = torch.as_tensor(x)
    if seq is None:
        return twin(x, hx)
    total = x.shape[1 if batch_first else 0]
    packed = torch.nn.utils.rnn.pack_padded_sequence(x, torch.as_tensor(seq, dtype=torch.int64),
                                                     batch_first=batch_first, enforce_sorted=False)
    out, h = twin(packed, hx)
    return torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first, total_length=total)[0], h


def torch_grads(twin, net) -> list:
    named = dict(twin.named_parameters())
    return [named[p.name.split(".")[-1]].grad.numpy() for p in net.trainable_params()]


def tnp(out) -> list:
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in tnp(o)]
    return [out.detach().numpy()]


# -- MindSpore 2.10's parameters, initial values and outputs ------------------------------------

MS_NETS = {   # built in this order after set_seed(5), as make_rnn_mindspore.py did
    "gru": lambda: nn.GRU(3, 4, num_layers=2, bidirectional=True),
    "lstmcell": lambda: nn.LSTMCell(3, 4),
    "rnn": lambda: nn.RNN(3, 4, has_bias=False, nonlinearity="relu"),
    "lstm": lambda: nn.LSTM(3, 4, bidirectional=True, batch_first=True),
    "gru1": lambda: nn.GRU(3, 4),
}


@pytest.fixture(scope="module")
def mindspore_data():
    with np.load(DATA / "rnn_mindspore.npz", allow_pickle=False) as d:
        return dict(d)


def test_parameters_names_order_and_initial_values_are_mindspores(mindspore_data):
    """After set_seed(5) the nets' parameters are MindSpore's bit for bit, listed in its order
    (all weight_ih, then weight_hh, bias_ih, bias_hh); the layers draw numpy's uniform, the Cells
    numpy's randn then Philox Uniform(1/sqrt(hidden)); the next numpy draw agrees too."""
    ms.set_seed(5)
    nets = {key: make() for key, make in MS_NETS.items()}
    assert np.random.random() == mindspore_data["after_init"]
    for key, net in nets.items():
        names = [p.name for p in net.get_parameters()]
        assert names == list(mindspore_data[f"{key}/names"]), key
        for p in net.get_parameters():
            want = mindspore_data[f"{key}/p/{p.name}"]
            assert p.shape == want.shape and p.dtype == ms.float32
            np.testing.assert_array_equal(p.asnumpy(), want, err_msg=f"{key}.{p.name}")
    assert [p.name for p in nets["lstmcell"].get_parameters()] == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    bound = 1 / np.sqrt(4)
    w = nets["gru"].w_hh_list[0].asnumpy()
    assert w.shape == (12, 4) and np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound


@pytest.mark.parametrize("mode", ["eager", "onnx"])   # (XLA: every test below)
def test_outputs_match_mindspore_with_seq_length_edge_cases(mindspore_data, mode):
    """GRU with lengths 0 (zeros out, h_n = h_0) and beyond seq_len (the whole sequence); a
    bidirectional batch-first LSTM with int64 lengths; a bias-free ReLU RNN; an LSTMCell."""
    d = mindspore_data
    ms.set_seed(5)
    nets = {key: make() for key, make in MS_NETS.items()}

    def run(*a):
        return (nets["gru1"](a[0], a[1], a[2]), nets["lstm"](a[3], (a[4], a[5]), a[6]), nets["rnn"](a[7]),
                nets["lstmcell"](a[8], (a[9], a[10])))
    names = ["gru1/x", "gru1/h0", "gru1/seq", "lstm/x", "lstm/h0", "lstm/c0", "lstm/seq", "rnn/x",
             "lstmcell/x", "lstmcell/h0", "lstmcell/c0"]
    got = leaves(compiled(run, mode)(*[Tensor(d[n]) for n in names]))
    want = [d[n] for n in ["gru1/out", "gru1/hn", "lstm/out", "lstm/hn", "lstm/cn", "rnn/out", "rnn/hn",
                           "lstmcell/hn", "lstmcell/cn"]]
    close(got, want, 2e-6)
    assert not got[0][:, 0].any() and np.array_equal(got[1][0, 0], np.ones(4, np.float32))


# -- torch with the same weights -----------------------------------------------------------------

def _layers():
    ms.set_seed(1)
    return [nn.LSTM(3, 4, num_layers=2, bidirectional=True), nn.GRU(3, 4, batch_first=True, has_bias=False),
            nn.RNN(3, 4, num_layers=2, nonlinearity="relu"), nn.RNN(3, 4, bidirectional=True)]


@pytest.mark.parametrize("mode", ["jit", "onnx"])   # (eagerly: the MindSpore test above)
def test_layers_match_torch(mode):
    """Values of every layer kind (stacked, bidirectional, batch_first, bias-free, relu), with and
    without hx and packed lengths, against torch with the same weights."""
    lstm, gru, relu, tanh = nets = _layers()
    x, xb = rand(5, 2, 3), rand(2, 5, 3)
    h4, c4, h1, h2 = rand(4, 2, 4), rand(4, 2, 4), rand(1, 2, 4), rand(2, 2, 4)
    seq = np.array([5, 3], np.int32)

    def run(x, xb, h4, c4, h1, h2, seq):
        return (lstm(x, (h4, c4), seq), gru(xb, h1, seq), relu(x), tanh(x, h2, seq))
    got = leaves(compiled(run, mode)(*map(Tensor, (x, xb, h4, c4, h1, h2, seq))))
    t = [torch_twin(n) for n in nets]
    with torch.no_grad():
        want = tnp((torch_run(t[0], x, (torch.tensor(h4), torch.tensor(c4)), seq),
                    torch_run(t[1], xb, torch.tensor(h1), seq, batch_first=True), t[2](torch.tensor(x)),
                    torch_run(t[3], x, torch.tensor(h2), seq)))
    close(got, want)
    if mode == "jit":   # one scan per layer and direction, not seq_len unrolled steps
        graph = ms.trace(lstm, Tensor(x)).graph
        assert [n.primitive.name for n in graph.nodes].count("scan") == 4 and len(graph.nodes) < 40


def test_gradients_match_torch():
    """d(loss)/d(x) and every parameter's gradient, through packed lengths, both directions and
    batch_first, against torch, under XLA (in onnxruntime: the ensemble's and the scan's tests)."""
    ms.set_seed(2)
    nets = [nn.LSTM(3, 4, bidirectional=True), nn.GRU(3, 4, batch_first=True), nn.RNN(3, 4, nonlinearity="relu")]
    lstm, gru, relu = nets
    x, xb = rand(5, 2, 3), rand(2, 5, 3)
    seq = np.array([5, 2], np.int64)
    params = [p for n in nets for p in n.trainable_params()]

    def loss(x, xb, seq):
        o, (h, c) = lstm(x, None, seq)
        g, gh = gru(xb, None, seq)
        r, _ = relu(x)
        return (o * o).sum() + h.sum() + (c * c).sum() + (g * g).sum() + gh.sum() + (r * r).sum()
    grad = ms.grad(loss, (0, 1), params)
    t = [torch_twin(n) for n in nets]
    tx, txb = torch.tensor(x, requires_grad=True), torch.tensor(xb, requires_grad=True)
    o, (h, c) = torch_run(t[0], tx, None, seq)
    g, gh = torch_run(t[1], txb, None, seq, batch_first=True)
    r, _ = t[2](tx)
    ((o * o).sum() + h.sum() + (c * c).sum() + (g * g).sum() + gh.sum() + (r * r).sum()).backward()
    want = [tx.grad.numpy(), txb.grad.numpy()] + [g for twin, n in zip(t, nets) for g in torch_grads(twin, n)]
    (dx, dxb), dps = ms.jit(grad)(Tensor(x), Tensor(xb), Tensor(seq))
    close([dx.asnumpy(), dxb.asnumpy()] + [d.asnumpy() for d in dps], want, 1e-4)


def test_cells_match_torch_values_and_gradients():
    """Values eagerly, under XLA and in onnxruntime; gradients in onnxruntime."""
    ms.set_seed(2)
    cells = [nn.RNNCell(3, 4), nn.RNNCell(3, 4, nonlinearity="relu"), nn.GRUCell(3, 4),
             nn.LSTMCell(3, 4, has_bias=False)]
    x, h, c = rand(2, 3), rand(2, 4), rand(2, 4)

    def run(x, h, c):
        return [cells[0](x, h), cells[1](x, h), cells[2](x, h), *cells[3](x, (h, c))]

    def loss(x, h, c):
        return sum((o * o).sum() for o in run(x, h, c))
    t = [torch_twin(cell) for cell in cells]
    tx, th, tc = torch.tensor(x, requires_grad=True), torch.tensor(h), torch.tensor(c)
    touts = [t[0](tx, th), t[1](tx, th), t[2](tx, th), *t[3](tx, (th, tc))]
    sum((o * o).sum() for o in touts).backward()
    for mode in MODES:
        close(leaves(compiled(run, mode)(Tensor(x), Tensor(h), Tensor(c))), tnp(touts))
    params = [p for cell in cells for p in cell.trainable_params()]
    dx, dps = ms.jit(ms.grad(loss, 0, params), backend="onnx")(Tensor(x), Tensor(h), Tensor(c))
    close([dx.asnumpy()] + [d.asnumpy() for d in dps],
          [tx.grad.numpy()] + [g for twin, cell in zip(t, cells) for g in torch_grads(twin, cell)], 1e-4)


# -- ensembles (vmap) ------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["jit", "onnx"])   # (a vmap always compiles)
def test_an_ensemble_of_members_with_different_weights_equals_each_member(mode):
    """vmap over a CellList: a shared input (in_axes=None) with lengths, and each member its own
    input and lengths (in_axes=(0, None, 0)); every member's outputs as its torch twin computes
    them."""
    ms.set_seed(3)
    lstms = [nn.LSTM(3, 4, bidirectional=True, batch_first=True) for _ in range(3)]
    grus = [nn.GRU(3, 4, num_layers=2) for _ in range(3)]
    x, xs, seq = rand(2, 5, 3), rand(3, 5, 2, 3), np.array([4, 5], np.int32)
    seqs = np.array([[5, 2], [1, 5], [3, 4]], np.int32)
    shared = compiled(ms.vmap(nn.CellList(lstms), in_axes=None), mode)
    mapped = compiled(ms.vmap(nn.CellList(grus), in_axes=(0, None, 0)), mode)
    got = leaves(shared(Tensor(x), None, Tensor(seq))) + leaves(mapped(Tensor(xs), None, Tensor(seqs)))
    with torch.no_grad():
        alone = [tnp(torch_run(torch_twin(m), x, None, seq, batch_first=True)) for m in lstms] + \
            [tnp(torch_run(torch_twin(m), xs[k], None, seqs[k])) for k, m in enumerate(grus)]
    want = [np.stack([a[j] for a in alone[:3]]) for j in range(3)] + [np.stack([a[j] for a in alone[3:]])
                                                                        for j in range(2)]
    close(got, want)


def test_ensemble_gradients_equal_each_members_torch_gradients():
    """grad through a vmapped ensemble with respect to the members' Parameters, in onnxruntime:
    member k's gradients are its torch twin's."""
    ms.set_seed(4)
    members = [nn.GRU(3, 4, bidirectional=True) for _ in range(2)]
    ensemble = ms.vmap(nn.CellList(members), in_axes=None)
    x = rand(5, 2, 3)
    weights = [p for m in members for p in m.trainable_params()]
    got = ms.jit(ms.grad(lambda v: (ensemble(v)[0] ** 2).sum(), None, weights), backend="onnx")(Tensor(x))
    want = []
    for m in members:
        twin = torch_twin(m)
        (twin(torch.tensor(x))[0] ** 2).sum().backward()
        want += torch_grads(twin, m)
    close([g.asnumpy() for g in got], want, 1e-4)


# -- export ----------------------------------------------------------------------------------------

def test_export_keeps_batch_and_seq_len_dynamic(tmp_path):
    """One file serves other batch sizes and other sequence lengths (ONNX Scan takes its trip
    count from its input), with lengths; the graph holds one Scan per layer and direction."""
    ms.set_seed(5)
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x, seq = rand(5, 2, 3), np.array([5, 3], np.int32)
    path = ms.export(net, Tensor(x), None, Tensor(seq), file_name=str(tmp_path / "lstm"),
                     dynamic_axes={"x": {0: "seq_len", 1: "batch"}, "seq_length": {0: "batch"}})
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    model = onnx.load(path)
    assert [n.op_type for n in model.graph.node].count("Scan") == 4
    twin = torch_twin(net)
    for steps, batch in ((5, 2), (9, 3), (2, 1)):
        xb, sb = rand(steps, batch, 3), RNG.integers(1, steps + 1, batch).astype(np.int32)
        got = session.run(None, {"x": xb, "seq_length": sb})
        with torch.no_grad():
            close(got, tnp(torch_run(twin, xb, None, sb)))


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_seq_first_export_with_an_initial_state_serves_other_batches_and_lengths(tmp_path, kind):
    """batch_first=False (MindSpore's default): the batch is axis 1 of x and of hx, axis 0 of
    seq_length, and the sequence length is x's axis 0. One file for batch 1, 3 and 8 and
    lengths 5, 2 and 7: equal to torch and to XLA at each. An LSTM's hx is a tuple, named as one
    input in dynamic_axes (it was refused: its Tensors are the inputs hx.0 and hx.1)."""
    ms.set_seed(6)
    net = getattr(nn, kind)(3, 4, bidirectional=True)
    lstm = kind == "LSTM"

    def state(batch):
        h = rand(2, batch, 4)
        return (h, rand(2, batch, 4)) if lstm else h
    as_tensors = lambda h: tuple(Tensor(a) for a in h) if lstm else Tensor(h)   # noqa: E731
    x, h, seq = rand(5, 2, 3), state(2), np.array([5, 3], np.int32)
    path = ms.export(net, Tensor(x), as_tensors(h), Tensor(seq), file_name=str(tmp_path / kind),
                     dynamic_axes={"x": {0: "seq_len", 1: "batch"}, "hx": {1: "batch"}, "seq_length": {0: "batch"}})
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    twin = torch_twin(net)
    for steps, batch in ((5, 1), (2, 3), (7, 8)):
        xb, hb, sb = rand(steps, batch, 3), state(batch), RNG.integers(1, steps + 1, batch).astype(np.int32)
        got = session.run(None, dict(zip(names, [xb, *(hb if lstm else [hb]), sb])))
        with torch.no_grad():
            th = tuple(torch.tensor(a) for a in hb) if lstm else torch.tensor(hb)
            close(got, tnp(torch_run(twin, xb, th, sb)), 1e-4)
        close(got, leaves(ms.jit(net)(Tensor(xb), as_tensors(hb), Tensor(sb))), 1e-4)


class EmbeddedGRU(nn.Cell):
    """Token ids [seq_len, batch] into a sequence-first GRU."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 3)
        self.gru = nn.GRU(3, 4)

    def construct(self, ids):
        return self.gru(self.embed(ids))[0]


def test_default_export_of_a_seq_first_rnn_makes_batch_and_seq_len_dynamic(tmp_path):
    """dynamic_axes=None on a net holding a batch_first=False RNN: the batch is axis 1 of x and
    hx and axis 0 of seq_length, and x's axis 0 the dynamic seq_len (axis 0 was taken for the
    batch, so the file served any length at batch 2 only). An embedding's ids [seq_len, batch]
    too. One file each, equal to XLA at other batches and lengths."""
    ms.set_seed(8)
    lstm = nn.LSTM(3, 4)
    h = (Tensor(rand(1, 2, 4)), Tensor(rand(1, 2, 4)))
    ids = lambda steps, batch: RNG.integers(0, 10, (steps, batch)).astype(np.int32)   # noqa: E731
    cases = [(lstm, lambda steps, batch: [rand(steps, batch, 3), rand(1, batch, 4), rand(1, batch, 4),
                                          RNG.integers(1, steps + 1, batch).astype(np.int32)],
              (Tensor(rand(5, 2, 3)), h, Tensor(np.array([5, 3], np.int32)))),
             (EmbeddedGRU(), lambda steps, batch: [ids(steps, batch)], (Tensor(ids(5, 2)),))]
    for k, (net, make, example) in enumerate(cases):
        path = ms.export(net, *example, file_name=str(tmp_path / f"net{k}"))
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        shapes = [[d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]
                  for i in onnx.load(path).graph.input]
        assert shapes == ([["seq_len", "batch", 3], [1, "batch", 4], [1, "batch", 4], ["batch"]] if k == 0
                          else [["seq_len", "batch"]])
        for steps, batch in ((7, 3), (2, 1)):
            arrays = make(steps, batch)
            got = session.run(None, dict(zip([i.name for i in session.get_inputs()], arrays)))
            args = ((Tensor(arrays[0]), (Tensor(arrays[1]), Tensor(arrays[2])), Tensor(arrays[3])) if k == 0
                    else (Tensor(arrays[0]),))
            close(got, leaves(ms.jit(net)(*args)), 1e-4)


# -- dtypes, training mode -------------------------------------------------------------------------

def test_float16_input_runs_in_float16_with_the_weights_cast():
    """MindSpore casts the layers' weights to x's dtype; outputs are float16 and near float32's."""
    ms.set_seed(6)
    net = nn.RNN(3, 4)
    x = rand(5, 2, 3)
    out16, h16 = net(Tensor(x.astype(np.float16)))
    out32, _ = net(Tensor(x))
    assert out16.dtype == h16.dtype == ms.float16
    np.testing.assert_allclose(out16.asnumpy().astype(np.float32), out32.asnumpy(), atol=5e-3)
    assert [p.dtype for p in nn.LSTM(3, 4, dtype=ms.float16).get_parameters()] == [ms.float16] * 4
    assert nn.GRUCell(3, 4, dtype=ms.float16).weight_ih.dtype == ms.float16


def test_dropout_between_layers_only_in_training():
    ms.set_seed(7)
    net = nn.RNN(3, 4, num_layers=2, dropout=0.5)
    x = Tensor(rand(5, 2, 3))
    eval_out = net(x)[0].asnumpy()
    net.set_train()
    assert not np.allclose(net(x)[0].asnumpy(), eval_out)
    net.dropout_op.p = 0.0   # (the Cell's own attribute, as MindSpore's dropout_op)
    np.testing.assert_allclose(net(x)[0].asnumpy(), eval_out, rtol=1e-6)
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.5)


# -- argument checks in MindSpore's words ----------------------------------------------------------

@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.LSTM(3, 0), ValueError, "For 'LSTM', the 'hidden_size' must be int and must > 0, but got '0'"),
    (lambda: nn.LSTM(3.0, 4), TypeError, "For 'LSTM', the 'input_size' must be int, but got 'float'"),
    (lambda: nn.GRU(3, 4, num_layers=0), ValueError, "'num_layers' must be int and must > 0"),
    (lambda: nn.GRU(3, 4, dropout=0), TypeError, "the type of 'dropout' must be 'float', but got 'int'"),
    (lambda: nn.GRU(3, 4, dropout=1.0), ValueError, r"'dropout' must be a number in range \[0, 1\)"),
    (lambda: nn.GRU(3, 4, bidirectional=1), TypeError, "the type of 'bidirectional' should be 'bool'"),
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError, r"must be in \['tanh', 'relu'\], but got sigmoid"),
    (lambda: nn.RNNCell(3, 4, nonlinearity="gelu"), ValueError, "'nonlinearity' must be str and must be in"),
    (lambda: nn.GRUCell(3, 4, has_bias=1), TypeError, "the type of 'has_bias' should be 'bool'"),
    (lambda: nn.LSTMCell(3, 4, True, ms.float32, 2), ValueError, "from old MindSpore version"),
    (lambda: nn.LSTMCell(3, 4, dropout=0.1), ValueError, "from old MindSpore version"),
])
def test_constructor_arguments_are_checked(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_call_arguments_are_checked():
    gru, lstm, cell = nn.GRU(3, 4), nn.LSTM(3, 4), nn.LSTMCell(3, 4)
    x = Tensor(rand(5, 2, 3))
    cases = [
        (lambda: gru(x, None, Tensor(np.array([5, 2], np.float32))), TypeError, "'seq_length' should be one of"),
        (lambda: gru(x, None, Tensor(np.array([5], np.int32))), ValueError, "batch size of x and seq_length must be"),
        (lambda: gru(x, Tensor(np.ones((1, 2, 4), np.float16))), TypeError, "the type of 'hx' should be same as 'x'"),
        (lambda: gru(x, Tensor(np.ones((2, 2, 4), np.float32))), ValueError, r"'hx' must have shape \[1, 2, 4\]"),
        (lambda: gru(Tensor(rand(5, 3))), ValueError, r"3-D x \(\[seq_len, batch, input_size\]\)"),
        (lambda: gru(Tensor(rand(5, 2, 7))), ValueError, "input_size=3"),
        (lambda: gru(Tensor(np.ones((5, 2, 3), np.int32))), TypeError, "must be a float Tensor"),
        (lambda: lstm(x, Tensor(np.ones((1, 2, 4), np.float32))), TypeError, r"'hx' must be a tuple \(h, c\)"),
        (lambda: lstm(x, (Tensor(np.ones((1, 2, 4), np.float32)),) * 3), TypeError, "length of 'hx' must be '2'"),
        (lambda: cell(Tensor(rand(2, 3)), Tensor(rand(2, 4))), TypeError, r"'hx' must be a tuple \(h, c\)"),
        (lambda: cell(Tensor(rand(2, 3).astype(np.float64)), (Tensor(rand(2, 4)),) * 2), TypeError,
         "cast it with x.astype"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


# -- the scan primitive ----------------------------------------------------------------------------

def _scan(h0, w, xs, ks, reverse):
    """A scan with two carries (one int), two xs, two ys and a closed-over weight."""
    def body(carry, x):
        h, count = carry
        x_t, k_t = x
        h = ops.tanh(ops.matmul(h, w) + x_t * k_t)
        return (h, count + 1), (h * 2.0, ops.sum(x_t, -1))
    return ops.scan(body, (h0, Tensor(np.int32(0))), (xs, ks), reverse=reverse)


def _loop(h0, w, xs, ks, reverse):
    """The same as a Python loop over torch tensors (jax.lax.scan's semantics: ys[t] is step t's
    also when reversed): the reference for values, and with autograd for gradients."""
    h, ys, sums = h0, [None] * len(xs), [None] * len(xs)
    for t in (reversed(range(len(xs))) if reverse else range(len(xs))):
        h = torch.tanh(h @ w + xs[t] * ks[t])
        ys[t], sums[t] = h * 2.0, xs[t].sum(-1)
    return h, torch.stack(ys), torch.stack(sums)


def _scan_args():
    return rand(2, 4), rand(4, 4) * 0.5, rand(5, 2, 4), rand(5, 2, 1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reverse", [False, True])
def test_scan_matches_a_loop(mode, reverse):
    h0, w, xs, ks = _scan_args()
    (h, count), (ys, sums) = compiled(lambda *a: _scan(*a, reverse), mode)(*map(Tensor, (h0, w, xs, ks)))
    close([h.asnumpy(), ys.asnumpy(), sums.asnumpy()], tnp(_loop(*map(torch.tensor, (h0, w, xs, ks)), reverse)))
    assert count.dtype == ms.int32 and count.shape == () and int(count.asnumpy()) == 5


def test_scan_without_xs_and_its_errors():
    def body(c, _):
        return c * 2.0, c
    for mode in MODES:
        c, ys = compiled(lambda: ops.scan(body, Tensor(np.float32(1.5)), None, length=3), mode)()
        assert float(c.asnumpy()) == 12.0 and ys.asnumpy().tolist() == [1.5, 3.0, 6.0]
    x = Tensor(rand(3, 2))
    only_ys = compiled(lambda v: ops.scan(lambda c, t: (c, t * 2.0), (), v)[1], "onnx")   # no carry
    only_carry = compiled(lambda v: ops.scan(lambda c, t: (c + t, None), v[0] * 0, v)[0], "onnx")   # no ys
    np.testing.assert_allclose(only_ys(x).asnumpy(), x.asnumpy() * 2)
    np.testing.assert_allclose(only_carry(x).asnumpy(), x.asnumpy().sum(0), rtol=1e-6)
    with pytest.raises(ControlFlowError, match="changes the carry's types"):
        ms.jit(lambda v: ops.scan(lambda c, t: (ops.concat([c, t]), t), v[0], v))(x)
    with pytest.raises(ValueError, match="disagree on the number of steps"):
        ops.scan(lambda c, t: (c, t), x[0], x, length=4)
    dense = nn.Dense(2, 2)

    def writes(v):
        def body(c, t):
            ops.assign(dense.weight, dense.weight * 2)
            return c, t
        return ops.scan(body, v[0], v)
    with pytest.raises(ControlFlowError, match="writes Parameter"):
        ms.jit(writes)(x)


def test_scan_vmap_and_grad_match_a_loop():
    """vmap with a batched start, a shared weight and xs mapped on axis 1 against each member's
    loop (in onnxruntime; the ensembles above run it under XLA); the gradient with respect to the
    start, the closed-over weight and the xs against torch's autograd through the loop, under
    XLA, and reversed in onnxruntime."""
    h0, w, xs, ks = _scan_args()
    h0s, xss = rand(3, 2, 4), rand(5, 3, 2, 4)
    vmapped = ms.vmap(lambda h, x: _scan(h, Tensor(w), x, Tensor(ks), False), in_axes=(0, 1))
    (h, count), (ys, sums) = ms.jit(vmapped, backend="onnx")(Tensor(h0s), Tensor(xss))
    members = [tnp(_loop(torch.tensor(h0s[k]), torch.tensor(w), torch.tensor(xss[:, k]), torch.tensor(ks), False))
               for k in range(3)]
    close([h.asnumpy(), ys.asnumpy(), sums.asnumpy()], [np.stack([m[j] for m in members]) for j in range(3)])
    assert count.asnumpy().tolist() == [5, 5, 5]
    for reverse, mode in ((False, "jit"), (True, "onnx")):
        def loss(h, w_, x, rev=reverse):
            (last, _), (ys, sums) = _scan(h, w_, x, Tensor(ks), rev)
            return (last * last).sum() + (ys * ys).sum() + (sums * sums).sum()
        got = compiled(ms.grad(loss, (0, 1, 2)), mode)(*map(Tensor, (h0, w, xs)))
        leaves_t = [torch.tensor(a, requires_grad=True) for a in (h0, w, xs)]
        last, ys, sums = _loop(*leaves_t, torch.tensor(ks), reverse)
        ((last * last).sum() + (ys * ys).sum() + (sums * sums).sum()).backward()
        close([g.asnumpy() for g in got], [a.grad.numpy() for a in leaves_t], 1e-4)
