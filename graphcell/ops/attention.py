"""Scaled dot-product attention, written with the functional layer, and the pieces
nn.MultiheadAttention shares with it (`additive_mask`, `attend`).

MindSpore 2.10 has no functional attention that runs on its CPU build: `ops.flash_attention_score`
("The kernel FlashAttentionScore unregistered"), `prompt_flash_attention` and
`fused_infer_attention_score` (float16/bfloat16/int8 only) are Ascend kernels, and the
`scaled_dot_product_attention` some documents mention is not in `mindspore.ops`. graphcell's
`ops.scaled_dot_product_attention` is therefore torch's `F.scaled_dot_product_attention`
(signature and semantics), so ported code runs unchanged.

Written as `softmax(Q @ K^T * scale + mask) @ V`, the form the ONNX lowering turns into one
Attention node at opset 23 (compiler/onnx_fusions.py); vmap and grad follow from the ops.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F

__all__ = ["scaled_dot_product_attention"]


def additive_mask(mask, dtype, masked_when: bool = True):
    """`mask` as the float added to the attention scores, in `dtype`: a bool (or uint8) mask is
    -inf where it equals `masked_when` and 0 elsewhere; a float mask is added as it is."""
    if mask is None:
        return None
    mask = F.as_tensor(mask)
    if mask.dtype in (mstype.bool_, mstype.uint8):
        hidden = F.cast(mask, mstype.bool_)
        if not masked_when:
            hidden = F.logical_not(hidden)
        return F.select(hidden, Tensor(-np.inf, dtype), Tensor(0, dtype))
    return F.cast(mask, dtype)


def attend(q, k, v, mask, scale: float, dropout_p: float, training: bool):
    """softmax(q @ k^T * scale + mask) @ v over [..., S, d], [..., L, d] and [..., L, dv], with
    dropout on the probabilities in training; returns (output, probabilities). A row that masks
    every key is NaN, as softmax over -inf alone (torch's MultiheadAttention gives the same)."""
    scores = F.mul(F.matmul(q, F.swapaxes(k, -1, -2)), scale)
    if mask is not None:
        scores = F.add(scores, mask)
    probs = F.dropout(F.softmax(scores, -1), dropout_p, training)
    return F.matmul(probs, v), probs


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """torch's F.scaled_dot_product_attention: softmax(query @ key^T * scale + mask) @ value over
    query [..., S, E], key [..., L, E] and value [..., L, Ev] (leading axes broadcast).

    - `attn_mask`: a bool mask says which keys each query may attend to (True: take part, as in
      torch; nn.MultiheadAttention's masks are the opposite, True: masked), a float mask is
      added to the scores; it broadcasts to [..., S, L].
    - `dropout_p`: dropout on the attention probabilities, whenever it is above 0 (as torch).
    - `is_causal`: query i attends to keys 0..i (the lower triangle of [S, L]); no attn_mask then.
    - `scale`: 1 / sqrt(E) when None.
    """
    q, k, v = F.as_tensor(query), F.as_tensor(key), F.as_tensor(value)
    for name, t in (("query", q), ("key", k), ("value", v)):
        if t.ndim < 2:
            raise ValueError(f"scaled_dot_product_attention: {name} must have at least 2 dimensions "
                             f"[..., length, features], got shape {list(t.shape)}")
    if not q.dtype.is_floating or q.dtype is not k.dtype or q.dtype is not v.dtype:
        raise TypeError(f"scaled_dot_product_attention: query, key and value must be floats of one dtype, got "
                        f"{q.dtype}, {k.dtype} and {v.dtype}")
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(f"scaled_dot_product_attention: query [..., S, E], key [..., L, E] and value [..., L, Ev] "
                         f"do not fit: got {list(q.shape)}, {list(k.shape)} and {list(v.shape)}")
    if not 0.0 <= dropout_p < 1.0:
        raise ValueError(f"scaled_dot_product_attention: dropout_p must be in [0, 1), got {dropout_p}")
    if is_causal:
        if attn_mask is not None:
            raise ValueError("scaled_dot_product_attention: give attn_mask or is_causal=True, not both")
        attn_mask = Tensor(np.tril(np.ones((q.shape[-2], k.shape[-2]), np.bool_)))
    mask = additive_mask(attn_mask, q.dtype, masked_when=False)
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    return attend(q, k, v, mask, scale, dropout_p, dropout_p > 0)[0]
