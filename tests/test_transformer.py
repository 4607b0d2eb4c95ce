"""nn.MultiheadAttention, the Transformer layers and ops.scaled_dot_product_attention.

References: MindSpore 2.10's own parameters, initial values, outputs and checkpoint
(tests/data/transformer_mindspore.npz and .ckpt, made by tests/data/make_transformer_mindspore.py),
torch's layers with the same weights and autograd for gradients and where MindSpore departs from
torch (the departures are named below), each member alone for ensembles. Eagerly, under jit (XLA),
under jit(backend="onnx") and exported to ONNX.
"""
import json
import pathlib
import re
import warnings

import numpy as np
import onnx
import pytest
import torch

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.runtime import Session

DATA = pathlib.Path(__file__).parent / "data"
E, H, S, L, B, FF = 8, 2, 5, 6, 3, 16
RNG = np.random.default_rng(11)
DEPARTURES = ("am_float_kpm_bool", "row_all_masked")   # tested against torch below
MS_NETS = {   # built in this order after set_seed(5), as make_transformer_mindspore.py did
    "mha": lambda: nn.MultiheadAttention(E, H),
    "mha_kv": lambda: nn.MultiheadAttention(E, H, kdim=6, vdim=4, add_bias_kv=True),
    "encoder": lambda: nn.TransformerEncoderLayer(E, H, FF),
    "decoder": lambda: nn.TransformerDecoderLayer(E, H, FF, norm_first=True),
    "transformer": lambda: nn.Transformer(E, H, 2, 1, FF),
    "stack": lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(E, H, FF), 2, norm=nn.LayerNorm((E,))),
}


def _randn(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


@pytest.fixture(scope="module")
def msdata():
    with np.load(DATA / "transformer_mindspore.npz", allow_pickle=False) as d:
        return dict(d)


def _cases():
    with np.load(DATA / "transformer_mindspore.npz", allow_pickle=False) as d:
        return [k[:-len("/case")] for k in d.files if k.endswith("/case")]


def _case(data, name):
    """(net with MindSpore's weights, input Tensors, call kwargs, MindSpore's outputs, parameters)."""
    cls, kw, args, call = json.loads(str(data[f"{name}/case"]))
    net = getattr(nn, cls)(**kw)
    net.set_train(False)
    prefix = f"{name}/p/"
    params = {k[len(prefix):]: v for k, v in data.items() if k.startswith(prefix)}
    assert [p.name for p in net.get_parameters()] == list(params)   # MindSpore's names, in its order
    for p in net.get_parameters():
        p.set_data(Tensor(params[p.name]))
    value = lambda a: Tensor(data[f"inputs/{a[1:]}"]) if isinstance(a, str) and a.startswith("@") else a  # noqa: E731
    inputs = [Tensor(data[f"inputs/{a}"]) for a in args]
    outs = [data[k] for k in sorted(k for k in data if k.startswith(f"{name}/out/"))]
    return net, inputs, {k: value(v) for k, v in call.items()}, outs, params


def _torch_net(net, params):
    """torch's layer with net's configuration and weights (dense1 -> linear1, gamma -> weight, ...)."""
    def torch_name(n):
        n = n.replace("dense1", "linear1").replace("dense2", "linear2")
        return re.sub(r"gamma$", "weight", re.sub(r"beta$", "bias", n))
    if isinstance(net, nn.MultiheadAttention):
        t = torch.nn.MultiheadAttention(net.embed_dim, net.num_heads, bias=net.has_bias, kdim=net.kdim, vdim=net.vdim,
                                        add_bias_kv=net.bias_k is not None, add_zero_attn=net.add_zero_attn,
                                        batch_first=net.batch_first)
    else:
        layer = net if not isinstance(net, nn.Transformer) else net.encoder.layers[0]
        kw = dict(dim_feedforward=layer.dim_feedforward, activation="gelu" if layer.activation is ops.gelu else "relu",
                  batch_first=layer.batch_first, norm_first=layer.norm_first, layer_norm_eps=layer.layernorm_eps)
        if isinstance(net, nn.Transformer):
            kw.update(num_encoder_layers=len(net.encoder.layers), num_decoder_layers=len(net.decoder.layers))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")    # torch's note on nested tensors with norm_first
            t = getattr(torch.nn, type(net).__name__)(layer.d_model, layer.nhead, **kw)
    t.load_state_dict({torch_name(n): torch.tensor(np.asarray(v)) for n, v in params.items()})
    return t.eval()


def _torch_call(t, inputs, call, grad=False):
    args = [torch.tensor(x.asnumpy(), requires_grad=grad) for x in inputs]
    kw = {k: torch.tensor(v.asnumpy()) if isinstance(v, Tensor) else v for k, v in call.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")    # torch's notes on mixed mask types and nested tensors
        out = t(*args, **kw)
    return args, out


# -- MindSpore's parameters, initial values and outputs ------------------------------------------

def test_parameters_names_order_and_initial_values_are_mindspores(msdata):
    """After set_seed(5) every Parameter is MindSpore's bit for bit, with its name, in its order,
    and the next numpy draw agrees (as many seeds drawn). MultiheadAttention draws out_proj
    before bias_k/bias_v though it lists them first; TransformerEncoder builds its layer afresh
    (one draw for all copies, the passed layer's values unused); Transformer redraws every
    matrix from XavierUniform."""
    ms.set_seed(5)
    nets = {key: make() for key, make in MS_NETS.items()}
    assert np.random.random() == msdata["init/after"]
    for key, net in nets.items():
        assert [p.name for p in net.get_parameters()] == list(msdata[f"init/{key}/names"]), key
        for p in net.get_parameters():
            np.testing.assert_array_equal(p.asnumpy(), msdata[f"init/{key}/{p.name}"], err_msg=f"{key}: {p.name}")
    stack = nets["stack"].layers
    np.testing.assert_array_equal(stack[0].dense1.weight.asnumpy(), stack[1].dense1.weight.asnumpy())
    assert stack[0].dense1.weight is not stack[1].dense1.weight


def test_the_parameter_names_are_mindspores_checkpoint_keys():
    """The names a MindSpore checkpoint holds (as measured on 2.10), listed here as documentation."""
    names = [p.name for p in nn.MultiheadAttention(E, H, kdim=6, add_bias_kv=True).get_parameters()]
    assert names == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "bias_k", "bias_v",
                     "out_proj.weight", "out_proj.bias"]
    names = [p.name for p in nn.TransformerDecoderLayer(E, H, FF).get_parameters()]
    assert names == [f"{a}.{n}" for a in ("self_attn", "multihead_attn")
                     for n in ("in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias")] + \
        [f"dense{i}.{n}" for i in (1, 2) for n in ("weight", "bias")] + \
        [f"norm{i}.{n}" for i in (1, 2, 3) for n in ("gamma", "beta")]
    names = [p.name for p in nn.Transformer(E, H, 1, 1, FF).get_parameters()]
    assert names[0] == "encoder.layers.0.self_attn.in_proj_weight" and "encoder.norm.gamma" in names
    assert names[-1] == "decoder.norm.beta" and "decoder.layers.0.multihead_attn.out_proj.bias" in names


JIT_CASES = ("no_weights", "unbatched", "bias_kv_zero_attn", "am_3d", "enc_norm_first_gelu", "dec_masks",
             "transformer_masks")   # every case eagerly; these under jit too (a compile each)


@pytest.mark.parametrize("name, mode", [(c, "eager") for c in _cases() if c not in DEPARTURES] +
                         [(c, "jit") for c in JIT_CASES])
def test_outputs_match_mindspore(msdata, name, mode):
    """MindSpore's outputs for its weights: masks bool, uint8 and float, [S, L] and
    [N*heads, S, L], key padding, kdim/vdim, bias_k/bias_v with zero attention, batch_first,
    unbatched inputs, norm_first, GELU, weights per head; need_weights=False is MindSpore's
    1-tuple."""
    net, inputs, call, want, _ = _case(msdata, name)
    got = (ms.jit(net) if mode == "jit" else net)(*inputs, **call)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=2e-6)


def test_a_mindspore_checkpoint_loads_by_name(msdata):
    """save_checkpoint of MindSpore's Transformer, read by graphcell's load_checkpoint: every
    key finds its Parameter, and the outputs are MindSpore's."""
    net, inputs, call, want, params = _case(msdata, "transformer")
    for p in net.get_parameters():
        p.set_data(Tensor(np.zeros(p.shape, np.float32)))
    ms.load_checkpoint(str(DATA / "transformer_mindspore.ckpt"), net, strict_load=True)
    for p in net.get_parameters():
        np.testing.assert_array_equal(p.asnumpy(), params[p.name])
    np.testing.assert_allclose(net(*inputs, **call).asnumpy(), want[0], rtol=1e-5, atol=2e-6)


# -- where MindSpore 2.10 departs from torch ------------------------------------------------------

def test_a_bool_key_padding_mask_hides_keys_beside_a_float_attn_mask(msdata):
    """MindSpore 2.10 adds a bool key_padding_mask as 1.0 where True when attn_mask is a float
    (measured: its output is the reference with +1.0 there); graphcell hides those keys (-inf),
    as it does with a bool attn_mask and as torch does."""
    net, inputs, call, (ms_out, ms_weights), params = _case(msdata, "am_float_kpm_bool")
    out, weights = net(*inputs, **call)
    _, (t_out, t_weights) = _torch_call(_torch_net(net, params), inputs, call)
    np.testing.assert_allclose(out.asnumpy(), t_out.detach().numpy(), rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(weights.asnumpy(), t_weights.detach().numpy(), rtol=1e-5, atol=2e-6)
    kpm = call["key_padding_mask"].asnumpy()
    assert (weights.asnumpy()[kpm[:, None, :].repeat(S, 1)] == 0).all()
    as_one = dict(call, key_padding_mask=Tensor(kpm.astype(np.float32)))   # MindSpore's reading
    np.testing.assert_allclose(net(*inputs, **as_one)[1].asnumpy(), ms_weights, rtol=1e-5, atol=2e-6)


def test_a_query_that_may_see_no_key_is_nan_and_the_others_are_untouched(msdata):
    """A batch row whose keys are all masked: softmax over -inf alone, NaN there only (torch's
    MultiheadAttention too). MindSpore 2.10's CPU softmax returns zeros for such a row and for
    every row after it in the tensor (measured: ops.softmax of [[1, 2], [-inf, -inf], [3, 4]]
    is [[.27, .73], [0, 0], [0, 0]]), so its rows of the next batch are wrong too."""
    net, inputs, call, (ms_out, _), params = _case(msdata, "row_all_masked")
    out, weights = (t.asnumpy() for t in net(*inputs, **call))
    _, (t_out, t_weights) = _torch_call(_torch_net(net, params), inputs, call)
    assert np.isnan(out[:, 1]).all() and np.isnan(weights[1]).all()
    assert not np.isnan(out[:, [0, 2]]).any()
    np.testing.assert_allclose(out[:, [0, 2]], t_out.detach().numpy()[:, [0, 2]], rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(ms_out[:, 0], out[:, 0], rtol=1e-5, atol=2e-6)
    assert np.abs(ms_out[:, 2] - out[:, 2]).max() > 0.1                # MindSpore's wrong third row


# -- gradients against torch's autograd ------------------------------------------------------------

@pytest.mark.parametrize("name", ["bias_kv_zero_attn", "kdim_vdim", "both_float", "enc_masks",
                                  "dec_norm_first", "transformer_masks"])
def test_gradients_match_torch(msdata, name):
    """ms.grad with respect to every weight and every input against torch's autograd on the same
    weights, through masks, bias_k/bias_v, zero attention, norm_first and GELU."""
    net, inputs, call, want, params = _case(msdata, name)
    sens = [_randn(*w.shape) for w in want]

    def loss(*xs):
        outs = net(*xs, **call)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return sum((o * Tensor(s)).sum() for o, s in zip(outs, sens))
    weights = net.trainable_params()
    input_grads, weight_grads = ms.grad(loss, tuple(range(len(inputs))), weights)(*inputs)
    input_grads = input_grads if isinstance(input_grads, tuple) else (input_grads,)   # one input: bare
    t = _torch_net(net, params)
    args, outs = _torch_call(t, inputs, call, grad=True)
    outs = outs if isinstance(outs, tuple) else (outs,)
    sum((o * torch.tensor(s)).sum() for o, s in zip(outs, sens)).backward()
    for g, a in zip(input_grads, args):
        np.testing.assert_allclose(g.asnumpy(), a.grad.numpy(), rtol=1e-4, atol=1e-5)
    torch_grads = dict(zip(params, (p.grad for p in t.parameters())))
    assert len(torch_grads) == len(weight_grads)
    for p, g in zip(weights, weight_grads):
        np.testing.assert_allclose(g.asnumpy(), torch_grads[p.name].numpy(), rtol=1e-4, atol=1e-5, err_msg=p.name)


# -- ensembles, ONNX --------------------------------------------------------------------------------

def _encoder_members(n=3):
    ms.set_seed(2)
    members = [nn.TransformerEncoderLayer(E, H, FF, batch_first=True) for _ in range(n)]
    for m in members:
        m.set_train(False)
    return members


def test_vmap_over_encoder_layers_matches_each_member():
    """An ensemble of encoder layers (stacked weights) over a shared input and its masks, eagerly,
    under jit and through onnxruntime, against each member alone; and per-member inputs."""
    members = _encoder_members()
    x = Tensor(_randn(B, S, E))
    mask = Tensor(np.triu(np.ones((S, S), bool), 1))
    kpm = np.zeros((B, S), bool)
    kpm[1, -2:] = True
    kpm = Tensor(kpm)
    each = np.stack([m(x, mask, kpm).asnumpy() for m in members])
    ensemble = ms.vmap(nn.CellList(members), in_axes=None)
    for run in (ensemble, ms.jit(ensemble), ms.jit(ensemble, backend="onnx")):
        np.testing.assert_allclose(run(x, mask, kpm).asnumpy(), each, rtol=1e-5, atol=2e-6)
    xs = Tensor(_randn(3, B, S, E))
    each = np.stack([m(xi).asnumpy() for m, xi in zip(members, xs)])
    np.testing.assert_allclose(ms.vmap(nn.CellList(members), in_axes=0)(xs).asnumpy(), each, rtol=1e-5, atol=2e-6)


def test_export_matches_xla_at_other_batch_sizes(tmp_path):
    """An encoder layer with its masks and a Transformer exported with a dynamic batch:
    onnxruntime's outputs are XLA's at batch 1, 3 and 4."""
    layer = _encoder_members(1)[0]
    mask = np.triu(np.ones((S, S), bool), 1)
    path = ms.export(layer, Tensor(_randn(B, S, E)), Tensor(mask), Tensor(np.zeros((B, S), bool)),
                     file_name=str(tmp_path / "encoder"), dynamic_axes={0: [0], 2: [0]})
    session = Session(path, providers=["cpu"])
    run = ms.jit(layer)
    for b in (1, 3, 4):
        x, kpm = _randn(b, S, E), RNG.random((b, S)) < 0.3
        kpm[:, 0] = False
        want = run(Tensor(x), Tensor(mask), Tensor(kpm)).asnumpy()
        np.testing.assert_allclose(session(x, mask, kpm), want, rtol=1e-5, atol=2e-6)
    ms.set_seed(3)
    net = nn.Transformer(E, H, 1, 1, FF, batch_first=True, norm_first=True, activation="gelu")
    net.set_train(False)
    path = ms.export(net, Tensor(_randn(B, L, E)), Tensor(_randn(B, S, E)), file_name=str(tmp_path / "transformer"))
    session = Session(path, providers=["cpu"])
    for b in (1, 4):
        src, tgt = _randn(b, L, E), _randn(b, S, E)
        np.testing.assert_allclose(session(src, tgt), ms.jit(net)(Tensor(src), Tensor(tgt)).asnumpy(),
                                   rtol=1e-5, atol=2e-6)


def test_onnxruntime_runs_the_layers_attention_as_one_node_with_xlas_values():
    """jit(backend="onnx") lowers at opset 23: the encoder layer's attention (no weights
    returned) is one Attention node over the 3-D projections; its values are XLA's. A
    MultiheadAttention that returns its weights keeps the nodes, with XLA's values too."""
    from graphcell.compiler.onnx import lower
    layer = _encoder_members(1)[0]
    x, mask = Tensor(_randn(B, S, E)), Tensor(np.where(np.triu(np.ones((S, S)), 1), -np.inf, 0).astype(np.float32))
    model = lower(ms.trace(lambda v, m: layer(v, m), x, mask).graph, params_as_inputs=True, opset=23).model
    kinds = [n.op_type for n in model.graph.node]
    assert kinds.count("Attention") == 1 and "Softmax" not in kinds
    onnx.checker.check_model(model)
    np.testing.assert_allclose(ms.jit(layer, backend="onnx")(x, mask).asnumpy(), ms.jit(layer)(x, mask).asnumpy(),
                               rtol=1e-5, atol=2e-6)
    mha = nn.MultiheadAttention(E, H, batch_first=True, add_zero_attn=True)
    onnx_out, xla_out = ms.jit(mha, backend="onnx")(x, x, x), ms.jit(mha)(x, x, x)
    for a, b in zip(onnx_out, xla_out):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=2e-6)


# -- training mode ------------------------------------------------------------------------------------

def test_dropout_acts_in_training_mode_only():
    """In training mode the attention probabilities are dropped and the kept ones scaled by
    1/(1-p): the weights returned (after dropout, as MindSpore's: measured ratios 0 and 2 at
    p=0.5) are 0 or twice the evaluation weights; the draws change between calls, eagerly and
    under jit. Evaluation mode (MindSpore's default) is deterministic, and a layer with
    dropout=0 trains as it evaluates."""
    ms.set_seed(4)
    mha = nn.MultiheadAttention(E, H, dropout=0.5)
    assert not mha.training
    x = Tensor(_randn(S, B, E))
    _, evaluated = mha(x, x, x, average_attn_weights=False)
    np.testing.assert_array_equal(mha(x, x, x)[0].asnumpy(), mha(x, x, x)[0].asnumpy())
    mha.set_train(True)
    for run in (mha, ms.jit(mha)):
        first, second = (run(x, x, x, average_attn_weights=False)[1].asnumpy() for _ in range(2))
        ratio = first / evaluated.asnumpy()
        assert (np.isclose(ratio, 0) | np.isclose(ratio, 2, rtol=1e-5)).all()
        assert 0.2 < (ratio == 0).mean() < 0.8
        assert not np.array_equal(first, second)
    layer = nn.TransformerEncoderLayer(E, H, FF, dropout=0.0)
    evaluated = layer(x).asnumpy()
    layer.set_train(True)
    np.testing.assert_allclose(layer(x).asnumpy(), evaluated, rtol=1e-6, atol=1e-7)
    layer = nn.TransformerEncoderLayer(E, H, FF, dropout=0.3)
    evaluated = layer(x).asnumpy()
    layer.set_train(True)
    assert np.abs(layer(x).asnumpy() - evaluated).max() > 1e-2


# -- arguments and errors ------------------------------------------------------------------------------

def test_activations_are_mindspores():
    """MindSpore 2.10 takes "relu", "gelu" (exact GELU), ops.relu and ops.gelu, and refuses the
    rest with these messages (its documents also list Cells and callables)."""
    for good in ("relu", "gelu", ops.relu, ops.gelu):
        nn.TransformerEncoderLayer(E, H, FF, activation=good)
    with pytest.raises(ValueError, match="The activation must be relu/gelu, but get tanh"):
        nn.TransformerDecoderLayer(E, H, FF, activation="tanh")
    for bad in (ops.silu, nn.ReLU(), lambda t: t):
        with pytest.raises(ValueError, match="must be ops.relu or ops.gelu instance, but get"):
            nn.TransformerEncoderLayer(E, H, FF, activation=bad)


def _mha_call(**kw):
    q = Tensor(_randn(S, B, E))
    return lambda: nn.MultiheadAttention(E, H)(q, q, q, **kw)


@pytest.mark.parametrize("call, error, message", [
    (lambda: nn.MultiheadAttention(8, 3), ValueError,
     "The init argument 'embed_dim' must be divisible by 'num_heads'."),
    (_mha_call(attn_mask=Tensor(np.zeros((S, 4), bool))), ValueError,
     "The shape of the `attn_mask` should be (5, 5), but got (5, 4)."),
    (_mha_call(attn_mask=Tensor(np.zeros((B, S, S), np.float32))), ValueError,
     "The shape of the `attn_mask` should be (6, 5, 5), but got (3, 5, 5)."),
    (_mha_call(attn_mask=Tensor(np.zeros((S, S), np.int32))), ValueError,
     "`attn_mask` only support float, byte, and bool types, but got not Int32."),
    (_mha_call(key_padding_mask=Tensor(np.zeros((B, 4), bool))), ValueError,
     "The shape of `key_padding_mask` should be (3, 5), but got (3, 4)."),
    (_mha_call(key_padding_mask=Tensor(np.zeros((B, S), np.uint8))), ValueError,
     "only bool and floating types of key_padding_mask are supported"),
    (lambda: nn.MultiheadAttention(E, H)(Tensor(_randn(1, S, B, E)), Tensor(_randn(1, S, B, E)),
                                        Tensor(_randn(1, S, B, E))), ValueError,
     "The `query` should be unbatched 2D or batched 3D tensor, but got `query` with 4D."),
    (lambda: nn.MultiheadAttention(E, H)(Tensor(_randn(S, B, 6)), Tensor(_randn(S, B, E)), Tensor(_randn(S, B, E))),
     ValueError, "The `embed_dim` should be 8, but got 6."),
    (lambda: nn.MultiheadAttention(E, H)(Tensor(_randn(S, B, E)), Tensor(_randn(L, B, E)), Tensor(_randn(S, B, E))),
     ValueError, "The shape of `key` (6, 3, 8) does not match `value` (5, 3, 8)."),
    (lambda: nn.Transformer(E, H, 1, 1, FF)(Tensor(_randn(S, B, 6)), Tensor(_randn(S, B, 6))), ValueError,
     "The number of features for 'src' and 'tgt' must be equal to `d_model`."),
    (lambda: nn.Transformer(E, H, 1, 1, FF)(Tensor(_randn(S, B, E)), Tensor(_randn(S, 2, E))), ValueError,
     "The batch number of 'src' (3) and 'tgt' (2) must be equal."),
    (lambda: nn.TransformerEncoder(nn.Dense(E, E), 2), TypeError,
     "the layer must be a TransformerEncoderLayer, but got Dense"),
    (lambda: nn.MultiheadAttention(E, H)(*[Tensor(_randn(S, B, E).astype(np.float16))] * 3), TypeError,
     "`query` has dtype Float16 but the parameters are Float32"),
])
def test_errors_read_like_mindspores(call, error, message):
    """MindSpore 2.10's messages, measured, where it has one (the last three are graphcell's: MindSpore
    fails inside a reshape, on a missing attribute, or in its MatMul)."""
    with pytest.raises(error, match=re.escape(message)):
        call()


# -- ops.scaled_dot_product_attention -------------------------------------------------------------------

SDPA_CASES = {   # name: (query, key, value shapes, keyword arguments)
    "plain": ((B, H, S, 4), (B, H, L, 4), (B, H, L, 3), {}),
    "bool_mask": ((B, H, S, 4), (B, H, L, 4), (B, H, L, 4), dict(attn_mask=RNG.random((S, L)) < 0.7)),
    "float_mask": ((B, H, S, 4), (B, H, L, 4), (B, H, L, 4), dict(attn_mask=_randn(B, 1, S, L))),
    "causal_scale": ((B, S, 4), (B, L, 4), (B, L, 4), dict(is_causal=True, scale=0.3)),
    "broadcast": ((B, H, S, 4), (1, H, L, 4), (1, H, L, 4), {}),
}


def _sdpa_args(name):
    rng = np.random.default_rng(sorted(SDPA_CASES).index(name))
    qs, ks, vs, kw = SDPA_CASES[name]
    kw = dict(kw)
    if "attn_mask" in kw and kw["attn_mask"].dtype == bool:
        kw["attn_mask"] = kw["attn_mask"].copy()
        kw["attn_mask"][:, 0] = True      # every query sees a key
    return [rng.standard_normal(s).astype(np.float32) for s in (qs, ks, vs)], kw


@pytest.mark.parametrize("name", sorted(SDPA_CASES))
def test_scaled_dot_product_attention_matches_torch_with_gradients(name):
    """torch's semantics (a bool mask says who may attend, True; a float one is added; is_causal
    the lower triangle; leading axes broadcast), values and input gradients, eagerly and under jit."""
    arrays, kw = _sdpa_args(name)
    mask = kw.get("attn_mask")
    ours = dict(kw, attn_mask=Tensor(mask)) if mask is not None else kw
    theirs = dict(kw, attn_mask=torch.tensor(mask)) if mask is not None else kw
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    want = torch.nn.functional.scaled_dot_product_attention(*ts, **theirs)
    sens = _randn(*want.shape)
    (want * torch.tensor(sens)).sum().backward()
    fn = lambda q, k, v: ops.scaled_dot_product_attention(q, k, v, **ours)  # noqa: E731
    xs = [Tensor(a) for a in arrays]
    for run in (fn, ms.jit(fn)):
        np.testing.assert_allclose(run(*xs).asnumpy(), want.detach().numpy(), rtol=1e-5, atol=2e-6)
    grads = ms.grad(lambda q, k, v: (fn(q, k, v) * Tensor(sens)).sum(), (0, 1, 2))(*xs)
    for g, t in zip(grads, ts):
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_scaled_dot_product_attention_is_one_attention_node_in_onnxruntime():
    """At opset 23 (graphcell's own sessions) the function is one Attention node with its mask;
    onnxruntime's values are XLA's. Dropout acts whenever dropout_p > 0, as torch's."""
    from graphcell.compiler.onnx import lower
    (q, k, v), kw = _sdpa_args("bool_mask")
    mask = Tensor(kw["attn_mask"])
    fn = lambda q, k, v, m: ops.scaled_dot_product_attention(q, k, v, m)  # noqa: E731
    xs = [Tensor(a) for a in (q, k, v)] + [mask]
    model = lower(ms.trace(fn, *xs).graph, params_as_inputs=True, opset=23).model
    assert [n.op_type for n in model.graph.node if n.op_type not in ("Where", "Not", "Cast")] == ["Attention"]
    np.testing.assert_allclose(ms.jit(fn, backend="onnx")(*xs).asnumpy(), ms.jit(fn)(*xs).asnumpy(),
                               rtol=1e-5, atol=2e-6)
    plain = ops.scaled_dot_product_attention(*xs[:3]).asnumpy()
    dropped = ops.scaled_dot_product_attention(*xs[:3], dropout_p=0.5).asnumpy()
    assert np.abs(dropped - plain).max() > 1e-2
    with pytest.raises(ValueError, match="give attn_mask or is_causal=True, not both"):
        ops.scaled_dot_product_attention(*xs, is_causal=True)
    with pytest.raises(ValueError, match="do not fit"):
        ops.scaled_dot_product_attention(xs[0], xs[1][..., :3], xs[2])
