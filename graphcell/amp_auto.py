"""`auto_mixed_precision(net, "auto")`: MindSpore 2.10's operator-level mixed precision.

Measured on 2.10 (CPU), for each op the network calls while it runs:
- white-list ops (matrix products, convolutions) cast their floating inputs to the low dtype
  and return it (ops.matmul of float32 inputs gives Float16);
- black-list ops (exp, log, pow, softmax, sum, the norms and losses, ...) cast them to float32
  and return float32 (even for float16 inputs);
- promote-list ops (concat, bias_add, addn, ...) compute in the widest floating input type;
- every other op computes in its inputs' types (relu of float16 is float16).
The network is converted in place and returned (same class, same printout), and its
outputs are not cast back: a bare ops.matmul network returns Float16.

A layer is one op: nn.Dense and the convolutions multiply in the low dtype and add their
float32 bias after (2.10's MatMul/Conv2D then BiasAdd, a promote op: Dense returns Float32,
Dense(has_bias=False) Float16), and the normalisation layers compute in float32.

graphcell's ops are functions, so the op hooks wrap them by name where the network finds
them (graphcell.ops, its functional module, the Tensor methods' lookup). Only calls from
outside graphcell.ops count: the ops graphcell composes internally (softmax's exp) are not
2.10's ops. The hooks act only while an "auto" network runs; elsewhere they pass through.
"""
from __future__ import annotations

import functools
import sys
import threading

from . import dtype as mstype
from .tensor import Tensor

# graphcell's names for 2.10's auto_whitelist / auto_blacklist / promote_list operators
WHITE_OPS = ("matmul", "bmm", "mm", "dense", "batch_matmul", "tensor_dot", "conv1d", "conv2d", "conv3d",
             "conv_transpose2d", "prelu", "mv")   # 2.10's CPU addmm/baddbmm: a float32 sum of a float16 product
BLACK_OPS = ("pow", "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log1p", "log2", "reciprocal",
             "rsqrt", "sinh", "tan", "softplus", "layer_norm", "batch_norm", "group_norm", "kl_div", "smooth_l1_loss",
             "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
             "binary_cross_entropy_with_logits", "pdist", "cdist", "renorm", "prod", "softmax", "log_softmax",
             "cumprod", "cumsum", "sum", "l1_loss", "mse_loss", "nll_loss", "cross_entropy")
WHITE_OP_CLASSES = ("MatMul", "BatchMatMul", "Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "PReLU")
PROMOTE_OPS = ("addcdiv", "addcmul", "cross", "dot", "grid_sample", "bias_add", "addn", "concat", "cat")



class _State(threading.local):
    """Per thread: (level, low dtype, white keys) while an "auto", O1 or custom network runs, else None."""
    policy = None


_state = _State()
_hooked_names = set()   # functions and operator classes already wrapped (once per process)


def _cast_tree(tree, dtype):
    if isinstance(tree, Tensor):
        return tree.astype(dtype) if tree.dtype.is_floating and tree.dtype is not dtype else tree
    if isinstance(tree, (tuple, list)):
        return type(tree)(_cast_tree(x, dtype) for x in tree)
    return tree


def _widest_float(tree, found=None):
    """The widest floating dtype among the Tensors of an argument tree (None if there are none)."""
    if isinstance(tree, Tensor):
        if tree.dtype.is_floating and (found is None or tree.dtype.itemsize > found.itemsize):
            return tree.dtype
    elif isinstance(tree, (tuple, list)):
        for x in tree:
            found = _widest_float(x, found)
    return found


def _internal(module: str) -> bool:
    """Whether a call from `module` is graphcell composing an op (not cast), rather than the
    network calling one: the operator classes (ops.MatMul()(x, w)) are the network's."""
    return module.startswith("graphcell.ops") and not module.endswith(("_classes", ".operations"))


def _from_graphcell(module: str) -> bool:
    """O1 and custom lists convert only the calls a network's construct makes itself (2.10's
    rewrite sees those): not Tensor methods or operators, nor what graphcell's layers call."""
    return module.startswith("graphcell.") and not module.endswith(("_classes", ".operations"))


def _kind(policy, key: str, auto_kinds: dict):
    if policy is None:
        return None
    return auto_kinds.get(key) if policy[0] == "auto" else "white" if key in policy[2] else None


def _hooked(fn, key: str, auto_kinds: dict):
    """`fn` (the op `key`: a function or operator class name), casting while a converted network
    runs: under "auto" per `auto_kinds` ("white" | "black" | "promote"); under O1 or a custom
    white list when `key` is listed, computing in the low dtype and casting back to float32."""
    @functools.wraps(fn)
    def op(*args, **kwargs):
        policy = _state.policy
        kind = _kind(policy, key, auto_kinds)
        if kind is None:
            return fn(*args, **kwargs)
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if _internal(caller) or (policy[0] != "auto" and _from_graphcell(caller)):
            return fn(*args, **kwargs)
        target = policy[1] if kind == "white" else mstype.float32 if kind == "black" else _widest_float((args, tuple(
            kwargs.values())))
        if target is None:
            return fn(*args, **kwargs)
        _state.policy = None   # an op is one op: what it calls inside is not cast again
        try:
            out = fn(*_cast_tree(args, target), **{k: _cast_tree(v, target) for k, v in kwargs.items()})
        finally:
            _state.policy = policy
        return out if policy[0] == "auto" else _cast_tree(out, mstype.float32)
    op._amp_auto_original = fn
    return op


def _auto_kinds() -> dict:
    """{op name: kind} of the "auto" lists."""
    kinds = {}
    for kind, names in (("white", WHITE_OPS), ("black", BLACK_OPS), ("promote", PROMOTE_OPS),
                        ("white", WHITE_OP_CLASSES)):
        for name in names:
            kinds[name] = kind
    return kinds


def install_op_hooks(names=None) -> None:
    """Wraps the named ops (default: the "auto" lists) once, in every loaded graphcell module
    that holds them (later imports of them from graphcell.ops get the wrapped ones). A name
    is a function of graphcell.ops or an operator class (ops.MatMul: its instances' calls)."""
    from . import ops
    from .ops import composite, functional
    kinds = _auto_kinds()
    for name in (kinds if names is None else names):
        if name in _hooked_names:
            continue
        _hooked_names.add(name)
        original = getattr(ops, name, None) or getattr(functional, name, None)
        if isinstance(original, type):   # operator instances, ops.MatMul()(x, w)
            original.__call__ = _hooked(original.__call__, name, kinds)
            continue
        if not callable(original):
            continue
        wrapped = _hooked(original, name, kinds)
        for mod_name, module in list(sys.modules.items()):
            # graphcell.ops' own modules keep theirs, bar the ones users import as F and C and the operator
            # classes' (calls from inside graphcell.ops pass uncast anyway: `op` reads its caller)
            ours = mod_name.startswith("graphcell.") and (not _internal(mod_name)
                                                          or module in (ops, functional, composite))
            if ours and module is not None and getattr(module, name, None) is original:
                setattr(module, name, wrapped)


class PolicyConstruct:
    """The construct of an "auto", O1 or custom network: its own, with the op hooks on while it
    runs (`white`: the op names O1 or a custom white list converts)."""

    def __init__(self, cell, level, low, white=frozenset()):
        self.cell, self.policy = cell, (level, low, frozenset(white))

    @property
    def __wrapped__(self):
        return type(self.cell).construct.__get__(self.cell)

    def __call__(self, *args, **kwargs):
        saved = _state.policy
        _state.policy = self.policy
        try:
            return type(self.cell).construct(self.cell, *args, **kwargs)
        finally:
            _state.policy = saved


class LayerAsOneOp:
    """The construct of a layer that is one listed op ("auto"; O1 and custom white lists'
    operator classes): inputs and the named Parameters cast to `dtype`, the op hooks off
    inside; floating outputs cast to `output_dtype` unless it is None."""

    def __init__(self, cell, dtype, params, output_dtype=None):
        self.cell, self.dtype, self.params, self.output_dtype = cell, dtype, params, output_dtype

    @property
    def __wrapped__(self):
        return type(self.cell).construct.__get__(self.cell)

    def __call__(self, *args, **kwargs):
        cell, dtype = self.cell, self.dtype
        args, kwargs = _cast_tree(args, dtype), {k: _cast_tree(v, dtype) for k, v in kwargs.items()}
        own = cell._params
        saved_params, saved_policy = dict(own), _state.policy
        for name in self.params:
            p = own.get(name)
            if p is not None and p.dtype.is_floating and p.dtype is not dtype:
                own[name] = p.astype(dtype)
        _state.policy = None
        try:
            out = type(cell).construct(cell, *args, **kwargs)
        finally:
            _state.policy = saved_policy
            own.clear()
            own.update(saved_params)
        return out if self.output_dtype is None else _cast_tree(out, self.output_dtype)


def _layer_lists():
    from . import nn
    white = (nn.Dense, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Conv1dTranspose, nn.Conv2dTranspose, nn.Conv3dTranspose)
    black = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm, nn.GroupNorm)
    return white, black


def convert_auto(network, low) -> None:
    """Converts `network` in place for amp_level "auto" in `low` (float16 or bfloat16)."""
    install_op_hooks()
    white, black = _layer_lists()
    for _, cell in network.cells_and_names():
        if isinstance(cell, white):   # the product in `low`; the float32 bias is added after (promotes)
            object.__setattr__(cell, "construct", LayerAsOneOp(cell, low, ("weight",)))
        elif isinstance(cell, black):
            object.__setattr__(cell, "construct", LayerAsOneOp(cell, mstype.float32, ()))
    if not isinstance(network, white + black):
        object.__setattr__(network, "construct", PolicyConstruct(network, "auto", low))


class suspended:
    """A context in which the op hooks are off (inside a Cell that O1/O2/O3 converts whole)."""

    def __enter__(self):
        self.saved, _state.policy = _state.policy, None

    def __exit__(self, *exc):
        _state.policy = self.saved
