"""`CosineSimilarity`: the pairwise similarity matrix of a batch of row vectors, with MindSpore
2.10's measured semantics."""
from __future__ import annotations

import numpy as np

from .metrics import Metric, _check_choice, _check_type, _update_first

__all__ = ["CosineSimilarity"]


class CosineSimilarity(Metric):
    """update(inputs) with inputs [N, D]; eval() is the [N, N] matrix of row dot products
    ('dot') or cosines ('cosine'), its diagonal zeroed with `zero_diagonal`, then summed or
    averaged over the last axis with reduction 'sum' or 'mean'. The values keep the input's
    dtype (float32 stays float32, integer dot products stay integer). Only the last update
    counts (measured on MindSpore 2.10); a zero row gives nan cosines."""

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        self.similarity = _check_choice("similarity", similarity, ("dot", "cosine"))
        self.reduction = _check_choice("reduction", reduction, ("none", "sum", "mean"))
        self.zero_diagonal = _check_type("zero_diagonal", zero_diagonal, bool, "bool")
        self.clear()

    def clear(self):
        self.sqr_mtx_res = None

    def update(self, inputs):
        data = self._convert_data(inputs)
        if data.ndim != 2:
            raise ValueError(f"For 'CosineSimilarity.update', the input must be [N, D] row vectors, but got shape "
                             f"{data.shape}.")
        if self.similarity == "cosine":
            with np.errstate(invalid="ignore", divide="ignore"):
                data = data / np.linalg.norm(data, axis=1, keepdims=True)
        self.sqr_mtx_res = data @ data.T

    def eval(self):
        if self.sqr_mtx_res is None:
            raise _update_first()
        result = self.sqr_mtx_res.copy()
        if self.zero_diagonal:
            np.fill_diagonal(result, 0)
        if self.reduction == "sum":
            return result.sum(axis=-1)
        if self.reduction == "mean":
            return result.mean(axis=-1)
        return result
