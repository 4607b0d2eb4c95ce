"""MultiheadAttention and the Transformer layers, as MindSpore 2.10's (measured on its CPU build):
arguments and defaults, Parameter names, order and initial values after set_seed (checkpoints
interchange), and its outputs, which are torch's for the same weights.

MindSpore behaviours not copied (each measured; tests/test_transformer.py names them):
- masks of two kinds: with a float attn_mask MindSpore adds a bool key_padding_mask as 1.0 where
  True, and a bool attn_mask with a float key_padding_mask gives NaN everywhere; here each mask
  is read on its own (a bool one is -inf where True, a float one is added), as torch does;
- a query row whose keys are all masked: MindSpore's CPU softmax returns zeros for that row and
  for every row after it in the tensor; here that row is NaN (torch's MultiheadAttention too);
- errors where MindSpore fails inside an op (src and tgt batches that differ, a float16 query
  with float32 weights, a TransformerEncoder given another Cell, dropout >= 1) have messages.
"""
from __future__ import annotations

import copy
import math

from ... import dtype as mstype
from ...common.initializer import XavierNormal, XavierUniform, initialize
from ...ops import functional as F
from ...ops.attention import additive_mask, attend
from ...tensor import Tensor
from ..cell import Cell, CellList
from ._init import make_param
from .basic import Dense, Dropout
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerDecoder", "Transformer"]


class MultiheadAttention(Cell):
    """Attention over `num_heads` heads of embed_dim // num_heads features.

    construct(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True): query [S, N, E] (batch_first: [N, S, E], unbatched: [S, E]),
    key [L, N, kdim], value [L, N, vdim]. Masks: True (bool or uint8) hides a key, a float is
    added to the scores; key_padding_mask [N, L], attn_mask [S, L] or [N * num_heads, S, L].
    Returns (output, weights) with weights [N, S, L] (averaged over heads) or
    [N, num_heads, S, L], after dropout as the output used them; only (output,) when
    need_weights is False (MindSpore's 1-tuple).

    Parameters: in_proj_weight [3E, E] (or q_proj_weight [E, E], k_proj_weight [E, kdim],
    v_proj_weight [E, vdim] when kdim or vdim differ from E), in_proj_bias [3E] (has_bias),
    bias_k and bias_v [1, 1, E] (add_bias_kv), out_proj.weight [E, E] and out_proj.bias [E].
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, dtype=mstype.float32):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("The init argument 'embed_dim' must be divisible by 'num_heads'.")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"For 'MultiheadAttention', 'dropout' must be in [0, 1), but got {dropout}.")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, float(dropout)
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.head_dim = embed_dim // num_heads
        self.batch_first, self.add_zero_attn, self.has_bias, self.dtype = batch_first, add_zero_attn, has_bias, dtype
        self.same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        # Creation order is MindSpore's: it is both the checkpoint's order and the seed's draw order.
        if self.same_embed_dim:
            self.in_proj_weight = make_param(XavierUniform(), (3 * embed_dim, embed_dim), "in_proj_weight", dtype)
        else:
            self.q_proj_weight = make_param(XavierUniform(), (embed_dim, embed_dim), "q_proj_weight", dtype)
            self.k_proj_weight = make_param(XavierUniform(), (embed_dim, self.kdim), "k_proj_weight", dtype)
            self.v_proj_weight = make_param(XavierUniform(), (embed_dim, self.vdim), "v_proj_weight", dtype)
        self.in_proj_bias = make_param("zeros", (3 * embed_dim,), "in_proj_bias", dtype) if has_bias else None
        out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias, dtype=dtype)   # drawn before bias_k and bias_v
        self.bias_k = self.bias_v = None
        if add_bias_kv:
            self.bias_k = make_param(XavierNormal(), (1, 1, embed_dim), "bias_k", dtype)
            self.bias_v = make_param(XavierNormal(), (1, 1, embed_dim), "bias_v", dtype)
        self.out_proj = out_proj

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True):
        batched = self._check(query, key, value)
        if not batched:   # a batch of one, on the batch axis
            query, key, value = (F.expand_dims(t, 0 if self.batch_first else 1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = F.expand_dims(key_padding_mask, 0)
        if not self.batch_first:   # computed as [N, S, E]
            query, key, value = (F.swapaxes(t, 0, 1) for t in (query, key, value))
        n, s, length = query.shape[0], query.shape[1], key.shape[1]
        q, k, v = self._project(query, key, value)
        if self.bias_k is not None:   # one more key and value, the same for every batch row
            k = F.concat([k, F.broadcast_to(F.cast(self.bias_k, k.dtype), (n, 1, self.embed_dim))], 1)
            v = F.concat([v, F.broadcast_to(F.cast(self.bias_v, v.dtype), (n, 1, self.embed_dim))], 1)
        q, k, v = (self._heads(t) for t in (q, k, v))
        if self.add_zero_attn:   # and a key and a value of zeros
            k, v = (F.pad(t, (0, 0, 0, 1)) for t in (k, v))
        mask = self._mask(attn_mask, key_padding_mask, n, s, length, q.dtype)
        out, probs = attend(q, k, v, mask, 1.0 / math.sqrt(self.head_dim), self.dropout, self.training)
        out = self.out_proj(F.reshape(F.transpose(out, (0, 2, 1, 3)), (n, s, self.embed_dim)))
        if not self.batch_first:
            out = F.swapaxes(out, 0, 1)
        if not batched:
            out = F.squeeze(out, 0 if self.batch_first else 1)
        if not need_weights:
            return (out,)
        weights = F.mean(probs, 1) if average_attn_weights else probs
        return out, (weights if batched else F.squeeze(weights, 0))

    def _check(self, query, key, value) -> bool:
        """MindSpore's checks and messages; True for batched (3-D) inputs."""
        for name, t in (("query", query), ("key", key), ("value", value)):
            self.check_input(t, what=f"`{name}`", dtype=self.out_proj.weight.dtype)
        if query.ndim not in (2, 3):
            raise ValueError(f"The `query` should be unbatched 2D or batched 3D tensor, but got `query` with "
                             f"{query.ndim}D.")
        if key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"For {'batched' if query.ndim == 3 else 'unbatched'} {query.ndim}D `query`, `key` "
                             f"and `value` should be {query.ndim}D, but got {key.ndim}D and {value.ndim}D.")
        for name, t, size in (("embed_dim", query, self.embed_dim), ("kdim", key, self.kdim),
                              ("vdim", value, self.vdim)):
            if t.shape[-1] != size:
                raise ValueError(f"The `{name}` should be {size}, but got {t.shape[-1]}.")
        if key.shape[:-1] != value.shape[:-1]:
            raise ValueError(f"The shape of `key` {tuple(key.shape)} does not match `value` {tuple(value.shape)}.")
        batch_axis = 0 if self.batch_first else 1
        if query.ndim == 3 and key.shape[batch_axis] != query.shape[batch_axis]:
            raise ValueError(f"The batch size of `query` ({query.shape[batch_axis]}) and `key` "
                             f"({key.shape[batch_axis]}) should be equal.")
        return query.ndim == 3

    def _project(self, query, key, value):
        if self.same_embed_dim:
            weights = F.split(self.in_proj_weight, self.embed_dim, 0)
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        biases = F.split(self.in_proj_bias, self.embed_dim, 0) if self.in_proj_bias is not None else (None,) * 3
        return tuple(F.dense(x, w, b) for x, w, b in zip((query, key, value), weights, biases))

    def _heads(self, x):
        """[N, L, E] -> [N, heads, L, head_dim]."""
        n, length = x.shape[0], x.shape[1]
        return F.transpose(F.reshape(x, (n, length, self.num_heads, self.head_dim)), (0, 2, 1, 3))

    def _mask(self, attn_mask, key_padding_mask, n, s, length, dtype):
        """Both masks as one float added to the [N, heads, S, L'] scores (L' counts bias_k and the
        zero key, which no mask hides), or None."""
        extra = int(self.bias_k is not None) + int(self.add_zero_attn)
        masks = []
        if attn_mask is not None:
            if attn_mask.dtype not in (mstype.bool_, mstype.uint8) and not attn_mask.dtype.is_floating:
                raise ValueError(f"`attn_mask` only support float, byte, and bool types, but got not "
                                 f"{attn_mask.dtype}.")
            want = {2: (s, length), 3: (n * self.num_heads, s, length)}.get(attn_mask.ndim)
            if want is None:
                raise ValueError(f"The dim of `attn_mask` should be 2 or 3, but got {attn_mask.ndim}.")
            if tuple(attn_mask.shape) != want:
                raise ValueError(f"The shape of the `attn_mask` should be {want}, but got {tuple(attn_mask.shape)}.")
            mask = additive_mask(attn_mask, dtype)
            masks.append(mask if mask.ndim == 2 else F.reshape(mask, (n, self.num_heads, s, length)))
        if key_padding_mask is not None:
            if key_padding_mask.dtype is not mstype.bool_ and not key_padding_mask.dtype.is_floating:
                raise ValueError("only bool and floating types of key_padding_mask are supported")
            if tuple(key_padding_mask.shape) != (n, length):
                raise ValueError(f"The shape of `key_padding_mask` should be {(n, length)}, but got "
                                 f"{tuple(key_padding_mask.shape)}.")
            masks.append(F.reshape(additive_mask(key_padding_mask, dtype), (n, 1, 1, length)))
        if not masks:
            return None
        mask = masks[0] if len(masks) == 1 else F.add(masks[0], masks[1])
        return F.pad(mask, (0, extra)) if extra else mask


def _activation(activation):
    """MindSpore 2.10 takes "relu", "gelu" (exact), ops.relu or ops.gelu, nothing else."""
    if isinstance(activation, str):
        if activation not in ("relu", "gelu"):
            raise ValueError(f"The activation must be relu/gelu, but get {activation}")
        return F.relu if activation == "relu" else F.gelu
    if activation is F.relu or activation is F.gelu:
        return activation
    raise ValueError(f"The argument 'activation' must be ops.relu or ops.gelu instance, but get {activation}.")


class TransformerEncoderLayer(Cell):
    """Self-attention then a feed-forward block (dense1, activation, dense2), each with dropout,
    a residual and a LayerNorm: after the residual (post-norm), or before the block with
    norm_first=True. construct(src, src_mask=None, src_key_padding_mask=None)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__()
        act = _activation(activation)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.activation = act
        # MindSpore's names: TransformerEncoder/Decoder build their layers from them.
        self.d_model, self.nhead, self.dim_feedforward, self.dropout_num = d_model, nhead, dim_feedforward, dropout
        self.layernorm_eps, self.batch_first, self.norm_first = layer_norm_eps, batch_first, norm_first
        self.dtype = dtype

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = F.add(x, self._self_attention(self.norm1(x), src_mask, src_key_padding_mask))
            return F.add(x, self._feed_forward(self.norm2(x)))
        x = self.norm1(F.add(x, self._self_attention(x, src_mask, src_key_padding_mask)))
        return self.norm2(F.add(x, self._feed_forward(x)))

    def _self_attention(self, x, attn_mask, key_padding_mask):
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(out)

    def _feed_forward(self, x):
        return self.dropout2(self.dense2(self.dropout(self.activation(self.dense1(x)))))


class TransformerDecoderLayer(Cell):
    """Self-attention over tgt, attention to memory (multihead_attn), then the feed-forward block,
    each with dropout, a residual and a LayerNorm (norm1..3; before each block with
    norm_first=True). construct(tgt, memory, tgt_mask=None, memory_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__()
        act = _activation(activation)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm3 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)
        self.activation = act
        # MindSpore's names: TransformerEncoder/Decoder build their layers from them.
        self.d_model, self.nhead, self.dim_feedforward, self.dropout_num = d_model, nhead, dim_feedforward, dropout
        self.layernorm_eps, self.batch_first, self.norm_first = layer_norm_eps, batch_first, norm_first
        self.dtype = dtype

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = F.add(x, self._self_attention(self.norm1(x), tgt_mask, tgt_key_padding_mask))
            x = F.add(x, self._cross_attention(self.norm2(x), memory, memory_mask, memory_key_padding_mask))
            return F.add(x, self._feed_forward(self.norm3(x)))
        x = self.norm1(F.add(x, self._self_attention(x, tgt_mask, tgt_key_padding_mask)))
        x = self.norm2(F.add(x, self._cross_attention(x, memory, memory_mask, memory_key_padding_mask)))
        return self.norm3(F.add(x, self._feed_forward(x)))

    def _self_attention(self, x, attn_mask, key_padding_mask):
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(out)

    def _cross_attention(self, x, memory, attn_mask, key_padding_mask):
        out = self.multihead_attn(x, memory, memory, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                  need_weights=False)[0]
        return self.dropout2(out)

    def _feed_forward(self, x):
        return self.dropout3(self.dense2(self.dropout(self.activation(self.dense1(x)))))


def _clones(layer_class, layer, num_layers: int) -> CellList:
    """num_layers copies of a new layer_class built with `layer`'s arguments. MindSpore 2.10
    builds that one layer afresh (its initialisers draw again, once for all copies), so the
    copies start equal to each other and not to `layer`: `layer`'s values are not used."""
    if not isinstance(layer, (TransformerEncoderLayer, TransformerDecoderLayer)):
        raise TypeError(f"For '{layer_class.__name__[:-5]}', the layer must be a {layer_class.__name__}, but got "
                        f"{type(layer).__name__}.")
    fresh = layer_class(layer.d_model, layer.nhead, layer.dim_feedforward, layer.dropout_num, layer.activation,
                        layer.layernorm_eps, layer.batch_first, layer.norm_first, layer.dtype)
    return CellList([copy.deepcopy(fresh) for _ in range(num_layers)])


class TransformerEncoder(Cell):
    """num_layers copies (layers.0, layers.1, ...) of a TransformerEncoderLayer with
    `encoder_layer`'s arguments, drawn afresh (see _clones), then `norm` if given."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(TransformerEncoderLayer, encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.norm(x) if self.norm is not None else x


class TransformerDecoder(Cell):
    """num_layers copies (layers.0, layers.1, ...) of a TransformerDecoderLayer with
    `decoder_layer`'s arguments, drawn afresh (see _clones), then `norm` if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(TransformerDecoderLayer, decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)
        return self.norm(x) if self.norm is not None else x


class Transformer(Cell):
    """An encoder over src (num_encoder_layers layers and a LayerNorm, or custom_encoder) and a
    decoder over tgt and the encoder's output (or custom_decoder). Every Parameter of two or
    more dimensions is then drawn again from XavierUniform, in Parameter order, as MindSpore
    does (the layers' copies so differ)."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=mstype.float32):
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*layer_args), num_encoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*layer_args), num_decoder_layers,
                                              LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for p in self.get_parameters():
            if p.ndim > 1:
                p.set_data(Tensor(initialize(XavierUniform(), p.shape, p.dtype.np_dtype), p.dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        batch_axis = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[batch_axis] != tgt.shape[batch_axis]:
            raise ValueError(f"The batch number of 'src' ({src.shape[batch_axis]}) and 'tgt' "
                             f"({tgt.shape[batch_axis]}) must be equal.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError("The number of features for 'src' and 'tgt' must be equal to `d_model`.")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)
