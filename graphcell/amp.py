"""Mixed precision (MindSpore's `mindspore.amp`): loss scalers, `all_finite`, and
`auto_mixed_precision`.

The scalers keep their state in Parameters and compute with `graphcell.ops`, so they work
both eagerly and inside `jit` / `grad` (a dynamic scaler's update becomes a state write of
the compiled graph).
"""
from __future__ import annotations

import functools
import math
import numbers
import warnings

from . import dtype as mstype
from .amp_auto import suspended
from .compiler.jit import bump_config_epoch
from .ops import functional as F
from .tensor import Parameter, Tensor
from .train.loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager  # noqa: F401

__all__ = ["LossScaler", "StaticLossScaler", "DynamicLossScaler", "all_finite", "auto_mixed_precision",
           "get_white_list", "get_black_list", "custom_mixed_precision", "LossScaleManager", "FixedLossScaleManager",
           "DynamicLossScaleManager", "build_train_network"]


def _tree_map(fn, inputs):
    """Applies `fn` to every Tensor of a Tensor or nested tuple/list, keeping the structure."""
    if isinstance(inputs, Tensor):
        return fn(inputs)
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_tree_map(fn, x) for x in inputs)
    raise TypeError(f"expected a Tensor or a (nested) tuple/list of Tensors, got {type(inputs).__name__}")


def _leaves(inputs) -> list:
    if isinstance(inputs, Tensor):
        return [inputs]
    if isinstance(inputs, (tuple, list)):
        return [leaf for x in inputs for leaf in _leaves(x)]
    raise TypeError(f"all_finite: expected a Tensor or a (nested) tuple/list of Tensors, got {type(inputs).__name__}")


def all_finite(inputs) -> Tensor:
    """A scalar bool Tensor: True when no element of `inputs` (a Tensor or a nested tuple of
    Tensors, e.g. gradients) is inf or nan. Integer tensors count as finite."""
    flags = [F.all(F.isfinite(t)) for t in _leaves(inputs) if t.dtype.is_floating]
    if not flags:
        return Tensor(True)
    return F.all(F.stack(flags)) if len(flags) > 1 else flags[0]


class LossScaler:
    """Base class: scale(inputs), unscale(inputs), adjust(grads_finite)."""

    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError


def _scale(scale_value, x):
    return F.mul(x, F.cast(scale_value, x.dtype))


def _unscale(scale_value, x):
    # MindSpore multiplies by the reciprocal (in the scale's float32), then casts.
    return F.mul(x, F.cast(F.reciprocal(scale_value), x.dtype))


class StaticLossScaler(LossScaler):
    """Multiplies losses by a fixed `scale_value` and divides gradients by it.

    >>> s = StaticLossScaler(1024.0)
    >>> s.unscale((Tensor([2048.0]), Tensor([512.0])))[1]
    Tensor(shape=[1], dtype=Float32, value= [ 5.00000000e-01])
    """

    def __init__(self, scale_value):
        _check_scale("StaticLossScaler", scale_value)
        self.scale_value = Parameter(Tensor(float(scale_value), mstype.float32), name="scale_value")

    def scale(self, inputs):
        return _tree_map(functools.partial(_scale, self.scale_value), inputs)

    def unscale(self, inputs):
        return _tree_map(functools.partial(_unscale, self.scale_value), inputs)

    def adjust(self, grads_finite):
        """A static scale never changes."""
        return False


def _check_scale(scaler: str, value) -> None:
    """MindSpore 2.10's checks and messages (measured: 1 passes despite the wording); graphcell
    also refuses inf and nan, which would poison every step."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"The type of 'scale_value' should be one of '['float', 'int']', but got type "
                        f"'{type(value).__name__}'.")
    if not math.isfinite(value):
        raise ValueError(f"{scaler}: scale_value must be a finite positive number, got {value!r}")
    if value < 1:
        raise ValueError(f"The argument 'scale_value' must be > 1, but got {value}")


def _check_positive_int(arg: str, value) -> None:
    """MindSpore 2.10's messages for scale_factor and scale_window (measured)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"The '{arg}' must be int, but got '{type(value).__name__}'")
    if value <= 0:
        raise ValueError(f"The '{arg}' must be int and must > 0, but got '{value}' with type 'int'.")


class DynamicLossScaler(LossScaler):
    """A scale that shrinks on overflow and grows after `scale_window` good steps.

    adjust(grads_finite): if the gradients overflowed, scale <- max(1, scale / scale_factor)
    and the good-step counter restarts; otherwise the counter advances and, when it reaches
    `scale_window`, scale <- scale * scale_factor (unless that overflows float32) and the
    counter restarts. scale_value and counter are Parameters updated with `ops.assign`.
    """

    def __init__(self, scale_value, scale_factor, scale_window):
        _check_scale("DynamicLossScaler", scale_value)
        _check_positive_int("scale_factor", scale_factor)
        _check_positive_int("scale_window", scale_window)
        self.scale_value = Parameter(Tensor(float(scale_value), mstype.float32), name="scale_value")
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        # requires_grad=True, as 2.10's (measured); nothing differentiates with respect to them
        self.counter = Parameter(Tensor(0, mstype.int32), name="counter")

    def scale(self, inputs):
        return _tree_map(functools.partial(_scale, self.scale_value), inputs)

    def unscale(self, inputs):
        return _tree_map(functools.partial(_unscale, self.scale_value), inputs)

    def adjust(self, grads_finite):
        finite = F.cast(grads_finite, mstype.bool_)
        scale = self.scale_value
        grown = F.mul(scale, self.scale_factor)
        at_window = F.equal(self.counter, self.scale_window - 1)
        on_finite = F.select(at_window, F.select(F.isfinite(grown), grown, scale), scale)
        on_overflow = F.maximum(F.div(scale, self.scale_factor), 1.0)
        new_counter = F.mul(F.mod(F.add(self.counter, 1), self.scale_window), F.cast(finite, mstype.int32))
        F.assign(self.scale_value, F.select(finite, on_finite, on_overflow))
        F.assign(self.counter, new_counter)
        return True


# -- auto_mixed_precision -------------------------------------------------------------------

def get_white_list() -> list:
    """A copy of O1's white list, MindSpore 2.10's (measured): Cells, then operator classes."""
    from . import nn, ops
    return [nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Conv1dTranspose, nn.Conv2dTranspose, nn.Conv3dTranspose,
            nn.Dense, nn.LSTMCell, nn.RNNCell, nn.GRUCell, ops.Conv2D, ops.Conv3D, ops.Conv2DTranspose,
            ops.Conv3DTranspose, ops.Conv2DBackpropInput, ops.MatMul, ops.BatchMatMul, ops.PReLU, ops.ReLU, ops.Ger]


def get_black_list() -> list:
    """Cells that O2 keeps in float32."""
    from . import nn
    return [nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm]


def _cast_floats(tree, dtype, keep_parameters=False):
    """Casts the floating Tensors of a result/argument tree to `dtype`; the rest unchanged
    (and the Parameters too with `keep_parameters`)."""
    if isinstance(tree, Tensor):
        if keep_parameters and isinstance(tree, Parameter):
            return tree
        return F.cast(tree, dtype) if tree.dtype.is_floating and tree.dtype is not dtype else tree
    if isinstance(tree, (tuple, list)):
        return type(tree)(_cast_floats(x, dtype, keep_parameters) for x in tree)
    if isinstance(tree, dict):
        return {k: _cast_floats(v, dtype, keep_parameters) for k, v in tree.items()}
    return tree


class _AmpConstruct:
    """Replaces a Cell's construct so that it computes in `compute_dtype`.

    Floating inputs and the Cell's own trainable Parameters are cast on use; the Parameters
    themselves stay float32 (the master weights that gradients, optimizers and checkpoints
    see, as in MindSpore). Floating outputs are cast to `output_dtype` (None: left as
    computed). An object rather than a closure, so that copy.deepcopy and pickle of the
    network carry it over bound to the copy.
    """

    def __init__(self, cell, compute_dtype, output_dtype):
        self.cell, self.compute_dtype, self.output_dtype = cell, compute_dtype, output_dtype

    @property
    def __wrapped__(self):  # inspect.signature (graph input names) sees the real construct
        return type(self.cell).construct.__get__(self.cell)

    def __call__(self, *args, **kwargs):
        cell, dtype = self.cell, self.compute_dtype
        training_step = getattr(cell, "is_training_step", False)
        args, kwargs = _cast_floats(args, dtype, keep_parameters=training_step), _cast_floats(kwargs, dtype)
        own = cell._params
        saved = dict(own)
        # Non-trainable Parameters (BatchNorm statistics) stay Parameters: construct assigns to them.
        # So do a training step's own (an optimizer's learning_rate, beta1_power, a loss scale),
        # which are requires_grad=True as in 2.10: it writes them, and they stay float32 state.
        # (2.10 computed with them cast: O3 over TrainOneStepCell(net, Adam) left the loss stuck.)
        # A Parameter passed to a training step (the scale a DynamicLossScaleUpdateCell assigns)
        # stays one too, as in 2.10's PyNative mode; 2.10's graph mode assigned a float16 copy,
        # and the scale never moved (measured).
        if not training_step:
            for name, p in saved.items():
                if p is not None and p.requires_grad and p.dtype.is_floating and p.dtype is not dtype:
                    own[name] = F.cast(p, dtype)
        try:
            with suspended():   # the Cell is converted whole: no operator-level casts inside
                out = type(cell).construct(cell, *args, **kwargs)
        finally:
            own.clear()
            own.update(saved)
        return _cast_floats(out, self.output_dtype) if self.output_dtype is not None else out


def wrap_construct(cell, compute_dtype, output_dtype):
    object.__setattr__(cell, "construct", _AmpConstruct(cell, compute_dtype, output_dtype))


_LEVELS = ("O0", "O1", "O2", "O3")


class _OutputTo32Construct:
    """The construct of what auto_mixed_precision returns for O2/O3: the network's, with its
    floating outputs cast to float32. `__wrapped__` keeps the network's signature (graph input
    names); an object, as _AmpConstruct, so that deepcopy rebinds it."""

    def __init__(self, backbone):
        self.backbone = backbone

    @property
    def __wrapped__(self):
        return self.backbone.construct

    def __call__(self, *args, **kwargs):
        return _cast_floats(self.backbone(*args, **kwargs), mstype.float32)


def _output_to_32(network):
    """MindSpore's `_OutputTo32(network)`: a Cell with auto_prefix=False (parameter names
    unchanged) whose outputs are float32. Unlike MindSpore's it also forwards attribute reads
    to the network (`amp_net.fc1`), so code written for the in-place result keeps working."""
    from .nn import Cell

    class _OutputTo32(Cell):   # MindSpore's class name (type(amp_net).__name__)
        def __init__(self, backbone):
            super().__init__(auto_prefix=False)
            self._backbone = backbone
            object.__setattr__(self, "_amp_level", getattr(backbone, "_amp_level", "O0"))
            object.__setattr__(self, "construct", _OutputTo32Construct(backbone))

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                if name.startswith("__") or "_cells" not in self.__dict__ or "_backbone" not in self._cells:
                    raise
                return getattr(self._cells["_backbone"], name)

    return _OutputTo32(network)


def convert_in_place(network, amp_level, dtype=mstype.float16) -> None:
    """The cell conversions of `auto_mixed_precision` O2/O3, on `network` itself, whose outputs
    stay in `dtype` (MindSpore's Model converts so: `Model(..., amp_level="O3").predict`
    returns float16, measured on 2.10). Marks the network converted."""
    if amp_level not in ("O2", "O3"):
        raise ValueError(f"convert_in_place: amp_level must be 'O2' or 'O3', got {amp_level!r}")
    if amp_level == "O2":
        convert_black_list(network, get_black_list(), dtype)
    else:
        for _, cell in network.cells_and_names():
            wrap_construct(cell, dtype, None)
    object.__setattr__(network, "_amp_level", amp_level)
    bump_config_epoch()  # compiled graphs of this network are stale


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """Runs parts of `network` in float16 or bfloat16: converts its Cells in place and
    returns the network to call, as MindSpore 2.10 (measured):

    - "O0": nothing changes; returns `network`.
    - "O1": `custom_mixed_precision(network, white_list=get_white_list())`: white-list Cells
      (Dense, the convolutions, the RNN cells, and ReLU and PReLU, which are one white-list
      operator) and white-list operators (ops.relu, ops.bmm, ops.conv2d, instances of
      ops.MatMul, ops.ReLU, ...; not ops.matmul or ops.dense, measured) compute in `dtype`;
      each casts its output back to float32, so everything else stays float32. Returns a
      copy, `<Name>Opt`, sharing sub-Cells and Parameters; the sub-Cells are converted in
      place (`amp_custom.py`).
    - "O2": every Cell computes in `dtype` except black-list Cells (BatchNorm, LayerNorm),
      which compute in float32 and hand `dtype` on.
    - "O3": every Cell computes in `dtype`.
    - "auto": operator by operator, as 2.10's lists say (`amp_auto.py`): matrix products and
      convolutions in `dtype`, exp/log/softmax/sum/norms/losses in float32, the rest in their
      inputs' types. Returns `network`, whose outputs are not cast back.

    For O2 and O3, `network` itself now returns `dtype`; the returned Cell wraps it (as
    MindSpore's `_OutputTo32`, parameter names unchanged) and returns float32.

    As `Cell.to_float`, Parameters keep their float32 storage (master weights): they
    are cast where a Cell uses them, so gradients, optimizer updates and checkpoints stay
    float32, as in MindSpore. Parameter names do not change.
    """
    from .nn import Cell
    # MindSpore 2.10's checks, messages and order (measured): the network, the dtype, then the level
    if not isinstance(network, Cell):
        raise TypeError(f"For amp_level '{amp_level}', the network type should be Cell.")
    from .dtype import to_dtype
    dtype = to_dtype(dtype)
    if dtype not in (mstype.float16, mstype.bfloat16):
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got {dtype}.")
    if amp_level == "O0":
        return network
    if amp_level not in _LEVELS + ("auto",):
        raise ValueError(f"The amp level {amp_level} is not supported")
    if getattr(network, "_amp_level", "O0") != "O0":
        # MindSpore converts again and warns; the Cells' constructs are replaced, not stacked
        warnings.warn(f"The network's auto mixed-precision level is adjusted from {network._amp_level} to "
                      f"{amp_level}, and repeated calls to mixed-precision interfaces can cause performance "
                      "degradation.", stacklevel=2)
    if amp_level == "auto":   # operator-level; the network itself, its outputs not cast (measured)
        from .amp_auto import convert_auto
        convert_auto(network, dtype)
        object.__setattr__(network, "_amp_level", amp_level)
        bump_config_epoch()
        return network
    if amp_level == "O1":
        converted = convert_white_list(network, get_white_list(), dtype)
        for cell in (network, converted):
            object.__setattr__(cell, "_amp_level", amp_level)
        return converted
    convert_in_place(network, amp_level, dtype)
    return _output_to_32(network)


from .amp_custom import convert_black_list, convert_white_list, custom_mixed_precision  # noqa: E402
from .train.amp_train import build_train_network  # noqa: E402,F401 - it builds on the scalers above
