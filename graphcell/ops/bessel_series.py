"""The Bessel functions' float64 formulas, written once for both backends.

Each formula takes a `SeriesMath` (`m`) and a float64 value and builds the result with
`m.op("Add", a, b)`-style calls named after ONNX operators: `JaxMath` (here) runs them on jax
arrays for the primitives' XLA lowering, `compiler/onnx_bessel.py`'s subclass emits ONNX nodes.
XLA and onnxruntime therefore evaluate the same expression, in float64 (about 1e-15 relative;
float16 and float32 operands are cast up and the result back).

The approximations are Cephes' (S. L. Moshier): Chebyshev expansions for I0, I1, K0 and K1 on
[0, 8] / [0, 2] and in 1/x beyond; rational functions for J0, J1, Y0 and Y1 up to 5 and
Hankel's asymptotic form (two rational functions of 25/x^2) beyond. Every branch is computed
on an input clamped into its own interval, so the branch a select drops never makes an inf
or NaN that a gradient through the formula (jax.grad of the impl) would pick up.
Edge values are MindSpore 2.10's, measured (module docstring of ops/bessel.py).
"""
from __future__ import annotations

import math

import jax.numpy as jnp

I0_A = (
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15,
    -1.1685332877993451e-14, 7.676185498604936e-14, -4.856446783111929e-13, 2.95505266312964e-12,
    -1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
    -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05, 0.00018850288509584165,
    -0.0005763755745385824, 0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
    -0.02373741480589947, 0.04930528423967071, -0.09490109704804764, 0.17162090152220877, -0.3046826723431984,
    0.6767952744094761,
)
I0_B = (
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17,
    -2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15, 3.8116806693526224e-15,
    -9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
    7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11, -3.1499165279632416e-11,
    1.1889147107846439e-11, 4.94060238822497e-10, 3.3962320257083865e-09, 2.266668990498178e-08,
    2.0489185894690638e-07, 2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
    0.8044904110141088,
)
I1_A = (
    2.7779141127610464e-18, -2.111421214358166e-17, 1.5536319577362005e-16, -1.1055969477353862e-15,
    7.600684294735408e-15, -5.042185504727912e-14, 3.223793365945575e-13, -1.9839743977649436e-12,
    1.1736186298890901e-11, -6.663489723502027e-11, 3.625590281552117e-10, -1.8872497517228294e-09,
    9.381537386495773e-09, -4.445059128796328e-08, 2.0032947535521353e-07, -8.568720264695455e-07,
    3.4702513081376785e-06, -1.3273163656039436e-05, 4.781565107550054e-05, -0.00016176081582589674,
    0.0005122859561685758, -0.0015135724506312532, 0.004156422944312888, -0.010564084894626197,
    0.024726449030626516, -0.05294598120809499, 0.1026436586898471, -0.17641651835783406, 0.25258718644363365,
)
I1_B = (
    7.517296310842105e-18, 4.414348323071708e-18, -4.6503053684893586e-17, -3.209525921993424e-17,
    2.96262899764595e-16, 3.3082023109209285e-16, -1.8803547755107825e-15, -3.8144030724370075e-15,
    1.0420276984128802e-14, 4.272440016711951e-14, -2.1015418427726643e-14, -4.0835511110921974e-13,
    -7.198551776245908e-13, 2.0356285441470896e-12, 1.4125807436613782e-11, 3.2526035830154884e-11,
    -1.8974958123505413e-11, -5.589743462196584e-10, -3.835380385964237e-09, -2.6314688468895196e-08,
    -2.512236237870209e-07, -3.882564808877691e-06, -0.00011058893876262371, -0.009761097491361469,
    0.7785762350182801,
)
K0_A = (
    1.374465435613523e-16, 4.25981614279661e-14, 1.0349695257633842e-11, 1.904516377220209e-09,
    2.5347910790261494e-07, 2.286212103119452e-05, 0.001264615411446926, 0.0359799365153615,
    0.3442898999246285, -0.5353273932339028,
)
K0_B = (
    5.300433772686263e-18, -1.6475804301524212e-17, 5.2103915050390274e-17, -1.678231096805412e-16,
    5.512055978524319e-16, -1.848593377343779e-15, 6.3400764774050706e-15, -2.2275133269916698e-14,
    8.032890775363575e-14, -2.9800969231727303e-13, 1.140340588208475e-12, -4.514597883373944e-12,
    1.8559491149547177e-11, -7.957489244477107e-11, 3.577397281400301e-10, -1.69753450938906e-09,
    8.574034017414225e-09, -4.660489897687948e-08, 2.766813639445015e-07, -1.8317555227191195e-06,
    1.39498137188765e-05, -0.00012849549581627802, 0.0015698838857300533, -0.0314481013119645,
    2.4403030820659555,
)
K1_A = (
    -7.023863479386288e-18, -2.427449850519366e-15, -6.666901694199329e-13, -1.4114883926335278e-10,
    -2.213387630734726e-08, -2.4334061415659684e-06, -0.0001730288957513052, -0.006975723859639864,
    -0.12261118082265715, -0.3531559607765449, 1.5253002273389478,
)
K1_B = (
    -5.756744483665017e-18, 1.7940508731475592e-17, -5.689462558442859e-17, 1.838093544366639e-16,
    -6.057047248373319e-16, 2.038703165624334e-15, -7.019837090418314e-15, 2.4771544244813043e-14,
    -8.976705182324994e-14, 3.3484196660784293e-13, -1.2891739609510289e-12, 5.13963967348173e-12,
    -2.1299678384275683e-11, 9.218315187605006e-11, -4.1903547593418965e-10, 2.015049755197033e-09,
    -1.0345762465678097e-08, 5.7410841254500495e-08, -3.5019606030878126e-07, 2.406484947837217e-06,
    -1.936197974166083e-05, 0.00019521551847135162, -0.002857816859622779, 0.10392373657681724,
    2.7206261904844427,
)
J0_PP = (
    0.0007969367292973471, 0.08283523921074408, 1.239533716464143, 5.447250030587687, 8.74716500199817,
    5.303240382353949, 1.0,
)
J0_PQ = (
    0.0009244088105588637, 0.08562884743544745, 1.2535274390105895, 5.470977403304171, 8.761908832370695,
    5.306052882353947, 1.0,
)
J0_QP = (
    -0.011366383889846916, -1.2825271867050931, -19.553954425773597, -93.20601521237683, -177.68116798048806,
    -147.07750515495118, -51.41053267665993, -6.050143506007285,
)
J0_QQ = (
    64.3178256118178, 856.4300259769806, 3882.4018360540163, 7240.467741956525, 5930.727011873169,
    2062.0933166032783, 242.0057402402914,
)
J0_RP = (
    -4794432209.782018, 1956174919465.5657, -249248344360967.72, 9708622510473064.0,
)
J0_RQ = (
    499.563147152651, 173785.4016763747, 48440965.83399621, 11185553704.535683, 2112775201154.892,
    310518229857422.56, 3.1812195594320496e+16, 1.7108629408104315e+18,
)
J1_PP = (
    0.0007621256162081731, 0.07313970569409176, 1.1271960812968493, 5.112079511468076, 8.424045901417724,
    5.214515986823615, 1.0,
)
J1_PQ = (
    0.0005713231280725487, 0.06884559087544954, 1.105142326340617, 5.073863861286015, 8.399855543276042,
    5.209828486823619, 1.0,
)
J1_QP = (
    0.05108625947501766, 4.982138729512334, 75.82382841325453, 366.7796093601508, 710.8563049989261,
    597.4896124006136, 211.68875710057213, 25.207020585802372,
)
J1_QQ = (
    74.23732770356752, 1056.4488603826283, 4986.410583376536, 9562.318924047562, 7997.041604473507,
    2826.1927851763908, 336.0936078106983,
)
J1_RP = (
    -899971225.7055594, 452228297998.19403, -72749424522181.83, 3682957328638529.0,
)
J1_RQ = (
    620.8364781180543, 256987.25675774884, 83514679.14319493, 22151159547.97925, 4749141220799.914,
    784369607876235.9, 8.952223361846274e+16, 5.322786203326801e+18,
)
Y0_YP = (
    15592.436785523574, -14663929.59039716, 5435264770.518765, -982136065717.9115, 87590639439536.7,
    -3466283033847297.0, 4.4273326857256984e+16, -1.8495080043698668e+16,
)
Y0_YQ = (
    1041.2835366425984, 626107.330137135, 268919633.39381415, 86400248710.3935, 20297961275010.555,
    3171577528429750.5, 2.5059625617265306e+17,
)
Y1_YP = (
    1263204747.9017804, -647355876379.1603, 114509511541823.73, -8127702555013251.0, 2.024394757135949e+17,
    -7.788771962659501e+17,
)
Y1_YQ = (
    594.3015923461282, 235564.09294306856, 73481194.44597217, 18760131610.870617, 3882312774962.3857,
    620557727146953.8, 6.871410873553005e+16, 3.9727060811656064e+18,
)

# the zeros of J0 and J1 that the small-x rational functions factor out (their squares)
J0_ZEROS_SQUARED = (5.78318596294678452118e+00, 3.04712623436620863991e+01)
J1_ZEROS_SQUARED = (1.46819706421238932572e+01, 4.92184563216946036703e+01)
TWO_OVER_PI = 2.0 / math.pi
SQRT_TWO_OVER_PI = math.sqrt(2.0 / math.pi)


class SeriesMath:
    """Elementwise float64 arithmetic over a backend: subclasses give `c` (a constant) and
    `op` (an ONNX-named operator); the compound steps below build on those two."""

    def c(self, value):
        raise NotImplementedError

    def op(self, op_type: str, *args):
        raise NotImplementedError

    def where(self, condition, a, b):
        return self.op("Where", condition, a, b)

    def clamp_to(self, inside, x, fallback: float):
        """x where `inside`, else `fallback` (a point of the branch's own interval)."""
        return self.where(inside, x, self.c(fallback))

    def polevl(self, t, coefficients, leading_one: bool = False):
        """sum c_i t^(n-i), highest power first (Cephes' polevl; p1evl with a leading 1)."""
        p = self.op("Add", t, self.c(coefficients[0])) if leading_one else self.c(coefficients[0])
        for c in coefficients[1:]:
            p = self.op("Add", self.op("Mul", p, t), self.c(c))
        return p

    def chbevl(self, t, coefficients):
        """A Chebyshev series in t (Clenshaw's recurrence, Cephes' chbevl)."""
        b0, b1, b2 = self.c(coefficients[0]), self.c(0.0), None
        for c in coefficients[1:]:
            b2, b1 = b1, b0
            b0 = self.op("Add", self.op("Sub", self.op("Mul", t, b1), b2), self.c(c))
        return self.op("Mul", self.op("Sub", b0, b2), self.c(0.5))


_JAX_OPS = {"Add": jnp.add, "Sub": jnp.subtract, "Mul": jnp.multiply, "Div": jnp.divide, "Neg": jnp.negative,
            "Abs": jnp.abs, "Exp": jnp.exp, "Log": jnp.log, "Sqrt": jnp.sqrt, "Sin": jnp.sin, "Cos": jnp.cos,
            "Where": jnp.where, "Less": jnp.less, "LessOrEqual": jnp.less_equal, "Equal": jnp.equal,
            "Greater": jnp.greater}


class JaxMath(SeriesMath):
    def c(self, value):
        return jnp.asarray(value, jnp.float64)

    def op(self, op_type, *args):
        return _JAX_OPS[op_type](*args)


# -- I0, I1 (exponentially scaled; unscaled = exp(|x|) times these) -------------------------------

def _scaled_i(m, x, small_coefficients, large_coefficients, times_x: bool):
    z = m.op("Abs", x)
    small = m.op("LessOrEqual", z, m.c(8.0))
    zs, zl = m.clamp_to(small, z, 8.0), m.where(small, m.c(8.0), z)
    near = m.chbevl(m.op("Sub", m.op("Mul", zs, m.c(0.5)), m.c(2.0)), small_coefficients)
    if times_x:
        near = m.op("Mul", near, zs)
    far = m.op("Div", m.chbevl(m.op("Sub", m.op("Div", m.c(32.0), zl), m.c(2.0)), large_coefficients),
               m.op("Sqrt", zl))
    return m.where(small, near, far)


def i0e(m, x):
    return _scaled_i(m, x, I0_A, I0_B, times_x=False)


def i1e(m, x):
    out = _scaled_i(m, x, I1_A, I1_B, times_x=True)
    return m.where(m.op("Less", x, m.c(0.0)), m.op("Neg", out), out)


def i0(m, x):
    # exp(inf) * 0 at +-inf: NaN, as MindSpore 2.10 gives
    return m.op("Mul", m.op("Exp", m.op("Abs", x)), i0e(m, x))


def i1(m, x):
    return m.op("Mul", m.op("Exp", m.op("Abs", x)), i1e(m, x))


# -- K0, K1 (x > 0; +inf at x <= 0, as MindSpore 2.10) -------------------------------------------

def _k(m, x, order: int, scaled: bool):
    small_coefficients, large_coefficients = (K0_A, K0_B) if order == 0 else (K1_A, K1_B)
    small = m.op("LessOrEqual", x, m.c(2.0))
    xs = m.where(m.op("Greater", x, m.c(0.0)), m.clamp_to(small, x, 2.0), m.c(1.0))
    xl = m.where(small, m.c(2.0), x)
    series = m.chbevl(m.op("Sub", m.op("Mul", xs, xs), m.c(2.0)), small_coefficients)
    log_half = m.op("Log", m.op("Mul", xs, m.c(0.5)))
    if order == 0:
        near = m.op("Sub", series, m.op("Mul", log_half, i0(m, xs)))
    else:
        near = m.op("Add", m.op("Mul", log_half, i1(m, xs)), m.op("Div", series, xs))
    far = m.op("Div", m.chbevl(m.op("Sub", m.op("Div", m.c(8.0), xl), m.c(2.0)), large_coefficients),
               m.op("Sqrt", xl))
    if scaled:
        near = m.op("Mul", near, m.op("Exp", xs))
    else:
        far = m.op("Mul", far, m.op("Exp", m.op("Neg", xl)))
    out = m.where(small, near, far)
    return m.where(m.op("LessOrEqual", x, m.c(0.0)), m.c(math.inf), out)


def k0(m, x):
    return _k(m, x, 0, scaled=False)


def k0e(m, x):
    return _k(m, x, 0, scaled=True)


def k1(m, x):
    return _k(m, x, 1, scaled=False)


def k1e(m, x):
    return _k(m, x, 1, scaled=True)


# -- J0, J1, Y0, Y1 --------------------------------------------------------------------------------

def _hankel(m, z, order: int, second_kind: bool):
    """The asymptotic form for z > 5: sqrt(2 / (pi z)) (P cos(xn) - (5/z) Q sin(xn)), or
    (P sin(xn) + (5/z) Q cos(xn)) for Y, xn = z - (2 order + 1) pi / 4 (NaN at inf, as 2.10)."""
    pp, pq, qp, qq = (J0_PP, J0_PQ, J0_QP, J0_QQ) if order == 0 else (J1_PP, J1_PQ, J1_QP, J1_QQ)
    w = m.op("Div", m.c(5.0), z)
    t = m.op("Mul", w, w)
    p = m.op("Div", m.polevl(t, pp), m.polevl(t, pq))
    q = m.op("Mul", w, m.op("Div", m.polevl(t, qp), m.polevl(t, qq, leading_one=True)))
    xn = m.op("Sub", z, m.c((2 * order + 1) * math.pi / 4))
    sin, cos = m.op("Sin", xn), m.op("Cos", xn)
    if second_kind:
        wave = m.op("Add", m.op("Mul", p, sin), m.op("Mul", q, cos))
    else:
        wave = m.op("Sub", m.op("Mul", p, cos), m.op("Mul", q, sin))
    return m.op("Div", m.op("Mul", wave, m.c(SQRT_TWO_OVER_PI)), m.op("Sqrt", z))


def _j_near(m, z, order: int):
    """J0 or J1 for 0 <= z <= 5: the rational function with the first two zeros factored out."""
    rp, rq, zeros = (J0_RP, J0_RQ, J0_ZEROS_SQUARED) if order == 0 else (J1_RP, J1_RQ, J1_ZEROS_SQUARED)
    zz = m.op("Mul", z, z)
    out = m.op("Div", m.polevl(zz, rp), m.polevl(zz, rq, leading_one=True))
    for zero in zeros:
        out = m.op("Mul", out, m.op("Sub", zz, m.c(zero)))
    return out if order == 0 else m.op("Mul", out, z)


def _j(m, x, order: int):
    z = m.op("Abs", x)
    small = m.op("LessOrEqual", z, m.c(5.0))
    out = m.where(small, _j_near(m, m.clamp_to(small, z, 5.0), order),
                  _hankel(m, m.where(small, m.c(5.0), z), order, second_kind=False))
    return out if order == 0 else m.where(m.op("Less", x, m.c(0.0)), m.op("Neg", out), out)


def j0(m, x):
    return _j(m, x, 0)


def j1(m, x):
    return _j(m, x, 1)


def _y(m, x, order: int):
    small = m.op("LessOrEqual", x, m.c(5.0))
    far = _hankel(m, m.where(small, m.c(5.0), x), order, second_kind=True)
    xs = m.clamp_to(small, x, 5.0)
    xp = m.where(m.op("Greater", xs, m.c(0.0)), xs, m.c(1.0))   # the log's and 1/x's operand
    zz = m.op("Mul", xp, xp)
    if order == 0:
        near = m.op("Add", m.op("Div", m.polevl(zz, Y0_YP), m.polevl(zz, Y0_YQ, leading_one=True)),
                    m.op("Mul", m.op("Mul", m.c(TWO_OVER_PI), m.op("Log", xp)), _j_near(m, xp, 0)))
        near = m.where(m.op("Greater", xs, m.c(0.0)), near, m.c(-math.inf))   # -inf at x <= 0 (2.10)
    else:
        rational = m.op("Mul", xp, m.op("Div", m.polevl(zz, Y1_YP), m.polevl(zz, Y1_YQ, leading_one=True)))
        log_term = m.op("Sub", m.op("Mul", _j_near(m, xp, 1), m.op("Log", xp)), m.op("Div", m.c(1.0), xp))
        near = m.op("Add", rational, m.op("Mul", m.c(TWO_OVER_PI), log_term))
        # 2.10: -inf below 0, NaN at +-0
        near = m.where(m.op("Equal", xs, m.c(0.0)), m.c(math.nan),
                       m.where(m.op("Less", xs, m.c(0.0)), m.c(-math.inf), near))
    return m.where(small, near, far)


def y0(m, x):
    return _y(m, x, 0)


def y1(m, x):
    return _y(m, x, 1)


FORMULAS = {"bessel_i0": i0, "bessel_i0e": i0e, "bessel_i1": i1, "bessel_i1e": i1e, "bessel_j0": j0,
            "bessel_j1": j1, "bessel_k0": k0, "bessel_k0e": k0e, "bessel_k1": k1, "bessel_k1e": k1e,
            "bessel_y0": y0, "bessel_y1": y1}
