"""MindSpore 2.10's get_grad: one gradient out of what grad(..., return_ids=True) returns."""
from __future__ import annotations

import numbers

from ..tensor import Parameter


def get_grad(gradients, identifier):
    """The gradient paired with `identifier` (an input position, or a Parameter: its name) in the
    (id, gradient) pairs of grad(..., return_ids=True), searched depth first (2.10's)."""
    if isinstance(identifier, Parameter):
        key = identifier.name
    elif isinstance(identifier, numbers.Integral) and not isinstance(identifier, bool):
        key = int(identifier)
    else:
        raise TypeError(f"For `get_grad`, the `x` should be an integer or a Parameter, but got {identifier}")

    def find(node):
        if not isinstance(node, tuple):
            return None
        if len(node) == 2 and isinstance(node[0], (int, str)) and type(node[0]) is type(key) and node[0] == key:
            return node[1]
        for child in node:
            found = find(child)
            if found is not None:
                return found
        return None

    found = find(gradients)
    if found is None:
        raise RuntimeError(f"Can not find the gradient for position or Parameter {identifier}")
    return found
