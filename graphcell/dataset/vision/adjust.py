"""The pixel arithmetic behind the colour transforms (AdjustBrightness ... Equalize), in numpy, as
MindSpore 2.10 runs it with OpenCV: uint8 results are bit-exact with 2.10 (measured), floats
take the same steps in float32.

Blends are OpenCV's addWeighted(other, 1 - f, img, f) on uint8: float32 weights, the image term
rounded first and the other fused in (one multiply-add), then rounded half to even; so ties at
factors above 1 go the way 2.10's do. Images are <H, W, C> or <H, W> here.
"""
from __future__ import annotations

import numpy as np

from . import color
from .utils import ConvertMode


def _saturate_uint8(values) -> np.ndarray:
    """OpenCV's saturate_cast<uchar> of float values: rounded half to even, clipped."""
    return np.clip(np.rint(values), 0, 255).astype(np.uint8)


def blend(img: np.ndarray, other: np.ndarray, factor: float, fuse_image: bool = False) -> np.ndarray:
    """img * factor + other * (1 - factor), as 2.10's addWeighted computes it: one term rounded
    to float32, the other fused into the sum (an FMA); `fuse_image` says which is fused."""
    alpha = np.float32(factor)
    beta = np.float32(1) - alpha
    if img.dtype == np.uint8:
        (rounded, w_rounded), (fused, w_fused) = (other, beta), (img, alpha)
        if not fuse_image:
            (rounded, w_rounded), (fused, w_fused) = (img, alpha), (other, beta)
        rounded_term = rounded.astype(np.float32) * w_rounded
        total = fused.astype(np.float64) * np.float64(w_fused) + rounded_term.astype(np.float64)
        return _saturate_uint8(total.astype(np.float32))
    return (other.astype(np.float32) * beta + img.astype(np.float32) * alpha).astype(img.dtype)


def gray(img: np.ndarray) -> np.ndarray:
    """The RGB image's gray (OpenCV's RGB2GRAY) as a 3-channel image of img's dtype."""
    return np.repeat(color.convert_color(img, ConvertMode.COLOR_RGB2GRAY)[..., None], 3, -1)


def brightness(img: np.ndarray, factor: float) -> np.ndarray:
    scaled = img.astype(np.float32) * np.float32(factor)
    return _saturate_uint8(scaled) if img.dtype == np.uint8 else scaled.astype(img.dtype)


def contrast(img: np.ndarray, factor: float) -> np.ndarray:
    """Blends with the mean of the image's gray (rounded to an integer for uint8)."""
    mean = color.convert_color(img, ConvertMode.COLOR_RGB2GRAY).astype(np.float64).mean()
    if img.dtype == np.uint8:
        mean = np.rint(mean)
    return blend(img, np.full_like(img, mean), factor)


def saturation(img: np.ndarray, factor: float) -> np.ndarray:
    return blend(img, gray(img), factor)


def gamma(img: np.ndarray, gamma_: float, gain: float) -> np.ndarray:
    """uint8: a 256-entry table of 256 * gain * (i / 255) ** gamma, truncated (2.10's, measured:
    256, not 255); floats: (gain * x) ** gamma, at most 1."""
    if img.dtype == np.uint8:
        table = 256.0 * gain * (np.arange(256, dtype=np.float64) / 255.0) ** gamma_
        return np.clip(np.trunc(table), 0, 255).astype(np.uint8)[img]
    x = img.astype(np.float32) * np.float32(gain)
    return np.minimum(np.power(x, np.float32(gamma_)), np.float32(1)).astype(img.dtype)


def sharpness(img: np.ndarray, factor: float) -> np.ndarray:
    """Blends with the image smoothed by [[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13 (Pillow's SMOOTH
    filter, rounded to the image's dtype); the one-pixel border keeps the image's values."""
    x = img.astype(np.float32)
    h, w = img.shape[:2]
    smooth = img.copy()
    if h > 2 and w > 2:
        total = sum(x[1 + dy:h - 1 + dy, 1 + dx:w - 1 + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1))
        inner = (total + np.float32(4) * x[1:-1, 1:-1]) * np.float32(1 / 13)
        smooth[1:-1, 1:-1] = _saturate_uint8(inner) if img.dtype == np.uint8 else inner
    return blend(img, smooth, factor, fuse_image=True)


def invert(img: np.ndarray) -> np.ndarray:
    return (255 - img.astype(np.float32)).astype(img.dtype) if img.dtype.kind == "f" else (255 - img).astype(img.dtype)


def posterize(img: np.ndarray, bits: int) -> np.ndarray:
    """Keeps the top `bits` bits of each value."""
    mask = (0xFF << (8 - bits)) & 0xFF
    return img & np.array(mask if img.dtype == np.uint8 else np.int8(np.uint8(mask).view(np.int8)), img.dtype)


def solarize(img: np.ndarray, low: float, high: float) -> np.ndarray:
    """255 - value for the values in [low, high]."""
    inside = (img >= low) & (img <= high)
    return np.where(inside, (255 - img.astype(np.float64)).astype(img.dtype), img)


def _channels(img):
    return [img] if img.ndim == 2 else [img[..., c] for c in range(img.shape[2])]


def _stack(planes, img):
    return planes[0] if img.ndim == 2 else np.stack(planes, -1)


def autocontrast(img: np.ndarray, cutoff: float, ignore) -> np.ndarray:
    """Per channel: drops `cutoff` percent of the pixels from each end of the histogram (and the
    values in `ignore`), then stretches the rest to [0, 255] (a truncating float32 table)."""
    planes = []
    for plane in _channels(img):
        hist = np.bincount(plane.ravel(), minlength=256).astype(np.int64)
        for value in ignore:
            hist[value] = 0
        if cutoff:
            count = int(hist.sum())
            for order in (slice(None), slice(None, None, -1)):     # from the low end, then the high end
                view = hist[order]
                cut = int(count * cutoff // 100)
                for i in range(256):
                    if cut <= 0:
                        break
                    taken = min(cut, view[i])
                    view[i] -= taken
                    cut -= taken
        used = np.nonzero(hist)[0]
        if len(used) < 2 or used[0] == used[-1]:
            planes.append(plane.copy())
            continue
        lo, hi = int(used[0]), int(used[-1])
        scale = np.float32(255.0) / np.float32(hi - lo)             # float32, as 2.10 (measured)
        table = np.arange(256, dtype=np.float32) * scale - np.float32(lo) * scale
        table = np.clip(np.trunc(table), 0, 255).astype(np.uint8)
        planes.append(table[plane])
    return _stack(planes, img)


def equalize(img: np.ndarray) -> np.ndarray:
    """OpenCV's equalizeHist per channel: the cumulative histogram above the lowest value, scaled
    to 255 in float32 and rounded."""
    planes = []
    for plane in _channels(img):
        hist = np.bincount(plane.ravel(), minlength=256)
        low = int(np.nonzero(hist)[0][0])
        total = plane.size
        if hist[low] == total:
            planes.append(np.full_like(plane, low))
            continue
        scale = np.float32(255) / np.float32(total - hist[low])
        table = np.zeros(256, np.uint8)
        table[low + 1:] = _saturate_uint8(np.cumsum(hist[low + 1:]).astype(np.float32) * scale)
        planes.append(table[plane])
    return _stack(planes, img)


# --- hue: OpenCV's RGB <-> HSV_FULL (hue in 0..255) ------------------------------------------

HSV_SHIFT = 12                       # OpenCV's fixed-point bits for uint8 RGB2HSV
_HSV_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])   # B G R taps


def _rgb_to_hsv_full_uint8(img):
    """cv::cvtColor(RGB2HSV_FULL) on uint8: hue over 256 steps, 12-bit fixed-point divisions."""
    r, g, b = (img[..., c].astype(np.int64) for c in range(3))
    v = np.maximum(np.maximum(r, g), b)
    diff = v - np.minimum(np.minimum(r, g), b)
    steps = np.arange(1, 256, dtype=np.float64)
    s_div = np.concatenate([[0], np.rint((255 << HSV_SHIFT) / steps)]).astype(np.int64)
    h_div = np.concatenate([[0], np.rint((256 << HSV_SHIFT) / (6.0 * steps))]).astype(np.int64)
    half = 1 << (HSV_SHIFT - 1)
    s = (diff * s_div[v] + half) >> HSV_SHIFT
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * h_div[diff] + half) >> HSV_SHIFT
    return np.where(h < 0, h + 256, h), s, v


def _hsv_full_to_rgb_uint8(h, s, v):
    """cv::cvtColor(HSV2RGB_FULL) on uint8: float32 sectors of the hue (over 255), rounded."""
    one = np.float32(1)
    h = h.astype(np.float32) * np.float32(6.0 / 255)
    s = s.astype(np.float32) * np.float32(1 / 255.)
    v = v.astype(np.float32) * np.float32(1 / 255.)
    h = np.where(h >= 6, h - np.float32(6), h)
    sector = np.floor(h).astype(np.int64)
    frac = (h - sector).astype(np.float32)
    table = np.stack([v, v * (one - s), v * (one - s * frac), v * (one - s * (one - frac))])
    taps = _HSV_SECTORS[sector]                                          # (..., 3): B, G, R
    bgr = np.take_along_axis(table, np.moveaxis(taps, -1, 0), 0)
    rgb = np.moveaxis(bgr[::-1], 0, -1)
    rgb = np.where((s == 0)[..., None], v[..., None], rgb)
    return _saturate_uint8(rgb * np.float32(255))


def hue(img: np.ndarray, factor: float) -> np.ndarray:
    """Turns the hue by `factor` of a full turn: on uint8 through OpenCV's HSV_FULL, the hue
    moved by int(factor * 255) steps modulo 256 (as 2.10, measured); floats in float32 HSV."""
    if img.dtype == np.uint8:
        h, s, v = _rgb_to_hsv_full_uint8(img)
        return _hsv_full_to_rgb_uint8((h + int(factor * 255)) % 256, s, v)
    hsv = rgb_to_hsv(img.astype(np.float64))
    hsv[..., 0] = (hsv[..., 0] + factor) % 1.0
    return hsv_to_rgb(hsv).astype(img.dtype)


def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """colorsys.rgb_to_hsv over the last axis (h, s in [0, 1], v as the input's scale), float64."""
    rgb = rgb.astype(np.float64)
    maxc, minc = rgb.max(-1), rgb.min(-1)
    span = maxc - minc
    safe = np.where(span == 0, 1, span)
    r, g, b = ((maxc - rgb[..., c]) / safe for c in range(3))
    h = np.where(rgb[..., 0] == maxc, b - g, np.where(rgb[..., 1] == maxc, 2.0 + r - b, 4.0 + g - r))
    h = np.where(span == 0, 0.0, (h / 6.0) % 1.0)
    s = np.where(maxc == 0, 0.0, span / np.where(maxc == 0, 1, maxc))
    return np.stack([h, s, maxc], -1)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """colorsys.hsv_to_rgb over the last axis, float64."""
    h, s, v = (hsv[..., c].astype(np.float64) for c in range(3))
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    i = i.astype(np.int64) % 6
    choices = [np.stack(c, -1) for c in ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))]
    out = np.choose(i[..., None], choices)
    return np.where((s == 0)[..., None], v[..., None], out)
