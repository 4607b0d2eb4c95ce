"""minimize with methods 'BFGS' (Wright and Nocedal's algorithm 6.1: the inverse Hessian updated
from each step) and 'LBFGS' (the two-loop recursion over the last history_size steps), with
MindSpore 2.10's signature and results: an OptimizeResults(x, success, status, fun, jac,
hess_inv, nfev, njev, nit) whose x, jac and hess_inv are Tensors (hess_inv None for LBFGS) and
the rest Python scalars (measured).

The loop is 2.10's, measured by comparing the points each evaluates (tests/test_msscipy.py):
at least one line search even from a stationary x0; a failed line search stops with x
unchanged; the step that converges is not counted in nit and does not update the inverse
Hessian (or the LBFGS history); the convergence test is max|g| < gtol for norm=inf and the
2-norm for any other norm; gtol and LBFGS's curvature threshold 1e-10 are rounded to float32
as 2.10 rounds every Python scalar. Status: 0 converged, 1 maxiter reached, 2 + the line
search's status when it failed (3: the zoom failed, 5: its maxiter), -1 otherwise.

Eager only, as 2.10's (its minimize fails inside jit with "The object is not callable",
measured): a Python loop over numpy vectors in x0's dtype, the objective evaluated and
differentiated by graphcell (or `jac(x)` when jac is callable, as 2.10 calls it).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from ...tensor import Tensor
from .line_search import ms_constant, ms_dot, search_numpy, value_and_gradient

__all__ = ["minimize"]


class OptimizeResults(NamedTuple):
    """x: the solution; success: converged without a failed line search; status: see the
    module; fun, jac: the objective and its gradient at x; hess_inv: the inverse Hessian
    estimate (BFGS only); nfev/njev: evaluations; nit: iterations."""
    x: Tensor
    success: bool
    status: int
    fun: float
    jac: Tensor
    hess_inv: Optional[Tensor]
    nfev: int
    njev: int
    nit: int


def _norm(g, norm):
    """2.10's convergence norm: max|g| for inf, the 2-norm for anything else (measured)."""
    return np.max(np.abs(g)) if norm == np.inf else np.sqrt(np.sum(g * g))


class _InverseHessian:
    """BFGS's direction: -H g, H updated by H <- (I - rho s y') H (I - rho y s') + rho s s'."""

    def __init__(self, g_0):
        self.h = np.eye(g_0.shape[0], dtype=g_0.dtype)

    def direction(self, g):
        return -ms_dot(self.h, g)

    def update(self, s, y, g):
        dt, eye = s.dtype, np.eye(s.shape[0], dtype=s.dtype)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            rho = dt.type(1) / ms_dot(y, s)
            left = eye - rho * np.outer(s, y)
            self.h = ((left @ self.h) @ (eye - rho * np.outer(y, s)) + rho * np.outer(s, s)).astype(dt)


class _History:
    """LBFGS's direction -r, r from the two-loop recursion over the last `size` pairs (s, y)
    starting from gamma = s'y / y'y; a pair with s'y <= 1e-10 is skipped and the direction is
    then -g itself (measured). The first direction is -g."""

    def __init__(self, g_0, size):
        n, dt = g_0.shape[0], g_0.dtype
        self.s, self.y = np.zeros((size, n), dt), np.zeros((size, n), dt)
        self.rho_s, self.rho_y = np.zeros((size, n), dt), np.zeros((size, n), dt)
        self.r = g_0

    def direction(self, g):
        return -self.r

    def update(self, s, y, g):
        dt = s.dtype
        ys = ms_dot(y, s)
        if not ys > ms_constant(1e-10, dt):      # not `<=`: a NaN curvature is skipped too
            self.r = g
            return
        rho = dt.type(1) / ys
        for buffer, row in ((self.s, s), (self.y, y), (self.rho_s, rho * s), (self.rho_y, rho * y)):
            buffer[:-1] = buffer[1:]
            buffer[-1] = row
        q, alphas = g, np.zeros(self.s.shape[0], dt)
        for i in reversed(range(self.s.shape[0])):
            alphas[i] = ms_dot(self.rho_s[i], q)
            q = q - alphas[i] * self.y[i]
        r = ys / ms_dot(y, y) * q
        for i in range(self.s.shape[0]):
            r = r + alphas[i] * self.s[i] - ms_dot(self.rho_y[i], r) * self.s[i]
        self.r = r


def _minimize(f_and_grad, x0, direction_rule, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    dt = x0.dtype
    maxiter = x0.size * 200 if maxiter is None else maxiter
    gtol = ms_constant(gtol, dt)
    f_k, g_k = f_and_grad(x0)
    x_k, rule = x0, direction_rule(g_k)
    converged = bool(_norm(g_k, np.inf) < gtol)
    failed, k, nfev, ls_status = False, 0, 1, 0
    old_old = f_k + _norm(g_k, 2) / dt.type(2)
    while k < maxiter:
        p_k = rule.direction(g_k)
        ls = search_numpy(f_and_grad, x_k, p_k, old_fval=f_k, old_old_fval=old_old, gfk=g_k,
                          maxiter=line_search_maxiter)
        nfev += ls.nfev
        failed, ls_status = ls.failed, ls.status
        if failed:
            break
        s_k = dt.type(ls.a_k) * p_k
        y_k = ls.g_k - g_k
        old_old, x_k, f_k, g_k = f_k, (x_k + s_k).astype(dt), ls.f_k, ls.g_k
        converged = bool(_norm(g_k, norm) < gtol)
        if converged:
            break
        rule.update(s_k, y_k, g_k)
        k += 1
    status = 0 if converged else 1 if k == maxiter else (2 + ls_status) if failed else -1
    hess_inv = Tensor(rule.h) if isinstance(rule, _InverseHessian) else None
    return OptimizeResults(x=Tensor(x_k), success=converged and not failed, status=status, fun=float(f_k),
                           jac=Tensor(np.asarray(g_k, dt)), hess_inv=hess_inv, nfev=nfev, njev=nfev, nit=k)


def minimize_bfgs(func, x0, jac=None, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """BFGS from x0 (numpy); named as 2.10's so a wrong option's TypeError reads the same."""
    return _minimize(_objective(func, jac), x0, _InverseHessian, maxiter, norm, gtol, line_search_maxiter)


def minimize_lbfgs(func, x0, jac=None, history_size=20, maxiter=None, norm=np.inf, gtol=1e-5,
                   line_search_maxiter=10):
    """LBFGS from x0 (numpy), keeping the last history_size steps."""
    return _minimize(_objective(func, jac), x0, lambda g: _History(g, history_size), maxiter, norm, gtol,
                     line_search_maxiter)


def _objective(func, jac):
    """x (numpy) -> (f, g) in x's dtype: autodiff, or func and jac separately when jac is callable."""
    if not callable(jac):
        return value_and_gradient(func)

    def run(x):
        value, grad = func(Tensor(x)), jac(Tensor(x))
        value = value.asnumpy() if isinstance(value, Tensor) else value
        grad = grad.asnumpy() if isinstance(grad, Tensor) else grad
        return np.asarray(value, x.dtype)[()], np.asarray(grad, x.dtype)
    return run


def minimize(func, x0, args=(), method=None, jac=None, hess=None, hessp=None, bounds=None, constraints=(), tol=None,
             callback=None, options=None):
    """Minimizes func(x, *args) over a 1-D x from x0. method 'BFGS' or 'LBFGS' (any case);
    options: maxiter, norm, gtol, line_search_maxiter, and history_size (LBFGS, default 20).
    jac: a callable jac(x) giving the gradient (as 2.10 calls it, without args), else autodiff.
    hess, hessp, bounds, constraints, tol and callback are accepted and unused, as 2.10's."""
    if method is None:
        raise ValueError("You must specify a solver.")
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to mindspore.scipy.optimize.minimize must be a tuple, got {args}")
    solvers = {"bfgs": minimize_bfgs, "lbfgs": minimize_lbfgs}
    if method.lower() not in solvers:
        raise ValueError(f"Method {method} not recognized")
    x = x0.asnumpy() if isinstance(x0, Tensor) else np.asarray(x0)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float32)
    return solvers[method.lower()](lambda t: func(t, *args), x, jac, **(options or {}))
