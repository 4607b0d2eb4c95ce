"""Parameter creation with MindSpore's default initialisers and draw order."""
from __future__ import annotations

import math

from ...common.initializer import HeUniform, Uniform, initialize
from ...dtype import to_dtype
from ...tensor import Parameter


def make_param(init, shape, name: str, dtype="float32", requires_grad=True) -> Parameter:
    """Samples now (the global seed's draw order is build order, as in MindSpore)."""
    array = initialize(init, tuple(shape), to_dtype(dtype).np_dtype)
    return Parameter(array, name=name, requires_grad=requires_grad)


def default_weight_init():
    return HeUniform(negative_slope=math.sqrt(5))


def default_bias_init(fan_in: int):
    return Uniform(1.0 / math.sqrt(fan_in)) if fan_in > 0 else "zeros"
