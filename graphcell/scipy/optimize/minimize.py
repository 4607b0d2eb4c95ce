"""minimize with method 'BFGS' (Wright and Nocedal's algorithm 6.1, the inverse Hessian updated
from each step), with MindSpore 2.10's signature and results: an OptimizeResults(x, success,
status, fun, jac, hess_inv, nfev, njev, nit) whose x, jac and hess_inv are Tensors and the
rest Python scalars (measured). Its rules, defaults (gtol 1e-5 in the inf-norm, maxiter
200 * size, 10 line-search iterations) and status codes (0 converged, 1 maxiter, 2 + the
line search's status) are jax.scipy's, which 2.10's follows: on the float64 Rosenbrock function
2.10 and this evaluate the same 32 points (tests/test_msscipy.py), though 2.10 reports nit 25
where this counts 26 steps, and its hess_inv differs by <1% (unexplained). In float32 the two
paths drift apart by rounding after ~17 evaluations.

Eager only, as 2.10's (its minimize fails inside jit with "The object is not callable",
measured): a Python loop over numpy vectors in x0's dtype, the objective evaluated and
differentiated by graphcell. 2.10's 'LBFGS' is not here yet: it raises NotImplementedError.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import numpy as np

from ...tensor import Tensor
from .line_search import search_numpy, value_and_gradient

__all__ = ["minimize"]


class OptimizeResults(NamedTuple):
    """x: the solution; success: converged without a failed line search; status: 0 converged,
    1 maxiter reached, 2 + the line search's status when it failed; fun, jac: the objective
    and its gradient at x; hess_inv: the inverse Hessian estimate; nfev/njev: evaluations;
    nit: iterations."""
    x: Tensor
    success: bool
    status: int
    fun: float
    jac: Tensor
    hess_inv: Optional[Tensor]
    nfev: int
    njev: int
    nit: int


def _bfgs(f_and_grad, x0: np.ndarray, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    dt = x0.dtype
    d = x0.shape[0]
    maxiter = x0.size * 200 if maxiter is None else maxiter
    f_k, g_k = f_and_grad(x0)
    x_k, h_k = x0, np.eye(d, dtype=dt)
    converged = bool(np.linalg.norm(g_k, ord=norm) < gtol)
    failed, k, nfev, ls_status = False, 0, 1, 0
    old_old = f_k + dt.type(np.linalg.norm(g_k) / 2)
    while not converged and not failed and k < maxiter:
        p_k = -(h_k @ g_k)
        ls = search_numpy(f_and_grad, x_k, p_k, old_fval=f_k, old_old_fval=old_old, gfk=g_k,
                          maxiter=line_search_maxiter)
        nfev += ls.nfev
        failed, ls_status = ls.failed, ls.status
        s_k = dt.type(ls.a_k) * p_k
        y_k = ls.g_k - g_k
        with np.errstate(divide="ignore", invalid="ignore"):
            rho = dt.type(1) / dt.type(np.dot(y_k, s_k))
            w = np.eye(d, dtype=dt) - rho * np.outer(s_k, y_k)
            h_next = w @ h_k @ w.T + rho * np.outer(s_k, s_k)
        if np.isfinite(rho):
            h_k = h_next.astype(dt)
        old_old, x_k, f_k, g_k = f_k, (x_k + s_k).astype(dt), ls.f_k, ls.g_k
        converged = bool(np.linalg.norm(g_k, ord=norm) < gtol)
        k += 1
    status = 0 if converged else 1 if k == maxiter else (2 + ls_status) if failed else -1
    return OptimizeResults(x=Tensor(x_k), success=converged and not failed, status=status, fun=float(f_k),
                           jac=Tensor(np.asarray(g_k, dt)), hess_inv=Tensor(h_k), nfev=nfev, njev=nfev, nit=k)


def minimize(func, x0, args=(), method=None, jac=None, hess=None, hessp=None, bounds=None, constraints=(), tol=None,
             callback=None, options=None):
    """Minimizes func(x, *args) over a 1-D x from x0. method 'BFGS' (any case); options: maxiter,
    norm, gtol, line_search_maxiter. jac, hess, hessp, bounds, constraints, tol and callback are
    accepted and unused, as 2.10's (the gradient comes from autodiff)."""
    if method is None:
        raise ValueError("You must specify a solver.")
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to mindspore.scipy.optimize.minimize must be a tuple, got {args}")
    name = method.lower()
    if name == "lbfgs":
        raise NotImplementedError("graphcell.scipy.optimize.minimize: method 'LBFGS' is not implemented yet; use "
                                  "'BFGS'.")
    if name != "bfgs":
        raise ValueError(f"Method {method} not recognized")
    x = x0.asnumpy() if isinstance(x0, Tensor) else np.asarray(x0)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float32)
    return _bfgs(value_and_gradient(lambda t: func(t, *args)), x, **(options or {}))
