"""Writes transformer_mindspore.npz and transformer_mindspore.ckpt, the MindSpore 2.10 numbers
tests/test_transformer.py compares with.

Run with a MindSpore 2.10 install (CPU), from this folder: `python make_transformer_mindspore.py`.
The tests do not need MindSpore: they read the files (np.load, allow_pickle=False).

Saved:
- `init/<net>/<name>`: each net's parameters after `set_seed(5)`, built in the order of INIT
  (and `init/after`: one `np.random.random()` drawn after building them all), `init/<net>/names`
  their order;
- `inputs/<name>`: the inputs; `<case>/case`: the class, constructor arguments, inputs (by name)
  and call arguments ("@name": an input), as JSON; `<case>/p/<name>`: the parameters, set to
  random values so that every bias counts; `<case>/out/<i>`: MindSpore's outputs, in eval mode;
- transformer_mindspore.ckpt: `save_checkpoint` of the "transformer" case's net.
"""
import json

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

E, H, S, L, B, FF = 8, 2, 5, 6, 3, 16
INIT = {
    "mha": ("MultiheadAttention", dict(embed_dim=E, num_heads=H)),
    "mha_kv": ("MultiheadAttention", dict(embed_dim=E, num_heads=H, kdim=6, vdim=4, add_bias_kv=True)),
    "encoder": ("TransformerEncoderLayer", dict(d_model=E, nhead=H, dim_feedforward=FF)),
    "decoder": ("TransformerDecoderLayer", dict(d_model=E, nhead=H, dim_feedforward=FF, norm_first=True)),
    "transformer": ("Transformer", dict(d_model=E, nhead=H, num_encoder_layers=2, num_decoder_layers=1,
                                        dim_feedforward=FF)),
}
out = {}
ms.set_seed(5)
nets = {key: getattr(nn, cls)(**kw) for key, (cls, kw) in INIT.items()}
stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(E, H, FF), 2, norm=nn.LayerNorm((E,)))
out["init/after"] = np.array(np.random.random())
for key, net in list(nets.items()) + [("stack", stack)]:
    out[f"init/{key}/names"] = np.array([p.name for p in net.get_parameters()])
    for p in net.get_parameters():
        out[f"init/{key}/{p.name}"] = p.asnumpy()

rng = np.random.default_rng(0)


def randn(*shape):
    return rng.standard_normal(shape).astype(np.float32)


q, k, v, mem = randn(S, B, E), randn(L, B, E), randn(L, B, E), randn(L, B, E)
kpm = np.zeros((B, L), bool)
kpm[0, -2:] = True
kpm[2, 3] = True                      # no query row loses all its keys (see the tests on that)
causal = np.triu(np.ones((S, L), bool), 1)
ARRAYS = {   # the inputs, stored once as inputs/<name>; the cases name them
    "q": q, "k": k, "v": v, "mem": mem, "kpm": kpm, "causal": causal,
    "q_bf": q.transpose(1, 0, 2), "k_bf": k.transpose(1, 0, 2), "v_bf": v.transpose(1, 0, 2),
    "mem_bf": mem.transpose(1, 0, 2), "q0": q[:, 0], "k0": k[:, 0], "v0": v[:, 0], "kpm0": kpm[0],
    "k6": randn(L, B, 6), "v4": randn(L, B, 4), "causal_u8": causal.astype(np.uint8),
    "soft": np.where(causal, -1.5, 0.3).astype(np.float32), "kpm_soft": np.where(kpm, -1.5, 0.25).astype(np.float32),
    "am3d": randn(B * H, S, L), "causal_s": np.triu(np.ones((S, S), bool), 1), "kpm_s": kpm[:, :S],
    "causal_l": np.triu(np.ones((L, L), bool), 1), "kpm_row1": np.array([[0] * L, [1] * L, [0] * L], bool),
}
MHA = dict(embed_dim=E, num_heads=H)
ENC = dict(d_model=E, nhead=H, dim_feedforward=FF)
CASES = {   # name: (class, constructor kwargs, inputs, call kwargs); "@name" is ARRAYS[name]
    "basic": ("MultiheadAttention", MHA, ["q", "k", "v"], {}),
    "per_head": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(average_attn_weights=False)),
    "no_weights": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(need_weights=False)),
    "batch_first": ("MultiheadAttention", dict(MHA, batch_first=True), ["q_bf", "k_bf", "v_bf"], {}),
    "unbatched": ("MultiheadAttention", MHA, ["q0", "k0", "v0"], dict(key_padding_mask="@kpm0")),
    "kdim_vdim": ("MultiheadAttention", dict(MHA, kdim=6, vdim=4), ["q", "k6", "v4"], {}),
    "bias_kv_zero_attn": ("MultiheadAttention", dict(MHA, add_bias_kv=True, add_zero_attn=True), ["q", "k", "v"],
                          dict(key_padding_mask="@kpm", attn_mask="@causal")),
    "no_bias": ("MultiheadAttention", dict(MHA, has_bias=False), ["q", "k", "v"], {}),
    "kpm_bool": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(key_padding_mask="@kpm")),
    "kpm_float": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(key_padding_mask="@kpm_soft")),
    "am_bool": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(attn_mask="@causal")),
    "am_uint8": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(attn_mask="@causal_u8")),
    "am_float": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(attn_mask="@soft")),
    "am_3d": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(attn_mask="@am3d")),
    "both_bool": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(attn_mask="@causal", key_padding_mask="@kpm")),
    "both_float": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(attn_mask="@soft", key_padding_mask="@kpm_soft")),
    # MindSpore's departures from torch, recorded for the tests that name them:
    "am_float_kpm_bool": ("MultiheadAttention", MHA, ["q", "k", "v"],
                          dict(attn_mask="@soft", key_padding_mask="@kpm")),
    "row_all_masked": ("MultiheadAttention", MHA, ["q", "k", "v"], dict(key_padding_mask="@kpm_row1")),
    "enc": ("TransformerEncoderLayer", ENC, ["q"], {}),
    "enc_masks": ("TransformerEncoderLayer", ENC, ["q"], dict(src_mask="@causal_s", src_key_padding_mask="@kpm_s")),
    "enc_norm_first_gelu": ("TransformerEncoderLayer", dict(ENC, norm_first=True, activation="gelu"), ["q"], {}),
    "enc_batch_first": ("TransformerEncoderLayer", dict(ENC, batch_first=True), ["q_bf"], {}),
    "enc_unbatched": ("TransformerEncoderLayer", ENC, ["q0"], {}),
    "dec_masks": ("TransformerDecoderLayer", ENC, ["q", "mem"],
                  dict(tgt_mask="@causal_s", memory_mask="@causal", tgt_key_padding_mask="@kpm_s",
                       memory_key_padding_mask="@kpm")),
    "dec_norm_first": ("TransformerDecoderLayer", dict(ENC, norm_first=True, activation="gelu"), ["q", "mem"], {}),
    "transformer": ("Transformer", dict(d_model=E, nhead=H, num_encoder_layers=2, num_decoder_layers=2,
                                        dim_feedforward=FF), ["mem", "q"], {}),
    "transformer_masks": ("Transformer", dict(d_model=E, nhead=H, num_encoder_layers=1, num_decoder_layers=1,
                                              dim_feedforward=FF, batch_first=True, norm_first=True),
                          ["mem_bf", "q_bf"], dict(src_mask="@causal_l", tgt_mask="@causal_s",
                                                   src_key_padding_mask="@kpm", tgt_key_padding_mask="@kpm_s",
                                                   memory_key_padding_mask="@kpm")),
}
for key, value in ARRAYS.items():
    out[f"inputs/{key}"] = value


def resolve(value):
    return Tensor(ARRAYS[value[1:]]) if isinstance(value, str) and value.startswith("@") else value


for name, (cls, kw, args, call) in CASES.items():
    net = getattr(nn, cls)(**kw)
    net.set_train(False)
    out[f"{name}/case"] = np.array(json.dumps([cls, kw, args, call]))
    for p in net.get_parameters():
        value = (randn(*p.shape) * 0.5).astype(np.float32)
        p.set_data(Tensor(value))
        out[f"{name}/p/{p.name}"] = value
    result = net(*[Tensor(ARRAYS[a]) for a in args], **{k_: resolve(v_) for k_, v_ in call.items()})
    result = result if isinstance(result, tuple) else (result,)
    for i, r in enumerate(result):
        out[f"{name}/out/{i}"] = r.asnumpy()
    if name == "transformer":
        ms.save_checkpoint(net, "transformer_mindspore.ckpt")

np.savez_compressed("transformer_mindspore.npz", **out)
