"""`Optimizer`: the base of MindSpore-style optimizers, called as `optimizer(grads)`.

An optimizer is a Cell (auto_prefix=False) whose `construct` updates its Parameters with
`ops.assign`, so the same code runs eagerly, inside `jit`/`construct`, and under `vmap` of a
CellList (where each member's learning rate and state are stacked like its weights). All
state lives in Parameters, so `save_checkpoint(optimizer, ...)` saves it.

Each call does, in MindSpore's order (MINDSPORE_NOTES.md section 4):
1. g <- g + weight_decay * loss_scale * w for weights whose name (at build) contains neither
   'beta' nor 'gamma' (optimizers with decoupled decay skip this). `weight_decay` is a float
   (an int is taken as one) or, as in MindSpore 2.10, a Cell: a dynamic weight decay, called
   with `global_step` before it advances, so call k uses wd(k), as a learning-rate schedule;
2. gradient centralization, for groups that ask for it;
3. g <- g / loss_scale;
4. lr = learning_rate: the scalar, `table[global_step]` for a list, or `schedule(global_step)`;
   then `global_step` (an int32 [1] Parameter) advances;
5. the optimizer's own update.

`params` may also be parameter groups (`groups.py`), as in MindSpore 2.10 (measured): each
group may set 'lr' (a float, list, 1-D Tensor or schedule), 'weight_decay' (a float or a
Cell, which then applies to every parameter of the group when it is a Cell or > 0,
'beta'/'gamma' names included)
and 'grad_centralization'. With a group 'lr', `learning_rate` holds one entry per parameter
(a ParameterTuple of the groups' `learning_rate_group_<i>` Parameters, shared with the
default `learning_rate`; a CellList of schedules when any rate is dynamic) and `get_lr()`
returns a tuple.
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import dtype as mstype
from ...frontend.tracer import current_tracer
from ...ops import functional as F
from ...tensor import Parameter, ParameterTuple, Tensor
from ..cell import Cell, CellList, configuration
from ..learning_rate_schedule import LearningRateSchedule
from .groups import UNSET, check_parameter_list, flatten_groups, is_grouped


def check_hyperparameter(optimizer: str, arg: str, value, low: float, *, above: bool = False,
                         below: float | None = None) -> float:
    """`value` as a float after checking that it is a real number (not a bool, not NaN) >= low
    (> low with `above`) and < below; else an error naming the optimizer and the argument."""
    bound = (f"> {low}" if above else f">= {low}") + (f" and < {below}" if below is not None else "")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{optimizer}', the '{arg}' must be a float {bound}, but got "
                        f"{type(value).__name__} {value!r}")
    value = float(value)
    if not (value > low if above else value >= low) or (below is not None and not value < below):
        raise ValueError(f"For '{optimizer}', the '{arg}' must be a float {bound}, but got {value!r}")
    return value


def check_float(optimizer: str, arg: str, value, low: float, *, above: bool = False) -> float:
    """MindSpore's stricter check for some optimizers' arguments: a Python float (an int is a
    TypeError there, measured), >= low (> low with `above`)."""
    if not isinstance(value, float):
        raise TypeError(f"For '{optimizer}', the type of '{arg}' should be 'float', but got type "
                        f"'{type(value).__name__}'.")
    return check_hyperparameter(optimizer, arg, value, low, above=above)


def check_float_in_range(optimizer: str, arg: str, value, low: float, high: float, *, closed: bool = False,
                         bounds: str | None = None) -> float:
    """A Python float in (low, high) (closed: [low, high]), with MindSpore's messages: the type
    first (an int is a TypeError), then "must be in range of (0.0, 1.0)"."""
    value = check_float(optimizer, arg, value, float("-inf"))
    inside = low <= value <= high if closed else low < value < high
    if not inside:
        bounds = bounds or (f"[{low}, {high}]" if closed else f"({low}, {high})")
        raise ValueError(f"For '{optimizer}', the '{arg}' must be in range of {bounds}, but got {value} with type "
                         f"'float'.")
    return value


def check_bool(optimizer: str, arg: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{optimizer}', the type of '{arg}' should be 'bool', but got type "
                        f"'{type(value).__name__}'.")
    return value


class _FixedLR(LearningRateSchedule):
    """A fixed rate among dynamic ones (MindSpore's _ConvertToCell): returns its Parameter."""

    def __init__(self, learning_rate: Parameter):
        super().__init__()
        self.learning_rate = learning_rate

    def construct(self, global_step):
        return self.learning_rate


class _TableLR(LearningRateSchedule):
    """A list rate among group rates (MindSpore's _IteratorLearningRate): entry global_step."""

    def __init__(self, table: Parameter):
        super().__init__()
        self.learning_rate = table

    def construct(self, global_step):
        return F.take_in_range(self.learning_rate, global_step, 0)


def _lr_spec(optimizer: str, lr, what: str = "learning_rate"):
    """A learning rate checked and sorted: ("fixed", float), ("table", float32 array) or
    ("schedule", LearningRateSchedule)."""
    if isinstance(lr, LearningRateSchedule):
        return "schedule", lr
    if isinstance(lr, Tensor) and lr.ndim == 0 or isinstance(lr, numbers.Real) and not isinstance(lr, bool):
        value = float(lr)
        if not value >= 0:   # NaN too
            raise ValueError(f"For '{optimizer}', the '{what}' must be >= 0, but got {value}")
        return "fixed", value
    if isinstance(lr, (list, tuple)) or isinstance(lr, (Tensor, np.ndarray)) and lr.ndim == 1:
        table = np.asarray(lr.asnumpy() if isinstance(lr, Tensor) else lr, np.float32)
        if table.ndim != 1 or table.size == 0:
            raise ValueError(f"For '{optimizer}', the '{what}' list must be a non-empty list of numbers")
        bad = np.flatnonzero(~(table >= 0))
        if bad.size:
            raise ValueError(f"For '{optimizer}', every entry of the '{what}' list must be >= 0, but "
                             f"{what}[{bad[0]}] is {table[bad[0]]}")
        return "table", table
    if isinstance(lr, (Tensor, np.ndarray)):
        raise ValueError(f"For '{optimizer}', if '{what}' is Tensor type, then the dimension of it should be 0 "
                         f"or 1, but got {lr.ndim}.")
    raise TypeError(f"For '{optimizer}', the '{what}' should be a float, a list, a 1-D array, a 0-D or "
                    f"1-D Tensor or a LearningRateSchedule, but got {type(lr).__name__}")


def _weight_decay_spec(optimizer: str, value, what: str = "weight_decay"):
    """A weight decay checked: a float >= 0 (ints and bools are taken as floats, as MindSpore
    does) or a Cell (a dynamic weight decay, called with global_step)."""
    if isinstance(value, Cell):
        return value
    if not isinstance(value, numbers.Real):
        raise TypeError(f"For '{optimizer}', the '{what}' must be an int, a float >= 0 or a Cell (a dynamic weight "
                        f"decay, called with global_step), but got {type(value).__name__}")
    return check_hyperparameter(optimizer, what, float(value), 0.0)


class _ScaledWeightDecay(Cell):
    """A dynamic weight decay's value this step as a float32 scalar, times loss_scale
    (MindSpore's _WrappedWeightDecay; the user's Cell is its child `weight_decay`, so its
    Parameters, if any, are named 'weight_decay.<name>' in checkpoints, as in MindSpore)."""

    def __init__(self, weight_decay: Cell, loss_scale: float):
        super().__init__()
        self.weight_decay = weight_decay
        self.loss_scale = loss_scale

    def construct(self, global_step):
        value = self.weight_decay(global_step)
        if not isinstance(value, Tensor):
            value = Tensor(np.float32(value))
        if value.size != 1:
            raise ValueError(f"A dynamic weight decay must return one number, but {type(self.weight_decay).__name__} "
                             f"returned shape {list(value.shape)}")
        value = F.reshape(F.cast(value, mstype.float32), ())
        return value if self.loss_scale == 1.0 else F.mul(value, self.loss_scale)


class _FixedWeightDecay(Cell):
    """A group's fixed weight decay (times loss_scale) among dynamic ones."""

    def __init__(self, value: float):
        super().__init__()
        self.value = value

    def construct(self, global_step):
        return self.value


def _build_lr(spec, name: str, as_cell: bool):
    kind, value = spec
    if kind == "schedule":
        return value
    p = Parameter(np.asarray(value, np.float32), name=name)
    if not as_cell:
        return p
    return _FixedLR(p) if kind == "fixed" else _TableLR(p)



def checked_gradients(name: str, gradients, params) -> tuple:
    """`gradients`, one Tensor per parameter of `params` with its shape, each cast to its
    parameter's dtype; else an error naming the optimizer `name` and the parameter."""
    if isinstance(gradients, Tensor) or not isinstance(gradients, (tuple, list)):
        raise TypeError(f"For '{name}', the gradients should be a tuple with one Tensor per parameter "
                        f"({len(params)}), but got {type(gradients).__name__}")
    if len(gradients) != len(params):
        raise ValueError(f"For '{name}', got {len(gradients)} gradients for {len(params)} parameters "
                         f"({', '.join(p.name for p in params)})")
    out = []
    for g, p in zip(gradients, params):
        if not isinstance(g, Tensor):
            raise TypeError(f"For '{name}', the gradient of parameter '{p.name}' should be a Tensor, "
                            f"but got {type(g).__name__}")
        if tuple(g.shape) != tuple(p.shape):
            raise ValueError(f"For '{name}', the gradient of parameter '{p.name}' has shape "
                             f"{list(g.shape)}, but the parameter has shape {list(p.shape)}")
        out.append(F.cast(g, p.dtype))
    return tuple(out)

class Optimizer(Cell):
    """Base class: holds `parameters` (a ParameterTuple), `learning_rate` and `global_step`."""

    is_training_step = True   # exported as the step it runs, not in inference mode (compiler/export.py)

    decoupled_weight_decay = False    # AdamWeightDecay and Lamb apply their decay in the update
    centralizes_gradients = True      # MindSpore's AdamWeightDecay ignores 'grad_centralization'

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        items = check_parameter_list(name, parameters)
        self.loss_scale = check_hyperparameter(name, "loss_scale", loss_scale, 0.0, above=True)
        self.is_group = is_grouped(name, items)
        self.is_group_lr = self.is_group_params_ordered = False
        # set by a wrapper (LARS) that applies the weight decay and the loss scale itself
        self.gradients_prepared = False
        default_lr = _lr_spec(name, learning_rate)
        if self.is_group:
            self._init_groups(name, items, default_lr, weight_decay)
        else:
            params = self._check_params(items)
            self.parameters = ParameterTuple(params)
            self._add_global_step()
            weight_decay = _weight_decay_spec(name, weight_decay)
            self.dynamic_weight_decay = isinstance(weight_decay, Cell)
            self.weight_decay = (_ScaledWeightDecay(weight_decay, self.loss_scale) if self.dynamic_weight_decay
                                 else weight_decay)
            # MindSpore's default decay filter, applied to the names the weights have now.
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in params)
            self.grad_centralization, self.grad_centralization_flags = False, (False,) * len(params)
            self.dynamic_lr = default_lr[0] != "fixed"
            if default_lr[0] == "table":   # MindSpore holds it in a child Cell: after the state
                object.__setattr__(self, "_params_last", ("learning_rate",))
            self.learning_rate = _build_lr(default_lr, "learning_rate", as_cell=False)
        self._weights_after_rates()
        # the shapes its state is built for: set_data may change a weight's shape later
        object.__setattr__(self, "_built_shapes", tuple(p.shape for p in self.parameters))

    def _weights_after_rates(self) -> None:
        # MindSpore 2.10 registers the weights after global_step and the rates, so an optimizer
        # saved on its own lists global_step, learning_rate(s), the weights, then its state (measured)
        for param in self.parameters:
            if self._params.get(param.name) is param:
                self._params.move_to_end(param.name)
        for name in self.__dict__.get("_params_last", ()):
            if name in self._params:
                self._params.move_to_end(name)
        self._structure_changed()

    def _add_global_step(self) -> None:
        # right after the weights: checkpoints list the optimizer's Parameters in creation
        # order, and MindSpore 2.10's is global_step, learning_rate, then the subclass's state
        self.global_step = Parameter(np.array([0], np.int32), name="global_step")

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        super().insert_param_to_cell(param_name, param, check_name_contain_dot)
        # MindSpore keeps a list / 1-D learning rate in a child Cell, so its Parameter comes after
        # all the optimizer's own state in a checkpoint: keep those names last
        for name in self.__dict__.get("_params_last", ()):
            if name in self._params:
                self._params.move_to_end(name)

    def _init_groups(self, name, groups, default_lr, weight_decay):
        entries, self.is_group_params_ordered = flatten_groups(name, groups)
        self.parameters = ParameterTuple(e.param for e in entries)
        self._add_global_step()
        self._init_group_weight_decay(name, entries, weight_decay)
        self.group_grad_centralization = [e.grad_centralization for e in entries]
        self.grad_centralization_flags = tuple(self.group_grad_centralization)
        self.grad_centralization = any(self.group_grad_centralization)
        specs = [default_lr if e.lr is UNSET else _lr_spec(name, e.lr, f"params[{e.group}]['lr']")
                 for e in entries]
        self.is_group_lr = any(e.lr is not UNSET for e in entries)
        self.dynamic_lr = any(kind != "fixed" for kind, _ in [default_lr] + specs)
        lengths = {len(v) for kind, v in [default_lr] + specs if kind == "table"}
        if len(lengths) > 1:
            raise ValueError(f"For '{name}', every list learning rate (the 'learning_rate' argument and the groups' "
                             f"'lr') must have the same length, but got lengths {sorted(lengths)}.")
        if not self.is_group_lr:
            if default_lr[0] == "table":   # after the state, as without groups
                object.__setattr__(self, "_params_last", ("learning_rate",))
            self.learning_rate = _build_lr(default_lr, "learning_rate", as_cell=False)
            return
        built, per_param = {}, []
        for e, spec in zip(entries, specs):
            key = None if e.lr is UNSET else e.group
            if key not in built:   # one Parameter or schedule per group, shared by its parameters
                lr_name = "learning_rate" if key is None else f"learning_rate_group_{key}"
                built[key] = _build_lr(spec, lr_name, as_cell=self.dynamic_lr)
            per_param.append(built[key])
        self.learning_rate = (CellList(per_param, auto_prefix=False) if self.dynamic_lr
                              else ParameterTuple(per_param))

    def _init_group_weight_decay(self, name, entries, weight_decay):
        """Weight decay per parameter, stored times loss_scale as MindSpore stores it: a tuple
        of floats, or, when a group's decay is dynamic, a CellList of one Cell per parameter
        (shared by a group). A group's decay applies to every parameter of the group (no
        'beta'/'gamma' filter) when it is a Cell or > 0, measured on MindSpore 2.10."""
        default_wd = _weight_decay_spec(name, weight_decay)
        specs = [default_wd if e.weight_decay is UNSET else
                 _weight_decay_spec(name, e.weight_decay, f"params[{e.group}]['weight_decay']") for e in entries]
        self.dynamic_weight_decay = any(isinstance(wd, Cell) for wd in specs)
        self.decay_flags = tuple(isinstance(wd, Cell) or wd > 0 for wd in specs)
        if not self.dynamic_weight_decay:
            self.weight_decay = tuple(wd * self.loss_scale for wd in specs)
            return
        built, per_param = {}, []
        for e, wd in zip(entries, specs):
            key = None if e.weight_decay is UNSET else e.group
            if key not in built:   # one Cell per group, shared by its parameters
                built[key] = (_ScaledWeightDecay(wd, self.loss_scale) if isinstance(wd, Cell)
                              else _FixedWeightDecay(wd * self.loss_scale))
            per_param.append(built[key])
        self.weight_decay = CellList(per_param, auto_prefix=False)

    @property
    def group_weight_decay(self) -> list:
        """Each parameter's weight decay times loss_scale: a float, or the Cell that computes
        a dynamic one."""
        if not self.is_group:
            return [self.weight_decay if self.dynamic_weight_decay else self.weight_decay * self.loss_scale]
        return [wd.value if isinstance(wd, _FixedWeightDecay) else wd for wd in self.weight_decay]

    @property
    def group_params(self) -> list:
        return list(self.parameters)

    @property
    def group_lr(self) -> list:
        """The learning rate (a Parameter or a schedule Cell) of each parameter."""
        lr = self.learning_rate
        return list(lr) if self.is_group_lr else [lr] * len(self.parameters)

    def __call__(self, *args, **kwargs):
        """Called eagerly (PYNATIVE), the update of every parameter runs as one compiled
        program, as graph mode runs it and as MindSpore runs its fused optimizer kernels: op by
        op, eager mode compiled a program per op and parameter shape (LeNet5's Adam: 65
        programs, 3.5 s of the first step, then ~100 dispatches a step). With check_finite on,
        it stays op by op, so the first op to make a NaN is named."""
        from ...compiler.jit import Jit
        from ...context import get_context
        if current_tracer() is not None or get_context("check_finite"):
            return super().__call__(*args, **kwargs)
        # Eagerly, a changed hyperparameter (opt.weight_decay = 0.1) acts at the next step:
        # the compiled update is rebuilt when the configuration (plain attributes, sub-cells)
        # changes, and one that cannot be compared runs op by op.
        config = configuration(self, parameters=False)
        if config is None:
            return super().__call__(*args, **kwargs)
        self._check_lr_index()   # the compiled step clips a list's index; eagerly MindSpore raises
        if self._graph_jit is None or self.__dict__.get("_eager_config") != config:
            object.__setattr__(self, "_graph_jit", Jit(self, name=type(self).__name__))
            object.__setattr__(self, "_eager_config", config)
        return self._graph_jit(*args, **kwargs)

    # -- construction helpers ---------------------------------------------------------------
    def _check_params(self, params: list) -> list:
        name = type(self).__name__
        for i, p in enumerate(params):
            if not isinstance(p, Parameter):
                raise TypeError(f"For '{name}', params[{i}] should be a Parameter, got {type(p).__name__}")
        seen = {}
        for i, p in enumerate(params):
            if seen.setdefault(id(p), i) != i:
                raise ValueError(f"For '{name}', params[{seen[id(p)]}] and params[{i}] are the same Parameter "
                                 f"'{p.name}': each would be updated twice a step")
        return params

    # -- the steps every optimizer shares ---------------------------------------------------
    def prepare_gradients(self, gradients) -> tuple:
        """Checks the gradients' structure, then applies weight decay, gradient centralization
        and loss scaling, in MindSpore's order. As MindSpore's Optimizer, the decay is added at
        weight_decay * loss_scale before the gradients are divided by loss_scale, so it does
        not depend on the loss scale."""
        grads = self._check_gradients(gradients)
        if not self.decoupled_weight_decay and not self.gradients_prepared:
            grads = self.decay_weight(grads)
        if self.centralizes_gradients:
            grads = self.gradients_centralization(grads)
        if self.loss_scale != 1.0 and not self.gradients_prepared:
            grads = tuple(F.div(g, self.loss_scale) for g in grads)
        return grads

    def get_weight_decay(self):
        """This step's weight decay times loss_scale (MindSpore stores it so): a float, or a
        scalar Tensor for a dynamic one (the schedule called with global_step); with groups a
        tuple with one per parameter."""
        values = self.decay_values()
        return values if self.is_group else values[0]

    def decay_values(self) -> tuple:
        """Each parameter's weight decay at this step times loss_scale, whether or not it
        decays: floats, or scalar float32 Tensors where it is dynamic (each Cell called once,
        with global_step). Call it before `step_lr` advances global_step."""
        wd, n = self.weight_decay, len(self.parameters)
        if isinstance(wd, CellList):
            values = {}
            for cell in wd:
                if id(cell) not in values:
                    values[id(cell)] = cell.value if isinstance(cell, _FixedWeightDecay) else cell(self.global_step)
            return tuple(values[id(cell)] for cell in wd)
        if self.is_group:
            return tuple(wd)
        return (wd(self.global_step) if isinstance(wd, Cell) else wd * self.loss_scale,) * n

    def weight_decays(self) -> tuple:
        """Each parameter's decay at this step times loss_scale, or None where it has none
        (and for every parameter when a wrapper, LARS, applies the decay instead)."""
        if self.gradients_prepared:
            return (None,) * len(self.parameters)
        return tuple(None if not flag or isinstance(v, float) and not v > 0 else v
                     for v, flag in zip(self.decay_values(), self.decay_flags))

    def decay_weight(self, gradients) -> tuple:
        """g + weight_decay * w for each parameter that decays (MindSpore's decay_weight)."""
        return tuple(g if d is None else F.add(g, F.mul(p, d))
                     for g, p, d in zip(gradients, self.parameters, self.weight_decays()))

    def gradients_centralization(self, gradients) -> tuple:
        """For parameters of groups with 'grad_centralization': g minus its mean over every
        axis but the first. As MindSpore 2.10's code, only gradients of 2 or more dimensions
        whose dimension 1 is a multiple of 16 are centralized; the others pass unchanged.
        (MindSpore 2.10 has no CPU kernel for it: 'Unsupported op [Centralization] on CPU'.)"""
        out = []
        for g, flag in zip(gradients, self.grad_centralization_flags):
            if flag and g.ndim >= 2 and g.shape[1] % 16 == 0:
                g = F.sub(g, F.mean(g, tuple(range(1, g.ndim)), keep_dims=True))
            out.append(g)
        return tuple(out)

    def _check_gradients(self, gradients) -> tuple:
        built = self.__dict__.get("_built_shapes", ())
        for p, shape in zip(self.parameters, built if len(built) == len(self.parameters) else ()):
            if shape != p.shape:   # MindSpore 2.10 fails too, in its kernel
                raise ValueError(f"For '{type(self).__name__}', parameter '{p.name}' has shape {list(p.shape)}, "
                                 f"but had {list(shape)} when the optimizer was built (set_data changed "
                                 "it): its state has the old shape; build the optimizer again")
        return checked_gradients(type(self).__name__, gradients, self.parameters)

    def get_lr(self):
        """This step's learning rate (a scalar; with group learning rates a tuple, one per
        parameter). Only reads: as in MindSpore 2.10, a callback's or a custom optimizer's
        `get_lr()` leaves `global_step` alone (the built-in optimizers count in `step_lr`)."""
        return self.current_lr()

    def step_lr(self):
        """The built-in optimizers' read of this step's rate: `get_lr()`, then `global_step`
        advances by one (every step, whatever the learning rate's kind, as 2.10's optimizers do)."""
        lr = self.current_lr()
        F.assign(self.global_step, F.add(self.global_step, 1))
        return lr

    def current_lr(self):
        """This step's learning rate (`get_lr()`)."""
        lr = self.learning_rate
        self._check_lr_index()
        if self.is_group_lr:
            if self.dynamic_lr:
                values = {}
                for cell in lr:   # groups share one schedule: call each once
                    if id(cell) not in values:
                        values[id(cell)] = F.reshape(cell(self.global_step), ())
                lr = tuple(values[id(cell)] for cell in lr)
            else:
                lr = tuple(lr)
        elif isinstance(lr, Cell):
            lr = F.reshape(lr(self.global_step), ())
        elif lr.ndim == 1:
            lr = F.reshape(F.take_in_range(lr, self.global_step, 0), ())
        return lr

    def lr_per_parameter(self, lr) -> tuple:
        """`get_lr()`'s result as one learning rate per parameter."""
        return lr if isinstance(lr, tuple) else (lr,) * len(self.parameters)

    def get_lr_parameter(self, param):
        """The learning rate Parameter (or schedule Cell, for a dynamic rate) of `param`, or a
        list of them for a list of Parameters (MindSpore's get_lr_parameter)."""
        name = type(self).__name__
        if isinstance(param, Parameter):
            wanted = [param]
        elif isinstance(param, list):
            wanted = param
        else:
            raise TypeError(f"For 'get_lr_parameter', the 'param' must be 'Parameter' or 'list' type, but got "
                            f"{type(param).__name__}.")
        ids = [id(p) for p in self.parameters]
        per_param = self.group_lr
        out = []
        for p in wanted:
            if not isinstance(p, Parameter) or id(p) not in ids:
                raise ValueError(f"For '{name}.get_lr_parameter', {getattr(p, 'name', p)!r} is not a parameter of "
                                 f"this optimizer")
            lr = per_param[ids.index(id(p))]
            out.append(lr.learning_rate if isinstance(lr, (_FixedLR, _TableLR)) else lr)
        return out if isinstance(param, list) else out[0]

    def _lr_tables(self) -> list:
        lr = self.learning_rate
        if isinstance(lr, Parameter):
            return [lr] if lr.ndim == 1 else []
        if isinstance(lr, CellList):
            return [c.learning_rate for c in lr if isinstance(c, _TableLR)]
        return []

    def _check_lr_index(self):
        """MindSpore raises when the steps outrun a list learning rate. The check needs the
        step's value, so it runs eagerly; inside a compiled step (jit, vmap) an index past
        the end clips, and the last entry is used again."""
        tables = self._lr_tables()
        if not tables or current_tracer() is not None or self.global_step.is_symbolic:
            return
        n, step = tables[0].shape[0], int(self.global_step.asnumpy()[0])
        if step >= n:
            raise RuntimeError(f"For '{type(self).__name__}', step {step} needs learning_rate[{step}], but the "
                               f"'learning_rate' list has only {n} entries. (MindSpore: For 'Gather', the "
                               f"'input_indices' should be in the range [0, {n}), but got {step})")

    def construct(self, gradients):
        raise NotImplementedError(f"{type(self).__name__} must define construct(gradients)")
