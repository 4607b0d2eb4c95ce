"""The image resize kernels behind vision.Resize, in numpy: OpenCV's cv::resize (which MindSpore
2.10 runs for NEAREST, LINEAR, CUBIC and AREA) and Pillow's bicubic resampling (PILCUBIC).

uint8 images follow the integer arithmetic of those libraries, so outputs are bit-exact with 2.10
(measured); float images take the same taps and weights in float32. Images are <H, W, C> here.

OpenCV, in short: separable taps at half-pixel centres; uint8 weights are 11-bit fixed point;
a downscale by exactly 2 in both axes turns LINEAR into AREA; AREA averages covered source
cells when both axes shrink, and is a bilinear variant otherwise.
The uint8 row pass of LINEAR and CUBIC is the arithmetic of OpenCV's vector code, which 2.10
runs on the whole row (measured: its scalar rounding differs by 1 in many values).
"""
from __future__ import annotations

import numpy as np

COEF_BITS = 11                     # OpenCV's INTER_RESIZE_COEF_BITS
COEF_SCALE = 1 << COEF_BITS
PIL_BITS = 22                      # Pillow's PRECISION_BITS for 8-bit images


# --- OpenCV --------------------------------------------------------------------------------

def opencv_resize(img: np.ndarray, th: int, tw: int, mode: str) -> np.ndarray:
    """cv::resize of an <H, W, C> image to (th, tw); mode is nearest, linear, cubic or area."""
    h, w = img.shape[:2]
    if (h, w) == (th, tw):
        return img.copy()
    scale_y, scale_x = 1.0 / (th / h), 1.0 / (tw / w)      # OpenCV's doubles, as it computes them
    area_fast = scale_x == int(scale_x) and scale_y == int(scale_y)
    if mode == "nearest":
        rows = np.minimum(np.floor(np.arange(th) * scale_y).astype(np.int64), h - 1)
        cols = np.minimum(np.floor(np.arange(tw) * scale_x).astype(np.int64), w - 1)
        return img[rows][:, cols]
    if mode == "linear" and area_fast and scale_x == 2 and scale_y == 2:
        mode = "area"                                        # the same result, faster, in OpenCV
    if mode == "area" and scale_x >= 1 and scale_y >= 1:
        if area_fast:
            return _area_fast(img, int(scale_y), int(scale_x))
        return _area(img, _area_taps(h, th, scale_y), _area_taps(w, tw, scale_x))
    kind = "cubic" if mode == "cubic" else "linear"
    rows = _taps(h, th, scale_y, kind, area_mode=mode == "area", rows=True)
    cols = _taps(w, tw, scale_x, kind, area_mode=mode == "area", rows=False)
    if img.dtype == np.uint8:
        return _separable_uint8(img, rows, cols, kind)
    x = img.astype(np.float32)
    out = _apply(_apply(x, *cols, axis=1), *rows, axis=0)
    return _cast(out, img.dtype)


def _taps(n: int, m: int, scale: float, kind: str, area_mode: bool, rows: bool):
    """Source indices (m, k), clamped into the image, and float32 weights (m, k) of m outputs.
    OpenCV moves a LINEAR column tap outside the image onto the border with weight 1, but keeps
    a row's weights and only clamps its indices (two rounded products of one row, in uint8)."""
    d = np.arange(m, dtype=np.float64)
    if area_mode:      # AREA when an axis grows: a bilinear weight from the covered fraction
        sx = np.floor(d * scale).astype(np.int64)
        fx = ((d + 1) - (sx + 1) * (1.0 / scale)).astype(np.float32)
        fx = np.where(fx <= 0, np.float32(0), fx - np.floor(fx))
    else:
        f = ((d + 0.5) * scale - 0.5).astype(np.float32)
        sx = np.floor(f).astype(np.int64)
        fx = f - sx.astype(np.float32)
    if kind == "linear":
        if not rows:
            low, high = sx < 0, sx >= n - 1
            fx = np.where(low | high, np.float32(0), fx).astype(np.float32)
            sx = np.where(low, 0, np.where(high, n - 1, sx))
        weights = np.stack([np.float32(1) - fx, fx], 1)
        start = sx
    else:
        weights = _cubic_weights(fx)
        start = sx - 1
    index = np.clip(start[:, None] + np.arange(weights.shape[1]), 0, n - 1)
    return index, weights.astype(np.float32)


def _cubic_weights(x: np.ndarray) -> np.ndarray:
    """OpenCV's bicubic kernel (A = -0.75) at the offset x, in float32 as it computes it."""
    a = np.float32(-0.75)
    x = x.astype(np.float32)
    one = np.float32(1)
    c0 = ((a * (x + one) - 5 * a) * (x + one) + 8 * a) * (x + one) - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + one
    c2 = ((a + 2) * (one - x) - (a + 3)) * (one - x) * (one - x) + one
    c3 = one - c0 - c1 - c2
    return np.stack([c0, c1, c2, c3], 1).astype(np.float32)


def _apply(x, index, weights, axis):
    """sum_k x[index[:, k]] * weights[:, k] along `axis` (0 rows, 1 columns), in x's dtype."""
    shape = [1] * x.ndim
    shape[axis] = index.shape[0]
    out = None
    for k in range(index.shape[1]):
        term = np.take(x, index[:, k], axis) * weights[:, k].astype(x.dtype).reshape(shape)
        out = term if out is None else out + term
    return out


def _fixed(weights):
    """Weights in OpenCV's 11-bit fixed point (saturate_cast<short> rounds half to even)."""
    return np.rint(weights * np.float32(COEF_SCALE)).astype(np.int64)


def _separable_uint8(img, rows, cols, kind):
    """OpenCV's uint8 LINEAR / CUBIC: an exact integer column pass, then the row pass as its
    vector code rounds it: LINEAR takes each 11-bit product's high 16 bits of 4 shifted bits
    (two floors), then rounds off 2 bits; CUBIC sums in float32 and rounds half to even."""
    (yi, yw), (xi, xw) = rows, cols
    horizontal = _apply(img.astype(np.int64), xi, _fixed(xw), axis=1)      # (H, tw, C) int
    beta = _fixed(yw)
    taps = [horizontal[yi[:, k]] for k in range(yi.shape[1])]              # each (th, tw, C)
    b = [beta[:, k].reshape(-1, 1, 1) for k in range(beta.shape[1])]
    if kind == "linear":
        out = (sum(((np.minimum(t >> 4, 32767) * bk) >> 16) for t, bk in zip(taps, b)) + 2) >> 2
    else:
        scale = np.float32(1.0 / (COEF_SCALE * COEF_SCALE))
        bf = [(bk * scale).astype(np.float32) for bk in b]
        acc = taps[3].astype(np.float32) * bf[3]
        for k in (2, 1, 0):
            acc = taps[k].astype(np.float32) * bf[k] + acc
        out = np.rint(acc)
    return np.clip(out, 0, 255).astype(np.uint8)


def _area_fast(img, sy, sx):
    """AREA by whole factors: the mean of each sy x sx block."""
    h, w = img.shape[0] // sy, img.shape[1] // sx
    blocks = img[:h * sy, :w * sx].reshape(h, sy, w, sx, -1)
    if img.dtype == np.uint8:
        total = blocks.astype(np.int64).sum((1, 3))
        if sy == sx == 2 and img.shape[2] in (1, 3, 4):
            return ((total + 2) >> 2).astype(np.uint8)          # its SIMD average rounds half up
        mean = total.astype(np.float32) * np.float32(1.0 / (sy * sx))
        return np.clip(np.rint(mean), 0, 255).astype(np.uint8)
    mean = blocks.astype(np.float32).sum((1, 3)) * np.float32(1.0 / (sy * sx))
    return _cast(mean, img.dtype)


def _area_taps(n: int, m: int, scale: float):
    """The source cells (m, k) each of m outputs covers and their float32 shares, in OpenCV's
    order: the partial cell before, the whole cells, the partial cell after (absent ones weigh 0)."""
    f1 = np.arange(m, dtype=np.float64) * scale
    f2 = f1 + scale
    cell = np.minimum(scale, n - f1)
    s2 = np.minimum(np.floor(f2).astype(np.int64), n - 1)
    s1 = np.minimum(np.ceil(f1).astype(np.int64), s2)
    whole = int(np.ceil(scale)) + 1
    index = [np.maximum(s1 - 1, 0)] + [np.minimum(s1 + j, n - 1) for j in range(whole)] + [s2]
    weight = [np.where(s1 - f1 > 1e-3, (s1 - f1) / cell, 0)]
    weight += [np.where(s1 + j < s2, 1.0 / cell, 0) for j in range(whole)]
    weight += [np.where(f2 - s2 > 1e-3, np.minimum(np.minimum(f2 - s2, 1.0), cell) / cell, 0)]
    return np.stack(index, 1), np.stack(weight, 1).astype(np.float32)


def _area(img, rows, cols):
    """AREA shrinking both axes: float32 sums of covered cells, accumulated in OpenCV's order."""
    x = img.astype(np.float32)
    out = _apply(_apply(x, *cols, axis=1), *rows, axis=0)
    return _cast(out, img.dtype)


def _cast(out, dtype):
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(np.rint(out), info.min, info.max).astype(dtype)
    return out.astype(dtype)


# --- Pillow --------------------------------------------------------------------------------

def _pil_bicubic(x):
    x = np.abs(x)
    a = -0.5
    return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))


def _pil_taps(n: int, m: int):
    """Pillow's bicubic coefficients for m outputs from n inputs (support widened on shrinking)."""
    scale = n / m
    filterscale = max(scale, 1.0)
    support = 2.0 * filterscale
    ksize = int(np.ceil(support)) * 2 + 1
    center = (np.arange(m) + 0.5) * scale
    xmin = np.maximum(np.trunc(center - support + 0.5).astype(np.int64), 0)
    xmax = np.minimum(np.trunc(center + support + 0.5).astype(np.int64), n) - xmin
    j = np.arange(ksize)
    w = _pil_bicubic((j[None] + xmin[:, None] - center[:, None] + 0.5) / filterscale)
    w = np.where(j[None] < xmax[:, None], w, 0.0)
    total = w.sum(1, keepdims=True)
    w = np.where(total != 0, w / np.where(total != 0, total, 1), w)
    return np.minimum(xmin[:, None] + j[None], n - 1), w


def pil_bicubic_resize(img: np.ndarray, th: int, tw: int) -> np.ndarray:
    """Pillow's BICUBIC resize: the column pass (if the width changes), then the row pass, each
    rounded to uint8 in Pillow's 22-bit fixed point; float images in float32 without rounding."""
    x = img
    for axis, m in ((1, tw), (0, th)):
        if x.shape[axis] == m:
            continue
        index, w = _pil_taps(x.shape[axis], m)
        if img.dtype == np.uint8:
            k = np.where(w < 0, np.trunc(-0.5 + w * (1 << PIL_BITS)), np.trunc(0.5 + w * (1 << PIL_BITS)))
            acc = _apply(x.astype(np.int64), index, k.astype(np.int64), axis) + (1 << (PIL_BITS - 1))
            x = np.clip(acc >> PIL_BITS, 0, 255).astype(np.uint8)
        else:
            x = _apply(x.astype(np.float32), index, w.astype(np.float32), axis)
    return x.astype(img.dtype) if x is not img else img.copy()
