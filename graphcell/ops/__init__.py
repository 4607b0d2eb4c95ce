"""graphcell.ops: the functional API (MindSpore's `mindspore.ops` names) over the primitives.

Importing this package registers every primitive (each family module declares its own).
"""
from . import core_prims, elementwise, fused_prims, linalg, nn_prims, random_prims, reductions, shape_ops, sorting, tiling  # noqa: F401
from .functional import *  # noqa: F401,F403
from .functional import (abs, all, any, pow, round, sum)  # noqa: F401,A004 - MindSpore's names
from .composite import *  # noqa: F401,F403,E402 - ops composed of other ops
from .pooling import *  # noqa: F401,F403,E402 - adaptive and 1-D pooling
from .normalization import *  # noqa: F401,F403,E402 - group_norm
from .losses import *  # noqa: F401,F403,E402 - loss functions
from .activations import *  # noqa: F401,F403,E402 - newer activation functions
from .primitive import PRIMITIVES, Literal, Primitive, ShapeError  # noqa: F401
from .sorting import argsort, cumprod, cumsum, sort, topk  # noqa: F401,E402
from .convolution import conv1d, conv_transpose2d  # noqa: F401,E402
from .control_flow import cond, fori_loop, while_loop  # noqa: F401,E402 - tensor control flow
from .dynamic_shape import argwhere, masked_select, nonzero, unique  # noqa: F401,E402 - eager only
from .scan_loop import scan  # noqa: F401,E402 - a loop with per-step outputs (jax.lax.scan)

# MindSpore's ops.grad / value_and_grad / vmap / vjp / jvp / jacfwd / jacrev: the transforms, loaded on first use
# (they import the tracer and the passes, which import this package).
_TRANSFORMS = {"grad": "graphcell.api.grad", "value_and_grad": "graphcell.api.grad", "vmap": "graphcell.api.vmap",
               **dict.fromkeys(["vjp", "jvp", "jacfwd", "jacrev"], "graphcell.api.jacobian")}


def __getattr__(name):
    import importlib
    if name not in _TRANSFORMS:
        raise AttributeError(f"module 'graphcell.ops' has no attribute {name!r}")
    value = getattr(importlib.import_module(_TRANSFORMS[name]), name)
    globals()[name] = value
    return value
