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

# O1 (measured): the functional relu and bmm (not matmul or dense) and the white-list operator
# classes compute in the low dtype and return float32
O1_OPS = ("relu", "bmm")
O1_OP_CLASSES = ("MatMul", "BatchMatMul", "Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose",
                 "Conv2DBackpropInput", "PReLU", "ReLU", "Ger")

_policy = [None]     # (level, low dtype) while an "auto" or O1 network runs, else None
_installed = [False]


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


def _hooked(fn, kinds: dict):
    """`fn`, casting per `kinds` ({level: "white" | "black" | "promote"}) while a network of
    that level runs; O1 casts the result back to float32."""
    @functools.wraps(fn)
    def op(*args, **kwargs):
        policy = _policy[0]
        kind = kinds.get(policy[0]) if policy is not None else None
        if kind is None or _internal(sys._getframe(1).f_globals.get("__name__", "")):
            return fn(*args, **kwargs)
        target = policy[1] if kind == "white" else mstype.float32 if kind == "black" else _widest_float((args, tuple(
            kwargs.values())))
        if target is None:
            return fn(*args, **kwargs)
        _policy[0] = None   # an op is one op: what it calls inside is not cast again
        try:
            out = fn(*_cast_tree(args, target), **{k: _cast_tree(v, target) for k, v in kwargs.items()})
        finally:
            _policy[0] = policy
        return _cast_tree(out, mstype.float32) if policy[0] == "O1" else out
    op._amp_auto_original = fn
    return op


def _op_table() -> dict:
    """{op name: {level: kind}} for the functional ops, and the same for the operator classes."""
    funcs, classes = {}, {}
    for level, kind, names in (("auto", "white", WHITE_OPS), ("auto", "black", BLACK_OPS),
                               ("auto", "promote", PROMOTE_OPS), ("O1", "white", O1_OPS)):
        for name in names:
            funcs.setdefault(name, {})[level] = kind
    for level, names in (("auto", WHITE_OP_CLASSES), ("O1", O1_OP_CLASSES)):
        for name in names:
            classes.setdefault(name, {})[level] = "white"
    return funcs, classes


def install_op_hooks() -> None:
    """Wraps the listed ops once, in every loaded graphcell module that holds them (later
    imports of them from graphcell.ops get the wrapped ones)."""
    if _installed[0]:
        return
    from . import ops
    from .ops import functional
    funcs, classes = _op_table()
    for name, kinds in funcs.items():
        original = getattr(ops, name, None) or getattr(functional, name, None)
        if original is None:
            continue
        wrapped = _hooked(original, kinds)
        for mod_name, module in list(sys.modules.items()):
            # graphcell.ops' own modules keep theirs, bar the operator classes' (internal calls pass anyway)
            ours = mod_name.startswith("graphcell.") and (not _internal(mod_name) or module in (ops, functional))
            if ours and module is not None and getattr(module, name, None) is original:
                setattr(module, name, wrapped)
    for name, kinds in classes.items():   # operator instances, ops.MatMul()(x, w)
        cls = getattr(ops, name, None)
        if cls is not None:
            cls.__call__ = _hooked(cls.__call__, kinds)
    _installed[0] = True


class PolicyConstruct:
    """The construct of an "auto" or O1 network: its own, with the op hooks on while it runs."""

    def __init__(self, cell, level, low):
        self.cell, self.policy = cell, (level, low)

    @property
    def __wrapped__(self):
        return type(self.cell).construct.__get__(self.cell)

    def __call__(self, *args, **kwargs):
        saved = _policy[0]
        _policy[0] = self.policy
        try:
            return type(self.cell).construct(self.cell, *args, **kwargs)
        finally:
            _policy[0] = saved


class _LayerAsOneOp:
    """The construct of a listed layer under "auto": inputs and the named Parameters cast to
    `dtype`, the op hooks off inside (the layer is one op)."""

    def __init__(self, cell, dtype, params):
        self.cell, self.dtype, self.params = cell, dtype, params

    @property
    def __wrapped__(self):
        return type(self.cell).construct.__get__(self.cell)

    def __call__(self, *args, **kwargs):
        cell, dtype = self.cell, self.dtype
        args, kwargs = _cast_tree(args, dtype), {k: _cast_tree(v, dtype) for k, v in kwargs.items()}
        own = cell._params
        saved_params, saved_policy = dict(own), _policy[0]
        for name in self.params:
            p = own.get(name)
            if p is not None and p.dtype.is_floating and p.dtype is not dtype:
                own[name] = p.astype(dtype)
        _policy[0] = None
        try:
            return type(cell).construct(cell, *args, **kwargs)
        finally:
            _policy[0] = saved_policy
            own.clear()
            own.update(saved_params)


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
            object.__setattr__(cell, "construct", _LayerAsOneOp(cell, low, ("weight",)))
        elif isinstance(cell, black):
            object.__setattr__(cell, "construct", _LayerAsOneOp(cell, mstype.float32, ()))
    if not isinstance(network, white + black):
        object.__setattr__(network, "construct", PolicyConstruct(network, "auto", low))


class suspended:
    """A context in which the op hooks are off (inside a Cell that O1/O2/O3 converts whole)."""

    def __enter__(self):
        self.saved, _policy[0] = _policy[0], None

    def __exit__(self, *exc):
        _policy[0] = self.saved
