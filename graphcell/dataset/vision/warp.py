"""OpenCV's warpAffine and warpPerspective, in numpy (2.10 runs OpenCV's for Rotate, Affine and
Perspective): each destination pixel maps back through the inverted matrix; NEAREST rounds to a
source pixel, LINEAR and CUBIC take the fraction in 1/32 steps with OpenCV's weight tables
(15-bit fixed point for uint8, each rounded table's surplus moved onto one central weight).
warpAffine maps in 10-bit fixed point, warpPerspective in doubles (per block of destination
pixels, as OpenCV). Source pixels outside the image read `fill` (a constant border).
AREA is LINEAR in both warps (as OpenCV)."""
import numpy as np

from .utils import Inter

AB_BITS, INTER_BITS, REMAP_BITS = 10, 5, 15
AB_SCALE, INTER_TAB = 1 << AB_BITS, 1 << INTER_BITS
BLOCK = 32                          # OpenCV's BLOCK_SZ of the warp invokers
MODES = {Inter.NEAREST: "nearest", Inter.BILINEAR: "linear", Inter.BICUBIC: "cubic", Inter.AREA: "area"}


def rotation_matrix(cx: float, cy: float, degrees: float) -> np.ndarray:
    """cv::getRotationMatrix2D(center, degrees, 1): counter-clockwise for positive degrees."""
    a, b = np.cos(np.deg2rad(degrees)), np.sin(np.deg2rad(degrees))
    return np.array([[a, b, (1 - a) * cx - b * cy], [-b, a, b * cx + (1 - a) * cy]])


def _cubic_1d(x):
    """OpenCV's interpolateCubic (A = -0.75) at the fractions x, float32: (n, 4)."""
    a, one = np.float32(-0.75), np.float32(1)
    c0 = ((a * (x + one) - 5 * a) * (x + one) + 8 * a) * (x + one) - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + one
    c2 = ((a + 2) * (one - x) - (a + 3)) * (one - x) * (one - x) + one
    return np.stack([c0, c1, c2, one - c0 - c1 - c2], 1).astype(np.float32)


def _table(cubic: bool, integer: bool) -> np.ndarray:
    """(32 * 32, k * k) weights of the k x k taps (row-major) for each 1/32 fraction pair (fy, fx)."""
    f = np.arange(INTER_TAB, dtype=np.float32) * np.float32(1.0 / INTER_TAB)
    one_d = _cubic_1d(f) if cubic else np.stack([np.float32(1) - f, f], 1)
    k = one_d.shape[1]
    w = (one_d[:, None, :, None] * one_d[None, :, None, :]).reshape(INTER_TAB * INTER_TAB, k * k)
    if not integer:
        return w
    iw = np.rint(w * (1 << REMAP_BITS)).astype(np.int64)
    # OpenCV moves a rounding surplus of the cubic table onto the smallest of the weights of taps
    # (1, 1) .. (2, 2) from the sample point (a shortfall onto the largest), the first found in row
    # order; the bilinear table is exact
    surplus = iw.sum(1) - (1 << REMAP_BITS)
    centre = [r * k + c for r in (k // 2, k // 2 + 1) for c in (k // 2, k // 2 + 1)]
    for row in np.nonzero(surplus)[0]:
        values = iw[row, centre]
        low = high = 0
        for j in range(1, 4):
            if values[j] < values[low]:
                low = j
            elif values[j] > values[high]:
                high = j
        iw[row, centre[high if surplus[row] < 0 else low]] -= surplus[row]
    return iw


def _remap(img, X, Y, mode: str, fill) -> np.ndarray:
    """Samples img (H, W, C) at X, Y: whole pixels for nearest, else 1/32 pixels."""
    h, w = img.shape[:2]
    fill = np.broadcast_to(np.asarray(fill, img.dtype), img.shape[2:])

    def read(sy, sx):
        inside = (sy >= 0) & (sy < h) & (sx >= 0) & (sx < w)
        got = img[np.clip(sy, 0, h - 1), np.clip(sx, 0, w - 1)]
        return np.where(inside[..., None], got, fill)

    if mode == "nearest":
        return read(Y, X)
    sx, sy = X >> INTER_BITS, Y >> INTER_BITS
    integer = img.dtype == np.uint8
    cubic = mode == "cubic"
    table = _table(cubic, integer)[(Y & (INTER_TAB - 1)) * INTER_TAB + (X & (INTER_TAB - 1))]   # (th, tw, k*k)
    offsets = (-1, 0, 1, 2) if cubic else (0, 1)
    taps = [read(sy + dy, sx + dx) for dy in offsets for dx in offsets]
    if integer:
        total = sum(t.astype(np.int64) * table[..., k, None] for k, t in enumerate(taps))
        return np.clip((total + (1 << (REMAP_BITS - 1))) >> REMAP_BITS, 0, 255).astype(np.uint8)
    total = sum(t.astype(np.float32) * table[..., k, None] for k, t in enumerate(taps))
    return total.astype(img.dtype)


def _mode(mode) -> str:
    """nearest, linear or cubic: AREA warps as LINEAR (as OpenCV)."""
    return "linear" if mode == "area" else mode


def warp_affine(img: np.ndarray, matrix: np.ndarray, th: int, tw: int, mode, fill) -> np.ndarray:
    """img (H, W, C) warped by the 2 x 3 forward `matrix` into (th, tw, C); mode is nearest,
    linear, cubic or area."""
    mode = _mode(mode)
    (a, b, c), (d, e, f) = matrix
    det = a * e - b * d
    det = 1.0 / det if det else 0.0
    m = np.array([e * det, -b * det, 0.0, -d * det, a * det, 0.0])
    m[2], m[5] = -m[0] * c - m[1] * f, -m[3] * c - m[4] * f
    xs, ys = np.arange(tw, dtype=np.float64), np.arange(th, dtype=np.float64)
    round_delta = AB_SCALE // 2 if mode == "nearest" else AB_SCALE // INTER_TAB // 2
    adelta, bdelta = np.rint(m[0] * xs * AB_SCALE).astype(np.int64), np.rint(m[3] * xs * AB_SCALE).astype(np.int64)
    x0 = np.rint((m[1] * ys + m[2]) * AB_SCALE).astype(np.int64) + round_delta
    y0 = np.rint((m[4] * ys + m[5]) * AB_SCALE).astype(np.int64) + round_delta
    X, Y = x0[:, None] + adelta[None], y0[:, None] + bdelta[None]        # (th, tw)
    shift = AB_BITS if mode == "nearest" else AB_BITS - INTER_BITS
    return _remap(img, X >> shift, Y >> shift, mode, fill)


def perspective_matrix(src, dst) -> np.ndarray:
    """cv::getPerspectiveTransform: the 3 x 3 matrix taking the four float32 points src to dst."""
    src, dst = np.asarray(src, np.float32).astype(np.float64), np.asarray(dst, np.float32).astype(np.float64)
    a, b = np.zeros((8, 8)), np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(src, dst)):
        a[i, :3] = a[i + 4, 3:6] = (x, y, 1)
        a[i, 6:] = (-x * u, -y * u)
        a[i + 4, 6:] = (-x * v, -y * v)
        b[i], b[i + 4] = u, v
    try:
        solution = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:          # cv::solve leaves zeros when the points are degenerate
        solution = np.zeros(8)
    return np.append(solution, 1.0).reshape(3, 3)


def _invert3(m):
    """The inverse by cofactors over the determinant (cv::invert's 3 x 3 DECOMP_LU path); 0 if singular."""
    det = (m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1]) - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
           + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]))
    if det == 0:
        return np.zeros(9)
    d = 1.0 / det
    return np.array([(m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1]) * d, (m[0, 2] * m[2, 1] - m[0, 1] * m[2, 2]) * d,
                     (m[0, 1] * m[1, 2] - m[0, 2] * m[1, 1]) * d, (m[1, 2] * m[2, 0] - m[1, 0] * m[2, 2]) * d,
                     (m[0, 0] * m[2, 2] - m[0, 2] * m[2, 0]) * d, (m[0, 2] * m[1, 0] - m[0, 0] * m[1, 2]) * d,
                     (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]) * d, (m[0, 1] * m[2, 0] - m[0, 0] * m[2, 1]) * d,
                     (m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]) * d])


def warp_perspective(img: np.ndarray, matrix: np.ndarray, th: int, tw: int, mode: str, fill) -> np.ndarray:
    """img (H, W, C) warped by the 3 x 3 forward `matrix` into (th, tw, C), in OpenCV's doubles:
    per block of destination pixels, X0 = M0 x + M1 y + M2 at the block's corner column x, then
    (X0 + M0 x1) / (W0 + M6 x1) at the offset x1, rounded half to even."""
    mode = _mode(mode)
    M = _invert3(np.asarray(matrix, np.float64))
    bh = min(BLOCK // 2, th)
    bw = min(BLOCK * BLOCK // bh, tw)
    cols = np.arange(tw)
    corner = (cols // bw * bw).astype(np.float64)
    offset = (cols - cols // bw * bw).astype(np.float64)
    ys = np.arange(th, dtype=np.float64)[:, None]
    X0, Y0, W0 = (M[k] * corner + M[k + 1] * ys + M[k + 2] for k in (0, 3, 6))
    W = W0 + M[6] * offset
    scale = 1.0 if mode == "nearest" else float(INTER_TAB)
    with np.errstate(divide="ignore"):
        W = np.where(W != 0, scale / np.where(W != 0, W, 1), 0.0)
    limit = np.iinfo(np.int32)
    fX = np.clip((X0 + M[0] * offset) * W, limit.min, limit.max)
    fY = np.clip((Y0 + M[3] * offset) * W, limit.min, limit.max)
    X, Y = np.rint(fX).astype(np.int64), np.rint(fY).astype(np.int64)
    if mode == "nearest":       # OpenCV keeps the map in shorts
        X, Y = np.clip(X, -32768, 32767), np.clip(Y, -32768, 32767)
    else:
        X = (np.clip(X >> INTER_BITS, -32768, 32767) << INTER_BITS) | (X & (INTER_TAB - 1))
        Y = (np.clip(Y >> INTER_BITS, -32768, 32767) << INTER_BITS) | (Y & (INTER_TAB - 1))
    return _remap(img, X, Y, mode, fill)
