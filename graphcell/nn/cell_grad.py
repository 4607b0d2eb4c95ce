"""MindSpore 2.10's nn.Jvp and nn.Vjp: Cells around graphcell.jvp and graphcell.vjp.

Called with the network's inputs followed by one more argument, the tangent (Jvp: a Tensor per
input) or the cotangent (Vjp: a Tensor per output). As 2.10 returns them (measured on its CPU
build):
    Jvp(fn)(*inputs, v) -> (outputs, J v)         outputs and J v shaped like fn's outputs
    Vjp(fn)(*inputs, v) -> (outputs, v^T J)       v^T J a Tensor for one input, a tuple for several
"""
from __future__ import annotations

from .cell import Cell


def _inputs_and_direction(name: str, args):
    if len(args) < 2:
        raise TypeError(f"For '{name}', give the network's inputs and then the vector 'v', but got {len(args)} "
                        f"argument(s).")
    return args[:-1], args[-1]


class Jvp(Cell):
    """Jvp(fn)(*inputs, v): fn's outputs and its Jacobian-vector product along `v`."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        from ..api.jacobian import jvp
        inputs, v = _inputs_and_direction("Jvp", args)
        return jvp(self.fn, inputs, v)


class Vjp(Cell):
    """Vjp(fn)(*inputs, v): fn's outputs and the vector-Jacobian product `v^T J` per input."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        from ..api.jacobian import vjp
        inputs, v = _inputs_and_direction("Vjp", args)
        outputs, vjp_fn = vjp(self.fn, *inputs)
        grads = vjp_fn(v)
        return outputs, (grads[0] if len(inputs) == 1 else grads)
