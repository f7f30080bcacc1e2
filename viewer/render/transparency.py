"""The order of the glTF BLEND parts: back to front, one (instance, part) at a time.

Blended surfaces are drawn after everything opaque, without writing depth, farthest
first, so each one mixes over what lies behind it. The key is the distance from the eye
to the part's centre as placed by its instance's world matrix (in the orthographic view,
the depth along the view direction). Plain numpy, no GL.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_SORTED", "back_to_front"]

#: Above this many (instance, part) pairs, sorting one draw each costs more than it shows:
#: the renderer draws each part for all its instances at once, parts still back to front.
MAX_SORTED = 512


def back_to_front(centres: np.ndarray, eye: np.ndarray, forward: np.ndarray | None) -> np.ndarray:
    """Indices of `centres` [n, 3] (world space) from the farthest to the nearest;
    `forward` given (orthographic): by depth along it, else by distance to `eye`."""
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 3)
    if forward is not None:
        key = centres @ np.asarray(forward, dtype=np.float64)
    else:
        key = np.linalg.norm(centres - np.asarray(eye, dtype=np.float64), axis=1)
    return np.argsort(-key, kind="stable")
