"""`OcclusionSensitivity`: how much a classifier's score for the label drops when a window
around each input position is replaced by `pad_val`, with MindSpore 2.10's measured semantics."""
from __future__ import annotations

import itertools

import numpy as np

from .metrics import Metric, _check_type, _update_first

__all__ = ["OcclusionSensitivity"]


class OcclusionSensitivity(Metric):
    """update(model, y_pred, label): y_pred is one input, batch size 1 ([1, ...]); eval() is,
    for every position p of y_pred[0] (inside `b_box` if given), model(y_pred)[0, label] minus
    the score with the window [p - margin, p + margin) on every axis set to `pad_val` (the
    windows span the channel axis too, as MindSpore's). `margin` is an int or one int per
    axis of y_pred[0]; `b_box` is [lo0, hi0, lo1, hi1, ...], inclusive bounds per axis of
    y_pred[0]; `n_batch` occluded inputs go through the model per call. Only the last update
    counts (measured on MindSpore 2.10)."""

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        self.pad_val = _check_type("pad_val", pad_val, float, "float")
        self.margin = _check_type("margin", margin, (int, list), "['int', 'list']")
        if isinstance(margin, list) and not all(isinstance(m, int) and not isinstance(m, bool) for m in margin):
            raise TypeError(f"For 'OcclusionSensitivity', 'margin' must be an int or a list of ints, but got {margin}.")
        self.n_batch = _check_type("n_batch", n_batch, int, "int")
        if n_batch < 1:
            raise ValueError(f"For 'OcclusionSensitivity', 'n_batch' must be positive, but got {n_batch}.")
        self.b_box = b_box
        self.clear()

    def clear(self):
        self._sensitivity = None

    def _margins(self, ndim: int) -> list[int]:
        margins = [self.margin] * ndim if isinstance(self.margin, int) else list(self.margin)
        if len(margins) != ndim or min(margins) < 0:
            raise ValueError(f"For 'OcclusionSensitivity', 'margin' must be a non-negative int or {ndim} of them "
                             f"(one per axis of the input without its batch axis), but got {self.margin}.")
        return margins

    def _region(self, shape) -> list[range]:
        if self.b_box is None:
            return [range(n) for n in shape]
        if len(self.b_box) != 2 * len(shape):
            raise ValueError("For 'OcclusionSensitivity', the bounding box must contain upper and lower for all "
                             "dimensions (except batch number), and the length of 'b_box' must be twice as long "
                             "as predicted value's (except batch number), but got 'b_box' length "
                             f"{len(self.b_box)}, predicted value length (except batch number) {len(shape)}.")
        return [range(max(lo, 0), min(hi, n - 1) + 1)
                for lo, hi, n in zip(self.b_box[0::2], self.b_box[1::2], shape)]

    def update(self, *inputs):
        from ..tensor import Tensor
        self._check_inputs(inputs, 3, "classification model, predicted value, label")
        model, image, label = inputs[0], self._convert_data(inputs[1]), self._convert_data(inputs[2])
        if image.ndim < 2 or image.shape[0] != 1:
            raise RuntimeError("For 'OcclusionSensitivity.update', the shape at index 0 of the predicted value "
                               f"(input[1]) must be 1, but got {image.shape[0] if image.ndim else image.shape}.")
        if label.size != 1:
            raise ValueError(f"For 'OcclusionSensitivity.update', the label (input[2]) must be one class index, but "
                             f"got shape {label.shape}.")
        label = int(label.reshape(-1)[0])

        def scores(batch: np.ndarray) -> np.ndarray:
            return self._convert_data(model(Tensor(batch)))[:, label]

        shape = image.shape[1:]
        margins, region = self._margins(len(shape)), self._region(shape)
        base = scores(image)[0]
        positions = list(itertools.product(*region))
        drops = []
        for start in range(0, len(positions), self.n_batch):
            chunk = positions[start:start + self.n_batch]
            batch = np.repeat(image, len(chunk), axis=0)
            for i, p in enumerate(chunk):
                window = tuple(slice(max(c - m, 0), c + m) for c, m in zip(p, margins))
                batch[(i,) + window] = self.pad_val
            drops.append(base - scores(batch))
        self._sensitivity = np.concatenate(drops).reshape([len(r) for r in region])

    def eval(self):
        if self._sensitivity is None:
            raise _update_first()
        return self._sensitivity
