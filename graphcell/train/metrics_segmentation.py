"""Segmentation metrics: `Dice` and the surface distances between the edges of two label masks
(`HausdorffDistance`, `MeanSurfaceDistance`, `RootMeanSquareDistance`), with MindSpore 2.10's
measured semantics. The distance transforms come from scipy.ndimage (a jax dependency)."""
from __future__ import annotations

import numpy as np

from .metrics import Metric, _check_choice, _check_type, _update_first, rearrange_inputs

__all__ = ["Dice", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]


class Dice(Metric):
    """Per update 2 <p, y> / (<p, p> + <y, y> + smooth) over the flattened inputs; eval() is the
    sum of those over all updates divided by the number of samples (rows of y_pred) seen,
    as MindSpore 2.10 computes it (measured)."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if not isinstance(smooth, float):
            raise TypeError(f"The 'smooth' must be float, but got '{type(smooth).__name__}'")
        if smooth <= 0:
            raise ValueError(f"The 'smooth' must be float and must > 0, but got '{smooth}' with type 'float'.")
        self.smooth = smooth
        self.clear()

    def clear(self):
        self._dice_coeff_sum, self._samples_num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.shape != y.shape:
            raise ValueError("For 'Dice.update', predicted value (input[0]) and true value (input[1]) should have "
                             f"same shape, but got predicted value shape: {y_pred.shape}, true value shape: "
                             f"{y.shape}.")
        p, t = y_pred.reshape(-1).astype(np.float64), y.reshape(-1).astype(np.float64)
        self._dice_coeff_sum += float(2.0 * (p @ t) / (p @ p + t @ t + self.smooth))
        self._samples_num += y_pred.shape[0] if y_pred.ndim else 1

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError("The 'Dice coefficient' can not be calculated, because the number of samples is 0, "
                               "please check whether your inputs(predicted value, true value) are empty, or has "
                               "called update method before calling eval method.")
        return self._dice_coeff_sum / self._samples_num


_DISTANCE_METRICS = ("euclidean", "chessboard", "taxicab")


def _edges(mask: np.ndarray) -> np.ndarray:
    """The mask's surface: its points with a face neighbour outside it (outside the array counts)."""
    from scipy import ndimage
    return mask & ~ndimage.binary_erosion(mask)


def _surface_distances(from_edges: np.ndarray, to_edges: np.ndarray, metric: str) -> np.ndarray:
    """For each point of `from_edges`, the distance to the nearest point of `to_edges` (inf when
    `to_edges` is empty); euclidean distances are float64, chessboard and taxicab int32."""
    from scipy import ndimage
    if not to_edges.any():
        return np.full(int(from_edges.sum()), np.inf)
    if metric == "euclidean":
        field = ndimage.distance_transform_edt(~to_edges)
    else:
        field = ndimage.distance_transform_cdt(~to_edges, metric=metric)
    return field[from_edges]


class _SurfaceDistance(Metric):
    """Shared update of the surface-distance metrics: the masks y_pred == label_idx and
    y == label_idx of the last update (MindSpore 2.10 keeps only the last, measured)."""
    _verb = "must"

    def __init__(self, distance_metric="euclidean"):
        super().__init__()
        self.distance_metric = _check_choice("distance_metric", distance_metric, _DISTANCE_METRICS)
        self._masks = None

    def clear(self):
        self._masks = None

    @rearrange_inputs
    def update(self, *inputs):
        name, verb = type(self).__name__, self._verb
        self._check_inputs(inputs, 3, "predicted value, true value, label index")
        y_pred, y, label_idx = self._convert_data(inputs[0]), self._convert_data(inputs[1]), inputs[2]
        if not isinstance(label_idx, (int, float)):
            raise ValueError(f"For '{name}.update', the label index (input[2]) must be int or float, but got "
                             f"{type(label_idx)}.")
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise ValueError(f"For '{name}.update', the size of predicted value (input[0]) and true value (input[1]) "
                             f"{verb} be greater than 0, in addition to that, predicted value and true value {verb} "
                             f"have the same shape, but got predicted value size: {y_pred.size}, shape: "
                             f"{y_pred.shape}, true value size: {y.size}, shape: {y.shape}.")
        pred_mask, true_mask = y_pred == label_idx, y == label_idx
        if not pred_mask.any() and not true_mask.any():
            raise ValueError(f"For '{name}.update', the label index (input[2]) {verb} be in predicted value "
                             f"(input[0]) or true value (input[1]), but {label_idx} is not.")
        self._masks = (pred_mask, true_mask)

    def _edges_of_masks(self, crop: bool):
        pred_mask, true_mask = self._masks
        if crop:  # the union's bounding box holds every edge point, and the distances between them
            box = tuple(slice(i.min(), i.max() + 1) for i in np.nonzero(pred_mask | true_mask))
            pred_mask, true_mask = pred_mask[box], true_mask[box]
        return _edges(pred_mask), _edges(true_mask)


class HausdorffDistance(_SurfaceDistance):
    """The largest distance from a surface point of y_pred == label_idx to the nearest surface
    point of y == label_idx and (unless `directed`) back; with `percentile` (a nonzero float),
    that percentile of each direction's distances instead of the largest. Distances are
    'euclidean' (float64), 'chessboard' or 'taxicab' (int32); inf when one mask is empty."""

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        super().__init__(distance_metric)
        if percentile is not None:
            _check_type("percentile", percentile, float, "float")
            if not 0.0 <= percentile <= 100.0:
                raise ValueError(f"For 'HausdorffDistance', 'percentile' must be in [0, 100], but got {percentile}.")
        self.percentile = percentile
        self.directed = _check_type("directed", directed, bool, "bool")
        self.crop = _check_type("crop", crop, bool, "bool")

    def _directed(self, from_edges, to_edges):
        distances = _surface_distances(from_edges, to_edges, self.distance_metric)
        if distances.size == 0:  # y_pred has no point of the label
            return float("inf")
        # MindSpore tests the percentile's truth: 0.0 means the largest distance, like None
        return np.percentile(distances, self.percentile) if self.percentile else distances.max()

    def eval(self):
        if self._masks is None:
            raise _update_first()
        pred_edges, true_edges = self._edges_of_masks(self.crop)
        forward = self._directed(pred_edges, true_edges)
        return forward if self.directed else max(forward, self._directed(true_edges, pred_edges))


class _MeanSurfaceDistanceBase(_SurfaceDistance):
    """Before any update eval() is inf; after clear() it raises (both measured on MindSpore 2.10)."""

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__(distance_metric)
        self.symmetric = _check_type("symmetric", symmetric, bool, "bool")
        self._fresh = True

    def clear(self):
        super().clear()
        self._fresh = False

    def _distances(self):
        pred_edges, true_edges = self._edges_of_masks(crop=True)
        forward = _surface_distances(pred_edges, true_edges, self.distance_metric)
        backward = _surface_distances(true_edges, pred_edges, self.distance_metric) if self.symmetric else None
        return forward, backward

    def eval(self):
        if self._masks is None:
            if self._fresh:
                return float("inf")
            raise _update_first()
        forward, backward = self._distances()
        if forward.size == 0 or (backward is not None and backward.size == 0):
            return np.float64(np.inf)
        return self._reduce(forward.astype(np.float64), None if backward is None else backward.astype(np.float64))


class MeanSurfaceDistance(_MeanSurfaceDistanceBase):
    """Mean distance from the surface of y_pred == label_idx to the surface of y == label_idx;
    with `symmetric`, the average of that mean and the mean the other way."""

    def _reduce(self, forward, backward):
        return forward.mean() if backward is None else (forward.mean() + backward.mean()) / 2.0


class RootMeanSquareDistance(_MeanSurfaceDistanceBase):
    """With `symmetric`, sqrt of the average of the two directions' mean squared surface
    distances. Without it, MindSpore 2.10 returns the mean squared distance from y_pred's
    surface to y's, with no square root (measured); so does graphcell."""
    _verb = "should"

    def _reduce(self, forward, backward):
        if backward is None:
            return np.mean(forward ** 2)
        return np.sqrt((np.mean(forward ** 2) + np.mean(backward ** 2)) / 2.0)
