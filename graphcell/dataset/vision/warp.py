"""OpenCV's warpAffine for vision.Rotate, in numpy (2.10 runs OpenCV's): destination pixels map
back through the inverted matrix in 10-bit fixed point; NEAREST rounds to a source pixel, LINEAR
takes the fraction in 1/32 steps with OpenCV's weight tables (15-bit fixed point for uint8).
Source pixels outside the image read `fill` (a constant border)."""
import numpy as np

AB_BITS, INTER_BITS, REMAP_BITS = 10, 5, 15
AB_SCALE, INTER_TAB = 1 << AB_BITS, 1 << INTER_BITS


def rotation_matrix(cx: float, cy: float, degrees: float) -> np.ndarray:
    """cv::getRotationMatrix2D(center, degrees, 1): counter-clockwise for positive degrees."""
    a, b = np.cos(np.deg2rad(degrees)), np.sin(np.deg2rad(degrees))
    return np.array([[a, b, (1 - a) * cx - b * cy], [-b, a, b * cx + (1 - a) * cy]])


def _bilinear_table(integer: bool) -> np.ndarray:
    """(32 * 32, 4) weights of the four taps for each 1/32 fraction pair (fy, fx)."""
    f = np.arange(INTER_TAB, dtype=np.float32) / np.float32(INTER_TAB)
    fy, fx = np.meshgrid(f, f, indexing="ij")
    one = np.float32(1)
    w = np.stack([(one - fy) * (one - fx), (one - fy) * fx, fy * (one - fx), fy * fx], -1).reshape(-1, 4)
    if not integer:
        return w
    iw = np.rint(w * (1 << REMAP_BITS)).astype(np.int64)
    # OpenCV moves a rounding surplus onto the largest weight (a shortfall onto the smallest)
    surplus = iw.sum(1) - (1 << REMAP_BITS)
    rows = np.arange(len(iw))
    at = np.where(surplus < 0, iw.argmax(1), iw.argmin(1))
    iw[rows, at] -= surplus
    return iw


def warp_affine(img: np.ndarray, matrix: np.ndarray, th: int, tw: int, linear: bool, fill) -> np.ndarray:
    """img (H, W, C) warped by the 2 x 3 forward `matrix` into (th, tw, C)."""
    (a, b, c), (d, e, f) = matrix
    det = a * e - b * d
    det = 1.0 / det if det else 0.0
    m = np.array([e * det, -b * det, 0.0, -d * det, a * det, 0.0])
    m[2], m[5] = -m[0] * c - m[1] * f, -m[3] * c - m[4] * f
    xs, ys = np.arange(tw, dtype=np.float64), np.arange(th, dtype=np.float64)
    round_delta = AB_SCALE // 2 if not linear else AB_SCALE // INTER_TAB // 2
    adelta, bdelta = np.rint(m[0] * xs * AB_SCALE).astype(np.int64), np.rint(m[3] * xs * AB_SCALE).astype(np.int64)
    x0 = np.rint((m[1] * ys + m[2]) * AB_SCALE).astype(np.int64) + round_delta
    y0 = np.rint((m[4] * ys + m[5]) * AB_SCALE).astype(np.int64) + round_delta
    X, Y = x0[:, None] + adelta[None], y0[:, None] + bdelta[None]        # (th, tw)
    h, w = img.shape[:2]
    fill = np.broadcast_to(np.asarray(fill, img.dtype), img.shape[2:])

    def read(sy, sx):
        inside = (sy >= 0) & (sy < h) & (sx >= 0) & (sx < w)
        got = img[np.clip(sy, 0, h - 1), np.clip(sx, 0, w - 1)]
        return np.where(inside[..., None], got, fill)

    if not linear:
        return read(Y >> AB_BITS, X >> AB_BITS)
    X, Y = X >> (AB_BITS - INTER_BITS), Y >> (AB_BITS - INTER_BITS)
    sx, sy = X >> INTER_BITS, Y >> INTER_BITS
    integer = img.dtype == np.uint8
    table = _bilinear_table(integer)[(Y & (INTER_TAB - 1)) * INTER_TAB + (X & (INTER_TAB - 1))]   # (th, tw, 4)
    taps = [read(sy, sx), read(sy, sx + 1), read(sy + 1, sx), read(sy + 1, sx + 1)]
    if integer:
        total = sum(t.astype(np.int64) * table[..., k, None] for k, t in enumerate(taps))
        return np.clip((total + (1 << (REMAP_BITS - 1))) >> REMAP_BITS, 0, 255).astype(np.uint8)
    total = sum(t.astype(np.float32) * table[..., k, None] for k, t in enumerate(taps))
    return total.astype(img.dtype)
