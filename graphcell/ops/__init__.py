"""graphcell.ops: the functional API (MindSpore's `mindspore.ops` names) over the primitives.

Importing this package registers every primitive (each family module declares its own).
"""
from . import core_prims, elementwise, fused_prims, linalg, nn_prims, random_prims, reductions, shape_ops, sorting, tiling  # noqa: F401
from .functional import *  # noqa: F401,F403
from .functional import (abs, all, any, pow, round, sum)  # noqa: F401,A004 - MindSpore's names
from .composite import *  # noqa: F401,F403,E402 - ops composed of other ops
from .primitive import PRIMITIVES, Literal, Primitive, ShapeError  # noqa: F401
from .sorting import argsort, cumprod, cumsum, sort, topk  # noqa: F401,E402
from .convolution import conv1d, conv_transpose2d  # noqa: F401,E402
from .control_flow import cond, fori_loop, while_loop  # noqa: F401,E402 - tensor control flow
from .dynamic_shape import argwhere, masked_select, nonzero, unique  # noqa: F401,E402 - eager only
from .array_ops import *  # noqa: F401,F403,E402 - reductions, scans, shapes, draws, lookups
from .array_ops import max, min, range  # noqa: F401,E402,A004 - MindSpore's names
from .linalg_ops import *  # noqa: F401,F403,E402 - products, norms, distances

# MindSpore's ops.grad / ops.value_and_grad / ops.vmap: the transforms, loaded on first use
# (they import the tracer and the passes, which import this package).
_TRANSFORMS = {"grad": "graphcell.api.grad", "value_and_grad": "graphcell.api.grad", "vmap": "graphcell.api.vmap"}


def __getattr__(name):
    import importlib
    if name not in _TRANSFORMS:
        raise AttributeError(f"module 'graphcell.ops' has no attribute {name!r}")
    value = getattr(importlib.import_module(_TRANSFORMS[name]), name)
    globals()[name] = value
    return value
