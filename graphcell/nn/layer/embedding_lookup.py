"""MindSpore 2.10's EmbeddingLookup and MultiFieldEmbeddingLookup. `target` and `slice_mode`
choose where 2.10 places the table and how it shards it; on one device the lookup is the same
(2.10's CPU build accepts any slice_mode at construction and target 'CPU' or 'DEVICE', measured;
with 'DEVICE' its CPU call fails, graphcell's looks up as usual)."""
from __future__ import annotations

from ... import dtype as mstype
from ...ops import functional as F
from ..cell import Cell
from ._init import make_param


def _lookup(table, ids):
    """Rows of `table` at `ids`; an index outside [0, vocab) gives a zero row (2.10's CPU lookup,
    measured for -1 and past the end)."""
    vocab = table.shape[0]
    ids = F.cast(ids, mstype.int32)
    inside = F.logical_and(F.greater_equal(ids, 0), F.less(ids, vocab))
    rows = F.take_in_range(table, F.select(inside, ids, 0), 0)
    return F.select(F.expand_dims(inside, -1), rows, 0.0)


def _max_norm(rows, max_norm):
    """Each row scaled down to L2 norm `max_norm` where it is longer."""
    if max_norm is None:
        return rows
    norm = F.sqrt(F.reduce_sum(F.square(rows), -1, True))
    return F.mul(rows, F.div(float(max_norm), F.maximum(norm, float(max_norm))))


class EmbeddingLookup(Cell):
    """`embedding_table` [vocab_size, embedding_size] (param_init, Normal(0.01) by default) looked
    up at integer indices of any shape; max_norm clips each looked-up row's L2 norm."""

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU", slice_mode="batch_slice",
                 manual_shapes=None, max_norm=None, sparse=True, dtype=mstype.float32):
        super().__init__()
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For '{type(self).__name__}', the 'target' must be str and must be in "
                             f"'['CPU', 'DEVICE']', but got '{target}'.")
        self.vocab_size, self.embedding_size = vocab_size, embedding_size
        self.target, self.slice_mode, self.manual_shapes = target, slice_mode, manual_shapes
        self.max_norm, self.sparse = max_norm, sparse
        self.embedding_table = make_param(param_init, (vocab_size, embedding_size), "embedding_table", dtype)

    def construct(self, indices):
        return _max_norm(_lookup(self.embedding_table, indices), self.max_norm)


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """(input_indices, input_values, field_ids), each [batch, n] -> [batch, field_size,
    embedding_size]: each looked-up row times its value, reduced per field by `operator`:
    'SUM'; 'MEAN', the sum divided by the field's sum of values; 'MAX'. A field with no entry
    is zero (2.10 gives -0.0 for 'MAX', measured)."""

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", feature_num_list=None, max_norm=None, sparse=True, operator="SUM",
                 dtype=mstype.float32):
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', the 'operator' must be str and must be in "
                             f"'['SUM', 'MAX', 'MEAN']', but got '{operator}'.")
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, None, max_norm, sparse, dtype)
        self.field_size, self.operator, self.feature_num_list = field_size, operator, feature_num_list

    def construct(self, input_indices, input_values, field_ids):
        rows = _max_norm(_lookup(self.embedding_table, input_indices), self.max_norm)      # [B, n, E]
        values = F.cast(input_values, rows.dtype)
        weighted = F.mul(rows, F.expand_dims(values, -1))
        # [B, F, n]: which entries belong to each field (an out-of-range field id to none)
        member = F.swapaxes(F.one_hot(F.cast(field_ids, mstype.int32), self.field_size, dtype=rows.dtype), 1, 2)
        if self.operator == "MAX":
            masked = F.select(F.expand_dims(F.greater(member, 0), -1), F.expand_dims(weighted, 1), float("-inf"))
            best = F.reduce_max(masked, 2)                                                # [B, F, E]
            return F.select(F.isfinite(best), best, 0.0)
        total = F.matmul(member, weighted)                                                # [B, F, E]
        if self.operator == "SUM":
            return total
        weight = F.expand_dims(F.matmul(member, F.expand_dims(values, -1))[..., 0], -1)     # [B, F, 1]
        empty = F.equal(weight, 0.0)
        return F.select(empty, 0.0, F.div(total, F.select(empty, 1.0, weight)))
