"""The two computations every ball-against-box test shares, with no argument checks.

`folded_hit` is the folding test of docs/semantics.md section 6, written for any dimension;
`frame_coords` expresses offsets in a box's own frame. Both take arrays with one leading
item axis and loop only over the (two or three) coordinate axes, summing terms in a fixed
order, so one item gives bit-for-bit the same answer alone or inside a batch.
"""

from __future__ import annotations

import numpy as np


def folded_hit(rel: np.ndarray, half: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Whether balls overlap origin-centred, axis-aligned boxes; touching is not a hit.

    Parameters
    ----------
    rel : ndarray, [n, d]
        Ball centres in the box's frame (relative to its centre, along its axes).
    half : ndarray, [n, d]
        Half-sizes of the boxes, >= 0.
    radius : ndarray, [n]
        Ball radii, >= 0.

    Returns
    -------
    ndarray of bool, [n]

    Notes
    -----
    Fold the centre into the first quadrant (octant), ``q = |rel|``. No hit if some
    ``q_k >= half_k + r``. Otherwise let ``a = q - half``: if at least two ``a_k >= 0``
    (the nearest point of the box is a corner, or in 3D possibly an edge) and the sum of
    their squares is ``>= r²``, no hit. Otherwise hit. In 2D "at least two" is "both",
    which is the contract word for word; with one ``a_k >= 0`` the first rule already
    bounds ``a_k < r``, and with none the centre is inside.
    """
    q = np.abs(rel)
    with np.errstate(over="ignore"):  # finite but huge inputs: inf compares correctly
        beyond = np.any(q >= half + radius[:, None], axis=-1)
        a = q - half
        past = a >= 0.0
        squares = np.where(past, a * a, 0.0)
        corner_sq = squares[:, 0]
        for k in range(1, squares.shape[-1]):
            corner_sq = corner_sq + squares[:, k]
        corner = (np.count_nonzero(past, axis=-1) >= 2) & (corner_sq >= radius * radius)
    return ~(beyond | corner)


def frame_coords(rel: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Coordinates of offsets along a box's unit axes: ``rel · axes[:, :, j]`` for each j.

    Parameters
    ----------
    rel : ndarray, [n, d]
        Offsets from the box centre, in world coordinates.
    axes : ndarray, [n, d, d]
        Unit axes of each box as the columns of a matrix.

    Returns
    -------
    ndarray, [n, d]
    """
    with np.errstate(over="ignore"):
        out = rel[:, 0, None] * axes[:, 0, :]
        for i in range(1, rel.shape[-1]):
            out = out + rel[:, i, None] * axes[:, i, :]
    return out
