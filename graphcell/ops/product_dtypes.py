"""MindSpore 2.10's refusal of a matrix product of two Tensors of different dtypes.

Measured on 2.10 (CPU), each case in a fresh process, PYNATIVE_MODE and GRAPH_MODE (a Cell),
called twice per process: ops.matmul, `Tensor @ Tensor`, Tensor.matmul, ops.MatMul, ops.mm,
ops.bmm, ops.BatchMatMul, ops.dense and nn.Dense on float16/float32, float32/float16,
float32/float64, int32/float32, float32/int32, bfloat16/float32 and int32/int64 operands: every
case is a TypeError, the same in each process and on both calls, none is promoted (ops.mv,
ops.inner, ops.tensor_dot and ops.addmm too, as 'MatMul'). The message names the primitive
the op runs; in graph mode MatMulExt's, BatchMatMul's and Dense's read otherwise.
"""
from __future__ import annotations

from ..graph_scalar import GraphScalar
from ..tensor import Tensor

__all__ = ["check_product_dtypes"]

# The primitives whose refusal reads otherwise in graph mode (measured; MatMul's does not change)
_GRAPH_FORM = frozenset({"MatMulExt", "BatchMatMul", "Dense"})


def _graph_mode() -> bool:
    """Whether the product is compiled (jit, GRAPH_MODE, vmap), not run as PYNATIVE runs it."""
    from ..frontend.concrete import runs_as_python
    from ..frontend.tracer import current_tracer
    tracer = current_tracer()
    return tracer is not None and not runs_as_python(tracer)


def check_product_dtypes(op: str, x1, x2, hint: str = "") -> None:
    """Raises 2.10's TypeError when Tensors `x1` and `x2` of primitive `op` differ in dtype
    (a Python number takes the Tensor's dtype, as elsewhere); `hint`, if given, follows 2.10's
    words (a layer's name and the cast that fixes it)."""
    if (not isinstance(x1, Tensor) or not isinstance(x2, Tensor) or x1.dtype is x2.dtype
            or type(x1) is GraphScalar or type(x2) is GraphScalar):
        return
    if op in _GRAPH_FORM and _graph_mode():
        raise TypeError(f"For primitive[{op}], the input type must be same.\nname:[w]:Tensor[{x2.dtype}].\n"
                        f"name:[x]:Tensor[{x1.dtype}].")
    raise TypeError(f"For '{op}', the type of 'x2' should be same as 'x1', but got 'x1' with type "
                    f"Tensor[{x1.dtype}] and 'x2' with type Tensor[{x2.dtype}]." + (f" {hint}" if hint else ""))
