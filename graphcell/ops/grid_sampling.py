"""ops.grid_sample and ops.affine_grid (MindSpore 2.10's, which compute torch's values: measured
equal to torch.nn.functional's to 5e-7, 2-D and 3-D, every mode, padding mode and align_corners,
except that 'nearest' rounds halves away from zero where torch rounds them to even).

Composite: a sample is the input gathered at each grid point's corner pixels (a take_along_axis
over the flattened plane) and weighted, so XLA, onnxruntime, vmap and grad follow; the gradient
reaches the input through the gather and the grid through the weights (floor and round are
constant almost everywhere, as in torch). MindSpore 2.10 has no bicubic mode on CPU; neither
does this.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F

__all__ = ["grid_sample", "affine_grid"]   # and sample_pixels, for other modules

_MODES = ("bilinear", "nearest")
_PADDING = ("zeros", "border", "reflection")


def _unnormalize(coord, size: int, align_corners: bool):
    """Grid units ([-1, 1] across the input) to pixel coordinates along an axis of `size`."""
    if align_corners:
        return F.mul(F.add(coord, 1.0), (size - 1) / 2)
    return F.div(F.sub(F.mul(F.add(coord, 1.0), float(size)), 1.0), 2.0)


def _reflect(coord, twice_low: int, twice_high: int):
    """torch's reflect_coordinates: `coord` folded into [twice_low / 2, twice_high / 2] by
    reflections off its ends."""
    if twice_low == twice_high:
        return F.mul(coord, 0.0)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    dist = F.abs(F.sub(coord, low))
    flips = F.floor(F.div(dist, span))
    extra = F.sub(dist, F.mul(flips, span))
    even = F.equal(F.sub(flips, F.mul(F.floor(F.div(flips, 2.0)), 2.0)), 0.0)
    return F.select(even, F.add(extra, low), F.add(F.sub(span, extra), low))


def _clip(coord, size: int):
    """coord clamped to [0, size - 1], its gradient 1 strictly inside and 0 on and beyond the
    ends (measured on MindSpore 2.10: a border or reflection grid point at exactly -1 or 1 with
    align_corners gets no gradient; torch's clip_coordinates_set_grad rule)."""
    high = float(size - 1)
    inside = F.logical_and(F.greater(coord, 0.0), F.less(coord, high))
    return F.select(inside, coord, F.stop_gradient(F.clamp(coord, 0.0, high)))


def _round_half_away(coord):
    """Nearest pixel, halves away from zero (measured on MindSpore 2.10: 1.5 -> 2, 2.5 -> 3,
    -0.5 -> -1, which is outside; torch rounds halves to even)."""
    return F.select(F.greater_equal(coord, 0.0), F.floor(F.add(coord, 0.5)), F.ceil(F.sub(coord, 0.5)))


def _source_coordinate(coord, size: int, padding_mode: str, align_corners: bool):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


def _gather(flat, index, channels: int):
    """flat [N, C, S] at index [N, P] (in range) -> [N, C, P]."""
    n, p = index.shape
    index = F.broadcast_to(F.reshape(index, (n, 1, p)), (n, channels, p))
    return F.gather_elements(flat, 2, index)


def _check(input, grid, mode, padding_mode, align_corners):  # noqa: A002
    for name, t in (("input", input), ("grid", grid)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'grid_sample', '{name}' must be a Tensor, but got {type(t).__name__}.")
    if not input.dtype.is_floating:
        raise TypeError(f"For 'grid_sample', the input must be float16, float32 or float64, but got {input.dtype}.")
    if grid.dtype is not input.dtype:
        raise TypeError(f"Input grid must have the same data type with input x! input[x] data type = {input.dtype} "
                        f"but input[grid] data type = {grid.dtype}")
    if mode not in _MODES:
        raise ValueError(f"For 'grid_sample', 'mode' must be one of {list(_MODES)}, but got {mode!r}.")
    if padding_mode not in _PADDING:
        raise ValueError(f"For 'grid_sample', 'padding_mode' must be one of {list(_PADDING)}, but got "
                         f"{padding_mode!r}.")
    if align_corners is not None and not isinstance(align_corners, bool):
        raise TypeError(f"For 'grid_sample', 'align_corners' must be a bool, but got {align_corners!r}.")
    if input.ndim not in (4, 5):
        raise ValueError(f"For 'grid_sample', 'input' must be a 4-D or 5-D tensor, but got {input.ndim}-D tensor.")
    nsp = input.ndim - 2
    if grid.ndim != input.ndim or grid.shape[-1] != nsp:
        raise ValueError(f"For 'grid_sample', the grid must be [N, {', '.join('HWD'[:nsp])}_out..., {nsp}] for a "
                         f"{input.ndim}-D input, but got shape {list(grid.shape)}.")
    if grid.shape[0] != input.shape[0]:
        raise ValueError(f"The shape of grid is {tuple(grid.shape)} , but the shape of input_x is "
                         f"{tuple(input.shape)} . The first dimension of grid and input_x must be equal.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    """Samples `input` [N, C, H, W] (or [N, C, D, H, W]) at `grid` [N, H', W', 2] (or
    [N, D', H', W', 3]), whose last axis holds (x, y[, z]) in [-1, 1] across the input: -1 and 1
    are the outer edges of the corner pixels, or their centres with align_corners (None: False).
    mode 'bilinear' (trilinear in 3-D) or 'nearest' (halves away from zero); padding_mode 'zeros',
    'border' (clamped) or 'reflection' (mirrored off the edges)."""
    _check(input, grid, mode, padding_mode, align_corners)
    align = bool(align_corners)
    n, c = input.shape[:2]
    sizes = tuple(input.shape[2:])                      # (H, W) or (D, H, W)
    nsp = len(sizes)
    out_sizes = tuple(grid.shape[1:-1])
    points = int(np.prod(out_sizes))
    flat = F.reshape(input, (n, c, int(np.prod(sizes))))
    g = F.reshape(grid, (n, points, nsp))
    # the grid's last axis runs x, y, z: the reverse of the input's spatial axes
    coords = [_source_coordinate(F.squeeze(F.slice_axis(g, 2, nsp - 1 - i, nsp - i), 2), size, padding_mode, align)
              for i, size in enumerate(sizes)]
    return F.reshape(sample_pixels(flat, coords, sizes, mode), (n, c) + out_sizes)


def sample_pixels(flat, coords, sizes: tuple, mode: str = "bilinear"):
    """flat [N, C, prod(sizes)] (a row-major plane or volume) sampled at pixel coordinates
    `coords` (one [N, P] Tensor per spatial axis, in `sizes`' order) -> [N, C, P]; a corner pixel
    outside the input reads zero (shared with ops.deformable_conv2d's sampling)."""
    n, c = flat.shape[:2]
    points = coords[0].shape[1]
    nsp = len(sizes)
    strides = [int(np.prod(sizes[i + 1:])) for i in range(nsp)]
    if mode == "nearest":
        picks = [_round_half_away(co) for co in coords]
        corners = [([p], [None]) for p in picks]
    else:
        corners = []
        for co in coords:
            low = F.floor(co)
            frac = F.sub(co, low)
            corners.append(([low, F.add(low, 1.0)], [F.sub(1.0, frac), frac]))
    out = None
    for choice in np.ndindex(*(len(pos) for pos, _ in corners)):
        index, weight, inside = None, None, None
        for axis, k in enumerate(choice):
            pos, w = corners[axis][0][k], corners[axis][1][k]
            ok = F.logical_and(F.greater_equal(pos, 0.0), F.less_equal(pos, float(sizes[axis] - 1)))
            inside = ok if inside is None else F.logical_and(inside, ok)
            axis_index = F.mul(F.cast(F.clamp(pos, 0.0, float(sizes[axis] - 1)), "int32"), strides[axis])
            index = axis_index if index is None else F.add(index, axis_index)
            if w is not None:
                weight = w if weight is None else F.mul(weight, w)
        if weight is None:
            weight = F.ones_like(coords[0])
        # a corner outside the input reads zero (with border or reflection every corner is inside)
        weight = F.select(inside, weight, 0.0)
        term = F.mul(_gather(flat, index, c), F.reshape(weight, (n, 1, points)))
        out = term if out is None else F.add(out, term)
    return out


def _base_axis(size: int, align_corners: bool) -> np.ndarray:
    """The normalised coordinates of an axis' pixel centres."""
    if align_corners:
        return np.linspace(-1.0, 1.0, size) if size > 1 else np.zeros(1)
    return (np.arange(size) * 2.0 + 1.0) / size - 1.0


def affine_grid(theta, size, align_corners=False):
    """The sampling grid of affine maps `theta` [N, 2, 3] (or [N, 3, 4]) for an output of `size`
    (N, C, H, W) (or (N, C, D, H, W)): [N, H, W, 2] (x, y) (or [N, D, H, W, 3]), for grid_sample."""
    if not isinstance(theta, Tensor):
        raise TypeError(f"For 'affine_grid', 'theta' must be a Tensor, but got {type(theta).__name__}.")
    if not isinstance(size, tuple):
        raise TypeError(f"For primitive[AffineGrid], the input argument[output_size] must be a type of "
                        f"{{Tensor, Tuple}}, but got {type(size).__name__}.")
    if not isinstance(align_corners, bool):
        raise TypeError(f"For 'affine_grid', 'align_corners' must be a bool, but got {align_corners!r}.")
    if theta.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For primitive[AffineGrid], the input argument[theta] must be a type of "
                        f"{{Tensor[Float16], Tensor[Float32]}}, but got Tensor[{theta.dtype}].")
    nsp = len(size) - 2
    if nsp not in (2, 3) or theta.shape[1:] != (nsp, nsp + 1) or not all(
            isinstance(s, numbers.Integral) and s > 0 for s in size):
        raise ValueError(f"For 'AffineGrid', the shape of 'theta' must be [N, 2, 3] and the size of 'output_size' "
                         f"must be 4 for 2D; or the shape of 'theta' must be [N, 3, 4] and the size of "
                         f"'output_size' must be 5 for 3D. But got the shape of 'theta is {list(theta.shape)} and "
                         f"the size of 'output_size' is {len(size)}.")
    if size[0] != theta.shape[0]:
        raise ValueError(f"For 'AffineGrid', the output_size[0] must be equal to the shape[0] of theta, but got the "
                         f"output_size[0] is {size[0]} and the shape[0] of theta is {theta.shape[0]}.")
    spatial = tuple(int(s) for s in size[2:])
    axes = np.meshgrid(*[_base_axis(s, align_corners) for s in spatial], indexing="ij")   # D, H, W order
    base = np.stack(list(axes[::-1]) + [np.ones(spatial)], -1).reshape(-1, nsp + 1)        # (x, y[, z], 1)
    grid = F.matmul(Tensor(base.astype(theta.dtype.np_dtype)), F.transpose(theta, (0, 2, 1)))   # [N, P, nsp]
    return F.reshape(grid, (-1,) + spatial + (nsp,))
