"""ops.stft: the short-time Fourier transform with MindSpore 2.10's arguments, defaults, output
layouts and messages (measured; its values are torch.stft's to float32 rounding).

Composed of existing ops, so jit, vmap and grad follow (2.10's STFT has no gradient:
"Illegal primitive STFT's bprop not defined", measured): the centre padding and the framing
are one gather of positions worked out in numpy (constant padding pads first), then the
window multiply and the fft family's rfft or fft along the frame. 2.10 has no istft.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from .ad_util import F
from .complex_ops import view_as_real
from .fft_ops import fft, rfft

__all__ = ["stft"]

_TYPES = (mstype.float32, mstype.float64, mstype.complex64, mstype.complex128)
_TYPE_NAMES = "{Tensor[Complex128], Tensor[Complex64], Tensor[Float32], Tensor[Float64]}"


def _int_arg(name: str, value) -> int:
    if type(value) is not int:   # 2.10 refuses bools and numpy ints too (measured)
        raise TypeError(f"For 'STFT', the type of '{name}' should be 'int', but got type '{type(value).__name__}'.")
    return int(value)


def _bool_arg(op: str, name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{op}', the type of '{name}' should be 'bool', but got type '{type(value).__name__}'.")
    return value


def _checked_tensor(t, arg: str):
    if t.dtype not in _TYPES:
        raise TypeError(f"For primitive[STFT], the input argument[{arg}] must be a type of {_TYPE_NAMES}, "
                        f"but got Tensor[{t.dtype}].")
    return t


def _frame_positions(length: int, n_fft: int, hop: int, pad: int, mode: str) -> np.ndarray:
    """[frames, n_fft] positions into the signal (mirror-padded by `pad` each side for REFLECT
    and SYMMETRIC; a CONSTANT pad is applied before, so the positions index the padded one)."""
    padded = np.arange(length + (2 * pad if mode == "CONSTANT" else 0))
    if pad and mode != "CONSTANT":
        if pad > length or (mode == "REFLECT" and pad == length):
            relation = "not less than" if mode == "REFLECT" else "greater than"
            raise ValueError(f"For 'MirrorPad', paddings must be no greater than the dimension size: [{pad}], "
                             f"[{pad}] {relation} [{length}]")
        padded = np.pad(padded, pad, mode=mode.lower())
    if not 0 < n_fft <= padded.size:
        raise ValueError(f"For primitive[STFT], the n_fft must be in (0,{padded.size}], but got {n_fft}.")
    if hop <= 0:
        raise ValueError(f"For primitive[STFT], the hop_length must be greater than 0, but got {hop}.")
    frames = 1 + (padded.size - n_fft) // hop
    return padded[hop * np.arange(frames)[:, None] + np.arange(n_fft)].astype(np.int32)


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode='REFLECT',
         normalized=False, onesided=None, return_complex=None):
    """The STFT of a 1-D signal [L] or a batch [B, L]: [(B,) n_freq, n_frames] complex, or with
    return_complex False (the default for real x and window) its real view [..., 2].
    hop_length defaults to n_fft // 4, win_length to n_fft; the window (win_length samples,
    ones when None) sits in the middle of each n_fft frame. center pads n_fft // 2 each side
    ('REFLECT', 'SYMMETRIC' or 'CONSTANT'); normalized scales by n_fft^-0.5; onesided (default:
    for real x and window) keeps the n_fft // 2 + 1 non-negative frequencies."""
    from ..tensor import Tensor
    if not isinstance(x, Tensor):
        raise TypeError("For Primitive[Dtype], the input argument[input_x] must be a Tensor, CSRTensor or COOTensor, "
                        f"but got {type(x)}.")
    n_fft = _int_arg("n_fft", n_fft)
    hop = n_fft // 4 if hop_length is None else _int_arg("hop_length", hop_length)
    win_length = n_fft if win_length is None else _int_arg("win_length", win_length)
    _bool_arg("stft", "center", center)
    _bool_arg("STFT", "normalized", normalized)
    x = _checked_tensor(x, "x")
    if x.ndim not in (1, 2):
        raise ValueError(f"Expected a 1-D tensor or a 2-D tensor, but got {x.ndim}")
    if pad_mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError("For 'Pad', the 'mode' must be str and must be in '['CONSTANT', 'REFLECT', 'SYMMETRIC']', "
                         f"but got '{pad_mode}'.")
    pad = n_fft // 2 if center else 0
    positions = _frame_positions(x.shape[-1], n_fft, hop, pad, pad_mode)
    if not 0 < win_length <= n_fft:
        raise ValueError(f"For primitive[STFT], the win_length must be in (0,{n_fft}], but got {win_length}.")
    if window is not None:
        window = _checked_tensor(F.as_tensor(window), "window")
        if window.ndim != 1:
            raise ValueError(f"For primitive[STFT], the window_rank must be equal to 1, but got {window.ndim}.")
        if window.shape[0] != win_length:
            raise ValueError(f"For primitive[STFT], the window_shape must be equal to {win_length}, "
                             f"but got {window.shape[0]}.")
    is_complex = x.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if onesided is None:
        onesided = not is_complex
    elif onesided and is_complex:
        raise ValueError(f"For onesided should be false if input is complex,but got {int(onesided)}")
    if return_complex is None:
        return_complex = is_complex

    if pad and pad_mode == "CONSTANT":
        x = F.pad(x, (pad, pad))
    frames = F.take_in_range(x, Tensor(positions), x.ndim - 1)          # [..., n_frames, n_fft]
    if window is not None or win_length < n_fft:
        w = window if window is not None else F.ones((win_length,), x.dtype.real_dtype if x.dtype.is_complex
                                                     else x.dtype)
        left = (n_fft - win_length) // 2
        w = F.pad(w, (left, n_fft - win_length - left))
        dtype = mstype.result_dtype(frames.dtype, w.dtype)
        frames = F.mul(F.cast(frames, dtype), F.cast(w, dtype))
    norm = "ortho" if normalized else "backward"
    spectrum = rfft(frames, dim=-1, norm=norm) if onesided and not frames.dtype.is_complex else \
        fft(frames, dim=-1, norm=norm)
    if onesided and spectrum.shape[-1] != n_fft // 2 + 1:    # a real frame's full fft, cropped
        spectrum = F.slice_axis(spectrum, -1, 0, n_fft // 2 + 1)
    out = F.swapaxes(spectrum, -1, -2)                                      # [..., n_freq, n_frames]
    return out if return_complex else view_as_real(out)
