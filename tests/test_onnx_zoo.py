"""A zoo of realistic networks (tests/models/zoo.py) exported to ONNX with a dynamic batch:
the file passes onnx's full check, ONNX's own shape inference keeps the `batch` name where it
can, onnxruntime agrees with the XLA path at two batch sizes, and the main layers' nodes are
named by their Cell paths. Layers whose semantics torch shares are compared with torch."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

import graphcell as ms
from graphcell import Tensor, nn
from tests.models import zoo

# ONNX's shape inference itself names a fresh `unk__N` after these ops, whatever the
# exporter writes: Resize (even with constant scales), Loop carries, and a Split of a
# dimension that is a multiple of the batch (the GRU's h[-2], h[-1]).
INFERENCE_LOSES_BATCH = {"unet", "control", "rnn"}
MAIN_OPS = {"Conv", "ConvTranspose", "Gemm", "MatMul", "LayerNormalization", "Attention", "Scan", "Gather"}
FAMILIES = list(zoo.FACTORIES) + ["ensemble"]


def build(name):
    ms.set_seed(1)
    if name == "ensemble":
        members = [zoo.ResNetTiny(), zoo.ResNetTiny()]
        for m in members:
            m.set_train(False)
        return ms.vmap(nn.CellList(members), in_axes=None), "mean"
    net = zoo.FACTORIES[name]()
    net.set_train(False)
    return net, None


def dims(value_info):
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def inferred_outputs(model):
    """The outputs' shapes as onnx.shape_inference finds them without graphcell's shapes."""
    bare = onnx.ModelProto()
    bare.CopyFrom(model)
    del bare.graph.value_info[:]
    for o in bare.graph.output:
        o.type.tensor_type.ClearField("shape")
    inferred = onnx.shape_inference.infer_shapes(bare, strict_mode=True, data_prop=True)
    return [dims(o) for o in inferred.graph.output]


@pytest.mark.parametrize("name", FAMILIES)
def test_zoo_exports_check_infer_and_run(name, tmp_path):
    net, reduce = build(name)
    example = zoo.inputs(name, 3)
    path = ms.export(net, *example, file_name=str(tmp_path / name), file_format="ONNX", reduce=reduce)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    declared = [dims(o) for o in model.graph.output]
    assert all(d[0] == "batch" for d in declared), declared
    inferred = inferred_outputs(model)
    if name in INFERENCE_LOSES_BATCH:
        assert [d[1:] for d in inferred] == [d[1:] for d in declared]
    else:
        assert inferred == declared

    # XLA once at 3 rows; onnxruntime at 3 and at 1 (the first row: eval mode keeps rows apart).
    head = ms.compiler.export._with_head(net, reduce) if reduce else net
    out = ms.jit(head)(*example)
    want = [o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))]
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for rows in (slice(0, 3), slice(0, 1)):
        got = sess.run(None, {i.name: t.asnumpy()[rows] for i, t in zip(sess.get_inputs(), example)})
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w[rows], rtol=1e-4, atol=1e-5)

    anonymous = [n.name for n in model.graph.node if n.op_type in MAIN_OPS and "/" not in n.name
                 and name not in ("unet",)]   # the UNet's own ops.interpolate sits in construct itself
    assert not anonymous


def test_ensemble_mean_head_is_the_members_mean_probability(tmp_path):
    ens, _ = build("ensemble")
    x = zoo.inputs("ensemble", 2)[0]
    path = ms.export(ens, x, file_name=str(tmp_path / "ens"), reduce="mean", dynamic_axes={"x": {0: "B"}},
                     input_names=["x"], output_names=["probs"])
    got = ort.InferenceSession(path).run(None, {"x": x.asnumpy()})[0]
    members = [m(x).asnumpy() for m in ens.ensemble.members]
    probs = np.mean([np.exp(z) / np.exp(z).sum(-1, keepdims=True) for z in members], 0)
    np.testing.assert_allclose(got, probs, rtol=1e-5, atol=1e-6)
    assert dims(onnx.load(path).graph.output[0]) == ["B", 10]


def _copy_from_torch(module, cell, renames=()):
    tensors = dict(module.named_parameters(), **dict(module.named_buffers()))
    renames = dict(renames)
    for name, p in cell.parameters_and_names():
        p.set_data(Tensor(tensors[renames.get(name, name)].detach().numpy()))


@pytest.mark.parametrize("opset", [23, 24])
def test_encoder_key_padding_mask_attention_against_torch(opset, tmp_path):
    """The Attention node at opset 23: onnxruntime's Attention-23 kernel refuses a key padding
    mask [B, 1, 1, S] ("inconsistent q_sequence_length"), which jit(backend="onnx") lowers;
    the exporter widens the mask's query axis there. Values against torch's encoder layer."""
    ms.set_seed(0)
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, activation="gelu", batch_first=True)
    layer.set_train(False)
    ref = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, activation="gelu", batch_first=True).eval()
    _copy_from_torch(ref, layer, {"dense1.weight": "linear1.weight", "dense1.bias": "linear1.bias",
                                  "dense2.weight": "linear2.weight", "dense2.bias": "linear2.bias",
                                  "norm1.gamma": "norm1.weight", "norm1.beta": "norm1.bias",
                                  "norm2.gamma": "norm2.weight", "norm2.beta": "norm2.bias"})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 16)).astype(np.float32)
    mask = np.zeros((3, 5), bool)
    mask[0, 3:] = mask[2, 4] = True
    path = ms.export(lambda a, m: layer(a, src_key_padding_mask=m), Tensor(x), Tensor(mask), opset=opset,
                     file_name=str(tmp_path / "enc"), input_names=["x", "mask"])
    model = onnx.load(path)
    attention = [n.name for n in model.graph.node if n.op_type == "Attention"]
    assert attention == ["self_attn/Attention"]
    want = ref(torch.from_numpy(x), src_key_padding_mask=torch.from_numpy(mask)).detach().numpy()
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for rows in (slice(0, 3), slice(2, 3)):
        got = sess.run(None, {"x": x[rows], "mask": mask[rows]})[0]
        np.testing.assert_allclose(got, want[rows], rtol=1e-4, atol=1e-5)


def test_recurrent_and_transposed_layers_against_torch(tmp_path):
    """Bidirectional 2-layer batch_first LSTM and GRU, ConvTranspose + eval BatchNorm: one
    exported function, its outputs against torch's with the same weights."""
    torch.manual_seed(0)
    t_lstm = torch.nn.LSTM(8, 6, num_layers=2, batch_first=True, bidirectional=True)
    t_gru = torch.nn.GRU(8, 6, num_layers=2, batch_first=True, bidirectional=True)
    t_up = torch.nn.Sequential(torch.nn.ConvTranspose2d(4, 3, 4, 2, 1), torch.nn.BatchNorm2d(3)).eval()
    with torch.no_grad():
        for t in (t_up[1].running_mean, t_up[1].bias):
            t.uniform_(-1, 1)
        for t in (t_up[1].running_var, t_up[1].weight):
            t.uniform_(0.5, 2)
    lstm = nn.LSTM(8, 6, num_layers=2, batch_first=True, bidirectional=True)
    gru = nn.GRU(8, 6, num_layers=2, batch_first=True, bidirectional=True)
    up, bn = nn.Conv2dTranspose(4, 3, 4, stride=2, pad_mode="pad", padding=1, has_bias=True), nn.BatchNorm2d(3)
    bn.set_train(False)
    _copy_from_torch(t_lstm, lstm)
    _copy_from_torch(t_gru, gru)
    _copy_from_torch(t_up[0], up)
    _copy_from_torch(t_up[1], bn, {"moving_mean": "running_mean", "moving_variance": "running_var",
                                   "gamma": "weight", "beta": "bias"})

    def f(seq, img):
        y, (h, c) = lstm(seq)
        g, gh = gru(seq)
        return y, h, c, g, gh, bn(up(img))

    rng = np.random.default_rng(1)
    seq, img = rng.standard_normal((3, 7, 8)).astype(np.float32), rng.standard_normal((3, 4, 5, 5)).astype(np.float32)
    path = ms.export(f, Tensor(seq), Tensor(img), file_name=str(tmp_path / "layers"), input_names=["seq", "img"])
    got = ort.InferenceSession(path).run(None, {"seq": seq, "img": img})
    y, (h, c) = t_lstm(torch.from_numpy(seq))
    g, gh = t_gru(torch.from_numpy(seq))
    want = [t.detach().numpy() for t in (y, h, c, g, gh, t_up(torch.from_numpy(img)))]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_dynamic_reshapes_keep_the_batch_name_through_shape_inference(tmp_path):
    """A Reshape's -1 leaves ONNX's shape inference a fresh unknown: the batch is spelled 0
    (copy) where it keeps its axis, and a Reshape that only inserts or drops 1s is an
    Unsqueeze or Squeeze."""
    def f(x):
        flat = x.reshape(x.shape[0], 12)                  # [B, 3, 4] -> [B, 12]: 0 for the batch
        lead = flat.reshape(1, x.shape[0], 12)            # -> [1, B, 12]: Unsqueeze
        return flat * 2, lead + 1, lead.reshape(x.shape[0], 12) - 1   # -> [B, 12]: Squeeze
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    path = ms.export(f, Tensor(x), file_name=str(tmp_path / "views"), input_names=["x"])
    model = onnx.load(path)
    assert inferred_outputs(model) == [["batch", 12], [1, "batch", 12], ["batch", 12]]
    assert {"Unsqueeze", "Squeeze"} <= {n.op_type for n in model.graph.node}
    x5 = np.random.default_rng(0).standard_normal((5, 3, 4)).astype(np.float32)
    got = ort.InferenceSession(path).run(None, {"x": x5})
    for g, w in zip(got, (x5.reshape(5, 12) * 2, x5.reshape(1, 5, 12) + 1, x5.reshape(5, 12) - 1)):
        np.testing.assert_array_equal(g, w)
