"""`Image`: a picture as a numpy array that a Jupyter notebook shows as a PNG."""

from __future__ import annotations

import io

import numpy as np

__all__ = ["Image"]


class Image(np.ndarray):
    """An (H, W, 3) uint8 picture that a Jupyter notebook displays as a PNG.

    A real ndarray in every other way; ``np.asarray(img)`` gives the plain array.
    """

    def _repr_png_(self) -> bytes | None:
        if self.ndim != 3 or self.shape[2] != 3 or self.dtype != np.uint8:
            return None  # a slice or a computed array: shown as an array
        from PIL import Image as PILImage

        buf = io.BytesIO()
        PILImage.fromarray(np.asarray(self)).save(buf, format="PNG")
        return buf.getvalue()
