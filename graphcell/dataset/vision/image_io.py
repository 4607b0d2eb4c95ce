"""vision.read_file / write_file (raw bytes as a 1-D uint8 array and back) and encode_png / write_png.

PNG encoding needs Pillow (imported only when called): its bytes differ from 2.10's (OpenCV's
encoder), the decoded pixels are the same (measured round trip on 2.10's output)."""
from __future__ import annotations

import io
import os

import numpy as np


def read_file(filename) -> np.ndarray:
    """The file's bytes as a 1-D uint8 array."""
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"Input filename is not of type {str}, but got: {type(filename)}.")
    if not os.path.isfile(filename):
        raise RuntimeError(f"ReadFile: Invalid file path, {os.fspath(filename)} does not exist.")
    with open(filename, "rb") as f:
        return np.frombuffer(f.read(), np.uint8).copy()


def write_file(filename, data) -> None:
    """Writes a 1-D uint8 array's bytes to `filename`."""
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"Input filename is not of type {str}, but got: {type(filename)}.")
    data = np.asarray(data)
    if data.dtype != np.uint8:
        raise RuntimeError(f"WriteFile: The type of the elements of data should be UINT8, but got {data.dtype}.")
    if data.ndim != 1:
        raise RuntimeError(f"WriteFile: The data has invalid dimensions. It should have only one dimension, but got "
                           f"{data.ndim} dimensions.")
    with open(filename, "wb") as f:
        f.write(data.tobytes())


def encode_png(image, compression_level=6) -> np.ndarray:
    """An <H, W>, <H, W, 1> or <H, W, 3> uint8 image as PNG bytes (a 1-D uint8 array)."""
    from .decode import _pillow_image
    image = np.asarray(image)
    if image.dtype != np.uint8:
        raise RuntimeError(f"EncodePng: The type of the image data should be UINT8, but got {image.dtype}.")
    if image.ndim not in (2, 3) or image.ndim == 3 and image.shape[2] not in (1, 3):
        raise RuntimeError(f"EncodePng: The image has invalid shape {image.shape}: it should be <H, W>, <H, W, 1> or "
                           "<H, W, 3>.")
    if not isinstance(compression_level, int) or not 0 <= compression_level <= 9:
        raise RuntimeError(f"EncodePng: Invalid compression_level {compression_level}, should be in range of [0, 9].")
    pixels = image[:, :, 0] if image.ndim == 3 and image.shape[2] == 1 else image
    buffer = io.BytesIO()
    _pillow_image().fromarray(np.ascontiguousarray(pixels)).save(buffer, format="PNG", compress_level=compression_level)
    return np.frombuffer(buffer.getvalue(), np.uint8).copy()


def write_png(filename, image, compression_level=6) -> None:
    """encode_png's bytes written to `filename`."""
    write_file(filename, encode_png(image, compression_level))
