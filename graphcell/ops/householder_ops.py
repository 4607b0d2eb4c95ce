"""MindSpore 2.10's Householder QR ops: geqrf, orgqr and ormqr.

geqrf and orgqr are the primitives of householder_prims.py (LAPACK's dgeqrf and dorgqr); ormqr
is orgqr's full Q [..., mn, mn] times `other` (Q or Q^T, on the left or the right), composed
of householder_product and matmul, so vmap and ONNX follow. dtypes, checks and messages are
2.10's (measured): geqrf takes float16 (computed in float32 here), orgqr and ormqr float32 and
float64 only; none has a gradient.

Departures, measured on 2.10: its CPU geqrf takes the reflector's beta positive when the pivot
alpha is exactly +0.0 (a permutation matrix [[0, 1], [1, 0]] gives R [[1, 0], [0, 1]]), where
LAPACK (here) gives -1s; Q R is A either way. 2.10 has no CPU kernel for ormqr (it raises
"Unsupported op [Ormqr] on CPU"): this one is checked against LAPACK's dormqr. 2.10's orgqr
message for a tau longer than the matrix is wide reports tau.shape[-1] as 0; it is the real
value here. 2.10 takes complex matrices: graphcell has no complex dtypes.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from . import householder_prims as HP
from .linalg_solvers import _in_float32, _mT
from .op_base import check_bool

__all__ = ["geqrf", "orgqr", "ormqr"]

_COMPLEX_OR_FLOAT = "{Tensor[Complex128], Tensor[Complex64], Tensor[Float32], Tensor[Float64]}"


def _tensor(op: str, name: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input argument[{name}] must be a Tensor, but got {type(x).__name__}.")
    return x


def _check_dtypes(op: str, named: dict) -> None:
    """2.10's order: each operand's dtype (the last argument first), then that they agree."""
    for name, x in reversed(named.items()):
        if x.dtype not in (mstype.float32, mstype.float64):
            raise TypeError(f"For primitive[{op}], the input argument[{name}] must be a type of {_COMPLEX_OR_FLOAT}, "
                            f"but got Tensor[{x.dtype}].")
    if len({x.dtype for x in named.values()}) > 1:
        listed = "\n".join(f"name:[{name}]:Tensor[{x.dtype}]." for name, x in sorted(named.items()))
        raise TypeError(f"For primitive[{op}], the input type must be same.\n{listed}")


def _check_tau(op: str, x: Tensor, tau: Tensor) -> None:
    if tau.ndim != x.ndim - 1:
        raise ValueError(f"For {op}, tau should have one dimension less than x, while rank of x is {x.ndim} and "
                         f"rank of tau is {tau.ndim}.")
    _check_batch(op, x, "tau", tau.shape, -1)


def _check_batch(op: str, x: Tensor, name: str, shape: tuple, cut: int) -> None:
    """`name`'s leading axes, shape[:cut], must be x's (2.10's message)."""
    for i, (dx, d) in enumerate(zip(x.shape[:-2], shape[:cut])):
        if dx != d:
            raise ValueError(f"For {op}, {name}.shape[:{cut}] must be equal to x.shape[:-2], but x.shape[{i}] is "
                             f"{dx}, and {name}.shape[{i}] is {d}.")


def geqrf(input):  # noqa: A002 - MindSpore's names
    """(y, tau): the QR decomposition of the matrices in the last two axes [..., m, n] in
    LAPACK's packed form: R on and above y's diagonal, the Householder vectors (their leading
    1 implicit) below it, and tau [..., min(m, n)], Q = H_0 ... H_k-1, H_i = I - tau_i v_i v_i^T.
    Any m and n; float16 (computed in float32), float32, float64."""
    if not isinstance(input, Tensor):
        raise TypeError(f'Failed calling Geqrf with "Geqrf()(input={type(input)})".\n'
                        'The valid calling should be: "Geqrf()(input=<Tensor>)".')
    if input.dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise TypeError(f"For 'Geqrf', the input must be a type of {{Tensor[Float16], Tensor[Float32], "
                        f"Tensor[Float64]}}, but got Tensor[{input.dtype}].")
    if input.ndim < 2:
        raise ValueError(f"For primitive[Geqrf], the rank of a must be greater than or equal to 2, but got "
                         f"{input.ndim}.")
    return _in_float32(lambda x: tuple(HP.geqrf.bind(x)), input)


def orgqr(input, input2):  # noqa: A002
    """Q's first n columns [..., m, n] from geqrf's packed reflectors `input` [..., m, n]
    (m >= n; only the part below the diagonal is read) and their factors `input2` [..., k],
    k <= n: H_0 ... H_k-1 applied to the identity's first n columns (LAPACK's orgqr)."""
    x, tau = _tensor("Orgqr", "x", input), _tensor("Orgqr", "tau", input2)
    _check_dtypes("Orgqr", {"x": x, "tau": tau})
    if x.ndim < 2:
        raise ValueError(f"For Orgqr, the rank of x must be greater than or equal to 2, while got x rank {x.ndim}.")
    m, n = x.shape[-2:]
    if m < n:
        raise ValueError(f"For Orgqr, x.shape[-2] must be greater than or equal to x.shape[-1], while x.shape[-2] "
                         f"is {m} and x.shape[-1] is {n}.")
    if tau.ndim >= 1 and tau.shape[-1] > n:
        raise ValueError(f"For Orgqr, x.shape[-1] must be greater than or equal to tau.shape[-1], while x.shape[-1] "
                         f"is {n} and tau.shape[-1] is {tau.shape[-1]}.")
    _check_tau("Orgqr", x, tau)
    return HP.householder_product.bind(x, tau)


def ormqr(input, tau, other, left=True, transpose=False):  # noqa: A002
    """Q other, Q^T other (transpose), other Q or other Q^T (left=False), Q [..., mn, mn] the
    product of the Householder reflectors in `input` [..., mn, k] (geqrf's packed form) with
    factors `tau` [..., min(mn, k)]; other [..., m, n] with m = mn (left) or n = mn (right)."""
    check_bool("Ormqr", "left", left)
    check_bool("Ormqr", "transpose", transpose)
    x, tau, other = (_tensor("Ormqr", name, v) for name, v in (("x", input), ("tau", tau), ("other", other)))
    _check_dtypes("Ormqr", {"x": x, "tau": tau, "other": other})
    if x.ndim < 2:
        raise ValueError(f"For primitive[Ormqr], the x_rank must be greater than or equal to 2, but got {x.ndim}.")
    _check_tau("Ormqr", x, tau)
    if other.ndim != x.ndim:
        raise ValueError(f"For Ormqr, other should have same dimension with x, while rank of x is {x.ndim} and rank "
                         f"of other is {other.ndim}.")
    _check_batch("Ormqr", x, "other", other.shape, -2)
    mn, k = x.shape[-2:]
    side = -2 if left else -1
    if other.shape[side] != mn:
        raise ValueError(f"For Ormqr, other.shape[{side}] must be equal to x.shape[-2], while x.shape[-2] is {mn} "
                         f"and other.shape[{side}] is {other.shape[side]}.")
    reflectors = tau.shape[-1]
    if reflectors > min(mn, k):
        raise ValueError(f"For Ormqr, tau.shape[-1] must be less than or equal to min(x.shape[-2], x.shape[-1]), "
                         f"while x.shape is {list(x.shape)} and tau.shape[-1] is {reflectors}.")
    # the full Q: the reflectors' columns padded with zeros to [..., mn, mn] (the extra
    # reflectors get tau 0: identities)
    lead = [(0, 0)] * (x.ndim - 2)
    vectors = F.pad(F.slice_axis(x, -1, 0, reflectors), lead + [(0, 0), (0, mn - reflectors)])
    q = HP.householder_product.bind(vectors, F.pad(tau, lead + [(0, mn - reflectors)]))
    if transpose:
        q = _mT(q)
    return F.matmul(q, other) if left else F.matmul(other, q)
