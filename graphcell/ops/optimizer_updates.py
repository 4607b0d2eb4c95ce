"""The update formulas of MindSpore 2.10's optimizer primitives (ApplyAdagrad, ApplyRMSProp, ...),
as pure functions: each takes the variable, its state and the step's hyperparameters and returns
the new values, in the order MindSpore's primitive returns them. The in-place operator classes
(`optimizer_classes.py`) write them back into Parameters; the optimizers (`nn/optim/`) call the
same functions, so a formula is written once.

Hyperparameters may be Python numbers or Tensors (0-d or broadcastable); every formula was
checked against 2.10's CPU kernels (tests/test_optimizer_classes.py holds the measured values).
"""
from __future__ import annotations

from . import functional as F

# ApplyAdagrad adds this inside the square root (measured on 2.10's CPU kernel: with accum 0 and
# g = 1e-4 the step is lr * 0.7071 = lr * g / sqrt(g^2 + 1e-8), not lr * 1).
ADAGRAD_EPSILON = 1e-8


def adagrad(var, accum, lr, grad, epsilon=ADAGRAD_EPSILON, inside=True):
    """accum += g^2; var -= lr * g / sqrt(accum + epsilon) (ApplyAdagrad, and SparseApplyAdagradV2
    as measured on 2.10's CPU kernel), or with `inside=False` var -= lr * g / (sqrt(accum) + epsilon)
    (ApplyAdagradV2)."""
    accum = F.add(accum, F.square(grad))
    if inside:
        step = F.div(grad, F.sqrt(F.add(accum, epsilon)))
    else:
        step = F.div(grad, F.add(F.sqrt(accum), epsilon))
    return F.sub(var, F.mul(step, lr)), accum


def adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    """Zeiler's Adadelta (torch's formula), ApplyAdadelta."""
    accum = F.add(F.mul(accum, rho), F.mul(F.square(grad), F.sub(1.0, rho)))
    update = F.div(F.mul(F.sqrt(F.add(accum_update, epsilon)), grad), F.sqrt(F.add(accum, epsilon)))
    accum_update = F.add(F.mul(accum_update, rho), F.mul(F.square(update), F.sub(1.0, rho)))
    return F.sub(var, F.mul(update, lr)), accum, accum_update


def adamax(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    """m = b1*m + (1-b1)*g; v = max(b2*v, |g|); var -= lr/(1 - b1^t) * m/(v + eps) (ApplyAdaMax)."""
    m = F.add(F.mul(m, beta1), F.mul(grad, F.sub(1.0, beta1)))
    v = F.maximum(F.mul(v, beta2), F.abs(grad))
    step = F.div(m, F.add(v, epsilon))
    return F.sub(var, F.mul(step, F.div(lr, F.sub(1.0, beta1_power)))), m, v


def sign_momentum(var, m, lr, beta, grad, scale):
    """AddSign and PowerSign (Bello et al.): m = beta*m + (1-beta)*g; var -= lr * scale(sign(g)*sign(m)) * g."""
    m = F.add(F.mul(m, beta), F.mul(grad, F.sub(1.0, beta)))
    agreement = F.mul(F.sign(grad), F.sign(m))
    return F.sub(var, F.mul(F.mul(scale(agreement), grad), lr)), m


def rmsprop(var, mean_square, moment, lr, grad, decay, momentum, epsilon, mean_grad=None):
    """ms = decay*ms + (1-decay)*g^2; mom = momentum*mom + lr*g/sqrt(ms + eps); var -= mom.
    Centered (a `mean_grad` given): mg = decay*mg + (1-decay)*g and the root is sqrt(ms - mg^2 + eps).
    Returns (var, mean_square, moment) or, centered, (var, mean_grad, mean_square, moment)."""
    mean_square = F.add(F.mul(mean_square, decay), F.mul(F.square(grad), F.sub(1.0, decay)))
    denominator = mean_square
    if mean_grad is not None:
        mean_grad = F.add(F.mul(mean_grad, decay), F.mul(grad, F.sub(1.0, decay)))
        denominator = F.sub(mean_square, F.square(mean_grad))
    moment = F.add(F.mul(moment, momentum), F.div(F.mul(grad, lr), F.sqrt(F.add(denominator, epsilon))))
    var = F.sub(var, moment)
    return (var, mean_square, moment) if mean_grad is None else (var, mean_grad, mean_square, moment)


def ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, l2_shrinkage=0.0):
    """McMahan et al.'s FTRL-proximal per element, with p = -lr_power (ApplyFtrl):

        accum' = accum + g^2;  linear += g - (accum'^p - accum^p) / lr * var
        var = (sign(linear)*l1 - linear) / (accum'^p / lr + 2*l2)  where |linear| > l1, else 0

    `l2_shrinkage` (SparseApplyFtrlV2) adds 2*l2_shrinkage*var to the gradient of `linear`."""
    power = -lr_power if isinstance(lr_power, float) else F.neg(lr_power)
    new_accum = F.add(accum, F.square(grad))
    new_pow = F.pow(new_accum, power)
    sigma = F.div(F.sub(new_pow, F.pow(accum, power)), lr)
    shrunk_grad = grad if isinstance(l2_shrinkage, float) and l2_shrinkage == 0.0 else \
        F.add(grad, F.mul(F.mul(var, l2_shrinkage), 2.0))
    linear = F.sub(F.add(linear, shrunk_grad), F.mul(sigma, var))
    quadratic = F.add(F.div(new_pow, lr), 2.0 * l2 if isinstance(l2, float) else F.mul(l2, 2.0))
    shrunk = F.div(F.sub(F.mul(F.sign(linear), l1), linear), quadratic)
    var = F.select(F.greater(F.abs(linear), l1), shrunk, F.zeros_like(shrunk))
    return var, new_accum, linear


def proximal_step(prox, rate, l1, l2):
    """The proximal map of rate*(l1*|w| + l2/2*w^2): sign(v)/(1 + rate*l2) * max(|v| - rate*l1, 0)."""
    shrunk = F.maximum(F.sub(F.abs(prox), F.mul(rate, l1)), 0.0)
    return F.mul(F.div(F.sign(prox), F.add(F.mul(rate, l2), 1.0)), shrunk)


def proximal_gradient_descent(var, alpha, l1, l2, delta):
    """ApplyProximalGradientDescent: the proximal step from var - alpha*delta."""
    return proximal_step(F.sub(var, F.mul(delta, alpha)), alpha, l1, l2)


def proximal_adagrad(var, accum, lr, l1, l2, grad):
    """accum += g^2, then the proximal step with the per-element rate lr/sqrt(accum) (as measured on
    2.10 and as TensorFlow's ApplyProximalAdagrad: l1 and l2 are scaled by that rate)."""
    accum = F.add(accum, F.square(grad))
    rate = F.div(lr, F.sqrt(accum))
    return proximal_step(F.sub(var, F.mul(grad, rate)), rate, l1, l2), accum


def momentum(var, accum, lr, grad, momentum):
    """accum = momentum*accum + g; var -= lr*accum (ApplyMomentum; 2.10's CPU kernel ignores
    use_nesterov and gradient_scale, measured)."""
    accum = F.add(F.mul(accum, momentum), grad)
    return F.sub(var, F.mul(accum, lr)), accum


def keras_momentum(var, accum, lr, grad, momentum, use_nesterov=False):
    """accum = momentum*accum - lr*g; var += accum (nesterov: var += momentum*accum - lr*g)."""
    accum = F.sub(F.mul(accum, momentum), F.mul(grad, lr))
    step = F.sub(F.mul(accum, momentum), F.mul(grad, lr)) if use_nesterov else accum
    return F.add(var, step), accum


def adam_moments(m, v, beta1, beta2, grad):
    """The first and second moments' exponential averages."""
    m = F.add(F.mul(m, beta1), F.mul(grad, F.sub(1.0, beta1)))
    v = F.add(F.mul(v, beta2), F.mul(F.square(grad), F.sub(1.0, beta2)))
    return m, v


def adam_rate(lr, beta1_power, beta2_power):
    """lr * sqrt(1 - b2^t) / (1 - b1^t): Adam's bias corrections folded into the rate."""
    return F.div(F.mul(lr, F.sqrt(F.sub(1.0, beta2_power))), F.sub(1.0, beta1_power))


def adam_step(m, v, beta1, epsilon, grad, use_nesterov=False):
    """m/(sqrt(v) + eps), eps added to the uncorrected root; nesterov: (b1*m + (1-b1)*g)/(sqrt(v) + eps)."""
    direction = F.add(F.mul(m, beta1), F.mul(grad, F.sub(1.0, beta1))) if use_nesterov else m
    return F.div(direction, F.add(F.sqrt(v), epsilon))


def adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step):
    """Adagrad dual averaging (ApplyAdagradDA):
    var = -sign(ga) * max(|ga| - l1*t, 0) * lr / (l2*t*lr + sqrt(gsa))."""
    ga = F.add(gradient_accumulator, grad)
    gsa = F.add(gradient_squared_accumulator, F.square(grad))
    step = F.cast(global_step, ga.dtype)
    shrunk = F.mul(F.sign(ga), F.maximum(F.sub(F.abs(ga), F.mul(l1, step)), 0.0))
    denominator = F.add(F.mul(F.mul(l2, step), lr), F.sqrt(gsa))
    return F.neg(F.div(F.mul(shrunk, lr), denominator)), ga, gsa


def sgd(param, grad, lr, accum, momentum, stat, dampening=0.0, weight_decay=0.0, nesterov=False):
    """MindSpore's SGD primitive: g += weight_decay*param; accum = g at the first step (stat > 0),
    else momentum*accum + (1-dampening)*g; param -= lr * (nesterov ? g + momentum*accum : accum).
    Returns (param, accum, stat), stat zero from then on."""
    if weight_decay != 0.0:
        grad = F.add(grad, F.mul(param, weight_decay))
    later = F.add(F.mul(accum, momentum), F.mul(grad, 1.0 - dampening))
    accum = F.select(F.greater(stat, 0), F.broadcast_to(grad, later.shape), later)
    step = F.add(grad, F.mul(accum, momentum)) if nesterov else accum
    return F.sub(param, F.mul(step, lr)), accum, F.zeros_like(stat)
