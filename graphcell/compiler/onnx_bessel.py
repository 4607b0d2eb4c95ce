"""ONNX rules for the Bessel functions: ops/bessel_series.py's float64 formulas, emitted as ONNX
nodes (XLA evaluates the same formulas, so the two agree to float64 rounding; float16 and
float32 operands are cast up and the result back, as there)."""
from __future__ import annotations

import numpy as np

from ..ops import bessel_series
from .onnx_special import in_float64


class OnnxMath(bessel_series.SeriesMath):
    def __init__(self, ctx):
        self.ctx = ctx

    def c(self, value):
        return self.ctx.const(np.asarray(value, np.float64))

    def op(self, op_type, *args):
        return self.ctx.op(op_type, *args)


def _rule(formula):
    @in_float64
    def rule(ctx, x):
        return formula(OnnxMath(ctx), x)
    return rule


RULES = {name: _rule(formula) for name, formula in bessel_series.FORMULAS.items()}
