"""`Optimizer`: the base of MindSpore-style optimizers, called as `optimizer(grads)`.

An optimizer is a Cell (auto_prefix=False) whose `construct` updates its Parameters with
`ops.assign`, so the same code runs eagerly, inside `jit`/`construct`, and under `vmap` of a
CellList (where each member's learning rate and state are stacked like its weights). All
state lives in Parameters, so `save_checkpoint(optimizer, ...)` saves it.

Each call does, in MindSpore's order (MINDSPORE_NOTES.md section 4):
1. g <- g + weight_decay * loss_scale * w for weights whose name (at build) contains neither
   'beta' nor 'gamma' (optimizers with decoupled decay skip this);
2. g <- g / loss_scale;
3. lr = learning_rate: the scalar, `table[global_step]` for a list, or `schedule(global_step)`;
   a dynamic learning rate then advances `global_step` (an int32 [1] Parameter);
4. the optimizer's own update.
"""
from __future__ import annotations

import numbers

import numpy as np

from ...frontend.tracer import current_tracer
from ...ops import functional as F
from ...tensor import Parameter, ParameterTuple, Tensor
from ..cell import Cell, configuration


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


class Optimizer(Cell):
    """Base class: holds `parameters` (a ParameterTuple), `learning_rate` and `global_step`."""

    decoupled_weight_decay = False  # AdamWeightDecay applies its decay in the update instead

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        params = self._check_params(parameters)
        weight_decay = check_hyperparameter(name, "weight_decay", weight_decay, 0.0)
        loss_scale = check_hyperparameter(name, "loss_scale", loss_scale, 0.0, above=True)
        self.parameters = ParameterTuple(params)
        self.weight_decay = weight_decay
        self.loss_scale = loss_scale
        # MindSpore's default decay filter, applied to the names the weights have now.
        self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in params)
        # global_step first: checkpoints list the optimizer's Parameters in creation order, and
        # MindSpore 2.10's is global_step, learning_rate, then the subclass's state (measured)
        self.global_step = Parameter(np.array([0], np.int32), name="global_step", requires_grad=False)
        self.dynamic_lr = self._init_learning_rate(learning_rate)

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        super().insert_param_to_cell(param_name, param, check_name_contain_dot)
        # MindSpore keeps a list / 1-D learning rate in a child Cell, so its Parameter comes after
        # all the optimizer's own state in a checkpoint: keep those names last
        for name in self.__dict__.get("_params_last", ()):
            if name in self._params:
                self._params.move_to_end(name)

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
        lr = self.learning_rate
        if not isinstance(lr, Cell) and lr.ndim == 1:
            self._check_lr_index()   # the compiled step clips the index; eagerly MindSpore raises
        if self._graph_jit is None or self.__dict__.get("_eager_config") != config:
            object.__setattr__(self, "_graph_jit", Jit(self, name=type(self).__name__))
            object.__setattr__(self, "_eager_config", config)
        return self._graph_jit(*args, **kwargs)

    # -- construction helpers ---------------------------------------------------------------
    def _check_params(self, parameters) -> list:
        name = type(self).__name__
        if isinstance(parameters, Parameter):
            raise TypeError(f"For '{name}', the 'params' should be a list or ParameterTuple of Parameters, "
                            "got a single Parameter")
        params = list(parameters)
        if not params:
            raise ValueError(f"For '{name}', the 'params' should not be empty.")
        for i, p in enumerate(params):
            if isinstance(p, dict):
                raise NotImplementedError(f"For '{name}', parameter groups (dicts in 'params') are not "
                                          "supported yet")
            if not isinstance(p, Parameter):
                raise TypeError(f"For '{name}', params[{i}] should be a Parameter, got {type(p).__name__}")
        seen = {}
        for i, p in enumerate(params):
            if seen.setdefault(id(p), i) != i:
                raise ValueError(f"For '{name}', params[{seen[id(p)]}] and params[{i}] are the same Parameter "
                                 f"'{p.name}': each would be updated twice a step")
        return params

    def _init_learning_rate(self, lr) -> bool:
        from ..learning_rate_schedule import LearningRateSchedule
        name = type(self).__name__
        if isinstance(lr, LearningRateSchedule):
            self.learning_rate = lr
            return True
        if isinstance(lr, Tensor) and lr.ndim == 0 or isinstance(lr, numbers.Real) and not isinstance(lr, bool):
            value = float(lr)
            if not value >= 0:   # NaN too
                raise ValueError(f"For '{name}', the 'learning_rate' must be >= 0, but got {value}")
            self.learning_rate = Parameter(np.array(value, np.float32), name="learning_rate", requires_grad=False)
            return False
        if isinstance(lr, (list, tuple)) or isinstance(lr, (Tensor, np.ndarray)) and lr.ndim == 1:
            table = np.asarray(lr.asnumpy() if isinstance(lr, Tensor) else lr, np.float32)
            if table.size == 0:
                raise ValueError(f"For '{name}', the 'learning_rate' list must not be empty")
            bad = np.flatnonzero(~(table >= 0))
            if bad.size:
                raise ValueError(f"For '{name}', every entry of the 'learning_rate' list must be >= 0, but "
                                 f"learning_rate[{bad[0]}] is {table[bad[0]]}")
            object.__setattr__(self, "_params_last", ("learning_rate",))
            self.learning_rate = Parameter(table, name="learning_rate", requires_grad=False)
            return True
        raise TypeError(f"For '{name}', the 'learning_rate' should be a float, a list, a 1-D array, a 0-D or "
                        f"1-D Tensor or a LearningRateSchedule, but got {type(lr).__name__}")

    # -- the steps every optimizer shares ---------------------------------------------------
    def prepare_gradients(self, gradients) -> tuple:
        """Checks the gradients' structure, then applies weight decay and loss scaling. As
        MindSpore's Optimizer, the decay is added at weight_decay * loss_scale before the
        gradients are divided by loss_scale, so it does not depend on the loss scale."""
        grads = self._check_gradients(gradients)
        if self.weight_decay > 0 and not self.decoupled_weight_decay:
            decay = self.weight_decay * self.loss_scale
            grads = tuple(F.add(g, F.mul(p, decay)) if flag else g
                          for g, p, flag in zip(grads, self.parameters, self.decay_flags))
        if self.loss_scale != 1.0:
            grads = tuple(F.div(g, self.loss_scale) for g in grads)
        return grads

    def _check_gradients(self, gradients) -> tuple:
        name, params = type(self).__name__, self.parameters
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

    def get_lr(self):
        """This step's learning rate (a scalar); advances `global_step` (every call, whatever the
        learning rate's kind: measured on MindSpore 2.10, a float rate's optimizer counts too)."""
        lr = self.learning_rate
        if isinstance(lr, Cell):
            lr = F.reshape(lr(self.global_step), ())
        elif lr.ndim == 1:
            self._check_lr_index()
            lr = F.reshape(F.take_in_range(lr, self.global_step, 0), ())
        F.assign(self.global_step, F.add(self.global_step, 1))
        return lr

    def _check_lr_index(self):
        """MindSpore raises when the steps outrun a list learning rate. The check needs the
        step's value, so it runs eagerly; inside a compiled step (jit, vmap) an index past
        the end clips, and the last entry is used again."""
        if current_tracer() is not None or self.global_step.is_symbolic:
            return
        n, step = self.learning_rate.shape[0], int(self.global_step.asnumpy()[0])
        if step >= n:
            raise RuntimeError(f"For '{type(self).__name__}', step {step} needs learning_rate[{step}], but the "
                               f"'learning_rate' list has only {n} entries. (MindSpore: For 'Gather', the "
                               f"'input_indices' should be in the range [0, {n}), but got {step})")

    def construct(self, gradients):
        raise NotImplementedError(f"{type(self).__name__} must define construct(gradients)")
