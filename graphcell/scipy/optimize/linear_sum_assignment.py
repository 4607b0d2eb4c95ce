"""linear_sum_assignment with MindSpore 2.10's signature and results: (row_ind, col_ind) as
int64 Tensors, `maximize` required (measured). Eager only: the assignment is solved on the
host by scipy's (the Hungarian method, LAPJV variant); dimension_limit (2.10's: only the
first dimension_limit columns take part) is honoured the same way."""
from __future__ import annotations

import sys

import numpy as np
import scipy.optimize

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor

__all__ = ["linear_sum_assignment"]


def linear_sum_assignment(cost_matrix, maximize, dimension_limit=Tensor(sys.maxsize, mstype.int64)):
    """The rows and columns of the assignment with the least (maximize: greatest) total cost."""
    cost = F.as_tensor(cost_matrix)
    if cost.ndim != 2:
        raise ValueError(f"For 'LinearSumAssignment', the dimension of 'cost_matrix' should be 2, but got {cost.ndim}.")
    limit = int(F.as_tensor(dimension_limit).asnumpy())
    values = cost.asnumpy()[:, :max(0, min(limit, cost.shape[1]))]
    rows, cols = scipy.optimize.linear_sum_assignment(values, maximize=bool(maximize))
    return Tensor(rows.astype(np.int64)), Tensor(cols.astype(np.int64))
