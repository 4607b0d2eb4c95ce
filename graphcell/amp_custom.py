"""White-list mixed precision (O1 and `custom_mixed_precision(white_list=...)`) and the
black-list conversion, as MindSpore 2.10 (measured on its CPU build).

2.10 rewrites the network's source. What a user sees, and what is matched here:
- a listed Cell class: each sub-Cell of that class computes whole in the low dtype (inputs
  and Parameters cast, every op inside low) and returns float32; the network passed in is
  not matched against the list, only its sub-Cells;
- a listed operator class (ops.MatMul, ops.ReLU, ops.Exp, ...): its instances' calls, and
  the functional op that is that one operator (ops.exp, ops.relu, ops.bmm, ops.conv2d; not
  ops.matmul, ops.softmax, ops.sum or ops.gelu, which 2.10 composes), compute in the low dtype
  and return float32, where a construct calls them itself; Tensor methods and operators
  (`x.exp()`, `x + y`) are not converted. The layers that are one such operator count:
  nn.Dense and the convolutions multiply in the low dtype and add their float32 bias after
  (ops.MatMul, ops.Conv2D, ops.Conv3D), nn.ReLU and nn.PReLU compute whole (ops.ReLU, ops.PReLU);
- the network returned is a copy of the one passed in, of class `<Name>Opt` (a subclass),
  sharing its sub-Cells and Parameters (same names, same checkpoint). The sub-Cells are
  converted in place, so the original network, called afterwards, computes its sub-Cells
  as converted but its own ops in float32 (2.10 replaces the sub-Cells by `DenseOpt`
  copies in both; graphcell keeps the objects and their classes).
"""
from __future__ import annotations

import copy

from . import dtype as mstype
from .amp_auto import LayerAsOneOp, PolicyConstruct, install_op_hooks

# The functional ops that are one operator class (2.10 converts them with it): by default the
# class name in lower case; these are 2.10's exceptions (measured).
_FUNCTIONAL_NAMES = {"BatchMatMul": ("bmm",)}
_COMPOSED = frozenset({"matmul", "softmax", "sum", "gelu"})


def white_op_names(op_classes) -> frozenset:
    """The hook names of `op_classes`: the class names and their functional ops'."""
    from . import ops
    names = set()
    for cls in op_classes:
        names.add(cls.__name__)
        for fn in _FUNCTIONAL_NAMES.get(cls.__name__, (cls.__name__.lower(),)):
            if fn not in _COMPOSED and callable(getattr(ops, fn, None)) and not isinstance(getattr(ops, fn), type):
                names.add(fn)
    return frozenset(names)


def _one_op_layers():
    """{layer: (operator class name, the Parameters cast, whether the whole layer is the op)}."""
    from . import nn
    return {nn.Dense: ("MatMul", ("weight",)), nn.Conv2d: ("Conv2D", ("weight",)),
            nn.Conv3d: ("Conv3D", ("weight",)), nn.ReLU: ("ReLU", None), nn.PReLU: ("PReLU", None)}


def _set_construct(cell, construct) -> None:
    object.__setattr__(cell, "construct", construct)


def _convert_one(cell, cell_classes, op_names, dtype, *, is_root) -> bool:
    """Converts `cell` itself; True when it is converted whole (its sub-Cells run inside).
    The network itself is not matched against the Cell classes (2.10); its copy's class is
    `<Name>Opt`, whose base is matched against the one-operator layers."""
    layer_type = type(cell).__mro__[1] if is_root else type(cell)
    from .amp import wrap_construct
    if not is_root and isinstance(cell, cell_classes):
        wrap_construct(cell, dtype, mstype.float32)
        return True
    for layer, (op, params) in _one_op_layers().items():
        if layer_type is layer and op in op_names:
            if params is None:
                wrap_construct(cell, dtype, mstype.float32)
            else:   # the product in `dtype`, cast back; the float32 bias added after
                _set_construct(cell, LayerAsOneOp(cell, dtype, params, mstype.float32))
            return True
    if op_names:
        _set_construct(cell, PolicyConstruct(cell, "custom", dtype, op_names))
    return False


_OPT_CLASSES: dict = {}


def _rebuild(base):
    cls = opt_class(base)
    return cls.__new__(cls)


def opt_class(base):
    """`<Name>Opt`, the class of a rewritten copy (one per class; pickles by its base)."""
    if base not in _OPT_CLASSES:
        _OPT_CLASSES[base] = type(f"{base.__name__}Opt", (base,), {
            "__module__": base.__module__,
            "__reduce_ex__": lambda self, protocol: (_rebuild, (base,), dict(self.__dict__))})
    return _OPT_CLASSES[base]


def rewritten_copy(network):
    """A shallow copy of `network` of class `<Name>Opt`: its own tables (so its construct and
    later attribute changes are its own), the same sub-Cells and Parameters."""
    cls = opt_class(type(network))
    new = cls.__new__(cls)
    state = {k: copy.copy(v) if isinstance(v, (dict, set, list)) and k.startswith("_") else v
             for k, v in network.__dict__.items()}
    state.pop("construct", None)
    state["_graph_jit"] = None
    new.__dict__.update(state)
    return new


def convert_white_list(network, white_list, dtype):
    """O1 / custom_mixed_precision(white_list=...): converts the sub-Cells of `network` in
    place and returns the converted copy (`<Name>Opt`)."""
    from .compiler.jit import bump_config_epoch
    from .nn import Cell
    cell_classes = tuple(c for c in white_list if issubclass(c, Cell))
    op_names = white_op_names(c for c in white_list if not issubclass(c, Cell))
    install_op_hooks(sorted(op_names))

    def visit(cell):
        for child in cell._cells.values():
            if child is not None and not _convert_one(child, cell_classes, op_names, dtype, is_root=False):
                visit(child)

    visit(network)
    out = rewritten_copy(network)
    _convert_one(out, cell_classes, op_names, dtype, is_root=True)
    bump_config_epoch()   # compiled graphs of the sub-Cells are stale
    return out


def convert_black_list(network, black_list, dtype) -> None:
    """2.10's black list, in place: every Cell computes in `dtype` but the Cells of the listed
    classes (and all inside them), which compute in float32 and hand `dtype` on."""
    from .amp import wrap_construct
    from .compiler.jit import bump_config_epoch
    black = tuple(black_list)

    def visit(cell):
        for child in cell._cells.values():
            if child is None:
                continue
            if isinstance(child, black):
                for _, inner in child.cells_and_names():
                    wrap_construct(inner, mstype.float32, None)
                wrap_construct(child, mstype.float32, dtype)
            else:
                wrap_construct(child, dtype, None)
                visit(child)

    wrap_construct(network, dtype, None)
    visit(network)
    bump_config_epoch()


def _check_list(custom_list, list_name: str) -> None:
    """2.10's checks and messages (measured)."""
    from .nn import Cell
    from .ops.op_base import Operator
    from .ops.primitive import Primitive
    if not isinstance(custom_list, list):
        raise TypeError(f"The type of {list_name} should be list, but got {type(custom_list)}")
    for elem in custom_list:
        if not isinstance(elem, type):
            raise TypeError(f"The element in {list_name} should be a class, but got {elem}")
        if list_name == "white_list" and not issubclass(elem, (Cell, Operator, Primitive)):
            raise TypeError(f"The subclass of element in white_list should be one of 'Cell' and 'Primitive', "
                            f"but got {elem}")
        if list_name == "black_list" and not issubclass(elem, Cell):
            raise TypeError(f"The subclass of element in black_list should be one of 'Cell', but got {elem}")


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=mstype.float16):
    """Mixed precision by a white list or a black list of classes, as MindSpore 2.10 (measured):

    - `white_list` (Cell and operator classes): the listed sub-Cells and operators compute in
      `dtype` and return float32 (see this module's docstring for what counts); returns a
      copy, `<Name>Opt`, sharing sub-Cells and Parameters, whose sub-Cells are converted in
      place. `amp.get_white_list()` gives O1.
    - `black_list` (Cell classes): every Cell computes in `dtype` except the listed ones,
      which compute in float32; converts `network` in place (it now returns `dtype`) and
      returns it wrapped in `_OutputTo32` (float32 outputs, parameter names unchanged).
    """
    from .amp import _output_to_32
    from .dtype import to_dtype
    from .nn import Cell
    if not isinstance(network, Cell):
        raise TypeError("The network type should be Cell.")
    if white_list is None and black_list is None:
        raise ValueError("For custom_mixed_precision, one of white_list and black_list must be provided.")
    if white_list is not None and black_list is not None:
        raise ValueError("For custom_mixed_precision, the white_list or black_list cannot be provided "
                         "at the same time, please provide one or the other.")
    dtype = to_dtype(dtype)
    if dtype not in (mstype.float16, mstype.bfloat16):
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}.")
    if white_list is not None:
        _check_list(white_list, "white_list")
        return convert_white_list(network, white_list, dtype)
    _check_list(black_list, "black_list")
    convert_black_list(network, black_list, dtype)
    return _output_to_32(network)
