"""More of MindSpore 2.10's small operator classes, over existing ops: CheckNumerics, SplitV,
DataFormatDimMap, DataFormatVecPermute, ListDiff, TridiagonalMatMul, CompareAndBitpack,
AccumulateNV2 / accumulate_n, ScatterAddWithAxis, MatrixSolveLs, Padding, TripletMarginLoss,
MultilabelMarginLoss, CTCLossV2 (over ops/ctc.py), LARSUpdate (nn.LARS's formula), and, eagerly
only (their output shapes depend on the values), ListDiff, RaggedRange,
NonMaxSuppressionWithOverlaps and EditDistance. Values, dtypes and errors as measured on 2.10's CPU build
(tests/test_math_more2.py); SplitV, AccumulateNV2 and TripletMarginLoss have no CPU kernel in
2.10 and follow their documentation (LARSUpdate: its Ascend kernel's formula, as nn.LARS).
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import classification_losses as CL
from . import composite as CP
from . import functional as F
from . import ctc
from . import linalg_solvers as LS
from . import regression_losses as RL
from .dynamic_shape import _host
from .indexing import tensor_scatter_elements
from .sorting import cumsum
from .op_base import Operator, check_bool, check_dtype, check_int, check_positive_int, exporter

__all__ = ["accumulate_n", "make_coo_tensor", "make_csr_tensor", "make_row_tensor"]
CLASSES: list[str] = []
_export = exporter(CLASSES)

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


def _type_error(op: str, arg: str, allowed, got) -> TypeError:
    names = ", ".join(f"Tensor[{d}]" for d in allowed)
    return TypeError(f"For primitive[{op}], the input argument[{arg}] must be a type of {{{names}}}, but got "
                     f"Tensor[{got}].")


@_export
class CheckNumerics(Operator):
    """x unchanged, after checking it holds no NaN or infinity (RuntimeError "Tensor had NaN
    values" / "Tensor had Inf values", NaN reported first). The check reads the values, so it runs
    where they are known: eagerly (under jit the values pass through unchecked)."""

    def __call__(self, x):
        t = F.as_tensor(x)
        if t.dtype not in _FLOATS:
            raise _type_error("CheckNumerics", "x", _FLOATS, t.dtype)
        if not t.is_symbolic:
            values = t.asnumpy()
            if np.isnan(values).any():
                raise RuntimeError(": Tensor had NaN values")
            if np.isinf(values).any():
                raise RuntimeError(": Tensor had Inf values")
        return t


@_export
class SplitV(Operator):
    """x split along split_dim into pieces of size_splits (one -1 takes the rest)."""

    def __init__(self, size_splits, split_dim, num_split):
        if not isinstance(size_splits, (tuple, list)):
            raise TypeError(f"For 'SplitV', the type of 'size_splits' should be one of '['tuple', 'list']', but got "
                            f"type '{type(size_splits).__name__}'.")
        super().__init__(size_splits=tuple(check_int("SplitV", "size_splits", s) for s in size_splits),
                         split_dim=check_int("SplitV", "split_dim", split_dim),
                         num_split=check_positive_int("SplitV", "num_split", num_split))

    def __call__(self, input_x):
        x = F.as_tensor(input_x)
        axis = F._axis(self.split_dim, x.ndim)
        sizes = list(self.size_splits)
        if len(sizes) != self.num_split:
            raise ValueError(f"For primitive[SplitV], the attribute[size_splits length] must be equal to "
                             f"{self.num_split}, but got {len(sizes)}.")
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
        if sum(sizes) != x.shape[axis] or min(sizes) < 0:
            raise ValueError(f"For primitive[SplitV], the attribute[sum of size_splits] must be equal to "
                             f"{x.shape[axis]}, but got {sum(self.size_splits)}.")
        return F.split(x, sizes, axis)


_FORMAT_TYPES = (mstype.int32, mstype.int64)


def _formats(op: str, src: str, dst: str):
    for name, value in (("src_format", src), ("dst_format", dst)):
        if not isinstance(value, str) or value not in ("NHWC", "NCHW"):
            raise ValueError(f"For '{op}', the '{name}' must be str and must be in '['NHWC', 'NCHW']', but got "
                             f"'{value}'.")
    return src, dst


@_export
class DataFormatDimMap(Operator):
    """For each axis index x (in [-4, 4)), src_format's index of dst_format's axis x, as 2.10
    computes it (measured: NHWC -> NCHW maps 0, 1, 2, 3 to 0, 3, 1, 2)."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        src, dst = _formats("DataFormatDimMap", src_format, dst_format)
        super().__init__(src_format=src, dst_format=dst)

    def __call__(self, input_x):
        x = F.as_tensor(input_x)
        if x.dtype not in _FORMAT_TYPES:
            raise _type_error("DataFormatDimMap", "input type", _FORMAT_TYPES, x.dtype)
        table = Tensor(np.array([self.src_format.index(c) for c in self.dst_format], np.int32))
        return F.cast(F.gather(table, CP.floor_mod(F.cast(x, mstype.int32), 4), 0), x.dtype)


@_export
class DataFormatVecPermute(Operator):
    """A [4] or [4, 2] vector of per-axis values in src_format's order, in dst_format's order."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        src, dst = _formats("DataFormatVecPermute", src_format, dst_format)
        super().__init__(src_format=src, dst_format=dst)

    def __call__(self, x):
        t = F.as_tensor(x)
        if t.dtype not in _FORMAT_TYPES:
            raise _type_error("DataFormatVecPermute", "x", _FORMAT_TYPES, t.dtype)
        if tuple(t.shape) not in ((4,), (4, 2)):
            raise ValueError(f"For DataFormatVecPermute, input shape must be (4, ) or (4, 2), but got "
                             f"{list(t.shape)}.")
        order = Tensor(np.array([self.src_format.index(c) for c in self.dst_format], np.int32))
        return F.gather(t, order, 0)


@_export
class ListDiff(Operator):
    """(the values of 1-D x not in y, in x's order; their positions in x, of out_idx). The
    length depends on the values: eagerly only, as ops.unique."""

    def __init__(self, out_idx=mstype.int32):
        super().__init__(out_idx=check_dtype("ListDiff", "out_idx", out_idx, (mstype.int32, mstype.int64)))

    def __call__(self, x, y):
        tx, ty = F.as_tensor(x), F.as_tensor(y)
        if tx.dtype != ty.dtype:
            raise TypeError(f"For ListDiff, type of 'x' and 'y' should be same. But get x[{tx.dtype}], y[{ty.dtype}].")
        if tx.ndim != 1 or ty.ndim != 1:
            raise ValueError(f"For ListDiff, input x, y should be 1D, but get x dims = {tx.ndim}, y dims = {ty.ndim}.")
        vx, vy = _host("list_diff", tx), _host("list_diff", ty)
        keep = np.flatnonzero(~np.isin(vx, vy))
        return Tensor(vx[keep], tx.dtype), Tensor(keep.astype(self.out_idx.np_dtype))


@_export
class TridiagonalMatMul(Operator):
    """The tridiagonal matrix with the three [..., 1, M] diagonals (superdiag[i] on row i, column
    i + 1; subdiag[i] on row i, column i - 1) times rhs [..., M, N]."""

    def __call__(self, superdiag, maindiag, subdiag, rhs):
        sup, main, sub, b = (F.as_tensor(t) for t in (superdiag, maindiag, subdiag, rhs))
        m = b.shape[-2]
        for name, d in (("superdiag", sup), ("maindiag", main), ("subdiag", sub)):
            if d.shape[-1] != m:
                raise ValueError(f"For primitive[TridiagonalMatMul], the M in the shape of '{name}' [..., 1, M] must "
                                 f"be equal to M in the shape of 'rhs' [..., M, N] which is {m} , but got "
                                 f"{d.shape[-1]}.")
        column = lambda d: F.swapaxes(d, -1, -2)  # noqa: E731 - [..., 1, M] -> [..., M, 1]
        out = F.mul(column(main), b)
        if m > 1:
            zero = F.zeros_like(F.slice_axis(b, -2, 0, 1))
            below = F.concat((F.slice_axis(b, -2, 1, m), zero), -2)      # row i: rhs[i + 1]
            above = F.concat((zero, F.slice_axis(b, -2, 0, m - 1)), -2)  # row i: rhs[i - 1]
            out = F.add(out, F.add(F.mul(column(sup), below), F.mul(column(sub), above)))
        return out


@_export
class CompareAndBitpack(Operator):
    """x > threshold along x's last axis packed into uint8, eight to a byte, the first element the
    highest bit (a bool x is packed as it is)."""

    def __call__(self, x, threshold):
        t = F.as_tensor(x)
        if t.ndim == 0 or t.shape[-1] % 8:
            raise ValueError(f"For primitive[CompareAndBitpack], the attribute[x innermost dimension % 8] must be "
                             f"equal to 0, but got {t.shape[-1] % 8 if t.ndim else 0}.")
        bits = t if t.dtype == mstype.bool_ else F.greater(t, threshold)
        bits = F.reshape(F.cast(bits, mstype.int32), t.shape[:-1] + (t.shape[-1] // 8, 8))
        weights = Tensor(np.array([128, 64, 32, 16, 8, 4, 2, 1], np.int32))
        return F.cast(F.reduce_sum(F.mul(bits, weights), -1), mstype.uint8)


def accumulate_n(x):
    """The sum of a list or tuple of Tensors of one shape and dtype (AddN's twin)."""
    return F.addn(x)


@_export
class AccumulateNV2(Operator):
    """The sum of a list or tuple of Tensors (ops.accumulate_n)."""

    def __call__(self, x):
        return accumulate_n(x)


@_export
class ScatterAddWithAxis(Operator):
    """input_x with updates added at `indices` along `axis` (tensor_scatter_elements with
    reduction 'add'); a new Tensor: 2.10 leaves a Parameter input unchanged (measured)."""

    def __init__(self, axis=0):
        super().__init__(axis=check_int("ScatterAddWithAxis", "axis", axis))

    def __call__(self, input_x, indices, updates):
        return tensor_scatter_elements(F.as_tensor(input_x), indices, updates, self.axis, "add")


@_export
class MatrixSolveLs(Operator):
    """The least-squares solutions of matrix [..., M, N] X = rhs [..., M, K]: with `fast`, the
    regularized normal equations (A^T A + l2 I)^-1 A^T b (M >= N) or A^T (A A^T + l2 I)^-1 b
    (M < N); otherwise the QR solution, which 2.10 gives without the regularizer (measured).
    l2_regularizer is a float64 scalar Tensor."""

    def __init__(self, fast=True):
        super().__init__(fast=check_bool("MatrixSolveLs", "fast", fast))

    def __call__(self, matrix, rhs, l2):
        a, b, reg = F.as_tensor(matrix), F.as_tensor(rhs), F.as_tensor(l2)
        if reg.dtype != mstype.float64:
            raise _type_error("MatrixSolveLs", "l2_regularizer", (mstype.float64,), reg.dtype)
        if a.ndim < 2 or b.ndim < 2 or a.shape[-2] != b.shape[-2]:
            raise ValueError(f"MatrixSolveLs shape error, got matrix_row: {a.shape[-2] if a.ndim > 1 else None}, "
                             f"rhs_row: {b.shape[-2] if b.ndim > 1 else None}. In MatrixSolveLs matrix_row and rhs_row "
                             "should be equal.")
        m, n = a.shape[-2:]
        if not self.fast:
            return F.cast(LS._least_squares(a, b), a.dtype)
        at = F.swapaxes(a, -1, -2)
        lam = F.cast(reg, a.dtype)
        if m >= n:
            gram = F.add(F.matmul(at, a), F.mul(F.eye(n, n, a.dtype), lam))
            return LS.matrix_solve(gram, F.matmul(at, b))
        gram = F.add(F.matmul(a, at), F.mul(F.eye(m, m, a.dtype), lam))
        return F.matmul(at, LS.matrix_solve(gram, b))


@_export
class Padding(Operator):
    """x [..., 1] widened to [..., pad_dim_size] with zeros after its value."""

    def __init__(self, pad_dim_size=8):
        super().__init__(pad_dim_size=check_positive_int("Padding", "pad_dim_size", pad_dim_size))

    def __call__(self, x):
        t = F.as_tensor(x)
        if t.ndim == 0 or t.shape[-1] != 1:
            raise ValueError(f"For 'Padding', the last dimension of 'x' must be 1, but got: "
                             f"{t.shape[-1] if t.ndim else 0}.")
        return F.pad(t, (0, self.pad_dim_size - 1))


@_export
class TripletMarginLoss(Operator):
    """ops.triplet_margin_loss with p, swap, eps and reduction given to the constructor and the
    margin (a Tensor) to the call."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean"):
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"For 'TripletMarginLoss', the 'reduction' must be str and must be in '['none', 'mean', "
                             f"'sum']', but got '{reduction}'.")
        super().__init__(p=check_int("TripletMarginLoss", "p", p), swap=check_bool("TripletMarginLoss", "swap", swap),
                         eps=float(eps), reduction=reduction)

    def __call__(self, x, positive, negative, margin):
        if isinstance(margin, Tensor) and not margin.is_symbolic:
            margin = float(margin.asnumpy())
        return RL.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap, self.reduction)


@_export
class CTCLossV2(Operator):
    """(the CTC loss [N], log_alpha [N, T, 2S+1]) of log_probs [T, N, C] against padded targets
    [N, S] (ops.ctc_loss with reduction 'none', the only one 2.10 takes)."""

    def __init__(self, blank=0, reduction="none", zero_infinity=False):
        if reduction != "none":
            raise ValueError(f"For 'CTCLossV2', the 'reduction' must be str and must be in '['none']', but got "
                             f"'{reduction}'.")
        super().__init__(blank=check_int("CTCLossV2", "blank", blank, minimum=0), reduction=reduction,
                         zero_infinity=check_bool("CTCLossV2", "zero_infinity", zero_infinity))

    def __call__(self, log_probs, targets, input_lengths, target_lengths):
        return ctc.ctc_loss(F.as_tensor(log_probs), F.as_tensor(targets), F.as_tensor(input_lengths),
                            F.as_tensor(target_lengths), self.blank, "none", self.zero_infinity)


@_export
class LARSUpdate(Operator):
    """LARS's rescaled gradient: coeff * (gradient + weight_decay * weight), coeff = hyperpara *
    ||w|| / (||g|| + weight_decay * ||w|| + epsilon) (divided by learning_rate and clipped to
    [0, 1] with use_clip), where norm_weight and norm_gradient are the squared norms
    (nn.LARS passes the sums of squares)."""

    def __init__(self, epsilon=1e-05, hyperpara=0.001, use_clip=False):
        super().__init__(epsilon=float(epsilon), hyperpara=float(hyperpara),
                         use_clip=check_bool("LARSUpdate", "use_clip", use_clip))

    def __call__(self, weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate):
        from ..nn.optim.lars import lars_gradient  # nn imports ops: here, at the call
        w, g = F.as_tensor(weight), F.as_tensor(gradient)
        return lars_gradient(w, g, F.sqrt(F.as_tensor(norm_weight)), F.sqrt(F.as_tensor(norm_gradient)),
                             F.as_tensor(weight_decay), F.as_tensor(learning_rate) if self.use_clip else None,
                             self.hyperpara, self.epsilon)


@_export
class MultilabelMarginLoss(Operator):
    """(ops.multilabel_margin_loss, is_target): is_target int32 of target's shape, 1 at the
    classes the target lists (before its first -1). No CPU kernel in 2.10: its documented outputs."""

    def __init__(self, reduction="mean"):
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"For 'MultilabelMarginLoss', the 'reduction' must be str and must be in '['none', "
                             f"'mean', 'sum']', but got '{reduction}'.")
        super().__init__(reduction=reduction)

    def __call__(self, x, target):
        loss = CL.multilabel_margin_loss(x, target, self.reduction)
        t = F.as_tensor(target)
        listed = F.equal(cumsum(F.cast(F.equal(t, -1), mstype.int32), -1), 0)
        hot = F.mul(F.one_hot(F.select(listed, t, 0), t.shape[-1], dtype=mstype.int32),
                    F.expand_dims(F.cast(listed, mstype.int32), -1))
        return loss, F.reduce_max(hot, -2)


# -- value-dependent shapes: eagerly only ---------------------------------------------------------------

@_export
class RaggedRange(Operator):
    """(rt_nested_splits [n + 1] of Tsplits, rt_dense_values): the ranges start[i], start[i] +
    delta[i], ... below limit[i] (above, for a negative delta) laid end to end. The length depends
    on the values: eagerly only."""

    def __init__(self, Tsplits):  # noqa: N803 - MindSpore's name
        super().__init__(Tsplits=check_dtype("RaggedRange", "Tsplits", Tsplits, (mstype.int32, mstype.int64)))

    def __call__(self, starts, limits, deltas):
        ts = [F.as_tensor(t) for t in (starts, limits, deltas)]
        shapes = [tuple(t.shape) if t.ndim else (1,) for t in ts]
        if len(set(shapes)) != 1:
            raise ValueError(f"For RaggedRange, starts, limits, and deltas must have the same shape, but got starts "
                             f"{shapes[0]}, limits {shapes[1]}, deltas {shapes[2]}.")
        s, lim, d = (_host("ragged_range", t).reshape(-1) for t in ts)
        if np.any(d == 0):
            raise ValueError("For RaggedRange, requires input delta != 0.")
        pieces = [np.arange(a, b, c, dtype=s.dtype) for a, b, c in zip(s, lim, d)]
        splits = np.concatenate([[0], np.cumsum([len(p) for p in pieces])]).astype(self.Tsplits.np_dtype)
        values = np.concatenate(pieces) if pieces else np.zeros(0, s.dtype)
        return Tensor(splits), Tensor(values.astype(s.dtype), ts[0].dtype)


@_export
class NonMaxSuppressionWithOverlaps(Operator):
    """The indices (int32) of the boxes greedy non-maximum suppression keeps, by score, given
    their pairwise `overlaps` [N, N]: at most max_output_size, each scoring above
    score_threshold and overlapping no kept box by more than overlap_threshold. The length
    depends on the values: eagerly only."""

    def __call__(self, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        ov = _host("non_max_suppression_with_overlaps", overlaps)
        sc = _host("non_max_suppression_with_overlaps", scores)
        most, ov_t, sc_t = (_host("non_max_suppression_with_overlaps", t) for t in
                            (max_output_size, overlap_threshold, score_threshold))
        if ov.ndim != 2 or ov.shape[0] != ov.shape[1] or sc.shape != (ov.shape[0],):
            raise ValueError(f"For 'NonMaxSuppressionWithOverlaps', overlaps must be [N, N] and scores [N], but got "
                             f"{list(ov.shape)} and {list(sc.shape)}.")
        kept: list[int] = []
        for i in sorted(range(len(sc)), key=lambda k: (-sc[k], k)):
            if len(kept) >= int(most) or sc[i] <= float(sc_t):
                break
            if all(ov[i, j] <= float(ov_t) for j in kept):
                kept.append(i)
        return Tensor(np.array(kept, np.int32))


@_export
class EditDistance(Operator):
    """The Levenshtein distance between the sparse hypothesis and truth sequences (indices
    [K, R], values [K], dense shape [R]; the last axis the sequence), of shape the larger dense
    shape less its last axis; with `normalize`, divided by the truth's length (an empty truth
    gives inf, or 0 against an empty hypothesis). float32; eagerly only."""

    def __init__(self, normalize=True):
        super().__init__(normalize=check_bool("EditDistance", "normalize", normalize))

    def __call__(self, hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices, truth_values,
                 truth_shape):
        host = [_host("edit_distance", t) for t in (hypothesis_indices, hypothesis_values, hypothesis_shape,
                                                    truth_indices, truth_values, truth_shape)]
        hi, hv, hs, ti, tv, ts = host
        if len(hs) != len(ts) or hi.shape[-1] != len(hs) or ti.shape[-1] != len(ts):
            raise ValueError("For 'EditDistance', the ranks of hypothesis and truth must be equal and match their "
                             "indices.")
        out_shape = tuple(int(max(a, b)) for a, b in zip(hs[:-1], ts[:-1]))

        def sequences(indices, values):
            seqs: dict = {}
            for idx, v in sorted(zip(map(tuple, indices.tolist()), values.tolist())):
                seqs.setdefault(idx[:-1], []).append(v)
            return seqs
        hyp, truth = sequences(hi, hv), sequences(ti, tv)
        out = np.zeros(out_shape, np.float32)
        for pos in np.ndindex(*out_shape):
            a, b = hyp.get(pos, []), truth.get(pos, [])
            d = _levenshtein(a, b)
            if self.normalize:
                d = d / len(b) if b else (np.inf if a else 0.0)
            out[pos] = d
        return Tensor(out)


def _levenshtein(a, b) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


# -- sparse tensor makers (2.10's graph-internal primitives; no CPU kernel): the constructors ---------

def make_coo_tensor(indices, values, dense_shape):
    """COOTensor(indices, values, dense_shape)."""
    from ..sparse_tensor import COOTensor  # the sparse classes import ops: here, at the call
    return COOTensor(indices, values, tuple(dense_shape))


def make_csr_tensor(indptr, indices, values, dense_shape):
    """CSRTensor(indptr, indices, values, dense_shape)."""
    from ..sparse_tensor import CSRTensor
    return CSRTensor(indptr, indices, values, tuple(dense_shape))


def make_row_tensor(indices, values, dense_shape):
    """RowTensor(indices, values, dense_shape)."""
    from ..sparse_tensor import RowTensor
    return RowTensor(indices, values, tuple(dense_shape))
