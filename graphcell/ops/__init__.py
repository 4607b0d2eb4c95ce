"""graphcell.ops: the functional API (MindSpore's `mindspore.ops` names) over the primitives,
and MindSpore's operator classes (`ops.ReduceSum(keep_dims=True)`, `operations.py`).

Importing this package registers every primitive (each family module declares its own).
"""
from . import core_prims, elementwise, fused_prims, linalg, nn_prims, random_prims, reductions, shape_ops, sorting, tiling  # noqa: F401
from .functional import *  # noqa: F401,F403
from .functional import (abs, all, any, pow, round, sum)  # noqa: F401,A004 - MindSpore's names
from .composite import *  # noqa: F401,F403,E402 - ops composed of other ops
from .primitive import PRIMITIVES, Literal, Primitive, ShapeError  # noqa: F401
from .sorting import argsort, cumprod, cumsum, sort, topk  # noqa: F401,E402
from .control_flow import cond, fori_loop, while_loop  # noqa: F401,E402 - tensor control flow
from .dynamic_shape import argwhere, masked_select, nonzero, unique  # noqa: F401,E402 - eager only
from . import operations  # noqa: F401,E402 - MindSpore's operator classes (`operations as P`)
from .operations import *  # noqa: F401,F403,E402 - ops.ReduceSum, ops.DType (the operator), ...
