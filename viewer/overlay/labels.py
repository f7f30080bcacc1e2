"""Where to write node names in the picture: pure numpy, no GL.

A name sits just right of its node: the node's origin is projected with the camera's
view-projection matrix, and moved right by the projected radius of the node's mesh.
Names behind the camera or outside the image are left out, and so is everything past
`MAX_LABELS` (nearest first), so that a big scene stays readable and fast.
"""

from __future__ import annotations

import numpy as np

#: At most this many names are drawn in one frame.
MAX_LABELS = 300
#: Gap in pixels between a node's projected edge and its name.
GAP = 4.0


def place(
    origins: np.ndarray,
    radii: np.ndarray,
    view_proj: np.ndarray,
    size: tuple[int, int],
    right: np.ndarray,
    limit: int = MAX_LABELS,
) -> tuple[np.ndarray, np.ndarray]:
    """Pixel anchors of names.

    Parameters
    ----------
    origins : ndarray, [n, 3]
        Node origins in world space.
    radii : ndarray, [n]
        How far (world units) right of its origin a node's mesh reaches.
    view_proj : ndarray, [4, 4]
        The camera's ``P @ V`` (column vectors), as the renderer draws with.
    size : (width, height)
        Image size in pixels.
    right : ndarray, [3]
        The camera's unit right vector in world space.

    Returns
    -------
    (index [k], xy [k, 2]) : which of the `n` nodes get a name, nearest first, and the
    pixel (top-left origin) where each name's left edge and vertical middle go.
    """
    origins = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
    n = len(origins)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 2))
    w, h = size
    edge = origins + np.asarray(radii, dtype=np.float64)[:, None] * np.asarray(right)[None, :]
    pts = np.vstack([origins, edge])
    clip = np.hstack([pts, np.ones((2 * n, 1))]) @ np.asarray(view_proj, dtype=np.float64).T
    cw = clip[:, 3]
    front = cw > 1e-9
    safe = np.where(front, cw, 1.0)
    x = (clip[:, 0] / safe + 1.0) * 0.5 * w
    y = (1.0 - clip[:, 1] / safe) * 0.5 * h
    ox, oy, ex = x[:n], y[:n], x[n:]
    ok = front[:n] & front[n:] & (ox > -w) & (ox < w) & (oy >= 0) & (oy <= h)
    lx = np.maximum(ex, ox) + GAP
    ok &= lx < w
    index = np.flatnonzero(ok)
    index = index[np.argsort(cw[:n][index], kind="stable")][:limit]
    return index, np.stack([lx[index], oy[index]], axis=1)
