"""line_search: an inexact line search for the strong Wolfe conditions (Wright and Nocedal,
'Numerical Optimization', algorithms 3.5 and 3.6: doubling steps, then a zoom by cubic,
quadratic or bisection steps), with MindSpore 2.10's signature and results: a
_LineSearchResults(failed, nit, nfev, ngev, k, a_k, f_k, g_k, status), a_k and f_k Python
floats, g_k a Tensor (measured). Its rules follow 2.10's as measured by comparing the points it
evaluates (tests/test_msscipy.py): the zoom tries at most 10 steps, resets a_hi to the zoom's
first a_lo (see _Zoom), and every Python float constant (c1, c2, the 2.02 of the first step,
the zoom's 0.2 and 0.1) is rounded to float32 before it meets a float64 operand, as 2.10 does
for any Python scalar; so does the cubic fit's 2x2 solve.

Eager only, as 2.10's (its minimize fails inside jit, measured): a Python loop; `f` is
evaluated and differentiated with graphcell's value_and_grad, the scalars are kept in the
operand's dtype (numpy), so the branch decisions round as 2.10's.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...api.grad import value_and_grad
from ...tensor import Tensor

__all__ = ["line_search"]


class _LineSearchResults(NamedTuple):
    """failed: the strong Wolfe conditions were not met; nit: iterations; nfev/ngev: function
    and gradient evaluations; k: nit + 1; a_k: the step; f_k, g_k: f and its gradient there;
    status: 0 found, 1 the zoom failed, 3 maxiter reached."""
    failed: bool
    nit: int
    nfev: int
    ngev: int
    k: int
    a_k: float
    f_k: float
    g_k: Tensor
    status: int


def value_and_gradient(f):
    """x (numpy) -> (f(x) as a numpy scalar, its gradient as numpy), with graphcell's autodiff."""
    evaluate = value_and_grad(f)

    def run(x: np.ndarray):
        value, grad = evaluate(Tensor(x))
        return np.asarray(value.asnumpy(), x.dtype)[()], np.asarray(grad.asnumpy(), x.dtype)
    return run


def ms_constant(value, dt):
    """A Python float as 2.10 combines it with a tensor of dtype dt: rounded to float32 first,
    also for float64 tensors (measured: Tensor(1.0, float64) * 0.01 - 0.01 == -2.2e-10)."""
    return dt.type(np.float32(value))


FUSED_DOT_MAX = 5    # 2.10's CPU MatMul sums up to 5 terms in order with fused multiply-adds (measured)


def ms_dot(a, b):
    """a @ b (a vector or a matrix times a vector) rounded as 2.10's CPU MatMul rounds short
    sums: in order, each term fused into the running sum (one rounding per term). Longer sums
    are numpy's, whose order 2.10's does not share (it blocks them): last-ulp differences."""
    if a.shape[-1] > FUSED_DOT_MAX:
        return (a @ b).astype(a.dtype)
    wide = np.float64 if a.dtype != np.float64 else np.longdouble
    total = np.zeros(a.shape[:-1], a.dtype)
    for i in range(a.shape[-1]):
        total = (a[..., i].astype(wide) * b[i].astype(wide) + total.astype(wide)).astype(a.dtype)
    return total[()] if total.ndim == 0 else total


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc). 2.10
    solves for its two coefficients entirely in float32 whatever the operands' dtype (its 2x2
    system lives in float32 zeros, and float32 / float64 stays float32 there), and squares and
    triples them in float32 before they meet fpa (measured on its _cubicmin with float64 input)."""
    db, dc = b - a, c - a
    with np.errstate(all="ignore"):
        denom = (db * dc) ** 2 * (db - dc)
        d1 = np.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]]).astype(np.float32)
        d2 = np.array([fb - fa - fpa * db, fc - fa - fpa * dc]).astype(np.float32)
        big_a, big_b = ms_dot(d1, d2) / np.float32(denom)
        wide = fa.dtype
        radical = wide.type(big_b * big_b) - wide.type(3 * big_a) * fpa
        return a + (-wide.type(big_b) + np.sqrt(radical)) / wide.type(3 * big_a)


def _quadmin(a, fa, fpa, b, fb):
    """The minimizer of the parabola through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    with np.errstate(all="ignore"):
        big_b = (fb - fa - fpa * db) / (db ** 2)
        return a - fpa / (2 * big_b)


ZOOM_MAXITER = 10     # 2.10's zoom gives up after 10 trial steps (failed even if the 10th is accepted)


class _Zoom:
    """Algorithm 3.6 between a_lo and a_hi; `star` holds the accepted (a, phi, dphi, g).

    Two measured departures from the textbook (and from jax.scipy's): when the new low point's
    slope points away from a_hi, 2.10 moves a_hi back to the *first* a_lo the zoom was given,
    not to the current one; and there is no interval-length threshold, only the 10 steps."""

    def __init__(self, search, lo, hi, g_0):
        self.search, self.lo, self.hi, self.first_lo = search, lo, hi, lo      # (a, phi, dphi) each
        self.rec = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2)
        self.star = (search.one, lo[1], lo[2], g_0)
        self.done = self.failed = False
        self.nfev = 0

    def run(self):
        s, j, dt = self.search, 0, self.search.dtype
        delta_cubic, delta_quad = ms_constant(0.2, dt), ms_constant(0.1, dt)
        while not self.done and j < ZOOM_MAXITER:
            (a_lo, phi_lo, dphi_lo), (a_hi, phi_hi, _) = self.lo, self.hi
            dalpha = a_hi - a_lo
            low, high = min(a_hi, a_lo), max(a_hi, a_lo)
            cchk, qchk = delta_cubic * dalpha, delta_quad * dalpha
            cubic = _cubicmin(a_lo, phi_lo, dphi_lo, a_hi, phi_hi, self.rec[0], self.rec[1])
            quad = _quadmin(a_lo, phi_lo, dphi_lo, a_hi, phi_hi)
            if j > 0 and np.isfinite(cubic) and low + cchk < cubic < high - cchk:
                a_j = cubic
            elif np.isfinite(quad) and low + qchk < quad < high - qchk:
                a_j = quad
            else:
                a_j = (a_lo + a_hi) / 2
            phi_j, dphi_j, g_j = s.restricted(a_j)
            self.nfev += 1
            if s.not_sufficient(a_j, phi_j) or phi_j >= phi_lo:
                self.rec, self.hi = (a_hi, phi_hi), (a_j, phi_j, dphi_j)
            elif s.curvature(dphi_j):
                self.done, self.star = True, (a_j, phi_j, dphi_j, g_j)
            else:
                if dphi_j * (a_hi - a_lo) >= 0:
                    self.hi = self.first_lo
                self.rec, self.lo = (a_lo, phi_lo), (a_j, phi_j, dphi_j)
            j += 1
        self.failed = j == ZOOM_MAXITER
        return self


class _Search:
    def __init__(self, f_and_grad, xk, pk, c1, c2, phi_0, dphi_0):
        self.f_and_grad, self.xk, self.pk = f_and_grad, xk, pk
        self.dtype = xk.dtype
        self.one = self.dtype.type(1)
        self.c1, self.c2 = ms_constant(c1, self.dtype), ms_constant(c2, self.dtype)
        self.phi_0, self.dphi_0 = phi_0, dphi_0

    def restricted(self, t):
        """(phi(t), phi'(t), grad f) at xk + t pk."""
        phi, g = self.f_and_grad(self.xk + self.dtype.type(t) * self.pk)
        return phi, ms_dot(g, self.pk), g

    def not_sufficient(self, a, phi) -> bool:       # the first Wolfe condition fails
        return bool(phi > self.phi_0 + self.c1 * a * self.dphi_0)

    def curvature(self, dphi) -> bool:              # the second (strong) Wolfe condition holds
        return bool(abs(dphi) <= -self.c2 * self.dphi_0)


def search_numpy(f_and_grad, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9, maxiter=20):
    """The line search on numpy vectors (minimize's inner loop); g_k stays numpy."""
    xk, pk = np.asarray(xk), np.asarray(pk, xk.dtype)
    dt = xk.dtype
    counted = old_fval is None or gfk is None
    if counted:
        phi_0, gfk = f_and_grad(xk)
    else:
        phi_0, gfk = dt.type(old_fval), np.asarray(gfk, dt)
    dphi_0 = ms_dot(gfk, pk)
    s = _Search(f_and_grad, xk, pk, c1, c2, phi_0, dphi_0)
    start = s.one
    if old_old_fval is not None:
        with np.errstate(all="ignore"):
            candidate = ms_constant(1.01 * 2, dt) * (phi_0 - dt.type(old_old_fval)) / dphi_0
        start = min(candidate, s.one) if np.isfinite(candidate) else s.one
    nfev = 1 if counted else 0
    i, done, failed = 1, False, False
    prev = (dt.type(0), phi_0, dphi_0)
    star = (dt.type(0), phi_0, dphi_0, gfk)
    while not done and i <= maxiter:
        a_i = start if i == 1 else prev[0] * 2
        phi_i, dphi_i, g_i = s.restricted(a_i)
        nfev += 1
        if s.not_sufficient(a_i, phi_i) or (phi_i >= prev[1] and i > 1):
            zoom = _Zoom(s, prev, (a_i, phi_i, dphi_i), gfk).run()
            nfev += zoom.nfev
            done, failed, star = True, zoom.failed, zoom.star
        elif s.curvature(dphi_i):
            done, star = True, (a_i, phi_i, dphi_i, g_i)
        elif dphi_i >= 0:
            zoom = _Zoom(s, (a_i, phi_i, dphi_i), prev, gfk).run()
            nfev += zoom.nfev
            done, failed, star = True, zoom.failed, zoom.star
        i += 1
        prev = (a_i, phi_i, dphi_i)
    status = 1 if failed else (3 if i > maxiter else 0)
    a_k = star[0]
    if np.finfo(dt).bits != 64 and abs(a_k) < 1e-8:    # a floor on the step: no zero direction in float32
        a_k = np.sign(a_k) * dt.type(1e-8)
    return _LineSearchResults(failed=bool(failed or not done), nit=i - 1, nfev=nfev, ngev=nfev, k=i,
                              a_k=a_k, f_k=star[1], g_k=star[3], status=status)


def line_search(f, xk, pk, jac=None, gfk=None, old_fval=None, old_old_fval=None, c1=1e-4, c2=0.9, maxiter=20):
    """A step a_k along pk from xk meeting the strong Wolfe conditions for f (c1: sufficient
    decrease, c2: curvature), starting at 1 (or from old_old_fval's estimate) and doubling;
    `jac` is accepted and unused (the gradient comes from autodiff), as 2.10's."""
    x = xk.asnumpy() if isinstance(xk, Tensor) else np.asarray(xk)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float32)
    p = (pk.asnumpy() if isinstance(pk, Tensor) else np.asarray(pk)).astype(x.dtype)
    g = None if gfk is None else (gfk.asnumpy() if isinstance(gfk, Tensor) else np.asarray(gfk))
    old = None if old_fval is None else float(old_fval)
    older = None if old_old_fval is None else float(old_old_fval)
    r = search_numpy(value_and_gradient(f), x, p, old, older, g, c1, c2, maxiter)
    return r._replace(a_k=float(r.a_k), f_k=float(r.f_k), g_k=Tensor(np.asarray(r.g_k, x.dtype)))
