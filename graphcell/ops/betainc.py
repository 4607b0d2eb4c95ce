"""The regularized incomplete beta function I_x(a, b) (MindSpore 2.10's Betainc): a primitive
on jax's continued fraction, computed in float64, with 2.10's edge values (measured): NaN where
a <= 0 or b <= 0 (jax: 1 at a = 0, 0 at b = 0), or x outside [0, 1], or a NaN operand.

Its gradient is 2.10's: d/dx = x^(a-1) (1-x)^(b-1) / B(a, b), and zero for a and b (2.10 returns
zeros; jax has none). The ONNX form (compiler/onnx_betainc.py) runs jax's Lentz loop in float64.
"""
from __future__ import annotations

import jax.numpy as jnp
import jax.scipy.special as jsp

from .. import dtype as mstype
from ..ir.core import TensorType
from . import batching, special
from .ad_util import F, unbroadcast
from .elementwise import broadcast_shapes
from .op_base import Operator, exporter
from .primitive import Primitive, ShapeError, same_dtype

CLASSES: list[str] = []
_export = exporter(CLASSES)


def _rule(a: TensorType, b: TensorType, x: TensorType) -> TensorType:
    dtype = same_dtype("betainc", a, b, x)
    if not dtype.is_floating or dtype.is_complex:
        raise ShapeError(f"betainc needs floating-point tensors, got {a}, {b}, {x}")
    return TensorType(broadcast_shapes("betainc", a.shape, b.shape, x.shape), dtype)


def _betainc(a, b, x):
    a64, b64, x64 = jnp.broadcast_arrays(*(v.astype(jnp.float64) for v in (a, b, x)))
    out = jnp.where((a64 <= 0) | (b64 <= 0), jnp.nan, jsp.betainc(a64, b64, x64))
    return out.astype(a.dtype)


betainc = Primitive("betainc", _rule, _betainc)
betainc.def_batch(batching.broadcasting(betainc))


@betainc.def_vjp
def _betainc_vjp(ctx, cts, primals, outs):
    (a, b, x), (ct,) = primals, cts
    zeros = [unbroadcast(F.zeros_like(ct), v.shape) if ctx.needs[i] else None for i, v in enumerate((a, b))]
    if not ctx.needs[2]:
        return zeros[0], zeros[1], None
    log_beta = F.sub(F.add(special.lgamma.bind(a), special.lgamma.bind(b)), special.lgamma.bind(F.add(a, b)))
    log_density = F.sub(F.add(F.mul(F.sub(b, 1.0), F.log1p(F.neg(x))), F.mul(F.sub(a, 1.0), F.log(x))), log_beta)
    return zeros[0], zeros[1], unbroadcast(F.mul(ct, F.exp(log_density)), x.shape)


@_export
class Betainc(Operator):
    """Betainc()(a, b, x): I_x(a, b) elementwise. a, b and x share one dtype, float32 or float64,
    and one shape (2.10 broadcasts none of them)."""

    def __call__(self, a, b, x):
        values = [F.as_tensor(v) for v in (a, b, x)]
        for name, v in zip("abx", values):
            if v.dtype not in (mstype.float32, mstype.float64):
                raise TypeError(f"For primitive[Betainc], the input argument[{name}] must be a type of "
                                f"{{Tensor[Float32], Tensor[Float64]}}, but got Tensor[{v.dtype}].")
        if len({v.dtype for v in values}) > 1:
            listed = "".join(f"name:[{n}]:Tensor[{v.dtype}].\n" for n, v in zip("abx", values))
            raise TypeError(f"For primitive[Betainc], the input type must be same.\n{listed}")
        for name, v in zip("bx", values[1:]):
            if tuple(v.shape) != tuple(values[0].shape):
                raise ValueError(f"For 'Betainc, shape of {name} {_shape(v)} are not consistent with the shape a "
                                 f"{_shape(values[0])} .")
        return betainc.bind(*values)


def _shape(t) -> str:
    return "(" + ", ".join(str(d) for d in t.shape) + ")"   # 2.10 writes (3) for one dimension
