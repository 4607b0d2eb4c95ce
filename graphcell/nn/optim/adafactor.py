"""AdaFactor with MindSpore 2.10's update (measured: the formula of Shazeer & Stern as
fairseq and Hugging Face write it)."""
from __future__ import annotations

import numpy as np

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Parameter, ParameterTuple
from .optimizer import Optimizer, check_bool, check_float, check_float_in_range


def _rms(x):
    return F.sqrt(F.mean(F.square(x)))


def _state(params, prefix: str, shape_of, dtype_of=lambda p: np.float32) -> ParameterTuple:
    """One zero state Parameter per weight, named '<prefix><weight name>' (MindSpore's names)."""
    return ParameterTuple(Parameter(np.zeros(shape_of(p), dtype_of(p)), name=f"{prefix}{p.name}")
                          for p in params)


def _factored(p) -> bool:
    return p.ndim >= 2


class AdaFactor(Optimizer):
    """With t the step count (`afactor_step`, 1 at the first call) and per weight:

        rate = lr, or with relative_step min(1e-6*t if warmup_init else 1e-2, 1/sqrt(t));
               times max(eps[1], RMS(w)) with scale_parameter
        b2 = 1 - t^(-decay_rate);  u = g^2 + eps[0]
        2-D and up (factored): row <- b2*row + (1-b2)*mean(u, -1); col <- b2*col + (1-b2)*mean(u, -2)
                               v = (row / mean(row, -1))[..., None] * col[..., None, :]
        otherwise:             v <- b2*v + (1-b2)*u
        U = g / sqrt(v);  U <- rate * U / max(1, RMS(U) / clip_threshold)
        with beta1: m <- beta1*m + (1-beta1)*U; U = m
        w <- w - weight_decay*rate*w - U

    As measured on MindSpore 2.10: the weight decay is decoupled (as above) and applies to every
    weight ('beta'/'gamma' too), and `loss_scale` is accepted but does not divide the gradients.
    State (MindSpore's names): `exp_avg.<p>` (with beta1), `exp_avg_sq_row_<p>`,
    `exp_avg_sq_col_<p>` (shape [1] for 1-D weights), `exp_avg_sq_<p>` (shape [1] for factored
    ones; float16 with `compression`) and `afactor_step` ([1], float32). `learning_rate` holds
    0.0 when it is None. Unlike MindSpore 2.10, a group's 'lr' works (there it fails in its
    update), and with beta1=None no placeholder Parameter is made (2.10 saves an unnamed
    scalar 'Parameter$1')."""

    decoupled_weight_decay = True

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0, decay_rate=0.8, beta1=0.9,
                 weight_decay=0.0, scale_parameter=True, relative_step=True, warmup_init=False, compression=False,
                 loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("Cannot combine manual lr and relative_step options", learning_rate)
        if warmup_init and not relative_step:
            raise ValueError("warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("Cannot learning_rate is None and relative_step=False")
        super().__init__(0.0 if learning_rate is None else learning_rate, params, weight_decay, loss_scale)
        if not isinstance(eps, (tuple, list)) or len(eps) != 2:
            raise ValueError("eps must have 2 value: (eps1, eps2).")
        self.eps = tuple(check_float("AdaFactor", f"eps[{i}]", float(e), 0.0) for i, e in enumerate(eps))
        self.clip_threshold = check_float("AdaFactor", "clip_threshold", clip_threshold, 0.0)
        self.decay_rate = check_float_in_range("AdaFactor", "decay_rate", decay_rate, 0.0, 1.0, bounds="(0, 1)")
        self.beta1 = None if beta1 is None else check_float("AdaFactor", "beta1", beta1, float("-inf"))
        self.scale_parameter = check_bool("AdaFactor", "scale_parameter", scale_parameter)
        self.relative_step = check_bool("AdaFactor", "relative_step", relative_step)
        self.warmup_init = check_bool("AdaFactor", "warmup_init", warmup_init)
        self.compression = check_bool("AdaFactor", "compression", compression)
        if not self.is_group:
            self.decay_flags = (True,) * len(self.parameters)
        if self.beta1 is not None:
            self.exp_avg = self.parameters.clone(prefix="exp_avg", init="zeros")
        self.exp_avg_sq_row = _state(self.parameters, "exp_avg_sq_row_",
                                     lambda p: p.shape[:-1] if _factored(p) else (1,))
        self.exp_avg_sq_col = _state(self.parameters, "exp_avg_sq_col_",
                                     lambda p: p.shape[:-2] + p.shape[-1:] if _factored(p) else (1,))
        # compression stores the unfactored second moments in float16 (the [1] placeholders of
        # factored weights stay float32, as in MindSpore 2.10's checkpoints)
        self.exp_avg_sq = _state(self.parameters, "exp_avg_sq_", lambda p: (1,) if _factored(p) else p.shape,
                                 lambda p: np.float16 if self.compression and not _factored(p) else np.float32)
        self.afactor_step = Parameter(np.zeros(1, np.float32), name="afactor_step")

    def prepare_gradients(self, gradients) -> tuple:
        # MindSpore 2.10's AdaFactor does not divide by loss_scale (measured)
        grads = self._check_gradients(gradients)
        return self.gradients_centralization(grads) if self.centralizes_gradients else grads

    def _relative_rate(self, t):
        if not self.relative_step:
            return None
        low = F.mul(t, 1e-6) if self.warmup_init else 1e-2
        return F.minimum(F.rsqrt(t), low)

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        decays = self.weight_decays()   # before step_lr moves global_step
        lrs = self.lr_per_parameter(self.step_lr())
        t = F.add(self.afactor_step, 1.0)
        F.assign(self.afactor_step, t)
        t = F.reshape(t, ())
        relative = self._relative_rate(t)
        beta2 = F.sub(1.0, F.pow(t, -self.decay_rate))
        exp_avgs = self.exp_avg if self.beta1 is not None else (None,) * len(grads)
        for p, g, lr, decay, row, col, sq, m in zip(self.parameters, grads, lrs, decays, self.exp_avg_sq_row,
                                                    self.exp_avg_sq_col, self.exp_avg_sq, exp_avgs):
            rate = lr if relative is None else relative
            if self.scale_parameter:
                rate = F.mul(rate, F.maximum(_rms(p), self.eps[1]))
            u = F.add(F.square(g), self.eps[0])
            if _factored(p):
                row_new = F.add(F.mul(row, beta2), F.mul(F.mean(u, -1), F.sub(1.0, beta2)))
                col_new = F.add(F.mul(col, beta2), F.mul(F.mean(u, -2), F.sub(1.0, beta2)))
                F.assign(row, row_new)
                F.assign(col, col_new)
                row_factor = F.rsqrt(F.div(row_new, F.mean(row_new, -1, keep_dims=True)))
                update = F.mul(F.mul(F.expand_dims(row_factor, -1), F.expand_dims(F.rsqrt(col_new), -2)), g)
            else:
                sq_new = F.add(F.mul(F.cast(sq, mstype.float32), beta2), F.mul(u, F.sub(1.0, beta2)))
                F.assign(sq, F.cast(sq_new, sq.dtype))
                update = F.mul(F.rsqrt(sq_new), g)
            update = F.div(update, F.maximum(F.div(_rms(update), self.clip_threshold), 1.0))
            update = F.mul(update, rate)
            if m is not None:
                update = F.add(F.mul(m, self.beta1), F.mul(update, 1.0 - self.beta1))
                F.assign(m, update)
            w = p if decay is None else F.sub(p, F.mul(p, F.mul(rate, decay)))
            F.assign(p, F.sub(w, update))
