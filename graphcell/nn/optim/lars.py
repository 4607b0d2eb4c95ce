"""LARS: layer-wise adaptive rate scaling, a wrapper that rescales the gradients another
optimizer then applies (MindSpore 2.10's nn.LARS, deprecated there since 2.9)."""
from __future__ import annotations

import math

import numpy as np

from ...ops import functional as F
from ...tensor import Parameter
from ..cell import Cell
from .optimizer import Optimizer, check_bool, check_float


def _default_lars_filter(param) -> bool:
    return "LayerNorm" not in param.name and "bias" not in param.name


class LARS(Optimizer):
    """For each parameter that `lars_filter` selects, with wd its weight decay this step (0
    where the wrapped optimizer would not decay it) and g its gradient divided by loss_scale:

        coeff = coefficient * ||w|| / (||g|| + wd * ||w|| + epsilon)
        coeff = clip(coeff / lr, 0, 1)       with use_clip (lr: the wrapped optimizer's, this step)
        g <- coeff * (g + wd * w)

    then `optimizer` updates with these gradients (norms over the whole Parameter). The
    wrapped optimizer stops applying its weight decay and loss scale, which LARS applied; so
    parameters `lars_filter` leaves out (by default names with 'bias' or 'LayerNorm') take
    the plain update, without weight decay. There is no special case for a zero norm: a
    weight of all zeros gets coeff 0 and stays put.

    MindSpore 2.10 has no CPU kernel for its LARSUpdate ("Unsupported op [LARSUpdate] on
    CPU"); this is its Ascend kernel's formula (lars_v2_update), and the rest was measured on
    2.10 with that formula standing in for the kernel. One difference: the steps advance
    `global_step` once each (the wrapped optimizer's count); MindSpore 2.10 advances it twice
    when the weight decay is dynamic and the learning rate is not.
    State: the wrapped optimizer's (LARS shares its `global_step` and Parameters)."""

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
                 lars_filter=_default_lars_filter):
        Cell.__init__(self, auto_prefix=False)
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'LARS', the 'optimizer' must be an Optimizer, but got {type(optimizer).__name__}")
        if isinstance(optimizer, LARS):
            raise TypeError("For 'LARS', the 'optimizer' is a LARS already; wrap the inner optimizer once")
        self.epsilon = check_float("LARS", "epsilon", epsilon, -math.inf)
        self.coefficient = check_float("LARS", "coefficient", coefficient, -math.inf)
        self.use_clip = check_bool("LARS", "use_clip", use_clip)
        if not callable(lars_filter):
            raise TypeError(f"For 'LARS', the 'lars_filter' must be a function of a Parameter, but got "
                            f"{type(lars_filter).__name__}")
        if use_clip and optimizer.is_group_lr and optimizer.dynamic_lr:
            raise ValueError("For 'LARS', if the argument 'use_clip' is set to True, then the dynamic learning rate "
                             "and group learning rate cannot both be true.")
        self.global_step = optimizer.global_step
        # 2.10's placeholders, listed and saved after global_step (measured): 0.0, float32, the
        # first under the key 'learning_rate'; LARS's learning_rate stays the wrapped optimizer's.
        self.insert_param_to_cell("learning_rate", Parameter(np.array(0.0, np.float32), name="fake_lr"))
        self.fake_param = Parameter(np.array(0.0, np.float32), name="fake_param")
        self.parameters = optimizer.parameters
        self.opt = optimizer
        self.lars_flag = tuple(bool(lars_filter(p)) for p in self.parameters)
        self.is_group, self.is_group_lr = optimizer.is_group, optimizer.is_group_lr
        self.is_group_params_ordered = optimizer.is_group_params_ordered
        self.dynamic_lr, self.dynamic_weight_decay = optimizer.dynamic_lr, optimizer.dynamic_weight_decay
        self.decay_flags = optimizer.decay_flags
        self.loss_scale = optimizer.loss_scale
        self.gradients_prepared = False
        optimizer.gradients_prepared = True   # as MindSpore's LARS turns the wrapped one's decay and scale off

    @property
    def learning_rate(self):
        """The wrapped optimizer's (so LearningRateScheduler and ReduceLROnPlateau change it)."""
        return self.opt.learning_rate

    @property
    def weight_decay(self):
        return self.opt.weight_decay

    def decay_values(self) -> tuple:
        return self.opt.decay_values()

    def _lr_tables(self) -> list:
        return self.opt._lr_tables()

    def construct(self, gradients):
        grads = self._check_gradients(gradients)
        decays = self.opt.decay_values()   # before the wrapped optimizer advances global_step
        lrs = self.opt.lr_per_parameter(self.opt.current_lr()) if self.use_clip else (None,) * len(grads)
        if self.loss_scale != 1.0:
            grads = tuple(F.div(g, self.loss_scale) for g in grads)
        scaled = []
        for p, g, use, decays_it, decay, lr in zip(self.parameters, grads, self.lars_flag, self.decay_flags, decays,
                                                    lrs):
            if use:
                decay = self._unscaled(decay) if decays_it else 0.0
                g = self._lars_gradient(p, g, decay, lr)
            scaled.append(g)
        return self.opt(tuple(scaled))

    def _unscaled(self, decay):
        """A decay stored times loss_scale, as applied to gradients already divided by it."""
        if self.loss_scale == 1.0:
            return decay
        return decay / self.loss_scale if isinstance(decay, float) else F.div(decay, self.loss_scale)

    def _lars_gradient(self, p, g, decay, lr):
        w_norm = F.sqrt(F.reduce_sum(F.square(p)))
        g_norm = F.sqrt(F.reduce_sum(F.square(g)))
        return lars_gradient(p, g, w_norm, g_norm, decay, lr, self.coefficient, self.epsilon)


def lars_gradient(p, g, w_norm, g_norm, decay, lr, coefficient, epsilon):
    """coeff * (g + decay * p), coeff = coefficient * ||w|| / (||g|| + decay * ||w|| + epsilon),
    divided by lr and clipped to [0, 1] when lr is given (LARS's step; ops.LARSUpdate's formula)."""
    no_decay = isinstance(decay, float) and decay == 0.0
    denominator = F.add(g_norm, epsilon) if no_decay else F.add(F.add(g_norm, F.mul(w_norm, decay)), epsilon)
    coeff = F.div(F.mul(w_norm, coefficient), denominator)
    if lr is not None:
        coeff = F.clamp(F.div(coeff, lr), 0.0, 1.0)
    if not no_decay:
        g = F.add(g, F.mul(p, decay))
    return F.mul(g, coeff)
