"""vision.Decode: encoded image bytes (a 1-D uint8 array, as ImageFolderDataset reads them) -> an
RGB HWC uint8 image, as MindSpore 2.10 gives (measured: grey and RGBA PNGs come out as 3 channels).

Decoding needs Pillow, which is not one of graphcell's dependencies: it is imported here, when a
Decode is made, and only then.
"""
from __future__ import annotations

import io

import numpy as np

from .._checks import check_bool


def _pillow_image():
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("vision.Decode (and ImageFolderDataset(decode=True)) decodes images with Pillow, which "
                          "is not installed: pip install pillow") from e
    return Image


class Decode:
    """Decodes JPEG, PNG, BMP, ... bytes into an RGB image: numpy HWC uint8, or a PIL image
    with `to_pil=True`."""

    def __init__(self, to_pil=False):
        self.to_pil = check_bool("Decode", "to_pil", to_pil)
        self._image = _pillow_image()

    def __call__(self, img):
        if isinstance(img, (bytes, bytearray)):
            data = bytes(img)
        elif isinstance(img, np.ndarray):
            if img.ndim != 1:
                raise TypeError(f"The number of array dimensions of the encoded image should be 1, but got {img.ndim}.")
            data = img.tobytes()
        else:
            raise TypeError(f"The type of the encoded image should be {np.ndarray}, but got {type(img)}.")
        try:
            with self._image.open(io.BytesIO(data)) as opened:
                rgb = opened.convert("RGB")
        except Exception as e:  # noqa: BLE001 - Pillow raises several types for broken data
            raise RuntimeError(f"Decode: image decode failed. ({type(e).__name__}: {e})") from e
        return rgb if self.to_pil else np.asarray(rgb, dtype=np.uint8)
