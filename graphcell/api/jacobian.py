"""`vjp`, `jvp`, `jacrev` and `jacfwd` with MindSpore 2.10's calling conventions (measured).

    vjp(fn, *inputs, weights=None, has_aux=False) -> (outputs, vjp_fn[, aux])
    jvp(fn, inputs, v, has_aux=False)             -> (outputs, jvp_out[, aux])
    jacrev(fn, grad_position=0, has_aux=False)    -> a function giving the Jacobian (and aux)
    jacfwd(fn, grad_position=0, has_aux=False)    -> the same Jacobian

All are built on the reverse-mode `grad` (the grad pass): `vjp_fn(v)` is `grad` with `v` as
the sens; `jvp` is the gradient of the linear map `u -> <vjp_fn(u), v>` (reverse over reverse,
which graphcell's grad of grad supports); a Jacobian is `vjp_fn` mapped with `vmap` over the
rows of an identity. So `jacfwd` gives `jacrev`'s values by reverse mode: the same numbers,
at reverse mode's cost (one backward pass per output element, batched).

A Jacobian of output `o` with respect to input `x` has shape `o.shape + x.shape`. With several
outputs and positions it is nested per output, then per position, as MindSpore returns it.
"""
from __future__ import annotations

import numpy as np

from ..ops import functional as F
from ..tensor import Tensor
from .grad import grad


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _split_aux(fn, has_aux: bool, args):
    out = fn(*args)
    if not has_aux:
        return out, ()
    if not isinstance(out, tuple) or len(out) < 2:
        raise ValueError("with has_aux=True the function must return a tuple (output, aux, ...)")
    return out[0], out[1:]


def vjp(fn, *inputs, weights=None, has_aux=False):
    """(outputs, vjp_fn) (and the aux outputs after them with `has_aux`): `vjp_fn(v)` gives the
    gradients of `<outputs, v>` for every input, as a tuple (then the weights' gradients)."""
    if not inputs:
        raise ValueError("vjp: give at least one input")
    outputs, aux = _split_aux(fn, has_aux, inputs)
    positions = tuple(range(len(inputs)))
    backward = grad(fn, positions, weights=weights, has_aux=has_aux, sens_param=True)

    def vjp_fn(*v):
        sens = v[0] if len(v) == 1 else v
        grads = backward(*inputs, sens)
        if has_aux:
            grads = grads[0]
        if weights is None:
            return grads if len(positions) > 1 else (grads,)
        input_grads, weight_grads = grads
        return (input_grads if len(positions) > 1 else (input_grads,)), weight_grads

    return (outputs, vjp_fn, *aux) if has_aux else (outputs, vjp_fn)


def jvp(fn, inputs, v, has_aux=False):
    """(outputs, J v) (and aux with `has_aux`): the derivative of `fn` at `inputs` along `v`
    (a Tensor per input)."""
    inputs, tangents = _as_tuple(inputs), _as_tuple(v)
    if len(tangents) != len(inputs):
        raise ValueError(f"jvp: 'v' has {len(tangents)} tangents for {len(inputs)} inputs; give one per input")
    outputs, aux = _split_aux(fn, has_aux, inputs)
    leaves = _as_tuple(outputs)
    for x, t in zip(inputs, tangents):
        if tuple(x.shape) != tuple(t.shape):
            raise ValueError(f"jvp: a tangent of shape {list(t.shape)} for an input of shape {list(x.shape)}")
    backward = grad(fn, tuple(range(len(inputs))), has_aux=has_aux, sens_param=True)

    def pairing(*cotangents):
        # <vjp(u), v>: linear in u, so its gradient with respect to u is J v
        grads = backward(*inputs, cotangents[0] if len(cotangents) == 1 else cotangents)
        grads = _as_tuple(grads[0] if has_aux else grads)
        total = None
        for g, t in zip(grads, tangents):
            term = F.reduce_sum(F.mul(g, t))
            total = term if total is None else F.add(total, term)
        return total

    zeros = tuple(F.zeros_like(o) for o in leaves)
    positions = tuple(range(len(zeros)))
    directional = grad(pairing, positions if len(zeros) > 1 else 0)(*zeros)
    result = (outputs, directional)
    return (*result, *aux) if has_aux else result


def jacrev(fn, grad_position=0, has_aux=False):
    """A function giving the Jacobian of `fn` with respect to the inputs at `grad_position`
    (by reverse mode: one vjp per output element, batched with vmap)."""
    return _Jacobian(fn, grad_position, has_aux)


def jacfwd(fn, grad_position=0, has_aux=False):
    """MindSpore's forward-mode Jacobian: the same values as `jacrev` (graphcell computes both
    by reverse mode; see the module docstring)."""
    return _Jacobian(fn, grad_position, has_aux)


class _Jacobian:
    def __init__(self, fn, grad_position, has_aux):
        if isinstance(grad_position, bool) or not isinstance(grad_position, (int, tuple)):
            raise TypeError(f"jacobian: 'grad_position' must be an int or a tuple of ints, got {grad_position!r}")
        self.fn, self.grad_position, self.has_aux = fn, grad_position, has_aux

    def __call__(self, *args):
        from .vmap import vmap
        positions = _as_tuple(self.grad_position)
        outputs, aux = _split_aux(self.fn, self.has_aux, args)
        leaves = _as_tuple(outputs)
        backward = grad(self.fn, positions, has_aux=self.has_aux, sens_param=True)
        per_output = []
        for k, out in enumerate(leaves):
            size = int(np.prod(out.shape))

            def row(e, k=k, out=out):
                # the basis cotangent for output k, zeros for the others
                sens = [F.zeros_like(o) for o in leaves]
                sens[k] = F.reshape(e, out.shape)
                grads = backward(*args, sens[0] if len(leaves) == 1 else tuple(sens))
                return _as_tuple(grads[0] if self.has_aux else grads)

            basis = Tensor(np.eye(size, dtype=out.dtype.np_dtype))
            rows = vmap(row)(basis)                     # per position: [size, *x.shape]
            jac = tuple(F.reshape(r, tuple(out.shape) + tuple(r.shape[1:])) for r in rows)
            per_output.append(jac[0] if isinstance(self.grad_position, int) else jac)
        result = per_output[0] if len(leaves) == 1 and not isinstance(outputs, tuple) else tuple(per_output)
        return (result, *aux) if self.has_aux else result
