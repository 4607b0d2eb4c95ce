"""MindSpore 2.10's optimizer primitives (`ops.ApplyAdagrad`, `ops.ApplyRMSProp`, `ops.Adam`,
`ops.SGD`, `ops.SparseApplyAdagrad`, ...): each updates its variable and state in place and
returns MindSpore's outputs.

Calls and constructors are 2.10's, measured on its CPU build: the inputs' order, which inputs
are written (every state input, as ops.assign writes: at once eagerly, a state update inside a
trace), and the outputs. The formulas are `optimizer_updates.py`'s, shared with `nn/optim`.
Where 2.10's CPU kernel returns garbage rather than what its documentation says (ApplyRMSProp
and ApplyCenteredRMSProp return zeros, Adam and AdamWeightDecay stale values), the documented
outputs (the updated tensors) are returned. ApplyMomentum's `use_nesterov` and `gradient_scale`
change nothing on 2.10's CPU (measured) and change nothing here. ApplyKerasMomentum and
SparseApplyFtrlV2, SparseApplyProximalAdagrad, SparseApplyAdadelta and LARSUpdate have no CPU
kernel in 2.10: they follow the documentation.

The sparse forms update the rows at `indices` and leave the others; a repeated index's
gradients are summed first (measured: SparseApplyAdagrad with index 0 twice adds (g1 + g2)^2 to
the accumulator), so they are the dense update applied to the summed rows.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from . import indexing
from . import optimizer_updates as U
from .op_base import Operator, check_bool, check_float, exporter
from .scatter_inplace import write_back

__all__: list[str] = []

_export = exporter(__all__)


def _state(op: str, arg: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Parameter or a Tensor (it is updated in place), "
                        f"but got {type(x).__name__}.")
    if not x.dtype.is_floating:
        raise TypeError(f"For '{op}', '{arg}' must be a float Tensor, but got {x.dtype}.")
    return x


def _scalar(x, dtype):
    """A hyperparameter: a Python number as given, a Tensor in the variable's dtype."""
    if isinstance(x, Tensor):
        return F.cast(x, dtype)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    return F.cast(F.as_tensor(x), dtype)


def _write(op: str, targets: tuple, values: tuple) -> tuple:
    """Writes each value into its target (a Parameter through ops.assign) and returns the values."""
    return tuple(write_back(op, t, F.cast(v, t.dtype)) for t, v in zip(targets, values))


class _Apply(Operator):
    """An optimizer primitive: `states` names the inputs written in place (the variable first),
    `hypers` the inputs cast to the variable's dtype, `outputs` how many written values return."""
    states: tuple = ()
    hypers: tuple = ()
    outputs = None   # None: every written state; 1: the variable alone (a Tensor, not a tuple);
    #                  "extra": the value `update` returns after the states (AdamNoUpdateParam's step)

    def __call__(self, *args):
        names = self.inputs
        if len(args) != len(names):
            raise TypeError(f"For '{self.name}', {len(names)} inputs ({', '.join(names)}) are required, "
                            f"but got {len(args)}.")
        values = dict(zip(names, args))
        for name in self.states:
            values[name] = _state(self.name, name, values[name])
        dtype = values[self.states[0]].dtype
        for name in self.hypers:
            values[name] = _scalar(values[name], dtype)
        for name in ("grad", "gradient", "delta"):
            if name in values:
                values[name] = F.cast(values[name], dtype)
        new = self.update(**values)
        written = _write(self.name, tuple(args[names.index(n)] for n in self.states), new)
        if self.outputs == "extra":
            return new[len(self.states)]
        return written[0] if self.outputs == 1 else written


def _apply_class(name: str, inputs: str, states: str, update, doc: str, outputs=None, init=None):
    """A class whose call takes `inputs` (MindSpore's order), writes `states` and returns them."""
    inputs, states = tuple(inputs.split()), tuple(states.split())
    hypers = tuple(n for n in inputs if n not in states and n not in ("grad", "gradient", "indices", "global_step"))
    body = {"inputs": inputs, "states": states, "hypers": hypers, "outputs": outputs, "__doc__": doc,
            "__module__": __name__, "update": lambda self, **kw: update(self, **kw)}
    if init is not None:
        body["__init__"] = init
    cls = type(name, (_Apply,), body)
    return _export(cls)


def _use_locking(name):
    def init(self, use_locking=False):
        Operator.__init__(self, use_locking=check_bool(name, "use_locking", use_locking))
    return init


def _no_args(self):
    Operator.__init__(self)


# == dense updates ===============================================================================

def _adagrad_init(self, update_slots=True):
    Operator.__init__(self, update_slots=check_bool("ApplyAdagrad", "update_slots", update_slots))


ApplyAdagrad = _apply_class(
    "ApplyAdagrad", "var accum lr grad", "var accum",
    lambda self, var, accum, lr, grad: U.adagrad(var, accum, lr, grad),
    "accum += g^2; var -= lr*g/sqrt(accum + 1e-8). Returns (var, accum). `update_slots=False` changes "
    "nothing (2.10's CPU kernel updates accum either way, measured).", init=_adagrad_init)


def _adagrad_v2_init(self, epsilon, update_slots=True):
    Operator.__init__(self, epsilon=check_float("ApplyAdagradV2", "epsilon", epsilon),
                      update_slots=check_bool("ApplyAdagradV2", "update_slots", update_slots))


ApplyAdagradV2 = _apply_class(
    "ApplyAdagradV2", "var accum lr grad", "var accum",
    lambda self, var, accum, lr, grad: U.adagrad(var, accum, lr, grad, self.epsilon, inside=False),
    "accum += g^2; var -= lr*g/(sqrt(accum) + epsilon). Returns (var, accum).", init=_adagrad_v2_init)

ApplyAdadelta = _apply_class(
    "ApplyAdadelta", "var accum accum_update lr rho epsilon grad", "var accum accum_update",
    lambda self, **kw: U.adadelta(**kw), "Adadelta. Returns (var, accum, accum_update).", init=_no_args)

ApplyAdaMax = _apply_class(
    "ApplyAdaMax", "var m v beta1_power lr beta1 beta2 epsilon grad", "var m v",
    lambda self, **kw: U.adamax(**kw), "AdaMax. Returns (var, m, v).", init=_no_args)

ApplyAddSign = _apply_class(
    "ApplyAddSign", "var m lr alpha sign_decay beta grad", "var m",
    lambda self, var, m, lr, alpha, sign_decay, beta, grad: U.sign_momentum(
        var, m, lr, beta, grad, lambda agree: F.add(F.mul(agree, sign_decay), alpha)),
    "AddSign: var -= lr*(alpha + sign_decay*sign(g)*sign(m))*g. Returns (var, m).", init=_no_args)

ApplyPowerSign = _apply_class(
    "ApplyPowerSign", "var m lr logbase sign_decay beta grad", "var m",
    lambda self, var, m, lr, logbase, sign_decay, beta, grad: U.sign_momentum(
        var, m, lr, beta, grad, lambda agree: F.exp(F.mul(F.mul(agree, sign_decay), logbase))),
    "PowerSign: var -= lr*exp(logbase*sign_decay*sign(g)*sign(m))*g. Returns (var, m).", init=_no_args)

ApplyRMSProp = _apply_class(
    "ApplyRMSProp", "var mean_square moment learning_rate grad decay momentum epsilon", "var mean_square moment",
    lambda self, var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon: U.rmsprop(
        var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon),
    "RMSProp (eps inside the root). Returns the updated var (2.10's CPU kernel returns zeros).",
    outputs=1, init=_use_locking("ApplyRMSProp"))

ApplyCenteredRMSProp = _apply_class(
    "ApplyCenteredRMSProp", "var mean_gradient mean_square moment grad learning_rate decay momentum epsilon",
    "var mean_gradient mean_square moment",
    lambda self, var, mean_gradient, mean_square, moment, grad, learning_rate, decay, momentum, epsilon: U.rmsprop(
        var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon, mean_grad=mean_gradient),
    "Centered RMSProp. Returns the updated var (2.10's CPU kernel returns zeros).",
    outputs=1, init=_use_locking("ApplyCenteredRMSProp"))

ApplyFtrl = _apply_class(
    "ApplyFtrl", "var accum linear grad lr l1 l2 lr_power", "var accum linear",
    lambda self, **kw: U.ftrl(**kw),
    "FTRL-proximal. Returns the updated var. With l1 > 0 2.10's CPU kernel takes +l1 where linear < 0 "
    "(see nn.FTRL); graphcell keeps the documented sign(linear)*l1.", outputs=1, init=_use_locking("ApplyFtrl"))

ApplyGradientDescent = _apply_class(
    "ApplyGradientDescent", "var alpha delta", "var",
    lambda self, var, alpha, delta: (F.sub(var, F.mul(delta, alpha)),),
    "var -= alpha*delta. Returns var.", outputs=1, init=_no_args)

ApplyProximalGradientDescent = _apply_class(
    "ApplyProximalGradientDescent", "var alpha l1 l2 delta", "var",
    lambda self, **kw: (U.proximal_gradient_descent(**kw),),
    "The proximal step of alpha*(l1|w| + l2/2 w^2) from var - alpha*delta. Returns var.",
    outputs=1, init=_no_args)

ApplyProximalAdagrad = _apply_class(
    "ApplyProximalAdagrad", "var accum lr l1 l2 grad", "var accum",
    lambda self, **kw: U.proximal_adagrad(**kw),
    "Adagrad and the proximal step with the rate lr/sqrt(accum). Returns (var, accum).",
    init=_use_locking("ApplyProximalAdagrad"))


def _momentum_init(self, use_nesterov=False, use_locking=False, gradient_scale=1.0):
    Operator.__init__(self, use_nesterov=check_bool("ApplyMomentum", "use_nesterov", use_nesterov),
                      use_locking=check_bool("ApplyMomentum", "use_locking", use_locking),
                      gradient_scale=check_float("ApplyMomentum", "gradient_scale", gradient_scale))


ApplyMomentum = _apply_class(
    "ApplyMomentum", "variable accumulation learning_rate gradient momentum", "variable accumulation",
    lambda self, variable, accumulation, learning_rate, gradient, momentum: U.momentum(
        variable, accumulation, learning_rate, gradient, momentum),
    "accum = momentum*accum + g; var -= lr*accum. Returns var. use_nesterov and gradient_scale change "
    "nothing, as on 2.10's CPU (measured).", outputs=1, init=_momentum_init)


def _keras_init(self, use_locking=False, use_nesterov=False):
    Operator.__init__(self, use_locking=check_bool("ApplyKerasMomentum", "use_locking", use_locking),
                      use_nesterov=check_bool("ApplyKerasMomentum", "use_nesterov", use_nesterov))


ApplyKerasMomentum = _apply_class(
    "ApplyKerasMomentum", "var accum lr grad momentum", "var accum",
    lambda self, var, accum, lr, grad, momentum: U.keras_momentum(var, accum, lr, grad, momentum, self.use_nesterov),
    "accum = momentum*accum - lr*g; var += accum. Returns (var, accum). No CPU kernel in 2.10: its "
    "documentation's formula.", init=_keras_init)


def _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    m, v = U.adam_moments(m, v, beta1, beta2, grad)
    vhat = F.maximum(vhat, v)
    step = U.adam_step(m, vhat, beta1, epsilon, grad)
    return F.sub(var, F.mul(step, U.adam_rate(lr, beta1_power, beta2_power))), m, v, vhat


def _amsgrad_init(self, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False):
    Operator.__init__(self, beta1=check_float("ApplyAdamWithAmsgrad", "beta1", beta1),
                      beta2=check_float("ApplyAdamWithAmsgrad", "beta2", beta2),
                      epsilon=check_float("ApplyAdamWithAmsgrad", "epsilon", epsilon),
                      use_locking=check_bool("ApplyAdamWithAmsgrad", "use_locking", use_locking))


ApplyAdamWithAmsgrad = _apply_class(
    "ApplyAdamWithAmsgrad", "var m v vhat beta1_power beta2_power lr grad", "var m v vhat",
    lambda self, **kw: _amsgrad(beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon, **kw),
    "Adam with AMSGrad's running maximum of v. Returns (var, m, v, vhat).", init=_amsgrad_init)

ApplyAdamWithAmsgradV2 = _apply_class(
    "ApplyAdamWithAmsgradV2", "var m v vhat beta1_power beta2_power lr beta1 beta2 epsilon grad", "var m v vhat",
    lambda self, **kw: _amsgrad(**kw),
    "ApplyAdamWithAmsgrad with beta1, beta2 and epsilon given to the call. Returns (var, m, v, vhat).",
    init=_use_locking("ApplyAdamWithAmsgradV2"))

ApplyAdagradDA = _apply_class(
    "ApplyAdagradDA", "var gradient_accumulator gradient_squared_accumulator grad lr l1 l2 global_step",
    "var gradient_accumulator gradient_squared_accumulator",
    lambda self, **kw: U.adagrad_da(**kw),
    "Adagrad dual averaging, as documented: var = -sign(ga)*max(|ga| - l1*t, 0)*lr/(l2*t*lr + sqrt(gsa)). "
    "Returns the updated var. 2.10's CPU kernel takes |ga| + l1*t where ga < 0 (measured), as its FTRL "
    "does; graphcell keeps the documented shrinkage.", outputs=1, init=_use_locking("ApplyAdagradDA"))


def _adam_init(name):
    def init(self, use_locking=False, use_nesterov=False):
        Operator.__init__(self, use_locking=check_bool(name, "use_locking", use_locking),
                          use_nesterov=check_bool(name, "use_nesterov", use_nesterov))
    return init


def _adam(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
    m, v = U.adam_moments(m, v, beta1, beta2, gradient)
    step = U.adam_step(m, v, beta1, epsilon, gradient, self.use_nesterov)
    return F.sub(var, F.mul(step, U.adam_rate(lr, beta1_power, beta2_power))), m, v


Adam = _apply_class(
    "Adam", "var m v beta1_power beta2_power lr beta1 beta2 epsilon gradient", "var m v",
    lambda self, **kw: _adam(self, **kw),
    "Adam (eps added to the uncorrected root). Returns (var, m, v).", init=_adam_init("Adam"))


def _adam_no_update(self, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
    m, v = U.adam_moments(m, v, beta1, beta2, gradient)
    step = U.adam_step(m, v, beta1, epsilon, gradient, self.use_nesterov)
    return m, v, F.neg(F.mul(step, U.adam_rate(lr, beta1_power, beta2_power)))


AdamNoUpdateParam = _apply_class(
    "AdamNoUpdateParam", "m v beta1_power beta2_power lr beta1 beta2 epsilon gradient", "m v",
    lambda self, **kw: _adam_no_update(self, **kw),
    "Adam's moments updated in place; returns the step to add to the variable, -alpha*m/(sqrt(v) + eps).",
    outputs="extra", init=_adam_init("AdamNoUpdateParam"))


def _adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
    m, v = U.adam_moments(m, v, beta1, beta2, gradient)
    update = F.add(U.adam_step(m, v, beta1, epsilon, gradient), F.mul(var, decay))
    return F.sub(var, F.mul(update, lr)), m, v


AdamWeightDecay = _apply_class(
    "AdamWeightDecay", "var m v lr beta1 beta2 epsilon decay gradient", "var m v",
    lambda self, **kw: _adam_weight_decay(**kw),
    "Adam without bias correction, with decoupled weight decay: var -= lr*(m/(sqrt(v) + eps) + decay*var). "
    "Returns (var, m, v).", init=_use_locking("AdamWeightDecay"))


@_export
class SGD(_Apply):
    """Stochastic gradient descent with momentum, dampening, weight decay and Nesterov's variant
    (torch's formula; `stat` > 0 marks the first step, where accum takes the gradient). Returns
    the updated parameters."""
    inputs = ("parameters", "gradient", "learning_rate", "accum", "momentum", "stat")
    states = ("parameters", "accum", "stat")
    hypers = ("learning_rate", "momentum")
    outputs = 1

    def __init__(self, dampening=0.0, weight_decay=0.0, nesterov=False):
        dampening = check_float("SGD", "dampening", dampening)
        weight_decay = check_float("SGD", "weight_decay", weight_decay)
        nesterov = check_bool("SGD", "nesterov", nesterov)
        if nesterov and dampening != 0:
            raise ValueError(f"For 'SGD', the 'dampening' must be 0 when 'nesterov' is True, but got 'dampening' is "
                             f"{dampening} and 'nesterov' is True.")
        super().__init__(dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)

    def update(self, parameters, gradient, learning_rate, accum, momentum, stat):
        return U.sgd(parameters, gradient, learning_rate, accum, momentum, stat,
                     self.dampening, self.weight_decay, self.nesterov)


# == sparse updates: the rows at `indices` ========================================================

def _sparse(dense_update):
    """The dense update on the rows `indices` names, their gradients summed where an index repeats;
    the other rows keep their values."""
    def update(self, grad, indices, **kw):
        var = kw[self.states[0]]
        if indices.ndim != 1 or not indices.dtype.is_integer:
            raise TypeError(f"For '{self.name}', 'indices' must be a 1-D integer Tensor, but got shape "
                            f"{list(indices.shape)} and dtype {indices.dtype}.")
        rows = F.expand_dims(indices, 1)
        summed = indexing.tensor_scatter_add(F.zeros_like(var), rows, grad)
        touched = indexing.tensor_scatter_add(F.zeros((var.shape[0],), mstype.int32), rows,
                                              F.ones((indices.shape[0],), mstype.int32))
        touched = F.reshape(F.greater(touched, 0), (var.shape[0],) + (1,) * (var.ndim - 1))
        new = dense_update(self, grad=summed, **kw)
        return tuple(F.select(touched, n, kw[s]) for n, s in zip(new, self.states))
    return update


def _sparse_class(name, inputs, states, dense_update, doc, init):
    cls = _apply_class(name, inputs, states, None, doc, init=init)
    cls.update = _sparse(dense_update)
    return cls


def _checked_floats(name, **kw):
    return {k: check_float(name, k, v) for k, v in kw.items()}


def _sparse_adagrad_init(self, lr, update_slots=True, use_locking=False):
    Operator.__init__(self, **_checked_floats("SparseApplyAdagrad", lr=lr),
                      update_slots=check_bool("SparseApplyAdagrad", "update_slots", update_slots),
                      use_locking=check_bool("SparseApplyAdagrad", "use_locking", use_locking))


SparseApplyAdagrad = _sparse_class(
    "SparseApplyAdagrad", "var accum grad indices", "var accum",
    lambda self, var, accum, grad: U.adagrad(var, accum, self.lr, grad),
    "ApplyAdagrad on the rows at `indices`. Returns (var, accum).", _sparse_adagrad_init)


def _sparse_adagrad_v2_init(self, lr, epsilon, use_locking=False, update_slots=True):
    Operator.__init__(self, **_checked_floats("SparseApplyAdagradV2", lr=lr, epsilon=epsilon),
                      use_locking=check_bool("SparseApplyAdagradV2", "use_locking", use_locking),
                      update_slots=check_bool("SparseApplyAdagradV2", "update_slots", update_slots))


SparseApplyAdagradV2 = _sparse_class(
    "SparseApplyAdagradV2", "var accum grad indices", "var accum",
    lambda self, var, accum, grad: U.adagrad(var, accum, self.lr, grad, self.epsilon),
    "ApplyAdagrad on the rows at `indices` with `epsilon` inside the root (2.10's CPU kernel, measured; "
    "ApplyAdagradV2 adds it outside). Returns (var, accum).", _sparse_adagrad_v2_init)


def _sparse_ftrl_init(self, lr, l1, l2, lr_power, use_locking=False):
    Operator.__init__(self, **_checked_floats("SparseApplyFtrl", lr=lr, l1=l1, l2=l2, lr_power=lr_power),
                      use_locking=check_bool("SparseApplyFtrl", "use_locking", use_locking))


SparseApplyFtrl = _sparse_class(
    "SparseApplyFtrl", "var accum linear grad indices", "var accum linear",
    lambda self, var, accum, linear, grad: U.ftrl(var, accum, linear, grad, self.lr, self.l1, self.l2,
                                                  self.lr_power),
    "ApplyFtrl on the rows at `indices`. Returns (var, accum, linear).", _sparse_ftrl_init)


def _sparse_ftrl_v2_init(self, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False):
    Operator.__init__(self, **_checked_floats("SparseApplyFtrlV2", lr=lr, l1=l1, l2=l2, l2_shrinkage=l2_shrinkage,
                                              lr_power=lr_power),
                      use_locking=check_bool("SparseApplyFtrlV2", "use_locking", use_locking))


SparseApplyFtrlV2 = _sparse_class(
    "SparseApplyFtrlV2", "var accum linear grad indices", "var accum linear",
    lambda self, var, accum, linear, grad: U.ftrl(var, accum, linear, grad, self.lr, self.l1, self.l2,
                                                  self.lr_power, self.l2_shrinkage),
    "SparseApplyFtrl with l2_shrinkage (no CPU kernel in 2.10: TensorFlow's formula, which its "
    "documentation names). Returns (var, accum, linear).", _sparse_ftrl_v2_init)

SparseApplyProximalAdagrad = _sparse_class(
    "SparseApplyProximalAdagrad", "var accum lr l1 l2 grad indices", "var accum",
    lambda self, **kw: U.proximal_adagrad(**kw),
    "ApplyProximalAdagrad on the rows at `indices` (no CPU kernel in 2.10). Returns (var, accum).",
    _use_locking("SparseApplyProximalAdagrad"))


def _sparse_rmsprop_init(self, rho, momentum, epsilon, use_locking=False):
    Operator.__init__(self, **_checked_floats("SparseApplyRMSProp", rho=rho, momentum=momentum, epsilon=epsilon),
                      use_locking=check_bool("SparseApplyRMSProp", "use_locking", use_locking))


SparseApplyRMSProp = _sparse_class(
    "SparseApplyRMSProp", "var ms mom lr grad indices", "var ms mom",
    lambda self, var, ms, mom, lr, grad: U.rmsprop(var, ms, mom, lr, grad, self.rho, self.momentum, self.epsilon),
    "ApplyRMSProp on the rows at `indices`. Returns (var, ms, mom).", _sparse_rmsprop_init)


def _sparse_adadelta_init(self, epsilon, use_locking=False):
    Operator.__init__(self, **_checked_floats("SparseApplyAdadelta", epsilon=epsilon),
                      use_locking=check_bool("SparseApplyAdadelta", "use_locking", use_locking))


SparseApplyAdadelta = _sparse_class(
    "SparseApplyAdadelta", "var accum accum_update lr rho grad indices", "var accum accum_update",
    lambda self, var, accum, accum_update, lr, rho, grad: U.adadelta(var, accum, accum_update, lr, rho,
                                                                     self.epsilon, grad),
    "ApplyAdadelta on the rows at `indices` (no CPU kernel in 2.10). Returns (var, accum, accum_update).",
    _sparse_adadelta_init)
