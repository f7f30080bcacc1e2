"""Disk against rectangle in the XY plane (docs/semantics.md section 6).

A rectangle is given by its centre, its full `width` and `height`, and for the oriented
form its unit axes `ui` (width direction) and `uj` (height direction). The disk's centre is
expressed in the rectangle's frame, ``s = (C - T)·ui``, ``t = (C - T)·uj``, folded into the
first quadrant and tested against the half-sizes; touching is not a hit. The scalar forms
return a bool, the `_batch` forms take N disks and return a bool array of shape (N,).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._checks import matrix, non_negative, per_item, points, shaped, unit_length
from ._kernels import folded_hit, frame_coords


def _half(widths: np.ndarray, heights: np.ndarray) -> np.ndarray:
    return np.stack([widths / 2.0, heights / 2.0], axis=-1)


def _batch_args(
    centers: ArrayLike,
    radii: ArrayLike,
    rect_centers: ArrayLike,
    widths: ArrayLike,
    heights: ArrayLike,
) -> tuple[np.ndarray, ...]:
    c = shaped(centers, ("N", 2), "centers")
    n = len(c)
    r = non_negative(per_item(radii, (), n, "radii"), "radii")
    t = per_item(rect_centers, (2,), n, "rect_centers")
    w = non_negative(per_item(widths, (), n, "widths"), "widths")
    h = non_negative(per_item(heights, (), n, "heights"), "heights")
    return c, r, t, w, h


def _scalar_args(
    center: ArrayLike, radius: float, rect_center: ArrayLike, width: float, height: float
) -> tuple[np.ndarray, ...]:
    c = shaped(center, (2,), "center")
    r = non_negative(shaped(radius, (), "radius"), "radius")
    t = shaped(rect_center, (2,), "rect_center")
    w = non_negative(shaped(width, (), "width"), "width")
    h = non_negative(shaped(height, (), "height"), "height")
    return c[None], r[None], t[None], w[None], h[None]


def _obb_hits(
    c: np.ndarray,
    t: np.ndarray,
    ui: np.ndarray,
    uj: np.ndarray,
    r: np.ndarray,
    w: np.ndarray,
    h: np.ndarray,
) -> np.ndarray:
    """Batch oriented test on checked arrays: fold ``(s, t)`` against half of (w, h)."""
    st = frame_coords(c - t, np.stack([ui, uj], axis=-1))
    return folded_hit(st, _half(w, h), r)


# -- axis-aligned ------------------------------------------------------------------------
def disk_vs_aabb(
    center: ArrayLike,
    radius: float,
    width: float,
    height: float,
    *,
    rect_center: ArrayLike = (0.0, 0.0),
) -> bool:
    """Whether a disk overlaps an axis-aligned rectangle (touching is not a hit).

    Parameters
    ----------
    center : array_like, [2]
        Disk centre C.
    radius : float
        Disk radius r, >= 0.
    width, height : float
        Full size of the rectangle along X and Y, >= 0.
    rect_center : array_like, [2], keyword-only
        Rectangle centre T; the origin by default. The test runs on ``C - T``.

    Returns
    -------
    bool

    Examples
    --------
    >>> disk_vs_aabb((5.0, 4.0), 2.3, 8.0, 4.0), disk_vs_aabb((5.0, 4.0), 2.2, 8.0, 4.0)
    (True, False)
    >>> disk_vs_aabb((5.0, 0.0), 1.0, 8.0, 4.0)  # touching the right side
    False
    """
    c, r, t, w, h = _scalar_args(center, radius, rect_center, width, height)
    return bool(folded_hit(c - t, _half(w, h), r)[0])


def disk_vs_rect(
    center: ArrayLike, radius: float, rect_center: ArrayLike, width: float, height: float
) -> bool:
    """`disk_vs_aabb` for a rectangle centred at `rect_center` [2] (test on ``C - T``)."""
    return disk_vs_aabb(center, radius, width, height, rect_center=rect_center)


def disk_vs_aabb_batch(
    centers: ArrayLike,
    radii: ArrayLike,
    widths: ArrayLike,
    heights: ArrayLike,
    *,
    rect_centers: ArrayLike = (0.0, 0.0),
) -> np.ndarray:
    """`disk_vs_aabb` for N disks at once.

    Parameters
    ----------
    centers : array_like, [N, 2]
    radii : array_like, [N] or scalar
    widths, heights : array_like, [N] or scalar
        One rectangle for all disks, or one per disk.
    rect_centers : array_like, [2] or [N, 2], keyword-only

    Returns
    -------
    ndarray of bool, [N]
    """
    c, r, t, w, h = _batch_args(centers, radii, rect_centers, widths, heights)
    return folded_hit(c - t, _half(w, h), r)


def disk_vs_rect_batch(
    centers: ArrayLike,
    radii: ArrayLike,
    rect_centers: ArrayLike,
    widths: ArrayLike,
    heights: ArrayLike,
) -> np.ndarray:
    """`disk_vs_aabb_batch` with the rectangle centres, [2] or [N, 2], given positionally."""
    return disk_vs_aabb_batch(centers, radii, widths, heights, rect_centers=rect_centers)


# -- oriented ----------------------------------------------------------------------------
def disk_vs_obb(
    center: ArrayLike,
    rect_center: ArrayLike,
    ui: ArrayLike,
    uj: ArrayLike,
    radius: float,
    width: float,
    height: float,
) -> bool:
    """Whether a disk overlaps a rotated rectangle (touching is not a hit).

    Parameters
    ----------
    center : array_like, [2]
        Disk centre C.
    rect_center : array_like, [2]
        Rectangle centre T.
    ui, uj : array_like, [2]
        Unit axes of the rectangle: `ui` along its width, `uj` along its height (see
        `rect_axes`). They are assumed perpendicular.
    radius : float
        Disk radius, >= 0.
    width, height : float
        Full size of the rectangle along `ui` and `uj`, >= 0.

    Returns
    -------
    bool
        The axis-aligned test on ``(s, t) = ((C - T)·ui, (C - T)·uj)``.
    """
    c, r, t, w, h = _scalar_args(center, radius, rect_center, width, height)
    u = unit_length(shaped(ui, (2,), "ui"), "ui")[None]
    v = unit_length(shaped(uj, (2,), "uj"), "uj")[None]
    return bool(_obb_hits(c, t, u, v, r, w, h)[0])


def disk_vs_obb_batch(
    centers: ArrayLike,
    rect_centers: ArrayLike,
    ui: ArrayLike,
    uj: ArrayLike,
    radii: ArrayLike,
    widths: ArrayLike,
    heights: ArrayLike,
) -> np.ndarray:
    """`disk_vs_obb` for N disks at once.

    Parameters
    ----------
    centers : array_like, [N, 2]
    rect_centers, ui, uj : array_like, [2] or [N, 2]
        One rectangle for all disks, or one per disk.
    radii, widths, heights : array_like, [N] or scalar

    Returns
    -------
    ndarray of bool, [N]
    """
    c, r, t, w, h = _batch_args(centers, radii, rect_centers, widths, heights)
    u = unit_length(per_item(ui, (2,), len(c), "ui"), "ui")
    v = unit_length(per_item(uj, (2,), len(c), "uj"), "uj")
    return _obb_hits(c, t, u, v, r, w, h)


# -- frames ------------------------------------------------------------------------------
def rect_coords(
    center: ArrayLike, rect_center: ArrayLike, ui: ArrayLike, uj: ArrayLike
) -> np.ndarray:
    """The disk centre in the rectangle's frame, ``(s, t)``: what the oriented test folds.

    Parameters
    ----------
    center, rect_center, ui, uj : array_like, [2] or [N, 2]
        As for `disk_vs_obb`; the four broadcast against each other.

    Returns
    -------
    ndarray, [2] or [N, 2]
        ``s = (C - T)·ui`` and ``t = (C - T)·uj``.
    """
    named = {"center": center, "rect_center": rect_center, "ui": ui, "uj": uj}
    parts = [points(value, 2, name) for name, value in named.items()]
    try:
        c, t, u, v = np.broadcast_arrays(*parts)
    except ValueError:
        shapes = ", ".join(f"{name} {arr.shape!r}" for name, arr in zip(named, parts))
        raise ValueError(f"expected one point or N points for each, got {shapes}") from None
    single = c.ndim == 1
    c, t, u, v = (np.atleast_2d(a) for a in (c, t, unit_length(u, "ui"), unit_length(v, "uj")))
    st = frame_coords(c - t, np.stack([u, v], axis=-1))
    return st[0] if single else st


def rect_axes(world_matrix: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The unit axes of a rectangle from its world matrix: the normalised first two columns.

    Parameters
    ----------
    world_matrix : array_like, [4, 4] or [3, 3], or a stack [N, 4, 4] / [N, 3, 3]
        Column-vector matrix of the rectangle's node (a 3 x 3 one is a 2D homogeneous
        matrix). Only the X and Y rows are read: the rectangle lies in the XY plane, where
        these columns are its width and height directions.

    Returns
    -------
    ui, uj : ndarray, [2] or [N, 2]
        The first and second columns' (x, y) parts, each divided by its length.

    Raises
    ------
    ValueError
        If a column has zero length in the XY plane (a rectangle squashed to a segment).
    """
    m = matrix(world_matrix, (3, 4), "world_matrix")
    cols = m[..., :2, :2]
    lengths = np.hypot(cols[..., 0, :], cols[..., 1, :])  # [..., 2]: columns 0 and 1
    if (lengths == 0.0).any():
        raise ValueError(
            f"world_matrix has a first or second column of zero length in the XY plane "
            f"(lengths {lengths!r}): the rectangle has no width or height direction"
        )
    unit = cols / lengths[..., None, :]
    return np.ascontiguousarray(unit[..., :, 0]), np.ascontiguousarray(unit[..., :, 1])


def rect_from_world(
    world_matrix: ArrayLike, width: float = 1.0, height: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float | np.ndarray, float | np.ndarray]:
    """Centre, axes and world-space size of a rectangle drawn by a node.

    Parameters
    ----------
    world_matrix : array_like, [4, 4] or [3, 3], or a stack [N, 4, 4] / [N, 3, 3]
        The node's world matrix; the rectangle is centred at the node's origin.
    width, height : float
        Size of the rectangle in the node's local frame (before the node's scale), >= 0.

    Returns
    -------
    rect_center : ndarray, [2] or [N, 2]
        The translation column's (x, y).
    ui, uj : ndarray, [2] or [N, 2]
        As `rect_axes`.
    width, height : float or ndarray [N]
        The local size times the lengths of the first two columns (the node's scale).
    """
    m = matrix(world_matrix, (3, 4), "world_matrix")
    w = non_negative(shaped(width, (), "width"), "width")
    h = non_negative(shaped(height, (), "height"), "height")
    ui, uj = rect_axes(m)
    lengths = np.hypot(m[..., 0, :2], m[..., 1, :2])
    center = np.ascontiguousarray(m[..., :2, -1])
    world_w, world_h = w * lengths[..., 0], h * lengths[..., 1]
    if m.ndim == 2:
        return center, ui, uj, float(world_w), float(world_h)
    return center, ui, uj, world_w, world_h


def axis_aligned_size(
    ui: ArrayLike, uj: ArrayLike, width: float, height: float, *, atol: float = 1e-9
) -> tuple[float, float] | None:
    """The rectangle's size along X and Y when its axes lie along the world axes.

    At a multiple of 90 degrees the axis-aligned test can replace the oriented one, with
    width and height swapped at odd multiples. This says which applies.

    Parameters
    ----------
    ui, uj : array_like, [2]
        Unit axes of the rectangle.
    width, height : float
        Its size along `ui` and `uj`.
    atol : float, keyword-only
        How far from 0 the off-axis components may be (``cos 90°`` is ``6e-17``, not 0).

    Returns
    -------
    (size_x, size_y) or None
        ``(width, height)`` when `ui` lies along ±X and `uj` along ±Y, ``(height, width)``
        when `ui` lies along ±Y and `uj` along ±X, None otherwise.
    """
    u = unit_length(shaped(ui, (2,), "ui"), "ui")
    v = unit_length(shaped(uj, (2,), "uj"), "uj")
    w = float(non_negative(shaped(width, (), "width"), "width"))
    h = float(non_negative(shaped(height, (), "height"), "height"))
    if abs(u[1]) <= atol and abs(v[0]) <= atol:
        return w, h
    if abs(u[0]) <= atol and abs(v[1]) <= atol:
        return h, w
    return None
