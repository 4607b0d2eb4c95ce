"""ONNX rules: one entry per primitive, `rule(ctx, *input_names, **attrs) -> output name(s)`.

`RULES` is the backend's table; importing this module also stores each rule on its primitive
(`prim.onnx_rule`). Primitives with no single ONNX op are decomposed here: lhs-dilated and
batch-grouped convolutions, windowed reductions over any axes, the max-pool gradient,
clipping gathers, the threefry random primitives (in `onnx_random`), the gamma family (in
`onnx_special`) and the incomplete gamma and zeta functions (in `onnx_igamma_zeta`). A
primitive with no rule here makes export fail, naming it.
"""
from __future__ import annotations

import numpy as np

from ..dtype import bool_, float16, float32, int32, int64
from ..ops import PRIMITIVES
from .export_clamps import clipped_bounds
from . import onnx_int_reductions
from .onnx import LowerCtx, OnnxExportError, Sym, onnx_dtype, reshape_target

INT64_MAX = np.iinfo(np.int64).max


# -- helpers -----------------------------------------------------------------------------------

def cast(ctx: LowerCtx, x: str, dtype) -> str:
    return ctx.op("Cast", x, to=onnx_dtype(dtype))


def via(dtype, rule):
    """Runs `rule` on operands cast to `dtype` when they are bool (ONNX arithmetic has no bool)."""
    def wrapped(ctx, *xs, **attrs):
        src = ctx.in_types[0].dtype
        if src is not bool_:
            return rule(ctx, *xs, **attrs)
        out = rule(ctx, *[cast(ctx, x, dtype) for x in xs], **attrs)
        return out if ctx.out_type.dtype is not bool_ else cast(ctx, out, bool_)
    return wrapped


def unary(op_type: str):
    return lambda ctx, x: ctx.op(op_type, x)


def neg(ctx, x):
    """ONNX's Neg is for signed types: an unsigned one wraps as 0 - x does (XLA's)."""
    if ctx.in_types[0].dtype.np_dtype.kind == "u":
        return ctx.op("Sub", ctx.const(np.zeros((), ctx.in_types[0].dtype.np_dtype)), x)
    return ctx.op("Neg", x)


def abs_rule(ctx, x):
    """ONNX's Abs has no bool: a bool is its own absolute value."""
    if ctx.in_types[0].dtype is bool_:
        return ctx.op("Identity", x)
    return ctx.op("Abs", x)


def unary_alpha(op_type: str):
    """LeakyRelu and Elu, which onnxruntime's CPU provider has for float32 and float16 only:
    other dtypes get the select they stand for (float64 models failed to load)."""
    def rule(ctx, x, *, alpha):
        if ctx.in_types[0].dtype in (float32, float16):
            return ctx.op(op_type, x, alpha=alpha)
        negative = ctx.op("Mul", expm1(ctx, x) if op_type == "Elu" else x, scalar(ctx, alpha))
        return ctx.op("Where", ctx.op("Greater", x, scalar(ctx, 0)), x, negative)
    return rule


def shrink(ctx, x, *, lambd, bias):
    """onnxruntime's Shrink computes a float64 input in float32 (0.7 came back 0.69999999):
    other dtypes than float32 and float16 get the selects it stands for."""
    if ctx.in_types[0].dtype in (float32, float16):
        return ctx.op("Shrink", x, lambd=lambd, bias=bias)
    below = ctx.op("Less", x, scalar(ctx, -lambd))
    above = ctx.op("Greater", x, scalar(ctx, lambd))
    kept = ctx.op("Where", above, ctx.op("Sub", x, scalar(ctx, bias)), scalar(ctx, 0.0))
    return ctx.op("Where", below, ctx.op("Add", x, scalar(ctx, bias)), kept)


def relu(ctx, x):
    # Relu keeps NaN where XLA's relu gives MindSpore's 0: onnxruntime's one op with 0
    # (ThresholdedRelu, alpha=0) does not fuse into the Conv / Gemm before it, and LeNet5
    # inference ran 1.06-1.6x slower with it (N=1 and N=16 ensembles, batch 1-256).
    if ctx.in_types[0].dtype.is_floating:
        return ctx.op("Relu", x)
    return ctx.op("Max", x, scalar(ctx, 0))   # onnxruntime's Relu has no int64


def sign(ctx, x):
    """Floats: (x > 0) - (x < 0), so NaN gives 0 as XLA's rule (onnxruntime's Sign keeps NaN in
    float32; it is an unvectorised kernel, which the five ops take 1.6x the time of)."""
    if not ctx.in_types[0].dtype.is_floating:
        return ctx.op("Sign", x)
    dtype = ctx.in_types[0].dtype
    positive = cast(ctx, ctx.op("Greater", x, scalar(ctx, 0)), dtype)
    negative = cast(ctx, ctx.op("Less", x, scalar(ctx, 0)), dtype)
    return ctx.op("Sub", positive, negative)


def binary(op_type: str):
    return lambda ctx, x, y: ctx.op(op_type, x, y)


def scalar(ctx: LowerCtx, value, like_index: int = 0) -> str:
    """A 0-d constant of input `like_index`'s dtype."""
    return ctx.const(np.asarray(value, ctx.in_types[like_index].dtype.np_dtype))


def unsqueeze(ctx, x, axes):
    return ctx.op("Unsqueeze", x, ctx.ints(list(axes)))


def squeeze(ctx, x, axes):
    return ctx.op("Squeeze", x, ctx.ints(list(axes)))


def transpose(ctx, x, perm):
    perm = list(perm)
    return x if perm == sorted(perm) else ctx.op("Transpose", x, perm=perm)


def reshape(ctx, x, dims):
    """Reshape to `dims` (ints and Syms); a literal 0 would mean "copy" in ONNX, so allowzero
    is set when a static target contains one."""
    static = not any(isinstance(d, Sym) for d in dims)
    allowzero = 1 if static and 0 in dims else None
    return ctx.op("Reshape", x, ctx.shape_tensor(dims), allowzero=allowzero)


def slice_(ctx, x, axes, starts, ends, steps=None):
    if not axes:
        return x
    steps = steps or [1] * len(axes)
    return ctx.op("Slice", x, ctx.ints(starts), ctx.ints(ends), ctx.ints(axes), ctx.ints(steps))


def clip_index(ctx, idx, dim) -> str:
    """Indices as int64 clamped to [0, dim - 1], as XLA gathers clamp (ONNX would fail)."""
    idx = idx if ctx.in_types[1].dtype is int64 else cast(ctx, idx, int64)
    hi = ctx.op("Sub", ctx.size_of(dim), ctx.ints([1]))
    hi = squeeze(ctx, hi, [0])
    return ctx.op("Clip", idx, ctx.const(np.asarray(0, np.int64)), hi)


def inverse(perm):
    return [int(i) for i in np.argsort(perm)]


# -- constants, casts ---------------------------------------------------------------------------

def constant(ctx: LowerCtx, *, value):
    array = value.array
    dims = ctx.out_dims[0]
    if not ctx.is_dynamic(dims):
        return ctx.const(array)
    # A constant whose shape follows the batch (zeros((x.shape[0], 10))): keep one slice along
    # each dynamic axis and expand it at run time. It must not vary along those axes.
    axes = [i for i, d in enumerate(dims) if isinstance(d, Sym)]
    seed = array[tuple(slice(0, 1) if i in axes else slice(None) for i in range(array.ndim))]
    if not np.array_equal(np.broadcast_to(seed, array.shape), array):
        # Constants are shared and carry no line of their own: name where the first reader is.
        reader = next((n for n in ctx.node.outputs[0].users if n.source.file), None)
        read = f" (read by {reader.primitive.name} at {reader.source})" if reader is not None else ""
        ctx.fail(f"a constant of shape {list(array.shape)}{read} varies along the dynamic axes {axes}: made "
                 "from a size (ops.eye(x.shape[0]), ops.arange(x.shape[0]), a numpy array of the batch's "
                 "length), it is right at the example's size only; build it from the input with ops on "
                 "Tensors (ops.ones_like, ops.cumsum) instead")
    return ctx.op("Expand", ctx.const(seed), ctx.shape_tensor(dims, minus_one=False))


def cast_rule(ctx, x, *, dtype):
    src = ctx.in_types[0].dtype
    if src.is_floating and dtype.is_integer:
        return saturating_cast(ctx, x, src, dtype)
    return cast(ctx, x, dtype)


def saturating_cast(ctx, x, src, dtype):
    """A float cast to an integer type as XLA casts it (the eager and jit result): out-of-range
    values saturate at the type's bounds and NaN becomes 0. onnxruntime's Cast is C's
    conversion, which wraps (-2.5 to uint8 is 254) or gives the type's minimum (NaN, inf and
    3e9 to int32 are -2**31). The bounds are the floats nearest inside the type's range (the
    lower one, 0 or a power of two, is exact); a value above an upper bound that the float
    cannot hold exactly (int32's 2**31 - 1 in float32) is replaced by the type's maximum after
    the Cast, by a Where in a type onnxruntime has one for (none at uint64)."""
    if src.itemsize < 4:   # float16 and bfloat16 hold exactly in float32, which has Clip and Where kernels
        x, src = cast(ctx, x, float32), float32
    info, fdt = np.iinfo(dtype.np_dtype), src.np_dtype
    x = ctx.op("Where", ctx.op("IsNaN", x), ctx.const(np.zeros((), fdt)), x)
    hi = np.asarray(info.max, fdt)
    if float(hi) > info.max:   # rounded up: 2**31 for int32 in float32
        hi = np.nextafter(hi, fdt.type(0))
    y = cast(ctx, ctx.op("Clip", x, ctx.const(np.asarray(info.min, fdt)), ctx.const(hi)), dtype)
    if float(hi) == info.max:
        return y
    where_type = int64 if dtype.name == "uint64" else dtype   # uint64's all-ones is int64's -1
    top = ctx.const(np.asarray(info.max).astype(where_type.np_dtype))
    y = ctx.op("Where", ctx.op("Greater", x, ctx.const(hi)), top, y if where_type is dtype else cast(ctx, y, where_type))
    return y if where_type is dtype else cast(ctx, y, dtype)


# -- elementwise ---------------------------------------------------------------------------------

def in_float32(rule):
    """onnxruntime implements some ops (Erf, Conv) for float32 only: float64 operands are
    computed in float32 and cast back (float32 accuracy)."""
    def wrapped(ctx, *xs, **attrs):
        if ctx.in_types[0].dtype.np_dtype != np.float64:
            return rule(ctx, *xs, **attrs)
        f32 = [cast(ctx, x, float32) for x in xs]
        return cast(ctx, rule(ctx, *f32, **attrs), ctx.out_type.dtype)
    return wrapped


def rsqrt(ctx, x):
    return ctx.op("Reciprocal", ctx.op("Sqrt", x))


def is_finite(ctx, x):
    return ctx.op("Not", ctx.op("Or", ctx.op("IsInf", x), ctx.op("IsNaN", x)))


def log1p(ctx, x, one=None):
    # Kahan's trick: log(u) * x / (u - 1) with u = 1 + x cancels u's rounding error (x / (u - 1)
    # first: log(u) * x overflows from x ~ 4e36 on). `one`: a 1 of x's dtype, where the
    # node's first input is not of it.
    one = one or scalar(ctx, 1)
    u = ctx.op("Add", x, one)
    um1 = ctx.op("Sub", u, one)
    ratio = ctx.op("Mul", ctx.op("Log", u), ctx.op("Div", x, um1))
    inf = ctx.op("IsInf", u, detect_negative=0)
    return ctx.op("Where", ctx.op("Or", ctx.op("Equal", u, one), inf), ctx.op("Where", inf, u, x), ratio)


def expm1(ctx, x):
    # Kahan's trick: (u - 1) * x / log(u) with u = exp(x); exact-ish near 0, exp(x) - 1 far away.
    one = scalar(ctx, 1)
    u = ctx.op("Exp", x)
    um1 = ctx.op("Sub", u, one)
    ratio = ctx.op("Div", ctx.op("Mul", um1, x), ctx.op("Log", u))
    near = ctx.op("Equal", u, one)
    far = ctx.op("Or", ctx.op("Equal", um1, scalar(ctx, -1)), ctx.op("IsInf", u))
    return ctx.op("Where", near, x, ctx.op("Where", far, um1, ratio))


def in_float32_math(rule):
    """`rule(ctx, dtype, *xs)` computed in float32: onnxruntime has the inverse trigonometric and
    hyperbolic ops for float32 (and float16) only, and the polynomial fits below are for float32.
    float16 and float64 operands are cast to float32 and the result back (float32 accuracy)."""
    def wrapped(ctx, *xs):
        if ctx.in_types[0].dtype is float32:
            return rule(ctx, np.float32, *xs)
        out = rule(ctx, np.float32, *[cast(ctx, x, float32) for x in xs])
        return cast(ctx, out, ctx.out_type.dtype)
    return wrapped


def polynomial(ctx, t, coefficients, dtype):
    """c0 + c1 t + c2 t^2 + ... by Horner's rule."""
    p = ctx.const(np.asarray(coefficients[-1], dtype))
    for c in reversed(coefficients[:-1]):
        p = ctx.op("Add", ctx.op("Mul", p, t), ctx.const(np.asarray(c, dtype)))
    return p


def atan2(ctx, dtype, y, x):
    """ONNX has no Atan2: atan(|y| / |x|) in [0, pi/2], put in its quadrant by the signs of x
    and y, -0.0 counting as negative (atan2(0, -0) = pi, atan2(-0, x) = -0 or -pi, as C)."""
    def const(v):
        return ctx.const(np.asarray(v, dtype))

    def negative(v):   # v < 0, or v is -0.0 (1 / -0.0 = -inf)
        return ctx.op("Or", ctx.op("Less", v, const(0)), ctx.op("Less", ctx.op("Reciprocal", v), const(0)))
    a = ctx.op("Atan", ctx.op("Div", ctx.op("Abs", y), ctx.op("Abs", x)))
    zeros = ctx.op("And", ctx.op("Equal", y, const(0)), ctx.op("Equal", x, const(0)))
    infinities = ctx.op("And", ctx.op("IsInf", y), ctx.op("IsInf", x))    # 0/0 and inf/inf are NaN
    a = ctx.op("Where", zeros, const(0), ctx.op("Where", infinities, const(np.pi / 4), a))
    a = ctx.op("Where", negative(x), ctx.op("Sub", const(np.pi), a), a)
    # The sign as a product: onnxruntime's Where returns +0.0 for a selected -0.0.
    return ctx.op("Mul", a, ctx.op("Where", negative(y), const(-1), const(1)))


# Least-squares fits (Chebyshev nodes, against mpmath) of erfinv(x) / x as a polynomial in
# w - 2.5 for w = -log((1 - x)(1 + x)) < 5, and in sqrt(w) - 3 for 5 <= w <= 17 (float32's last
# x below 1 has w = 15.9); relative error below 1.5e-8 in exact arithmetic.
ERFINV_CENTRAL = (1.5014093598328822, 0.24664028938940982, -0.004177389759080223, -0.001252748416455863,
                  0.00021834691469274826, -4.959743495190891e-06, -3.4633561655433956e-06,
                  4.654287304868779e-07, 2.3285844507062676e-08, -8.739830973223667e-09)
ERFINV_TAIL = (2.8329768140986133, 1.0016749028583853, 0.00944461254634508, -0.007636236569278338,
               0.005692322513373898, -0.0036028830107539198, 0.001471622656449233, -4.48249051843535e-05,
               -0.00029893896711123024, 0.0001064220110640293)
# erfc(a) = t exp(-a^2 + P(t)) for a >= 0, t = 2 / (2 + a): P fitted likewise on 0 <= a <= 10.5
# (erfc is 0 in float32 beyond), absolute error below 1e-8.
ERFC_EXPONENT = (-1.2655717252480916, 1.0016734504475922, 0.35462745923818495, 0.22495894030098887,
                 -0.7081291868544358, 1.6555892798152723, -3.5291705610117168, 4.210768196150723,
                 -2.7685001998951817, 0.9643716822806331, -0.14061733224379294)


def erfinv(ctx, dtype, x):
    """x * P(w): +-inf at +-1 (P(inf) = inf), NaN beyond (the log of a negative number)."""
    def const(v):
        return ctx.const(np.asarray(v, dtype))
    one = const(1)
    w = ctx.op("Neg", ctx.op("Log", ctx.op("Mul", ctx.op("Sub", one, x), ctx.op("Add", one, x))))
    central = polynomial(ctx, ctx.op("Sub", w, const(2.5)), ERFINV_CENTRAL, dtype)
    tail = polynomial(ctx, ctx.op("Sub", ctx.op("Sqrt", w), const(3)), ERFINV_TAIL, dtype)
    return ctx.op("Mul", x, ctx.op("Where", ctx.op("Less", w, const(5)), central, tail))


def erfc(ctx, dtype, x):
    """t exp(-a^2 + P(t)) for a = |x|, 2 - that for x < 0. a^2 is split as hi^2 + lo (a + hi)
    with hi = a rounded down to 1/16, so exp(-hi^2) has an exact argument: exp(-a*a) alone
    would lose a relative 1e-5 of erfc(9) to the rounding of a*a."""
    def const(v):
        return ctx.const(np.asarray(v, dtype))
    a = ctx.op("Min", ctx.op("Abs", x), const(10.5))   # erfc(10.5) is 0 in float32; NaN stays NaN
    t = ctx.op("Div", const(2), ctx.op("Add", a, const(2)))
    hi = ctx.op("Div", ctx.op("Floor", ctx.op("Mul", a, const(16))), const(16))
    rest = ctx.op("Mul", ctx.op("Sub", a, hi), ctx.op("Add", a, hi))   # a^2 - hi^2
    scale = ctx.op("Mul", t, ctx.op("Exp", ctx.op("Neg", ctx.op("Mul", hi, hi))))
    y = ctx.op("Mul", scale, ctx.op("Exp", ctx.op("Sub", polynomial(ctx, t, ERFC_EXPONENT, dtype), rest)))
    return ctx.op("Where", ctx.op("Less", x, const(0)), ctx.op("Sub", const(2), y), y)


def div(ctx, x, y):
    if ctx.in_types[0].dtype.is_floating:
        return ctx.op("Div", x, y)
    # Integer division floors (jnp.floor_divide); ONNX Div truncates. x - mod(x, y) is an exact
    # multiple of y when mod takes the divisor's sign (fmod=0).
    return ctx.op("Div", ctx.op("Sub", x, ctx.op("Mod", x, y, fmod=0)), y)


def logical(op_type: str):
    """Not/And/Or/Xor of bools; of integers, their bitwise forms (opset 18 on)."""
    def rule(ctx, *xs):
        if ctx.in_types[0].dtype is bool_:
            return ctx.op(op_type, *xs)
        if ctx.opset < 18:
            raise OnnxExportError(f"bitwise {op_type.lower()} of {ctx.in_types[0].dtype} tensors needs opset 18 "
                                  f"or newer (ONNX Bitwise{op_type}); export with opset=18")
        return ctx.op(f"Bitwise{op_type}", *xs)
    return rule


def ne(ctx, x, y):
    return ctx.op("Not", ctx.op("Equal", x, y))


def compare(op_type: str):
    return via(int32, binary(op_type))


def maximum(ctx, x, y):
    # max(x, 0) is a ReLU: onnxruntime fuses Relu into the Conv / Gemm before it, not Max.
    other = ctx.node.inputs[1].producer
    if other is not None and other.primitive.name == "constant" and ctx.in_types[0].shape == ctx.out_type.shape \
            and ctx.in_types[0].dtype.is_floating and not np.any(other.attrs["value"].array):
        return ctx.op("Relu", x)
    return via(int32, binary("Max"))(ctx, x, y)


def relu6(ctx, x):
    return ctx.op("Clip", x, scalar(ctx, 0), scalar(ctx, 6))


def hard_sigmoid(ctx, x):
    """x / 6 + 1/2 clipped to [0, 1]: onnxruntime fuses it into the Conv before it."""
    return ctx.op("HardSigmoid", x, alpha=1.0 / 6.0, beta=0.5)


def select(ctx, p, x, y):
    if ctx.in_types[1].dtype is bool_:   # onnxruntime's Where has no bool values
        return cast(ctx, ctx.op("Where", p, cast(ctx, x, int32), cast(ctx, y, int32)), bool_)
    return ctx.op("Where", p, x, y)


# -- reductions -----------------------------------------------------------------------------------

def reducer(op_type: str):
    """ReduceX over `axes`; integer sums and products are exact ones (onnxruntime's ReduceSum and
    ReduceProd accumulate integers in double: compiler/onnx_int_reductions.py)."""
    exact = {"ReduceSum": onnx_int_reductions.integer_sum, "ReduceProd": onnx_int_reductions.integer_prod}.get(op_type)

    def rule(ctx, x, *, axes):
        if not axes:
            return ctx.op("Identity", x)
        dtype = ctx.in_types[0].dtype
        if exact is not None and not (dtype.is_floating or dtype.is_complex):   # (complex: float pairs)
            np_dtype = np.int32 if dtype is bool_ else dtype.np_dtype   # (bool: via int32)
            return exact(ctx, x, ctx.in_dims[0], axes, ctx.out_dims[0], np_dtype)
        if op_type == "ReduceSum" or ctx.opset >= 18:
            return ctx.op(op_type, x, ctx.ints(list(axes)), keepdims=0)
        return ctx.op(op_type, x, axes=list(axes), keepdims=0)
    return via(int32, rule)


def element_count(ctx, x, *, axes, dtype):
    dims = [ctx.in_dims[0][a] for a in axes]
    if not any(isinstance(d, Sym) for d in dims):
        return ctx.const(np.asarray(np.prod(dims), dtype.np_dtype))
    sizes = ctx.shape_tensor(dims, minus_one=False)     # int64[k], the dynamic ones from the inputs
    return cast(ctx, ctx.op("ReduceProd", sizes, keepdims=0), dtype)


# -- shapes ---------------------------------------------------------------------------------------

def reshape_rule(ctx, x, *, shape):
    return reshape(ctx, x, ctx.out_dims[0])


def transpose_rule(ctx, x, *, perm):
    return ctx.op("Transpose", x, perm=list(perm))


def broadcast_in_dim(ctx, x, *, shape, dims):
    in_dims, out_dims = ctx.in_dims[0], ctx.out_dims[0]
    if 0 in out_dims:  # an empty result is a constant (onnxruntime's optimizer drops an Expand to 0)
        return ctx.const(np.zeros(ctx.out_type.shape, ctx.out_type.dtype.np_dtype))
    new_axes = [i for i in range(len(shape)) if i not in dims]
    y = unsqueeze(ctx, x, new_axes) if new_axes else x
    # Expand broadcasts both ways, so 1 keeps an input axis (static or dynamic) as it is.
    target = list(out_dims)
    for i, d in enumerate(dims):
        if in_dims[i] == out_dims[d]:
            target[d] = 1
    if all(t == 1 for t in target):
        return y if y != x else ctx.op("Identity", x)
    return ctx.op("Expand", y, ctx.shape_tensor(target, minus_one=False))


def concatenate(ctx, *xs, axis):
    return ctx.op("Concat", *xs, axis=axis)


def slice_rule(ctx, x, *, start, limit, strides):
    dims, other = ctx.in_dims[0], ctx.other
    axes, starts, ends, steps = [], [], [], []
    for axis, (d, s, l, st) in enumerate(zip(dims, start, limit, strides)):
        size = ctx.in_types[0].shape[axis]
        o_full = other is None or (other.attrs["start"][axis] == 0 and other.attrs["strides"][axis] == 1
                                   and other.attrs["limit"][axis] == other.inputs[0].shape[axis])
        if s == 0 and l == size and st == 1 and (o_full or not isinstance(d, Sym)):
            continue  # (x[:3] traced at batch 3 is still a slice at other batch sizes)
        begin, end = s, l
        if isinstance(d, Sym):
            # A slice of a batch-dependent axis must be the same in both traces: each bound
            # the same from the start (x[0], x[:2]) or the same relative to the end (x[1:],
            # x[-2:], x[:-1]), which ONNX's negative bounds (and INT64_MAX for the end) express.
            from_end = (s - size if s - size else INT64_MAX), (l - size if l - size else INT64_MAX)
            end = from_end[1]   # (no second trace: the end relative, the start from the start)
            if other is not None:
                begin = from_end[0]
                o_size = other.inputs[0].shape[axis]
                o_start, o_limit = other.attrs["start"][axis], other.attrs["limit"][axis]
                begin = s if o_start == s else begin if o_start - o_size == s - size else None
                end = l if o_limit == l else end if o_limit - o_size == l - size else None
                if begin is None or end is None or other.attrs["strides"][axis] != st:
                    ctx.fail(f"slice [{s}:{l}:{st}] of dynamic axis {axis} is not the same slice, from the "
                             f"start or relative to the end, at another batch size ([{o_start}:{o_limit}])")
            if d.hi is not None:   # one size in both traces (x[-3:][-1:]): the one below the clip tells
                begin, end = clipped_bounds(ctx, axis, s, l, st)
        axes.append(axis)
        starts.append(begin)
        ends.append(end)
        steps.append(st)
    if not axes:
        return ctx.op("Identity", x)
    return slice_(ctx, x, axes, starts, ends, steps)


def rev(ctx, x, *, axes):
    # Step -1 from the last element (start -1) past the first (end INT64_MIN clamps to -1).
    n = len(axes)
    return slice_(ctx, x, list(axes), [-1] * n, [np.iinfo(np.int64).min] * n, [-1] * n)


def crop(ctx, x, lo, hi):
    """Removes max(-lo, 0) / max(-hi, 0) elements at each axis' start / end."""
    axes, starts, ends = [], [], []
    for axis, (a, b) in enumerate(zip(lo, hi)):
        if a < 0 or b < 0:
            axes.append(axis)
            starts.append(max(-a, 0))
            ends.append(b if b < 0 else INT64_MAX)
    return slice_(ctx, x, axes, starts, ends)


def pad(ctx, x, v, *, lo, hi):
    other = ctx.other
    if other is not None and (other.attrs["lo"], other.attrs["hi"]) != (lo, hi):
        return _pad_following_the_batch(ctx, x, v, lo, hi)
    pos_lo, pos_hi = [max(a, 0) for a in lo], [max(b, 0) for b in hi]
    if any(pos_lo) or any(pos_hi):
        x = ctx.op("Pad", x, ctx.ints(pos_lo + pos_hi), v, mode="constant")
    return crop(ctx, x, lo, hi)


def _pad_following_the_batch(ctx, x, v, lo, hi):
    """A pad whose amounts differ between the two traces (setitem's x[-2:] = v puts v after
    batch - 2 rows): on each axis one side may follow the batch, computed at run time as the
    result's size less the input's and the other side's; ONNX Pad crops at negative amounts."""
    other, pads = ctx.other, [[], []]
    for axis, (a, b, oa, ob) in enumerate(zip(lo, hi, other.attrs["lo"], other.attrs["hi"])):
        if a != oa and b != ob:
            ctx.fail(f"both pads of axis {axis} ({a}, {b}) follow the batch size ({oa}, {ob} at another)")
        if a == oa and b == ob:
            pads[0].append(ctx.ints([a]))
            pads[1].append(ctx.ints([b]))
            continue
        grown = ctx.op("Sub", ctx.size_of(ctx.out_dims[0][axis]), ctx.size_of(ctx.in_dims[0][axis]))
        pads[0].append(ctx.op("Sub", grown, ctx.ints([b])) if a != oa else ctx.ints([a]))
        pads[1].append(ctx.op("Sub", grown, ctx.ints([a])) if b != ob else ctx.ints([b]))
    return ctx.op("Pad", x, ctx.op("Concat", *pads[0], *pads[1], axis=0), v, mode="constant")


def take(ctx, x, idx, *, axis):
    return ctx.op("Gather", x, clip_index(ctx, idx, ctx.in_dims[0][axis]), axis=axis)


def take_along_axis(ctx, x, idx, *, axis):
    # jnp.take_along_axis wraps negative indices once (numpy style) before clamping.
    dim = ctx.in_dims[0][axis]
    idx = idx if ctx.in_types[1].dtype is int64 else cast(ctx, idx, int64)
    size = squeeze(ctx, ctx.size_of(dim), [0])
    zero = ctx.const(np.asarray(0, np.int64))
    idx = ctx.op("Where", ctx.op("Less", idx, zero), ctx.op("Add", idx, size), idx)
    hi = ctx.op("Sub", size, ctx.const(np.asarray(1, np.int64)))
    return ctx.op("GatherElements", x, ctx.op("Clip", idx, zero, hi), axis=axis)


def scatter_add(ctx, x, idx, upd, *, axis):
    # Move `axis` to the front and index it with ScatterND (which adds duplicates).
    rank, k = ctx.in_types[0].ndim, ctx.in_types[1].ndim
    perm = [axis] + [i for i in range(rank) if i != axis]
    upd_perm = list(range(axis, axis + k)) + [i for i in range(axis)] + list(range(axis + k, rank - 1 + k))
    index = unsqueeze(ctx, clip_index(ctx, idx, ctx.in_dims[0][axis]), [-1])
    out = ctx.op("ScatterND", transpose(ctx, x, perm), index, transpose(ctx, upd, upd_perm), reduction="add")
    return transpose(ctx, out, inverse(perm))


# -- scans and sorts (ops/sorting.py) ------------------------------------------------------------

# The dtypes onnxruntime's CPU kernels lack, and the one each is computed in: integers wrap the
# same way in a wider type (a sum or product mod 2^8 is the low byte of one mod 2^32), and
# order survives a widening cast. CumSum and ReduceProd have float16/32/64, int32/64; TopK also
# int8, uint8, int16.
_SCAN_AS = {"int8": int32, "uint8": int32, "int16": int32, "uint16": int32, "uint32": int64,
            "uint64": int64, "bfloat16": float32}
_TOPK_AS = {"uint16": int32, "uint32": int64, "bool_": int32, "bfloat16": float32}


def _computed_as(table, rule):
    """Runs `rule` on the first operand cast to the type `table` gives its dtype, and casts
    the first result back."""
    def wrapped(ctx, x, **attrs):
        src = ctx.in_types[0].dtype
        wide = table.get(src.name)
        if wide is None:
            return rule(ctx, x, **attrs)
        out = rule(ctx, cast(ctx, x, wide), **attrs)
        if isinstance(out, list):
            return [cast(ctx, out[0], src)] + out[1:]
        return cast(ctx, out, src)
    return wrapped


def cumsum(ctx, x, *, axis, reverse):
    return ctx.op("CumSum", x, ctx.const(np.asarray(axis, np.int64)), reverse=int(reverse))


def cumprod(ctx, x, *, axis, reverse):
    # ONNX has no CumProd: y_i = prod_k x_k over k <= i (k >= i reversed), as a product over a
    # new axis of x where the triangular mask keeps it and 1 elsewhere. Exact for integers
    # (products wrap as XLA's) and zeros and signs come out right (no log/exp); costs n times
    # x's size along the axis. Along a dynamic axis the mask compares a Range of its size.
    dim, rank = ctx.in_dims[0][axis], ctx.in_types[0].ndim
    trailing = list(range(2, 2 + rank - 1 - axis))
    if isinstance(dim, Sym):
        start, step = ctx.const(np.asarray(0, np.int64)), ctx.const(np.asarray(1, np.int64))
        at = ctx.op("Range", start, squeeze(ctx, ctx.size_of(dim), [0]), step)
        i, k = unsqueeze(ctx, at, [1]), unsqueeze(ctx, at, [0])
        mask = ctx.op("GreaterOrEqual" if reverse else "LessOrEqual", k, i)
        mask = unsqueeze(ctx, mask, trailing) if trailing else mask
    else:
        i, k = np.arange(dim)[:, None], np.arange(dim)[None, :]
        mask = ctx.const(((k >= i) if reverse else (k <= i)).reshape((dim, dim) + (1,) * len(trailing)))
    src = ctx.in_types[0].dtype
    one = np.ones((), _SCAN_AS.get(src.name, src).np_dtype)   # x's type as computed
    spread = ctx.op("Where", mask, unsqueeze(ctx, x, [axis]), ctx.const(one))
    if not src.is_floating:   # exact: onnxruntime's integer ReduceProd rounds through double
        dims = list(ctx.in_dims[0])
        return onnx_int_reductions.integer_prod(ctx, spread, dims[:axis] + [dim] + dims[axis:], [axis + 1], dims,
                                                one.dtype)
    if ctx.opset >= 18:
        return ctx.op("ReduceProd", spread, ctx.ints([axis + 1]), keepdims=0)
    return ctx.op("ReduceProd", spread, axes=[axis + 1], keepdims=0)


def _top_k(ctx, x, k, axis, largest, index_dtype):
    # onnxruntime's TopK orders equal values by index in both directions and NaN as the
    # largest value: the sort primitive's order (tests/test_ops_sorting.py checks both). uint64
    # comes as int64 with the top bit flipped (onnx_widen.py).
    values, idx = ctx.op("TopK", x, k, axis=axis, largest=int(largest), sorted=1, n_out=2)
    return [values, idx if index_dtype is int64 else cast(ctx, idx, index_dtype)]


def sort(ctx, x, *, axis, descending, index_dtype):
    return _top_k(ctx, x, ctx.size_of(ctx.in_dims[0][axis]), axis, descending, index_dtype)


def top_k(ctx, x, *, k, axis, largest, index_dtype):
    return _top_k(ctx, x, ctx.ints([k]), axis, largest, index_dtype)


# -- dot_general ----------------------------------------------------------------------------------

def dot_general(ctx, x, y, bias=None, *, contract, batch):
    (lc, rc), (lb, rb) = contract, batch
    tx, ty = ctx.in_types[0], ctx.in_types[1]
    if tx.ndim == 2 and ty.ndim == 2 and len(lc) == 1 and not lb and tx.dtype.is_floating:
        args = [x, y] + ([bias] if bias is not None else [])
        return ctx.op("Gemm", *args, transA=int(lc[0] == 0), transB=int(rc[0] == 1))
    out = _matmul(ctx, x, y, tx, ty, lc, rc, lb, rb)
    return out if bias is None else ctx.op("Add", out, bias)


def _matmul(ctx, x, y, tx, ty, lc, rc, lb, rb):
    free_x = [i for i in range(tx.ndim) if i not in lc + lb]
    free_y = [i for i in range(ty.ndim) if i not in rc + rb]
    if len(lc) == 1 and not lb and len(free_y) > 1:
        # Several rhs free axes, e.g. a dense ensemble over a shared input (x [B, c] times the
        # stacked weights [N, O, c]): flatten them into one and run a single MatMul (the weight
        # reshape folds at session start); onnxruntime's Einsum is several times slower.
        cols = int(np.prod([ty.shape[i] for i in free_y]))
        y2 = reshape(ctx, transpose(ctx, y, list(rc) + free_y), [ty.shape[rc[0]], cols])
        xt = transpose(ctx, x, free_x + list(lc))
        if not free_x:
            xt = unsqueeze(ctx, xt, [0])
        flat = ctx.op("MatMul", xt, y2)
        # Its shape, for `onnx_peepholes._elementwise_before_reshape`: the members' bias Add and
        # ReLU then move above the view and meet the MatMul, which onnxruntime fuses into one
        # Gemm with its ReLU (they ran as 2 more passes over [B, N, O] after a view).
        ctx.b.shapes[flat] = reshape_target([*(ctx.in_dims[0][i] for i in free_x), cols] if free_x else [1, cols])
        return reshape(ctx, flat, ctx.out_dims[0])
    if len(lc) != 1 or len(free_y) > 1:
        return _einsum(ctx, x, y, tx, ty, lc, rc, lb, rb)
    nb = len(lb)
    # lhs to [batch..., free_x..., c], rhs to [batch..., c, free_y]: MatMul's layout.
    xt = transpose(ctx, x, list(lb) + free_x + list(lc))
    yt = transpose(ctx, y, list(rb) + list(rc) + free_y)
    squeeze_axes = []
    if not free_x:                      # vector-matrix: a row of one
        xt = unsqueeze(ctx, xt, [nb])
        squeeze_axes.append(nb)
    if not free_y:                      # matrix-vector: a column of one
        yt = unsqueeze(ctx, yt, [nb + 1])
    if len(free_x) > 1 and nb:          # more lhs free axes: batched rhs needs ones to broadcast over them
        # (an unbatched rhs stays a matrix, which MatMul broadcasts, and onnxruntime prepacks
        # only a 2-D constant rhs: a Dense over [B, L, D] was a batched MatMul of [1, D, H])
        yt = unsqueeze(ctx, yt, list(range(nb, nb + len(free_x) - 1)))
    out = ctx.op("MatMul", xt, yt)
    if not free_y:
        squeeze_axes.append(nb + max(len(free_x), 1))
    return squeeze(ctx, out, squeeze_axes) if squeeze_axes else out


def _einsum(ctx, x, y, tx, ty, lc, rc, lb, rb):
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    xs = [next(letters) for _ in range(tx.ndim)]
    ys = [None] * ty.ndim
    for a, b in zip(lc + lb, rc + rb):
        ys[b] = xs[a]
    ys = [s or next(letters) for s in ys]
    out = [xs[a] for a in lb] + [xs[i] for i in range(tx.ndim) if i not in lc + lb] \
        + [ys[i] for i in range(ty.ndim) if i not in rc + rb]
    return ctx.op("Einsum", x, y, equation=f"{''.join(xs)},{''.join(ys)}->{''.join(out)}")


# -- convolution ------------------------------------------------------------------------------------

def conv(ctx, x, w, bias=None, *, strides, padding, lhs_dilation, rhs_dilation, groups, batch_groups):
    dims = list(ctx.in_dims[0])
    nsp = len(strides)
    for i, d in enumerate(lhs_dilation):   # transposed-conv style input dilation: insert zeros
        if d > 1:
            x, dims = _dilate(ctx, x, dims, 2 + i, d)
    if batch_groups > 1:                   # weight-gradient convs: batch groups become channel groups
        if groups != 1:
            ctx.fail("a convolution with both feature and batch groups has no ONNX lowering")
        n, c = dims[0], dims[1]
        part = n.divided(batch_groups) if isinstance(n, Sym) else n // batch_groups
        if part is None:
            ctx.fail(f"the dynamic batch {n} does not divide into {batch_groups} batch groups")
        x = reshape(ctx, x, [batch_groups, part, c, *dims[2:]])
        x = ctx.op("Transpose", x, perm=[1, 0] + list(range(2, 3 + nsp)))
        x = reshape(ctx, x, [part, c * batch_groups, *dims[2:]])
        groups = batch_groups
    lo = [p[0] for p in padding]
    hi = [p[1] for p in padding]
    x = crop(ctx, x, [0, 0] + lo, [0, 0] + hi)   # negative padding crops the input
    pads = [max(a, 0) for a in lo] + [max(b, 0) for b in hi]
    args = [x, w] + ([bias] if bias is not None else [])
    return ctx.op("Conv", *args, strides=list(strides), dilations=list(rhs_dilation), group=groups,
                  pads=pads, kernel_shape=list(ctx.in_types[1].shape[2:]))


def conv_transpose(ctx, ct, w, *, lhs_shape, strides, padding, rhs_dilation, groups):
    """A convolution's input gradient: ConvTranspose with the forward convolution's strides,
    dilations and pads, and as output padding the rows the forward stride skipped at the end."""
    ys, ks = ctx.in_types[0].shape[2:], ctx.in_types[1].shape[2:]
    skipped = [(x + lo + hi - d * (k - 1) - 1) - s * (y - 1)
               for x, (lo, hi), d, k, s, y in zip(lhs_shape, padding, rhs_dilation, ks, strides, ys)]
    return ctx.op("ConvTranspose", ct, w, strides=list(strides), dilations=list(rhs_dilation), group=groups,
                  pads=[lo for lo, _ in padding] + [hi for _, hi in padding], output_padding=skipped,
                  kernel_shape=list(ks))


def _dilate(ctx, x, dims, axis, d):
    """Inserts d - 1 zeros between the elements of `axis`: [.., H, ..] -> [.., (H-1)*d+1, ..]."""
    y = unsqueeze(ctx, x, [axis + 1])
    rank = len(dims) + 1
    pads = [0] * (2 * rank)
    pads[rank + axis + 1] = d - 1
    y = ctx.op("Pad", y, ctx.ints(pads), mode="constant")
    h = dims[axis]
    if isinstance(h, Sym):
        ctx.fail("input dilation of a dynamic axis is not supported")
    y = reshape(ctx, y, [*dims[:axis], h * d, *dims[axis + 1:]])
    y = slice_(ctx, y, [axis], [0], [-(d - 1)])
    return y, [*dims[:axis], (h - 1) * d + 1, *dims[axis + 1:]]


# -- windowed reductions ----------------------------------------------------------------------------

class PoolLayout:
    """Moves the windowed axes of an input to the end and the others into ONNX's [N, C] so that
    MaxPool / Conv see [N, C, spatial...]; `leave` undoes it for a result of shape `dims`.
    Extra leading axes fold into C, the first stays N: a vmapped ensemble's [B, N, C, H, W]
    pools as [B, N*C, H, W], the layout its wide or grouped Conv produced, so the two views
    cancel (`onnx_peepholes._merge_reshape_chains`) and MaxPool reads the Conv's output directly."""

    def __init__(self, ctx: LowerCtx, window, strides, padding):
        self.ctx = ctx
        rank = len(window)
        self.win = [i for i in range(rank) if window[i] > 1 or strides[i] > 1 or padding[i] != (0, 0)]
        self.rest = [i for i in range(rank) if i not in self.win]
        self.perm = self.rest + self.win
        self.window = [window[i] for i in self.win]
        self.strides = [strides[i] for i in self.win]
        self.lo = [padding[i][0] for i in self.win]
        self.hi = [padding[i][1] for i in self.win]
        self.direct = len(self.rest) == 2   # already [N, C, spatial...] after the transpose

    def enter(self, x: str, dims) -> str:
        ctx = self.ctx
        moved = [dims[i] for i in self.perm]
        x = transpose(ctx, x, self.perm)
        if self.direct:
            return x
        if any(isinstance(d, Sym) for d in moved[len(self.rest):]):
            ctx.fail("a window over a dynamic axis is not supported")
        if sum(isinstance(d, Sym) for d in moved[:len(self.rest)]) > 1:
            ctx.fail("pooling with several dynamic leading axes is not supported")
        return reshape(ctx, x, self.entered_dims(dims))

    def entered_dims(self, dims) -> list:
        """The dims of `enter`'s result ([N, C, windowed axes...])."""
        dims = [dims[i] for i in self.perm]
        if self.direct:
            return dims
        lead, tail = dims[:len(self.rest)], dims[len(self.rest):]
        if not lead:
            return [1, 1, *tail]
        channels = lead[1:]
        m = int(np.prod([d for d in channels if not isinstance(d, Sym)], dtype=np.int64))
        syms = [d for d in channels if isinstance(d, Sym)]
        return [lead[0], syms[0].times(m) if syms else m, *tail]

    def leave(self, y: str, dims) -> str:
        """`dims`: the result's dims in the original axis order."""
        moved = [dims[i] for i in self.perm]
        if not self.direct:
            n_lead = len(self.rest)
            channels = int(np.prod([d for d in moved[1:n_lead] if not isinstance(d, Sym)], dtype=np.int64))
            if not any(isinstance(d, Sym) for d in moved[1:n_lead]):  # the pooled [N, C, ...] shape
                self.ctx.b.shapes[y] = reshape_target([moved[0] if n_lead else 1, channels, *moved[n_lead:]])
            y = reshape(self.ctx, y, moved)
        return transpose(self.ctx, y, inverse(self.perm))


def _lowest(dtype):
    # not issubdtype(dtype, floating): bfloat16 (ml_dtypes) is not a numpy floating type
    return np.iinfo(dtype).min if np.issubdtype(dtype, np.integer) else -np.inf


def _window_slices(ctx, x, combine: str, pad_value, *, window, strides, padding):
    """A windowed reduction as strided slices combined elementwise, one axis at a time (sum and
    max are separable). Exact for every dtype; used where MaxPool/Conv have no kernel."""
    dims = ctx.in_dims[0]
    shape = list(ctx.in_types[0].shape)
    lo, hi = [p[0] for p in padding], [p[1] for p in padding]
    if any(a > 0 for a in lo + hi):
        pads = [max(a, 0) for a in lo] + [max(b, 0) for b in hi]
        x = ctx.op("Pad", x, ctx.ints(pads), ctx.const(pad_value), mode="constant")
    x = crop(ctx, x, lo, hi)
    for axis, (k, st) in enumerate(zip(window, strides)):
        if k == 1 and st == 1:
            continue
        if isinstance(dims[axis], Sym):
            ctx.fail(f"a window over the dynamic axis {axis} is not supported")
        size = shape[axis] + lo[axis] + hi[axis]
        out = (size - k) // st + 1
        terms = [slice_(ctx, x, [axis], [j], [j + (out - 1) * st + 1], [st]) for j in range(k)]
        x = terms[0]
        for term in terms[1:]:   # pairwise: ONNX's variadic Sum has no integer kernels
            x = ctx.op(combine, x, term)
    return x


def reduce_window_max(ctx, x, *, window, strides, padding):
    dtype = ctx.in_types[0].dtype
    if not dtype.is_floating or dtype.np_dtype.itemsize < 4:
        lowest = np.asarray(_lowest(dtype.np_dtype), dtype.np_dtype)
        return via(int32, lambda c, a: _window_slices(
            c, a, "Max", lowest if dtype is not bool_ else np.asarray(0, np.int32),
            window=window, strides=strides, padding=padding))(ctx, x)
    layout = PoolLayout(ctx, window, strides, padding)
    if not layout.win:
        return x
    xl = _pad_lowest(ctx, layout.enter(x, ctx.in_dims[0]), layout)
    y = ctx.op("MaxPool", xl, kernel_shape=layout.window, strides=layout.strides)
    return layout.leave(y, ctx.out_dims[0])


def _pad_lowest(ctx, xl, layout):
    if not any(layout.lo) and not any(layout.hi):
        return xl
    np_dtype = ctx.in_types[0].dtype.np_dtype
    pads = [0, 0] + layout.lo + [0, 0] + layout.hi
    return ctx.op("Pad", xl, ctx.ints(pads), ctx.const(np.asarray(_lowest(np_dtype), np_dtype)), mode="constant")


def reduce_window_sum(ctx, x, *, window, strides, padding):
    zero = np.zeros((), ctx.in_types[0].dtype.np_dtype)
    return via(int32, lambda c, a: _window_slices(c, a, "Add", zero if ctx.in_types[0].dtype is not bool_
                                                  else np.asarray(0, np.int32),
                                                  window=window, strides=strides, padding=padding))(ctx, x)


def reduce_window_max_grad(ctx, x, g, *, window, strides, padding):
    # MaxPool's Indices say which element (first among equals, as XLA picks) won each window;
    # the cotangents are added there with ScatterElements, then the padding is cut away.
    # Windows that tile the input exactly take the mask form below instead.
    layout = PoolLayout(ctx, window, strides, padding)
    if not layout.win:
        return g
    if not ctx.in_types[0].dtype.is_floating:
        ctx.fail("the max-pool gradient needs floating-point operands")
    dims = layout.entered_dims(ctx.in_dims[0])
    if _windows_tile(layout, dims):
        out = _max_grad_by_mask(ctx, layout, layout.enter(x, ctx.in_dims[0]), layout.enter(g, ctx.in_dims[1]), dims)
        return layout.leave(out, ctx.in_dims[0])
    xl = _pad_lowest(ctx, layout.enter(x, ctx.in_dims[0]), layout)
    gl = layout.enter(g, ctx.in_dims[1])
    _, indices = ctx.op("MaxPool", xl, kernel_shape=layout.window, strides=layout.strides, n_out=2)
    shape = ctx.op("Shape", xl)
    zeros = ctx.op("ConstantOfShape", ctx.op("ReduceProd", shape, keepdims=1),
                   value=_tensor_value(np.zeros(1, ctx.in_types[0].dtype.np_dtype)))
    flat = ctx.ints([-1])
    out = ctx.op("ScatterElements", zeros, ctx.op("Reshape", indices, flat), ctx.op("Reshape", gl, flat),
                 axis=0, reduction="add")
    out = ctx.op("Reshape", out, shape)
    nlead = 2
    out = crop(ctx, out, [0] * nlead + [-a for a in layout.lo], [0] * nlead + [-b for b in layout.hi])
    return layout.leave(out, ctx.in_dims[0])


def _windows_tile(layout: "PoolLayout", dims) -> bool:
    """Whether the pooling windows are k x k squares that cover the (unpadded) input exactly,
    each element in one (SpaceToDepth's blocks)."""
    return (len(layout.window) == 2 and layout.window[0] == layout.window[1] == layout.strides[0]
            == layout.strides[1] and not any(layout.lo) and not any(layout.hi)
            and all(isinstance(d, int) and d % layout.window[0] == 0 for d in dims[2:])
            and sum(isinstance(d, Sym) for d in dims[:2]) <= 1)


def _max_grad_by_mask(ctx, layout: "PoolLayout", xl: str, gl: str, dims) -> str:
    """The max-pool gradient where k x k windows tile the input, without MaxPool's Indices (a
    slow kernel in onnxruntime, plus a ScatterElements; LeNet5 training step, N=4: 6.6 of
    26 ms). Over the [N*C, 1, H, W] view, SpaceToDepth puts each window's k*k elements on the
    channel axis, [N*C, k*k, H/k, W/k], in row-major window order; ArgMax picks each window's
    first maximum (XLA's choice among equals), which takes the window's cotangent (a one-hot
    mask times it: a running count of winners, 9 nodes instead of 6, took 0-18% longer in
    the N=16 step). A ConvTranspose with one-hot k x k kernels puts the elements back:
    onnxruntime's DepthToSpace is a 6-D transpose, 3.5x slower at LeNet5's first pool (the
    sums it adds are exact: each output is one element plus zeros)."""
    n, c, h, w = dims
    k = layout.window[0]
    dtype = ctx.in_types[0].dtype
    sym = next((d for d in (n, c) if isinstance(d, Sym)), None)
    rows = n * c if sym is None else sym.times(c if sym is n else n)
    blocks = ctx.op("SpaceToDepth", reshape(ctx, xl, [rows, 1, h, w]), blocksize=k)
    first = ctx.op("ArgMax", blocks, axis=1, keepdims=1, select_last_index=0)
    positions = ctx.const(np.arange(k * k, dtype=np.int64).reshape(1, k * k, 1, 1))
    # A Mul, not a Where: onnxruntime broadcasts the cotangent in a Where ~9x slower (LeNet5,
    # N=4: 1.8 vs 0.2 ms at the first pool).
    won = ctx.op("Cast", ctx.op("Equal", first, positions), to=onnx_dtype(dtype))
    spread = ctx.op("Mul", won, reshape(ctx, gl, [rows, 1, h // k, w // k]))
    if dtype.name in ("float16", "float32"):   # onnxruntime's CPU ConvTranspose has no float64
        one_hot = np.eye(k * k, dtype=dtype.np_dtype).reshape(k * k, 1, k, k)
        back = ctx.op("ConvTranspose", spread, ctx.const(one_hot), kernel_shape=[k, k], strides=[k, k])
    else:
        back = ctx.op("DepthToSpace", spread, blocksize=k, mode="DCR")
    return reshape(ctx, back, [n, c, h, w])


def _tensor_value(array):
    from onnx import numpy_helper
    return numpy_helper.from_array(array)


# -- control flow ---------------------------------------------------------------------------------------

def cond(ctx, pred, *operands, then_branch, else_branch):
    # ONNX If: the branches take no inputs and read the operands from the outer scope.
    from onnx import helper
    if not then_branch.outputs:  # nothing of it is used (ONNX's If needs an output)
        return []
    branches = {}
    for key, graph in (("then_branch", then_branch), ("else_branch", else_branch)):
        child = ctx.b.child()
        outs = ctx.inline(graph, list(operands), child, ctx.other_attr(key))
        outs = [child.op("Identity", [n], scope=f"{ctx.scope}/{key}") for n in outs]
        branches[key] = helper.make_graph(child.nodes, child.unique(key), [],
                                          [ctx.value_info(n, v) for n, v in zip(outs, graph.outputs)])
    n = len(then_branch.outputs)
    out = ctx.op("If", pred, n_out=n, **branches)
    return [out] if n == 1 else out


def while_loop(ctx, *args, cond_graph, body_graph, n_carry, trip_count=None):
    # ONNX Loop with no trip count: the condition is evaluated before the loop, then by the
    # body after each step; loop-invariant operands are read from the outer scope.
    from onnx import TensorProto, helper
    carry, consts = list(args[:n_carry]), list(args[n_carry:])
    (first,) = ctx.inline(cond_graph, carry + consts, other=ctx.other_attr("cond_graph"))
    child = ctx.b.child()
    it, flag = child.unique("iteration"), child.unique("condition")
    carry_in = [child.unique(f"carry{i}") for i in range(n_carry)]
    new = ctx.inline(body_graph, carry_in + consts, child, ctx.other_attr("body_graph"))
    (again,) = ctx.inline(cond_graph, new + consts, child, ctx.other_attr("cond_graph"))
    outs = [child.op("Identity", [n], scope=f"{ctx.scope}/loop") for n in [again] + new]
    carried = body_graph.inputs[:n_carry]
    inputs = [helper.make_tensor_value_info(it, TensorProto.INT64, []),
              helper.make_tensor_value_info(flag, TensorProto.BOOL, [])] + \
        [ctx.value_info(n, v) for n, v in zip(carry_in, carried)]
    outputs = [helper.make_tensor_value_info(outs[0], TensorProto.BOOL, [])] + \
        [ctx.value_info(n, v) for n, v in zip(outs[1:], carried)]
    body = helper.make_graph(child.nodes, child.unique("body"), inputs, outputs)
    out = ctx.op("Loop", "", first, *carry, n_out=n_carry, body=body)
    return [out] if n_carry == 1 else out


# -- fused primitives (made by passes/fuse.py) -------------------------------------------------------

def linear(ctx, x, w, bias, *, contract):
    """x @ w + bias, 2-D with one contracting pair: a Gemm with its C input."""
    return dot_general(ctx, x, w, bias, contract=contract, batch=((), ()))


def conv_bias(ctx, x, w, bias, **attrs):
    """Conv with its bias input B, which ONNX wants as a vector: [1, O, 1...] is flattened."""
    if ctx.in_types[2].ndim != 1:
        bias = ctx.op("Reshape", bias, ctx.ints([-1]))
    return conv(ctx, x, w, bias, **attrs)


def eigh(ctx, x):
    """eig's QR algorithm on the symmetrized matrix (compiler/onnx_eigh.py, imported when an eigh
    is lowered: it builds on onnx_eig, whose complex pairs import this module)."""
    from .onnx_eigh import eigh as lower
    return lower(ctx, x)


# -- the table -----------------------------------------------------------------------------------------

from . import onnx_bessel, onnx_linalg, onnx_random, onnx_special  # noqa: E402 - they use the helpers above
from . import onnx_igamma_zeta  # noqa: E402 - uses onnx_special
from . import onnx_betainc  # noqa: E402 - uses onnx_igamma_zeta's loop
from . import onnx_resize  # noqa: E402 - uses the helpers above
from . import onnx_bit_ops, onnx_float_neighbours, onnx_nan_rules  # noqa: E402
from . import onnx_expm, onnx_householder, onnx_random_draws, onnx_svd  # noqa: E402

def host_call(ctx, *xs, fn):
    """A print's host call is left out of the model (onnx.unsupported_ops warns); any other
    host function (ops.Custom, tensordump) runs Python and is refused."""
    return []


host_call.refuses = lambda node: not node.attrs["fn"].onnx_drop


RULES = {
    "constant": constant,
    "host_call": host_call,   # only a print's, dropped
    "cast": cast_rule,
    "stop_gradient": unary("Identity"),
    # a backward hook's markers (ops/hooks.py) are identities; the token is a constant
    "backward_hook_enter": lambda ctx, *xs, **attrs: [ctx.op("Identity", x) for x in xs]
    + [ctx.const(np.zeros((), np.bool_))],
    "backward_hook_exit": lambda ctx, token, *ys, **attrs: [ctx.op("Identity", y) for y in ys],
    "tensor_hook": lambda ctx, x, **attrs: ctx.op("Identity", x),   # Tensor.register_hook's marker
    "custom_bprop": lambda ctx, *ins, site, n_out: [ctx.op("Identity", y) for y in ins[:n_out]],   # Cell.bprop's
    # elementwise unary
    "neg": neg, "exp": unary("Exp"), "log": unary("Log"), "sqrt": unary("Sqrt"),
    "tanh": unary("Tanh"), "logistic": unary("Sigmoid"), "sin": unary("Sin"), "cos": unary("Cos"),
    "relu": relu, "relu6": relu6, "hard_sigmoid": hard_sigmoid,
    # (HardSwish gives NaN at -inf, where XLA's rule gives MindSpore's 0: one op is worth it)
    "hard_swish": unary("HardSwish"), "softsign": unary("Softsign"),
    "leaky_relu": unary_alpha("LeakyRelu"), "elu": unary_alpha("Elu"), "shrink": shrink,
    "erf": in_float32(unary("Erf")), "abs": abs_rule, "sign": sign, "floor": unary("Floor"),
    "ceil": unary("Ceil"), "round": unary("Round"), "not": logical("Not"),
    "rsqrt": rsqrt, "is_finite": is_finite, "log1p": log1p, "expm1": expm1,
    "sinh": in_float32(unary("Sinh")), "cosh": in_float32(unary("Cosh")), "tan": in_float32(unary("Tan")),
    "asin": in_float32(unary("Asin")), "acos": in_float32(unary("Acos")), "atan": in_float32(unary("Atan")),
    "asinh": in_float32(unary("Asinh")), "acosh": in_float32(unary("Acosh")), "atanh": in_float32(unary("Atanh")),
    "erfc": in_float32_math(erfc), "erfinv": in_float32_math(erfinv), "atan2": in_float32_math(atan2),
    "lgamma": onnx_special.lgamma, "digamma": onnx_special.digamma, "polygamma": onnx_special.polygamma,
    # elementwise binary
    "add": via(int32, binary("Add")), "sub": via(int32, binary("Sub")), "mul": via(int32, binary("Mul")),
    "div": div, "pow": binary("Pow"), "max": maximum, "min": via(int32, binary("Min")),
    "rem": lambda ctx, x, y: ctx.op("Mod", x, y, fmod=1),
    "and": logical("And"), "or": logical("Or"), "xor": logical("Xor"),
    "shift_left": onnx_bit_ops.shift_left, "shift_right": onnx_bit_ops.shift_right,
    "nextafter": onnx_float_neighbours.nextafter,
    "eq": binary("Equal"), "ne": ne, "lt": compare("Less"), "le": compare("LessOrEqual"),
    "gt": compare("Greater"), "ge": compare("GreaterOrEqual"),
    "select": select,
    # reductions
    "reduce_sum": reducer("ReduceSum"), "reduce_max": onnx_nan_rules.nan_reducer("ReduceMax"),
    "reduce_min": onnx_nan_rules.nan_reducer("ReduceMin"), "reduce_prod": reducer("ReduceProd"),
    "argmax": onnx_nan_rules.nan_arg("ArgMax"), "argmin": onnx_nan_rules.nan_arg("ArgMin"),
    "element_count": element_count,
    # shapes
    "reshape": reshape_rule, "transpose": transpose_rule, "broadcast_in_dim": broadcast_in_dim,
    "concatenate": concatenate, "slice": slice_rule, "rev": rev, "pad": pad,
    "take": take, "take_along_axis": take_along_axis, "scatter_add": scatter_add,
    "resize": onnx_resize.resize,
    # scans and sorts
    "cumsum": _computed_as(_SCAN_AS, cumsum), "cumprod": _computed_as(_SCAN_AS, cumprod),
    "sort": _computed_as(_TOPK_AS, sort), "top_k": _computed_as(_TOPK_AS, top_k),
    # linear algebra, nn
    "dot_general": dot_general, "conv": in_float32(conv), "conv_transpose": in_float32(conv_transpose),
    "linear": linear, "conv_bias": in_float32(conv_bias),   # a Gemm / Conv with its bias
    "reduce_window_max": reduce_window_max, "reduce_window_sum": reduce_window_sum,
    "reduce_window_max_grad": reduce_window_max_grad,
    # control flow
    "cond": cond, "while_loop": while_loop,
    # random
    "random_split": onnx_random.random_split, "random_fold_in": onnx_random.random_fold_in,
    "random_uniform": onnx_random.random_uniform, "random_normal": onnx_random.random_normal,
    "random_gamma_draw": onnx_random_draws.random_gamma_draw,
    "random_poisson_draw": onnx_random_draws.random_poisson_draw,
    **onnx_linalg.RULES,   # det, slogdet, matrix_inverse, cholesky, triangular_solve
    **onnx_householder.RULES, **onnx_expm.RULES,   # qr, matrix_exp
    **onnx_svd.RULES,      # svd, by one-sided Jacobi
    "eigh": eigh,          # eig's shifted QR algorithm, symmetric
    **onnx_bessel.RULES,   # the Bessel functions, in float64
    **onnx_igamma_zeta.RULES,   # igamma (P and Q), igamma_grad_a, zeta: jax's algorithms, in float64
    **onnx_betainc.RULES,  # betainc: jax's continued fraction, in float64
}

for _name, _rule in RULES.items():
    if _name in PRIMITIVES:
        PRIMITIVES[_name].onnx_rule = _rule

__all__ = ["RULES"]
