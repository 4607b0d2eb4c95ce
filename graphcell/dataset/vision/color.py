"""OpenCV's cvtColor for the modes of vision.ConvertColor, in numpy (2.10 runs OpenCV's).

Gray is 0.299 R + 0.587 G + 0.114 B: uint8 in OpenCV's 14-bit fixed point (rounded), floats in
float32. An added alpha channel is opaque (255, or 1.0 for floats). Between colour forms
a gray image counts as its 3-channel copy (as 2.10); to-gray modes refuse it (as OpenCV)."""
import numpy as np

from .utils import ConvertMode

GRAY_BITS = 14
GRAY_RGB = (4899, 9617, 1868)          # round(0.299, 0.587, 0.114 * 2 ** 14), R G B
GRAY_RGB_FLOAT = (0.299, 0.587, 0.114)

# mode -> (what the input is, output channels as source-channel indices; "gray" / "a" computed)
_MODES = {
    ConvertMode.COLOR_BGR2BGRA: ("color", (0, 1, 2, "a")),
    ConvertMode.COLOR_BGRA2BGR: ("color", (0, 1, 2)),
    ConvertMode.COLOR_BGR2RGBA: ("color", (2, 1, 0, "a")),
    ConvertMode.COLOR_RGBA2BGR: ("color", (2, 1, 0)),
    ConvertMode.COLOR_BGR2RGB: ("color", (2, 1, 0)),
    ConvertMode.COLOR_BGRA2RGBA: ("color", (2, 1, 0, "a")),
    ConvertMode.COLOR_BGR2GRAY: ("color", "bgr"),
    ConvertMode.COLOR_RGB2GRAY: ("color", "rgb"),
    ConvertMode.COLOR_GRAY2BGR: ("gray", (0, 0, 0)),
    ConvertMode.COLOR_GRAY2BGRA: ("gray", (0, 0, 0, "a")),
    ConvertMode.COLOR_BGRA2GRAY: ("color", "bgr"),
    ConvertMode.COLOR_RGBA2GRAY: ("color", "rgb"),
}


def convert_color(img: np.ndarray, mode: ConvertMode) -> np.ndarray:
    source, out = _MODES[mode]
    channels = 1 if img.ndim == 2 else img.shape[2]
    to_gray = isinstance(out, str)
    if channels not in (1, 3, 4) or (channels == 1) != (source == "gray") and (source == "gray" or to_gray):
        wanted = "1 channel (<H, W> or <H, W, 1>)" if source == "gray" else "3 or 4 channels"
        raise RuntimeError(f"ConvertColor: {mode.name} needs an image of {wanted}, got shape {img.shape}.")
    x = img.reshape(img.shape[:2] + (channels,))
    if channels == 1:
        x = np.repeat(x, 3, 2)               # 2.10 takes a gray image as its BGR form first
    if to_gray:                                              # to gray, from BGR or RGB order
        r, g, b = (x[..., 2], x[..., 1], x[..., 0]) if out == "bgr" else (x[..., 0], x[..., 1], x[..., 2])
        if img.dtype == np.uint8:
            wr, wg, wb = GRAY_RGB
            total = r.astype(np.int64) * wr + g.astype(np.int64) * wg + b.astype(np.int64) * wb
            return ((total + (1 << (GRAY_BITS - 1))) >> GRAY_BITS).astype(np.uint8)
        wr, wg, wb = (np.asarray(w, img.dtype) for w in GRAY_RGB_FLOAT)
        return (b * wb + g * wg + r * wr).astype(img.dtype)
    opaque = np.iinfo(img.dtype).max if img.dtype.kind in "iu" else 1
    alpha = x[..., 3] if channels == 4 else np.full(x.shape[:2], opaque, img.dtype)
    return np.stack([alpha if c == "a" else x[..., c] for c in out], -1)
