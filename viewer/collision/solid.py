"""Sphere against box in 3D: the folding test of docs/semantics.md section 6, one axis more.

A box is given by its centre, its full `size` (3,) along its axes, and for the oriented
form its unit axes as the columns of a (3, 3) matrix (see `box_axes`). The sphere's centre
is expressed in the box's frame, folded into the first octant and tested against the
half-sizes; touching is not a hit. The scalar forms return a bool, the `_batch` forms take
N spheres and return a bool array of shape (N,).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._checks import matrix, non_negative, per_item, points, shaped, unit_length
from ._kernels import folded_hit, frame_coords


def _scalar_args(
    center: ArrayLike, radius: float, box_center: ArrayLike, size: ArrayLike
) -> tuple[np.ndarray, ...]:
    c = shaped(center, (3,), "center")
    r = non_negative(shaped(radius, (), "radius"), "radius")
    t = shaped(box_center, (3,), "box_center")
    s = non_negative(shaped(size, (3,), "size"), "size")
    return c[None], r[None], t[None], s[None]


def _batch_args(
    centers: ArrayLike, radii: ArrayLike, box_centers: ArrayLike, sizes: ArrayLike
) -> tuple[np.ndarray, ...]:
    c = shaped(centers, ("N", 3), "centers")
    n = len(c)
    r = non_negative(per_item(radii, (), n, "radii"), "radii")
    t = per_item(box_centers, (3,), n, "box_centers")
    s = non_negative(per_item(sizes, (3,), n, "sizes"), "sizes")
    return c, r, t, s


def _unit_axes(axes: np.ndarray, name: str) -> np.ndarray:
    return unit_length(axes, f"{name} (columns)", axis=-2)


# -- axis-aligned ------------------------------------------------------------------------
def sphere_vs_aabb(
    center: ArrayLike, radius: float, size: ArrayLike, *, box_center: ArrayLike = (0.0, 0.0, 0.0)
) -> bool:
    """Whether a sphere overlaps an axis-aligned box (touching is not a hit).

    Parameters
    ----------
    center : array_like, [3]
        Sphere centre C.
    radius : float
        Sphere radius, >= 0.
    size : array_like, [3]
        Full size of the box along X, Y, Z, >= 0.
    box_center : array_like, [3], keyword-only
        Box centre T; the origin by default. The test runs on ``C - T``.

    Returns
    -------
    bool

    Examples
    --------
    >>> sphere_vs_aabb((5.0, 4.0, 3.0), 3.0, (8.0, 4.0, 2.0))  # corner at distance 3
    False
    """
    c, r, t, s = _scalar_args(center, radius, box_center, size)
    return bool(folded_hit(c - t, s / 2.0, r)[0])


def sphere_vs_box(center: ArrayLike, radius: float, box_center: ArrayLike, size: ArrayLike) -> bool:
    """`sphere_vs_aabb` for a box centred at `box_center` [3] (test on ``C - T``)."""
    return sphere_vs_aabb(center, radius, size, box_center=box_center)


def sphere_vs_aabb_batch(
    centers: ArrayLike,
    radii: ArrayLike,
    sizes: ArrayLike,
    *,
    box_centers: ArrayLike = (0.0, 0.0, 0.0),
) -> np.ndarray:
    """`sphere_vs_aabb` for N spheres at once.

    Parameters
    ----------
    centers : array_like, [N, 3]
    radii : array_like, [N] or scalar
    sizes : array_like, [3] or [N, 3]
        One box for all spheres, or one per sphere.
    box_centers : array_like, [3] or [N, 3], keyword-only

    Returns
    -------
    ndarray of bool, [N]
    """
    c, r, t, s = _batch_args(centers, radii, box_centers, sizes)
    return folded_hit(c - t, s / 2.0, r)


def sphere_vs_box_batch(
    centers: ArrayLike, radii: ArrayLike, box_centers: ArrayLike, sizes: ArrayLike
) -> np.ndarray:
    """`sphere_vs_aabb_batch` with the box centres, [3] or [N, 3], given positionally."""
    return sphere_vs_aabb_batch(centers, radii, sizes, box_centers=box_centers)


# -- oriented ----------------------------------------------------------------------------
def sphere_vs_obb(
    center: ArrayLike, box_center: ArrayLike, axes: ArrayLike, radius: float, size: ArrayLike
) -> bool:
    """Whether a sphere overlaps an oriented box (touching is not a hit).

    Parameters
    ----------
    center : array_like, [3]
        Sphere centre C.
    box_center : array_like, [3]
        Box centre T.
    axes : array_like, [3, 3]
        Unit axes of the box as columns (see `box_axes`), assumed perpendicular.
    radius : float
        Sphere radius, >= 0.
    size : array_like, [3]
        Full size of the box along its three axes, >= 0.

    Returns
    -------
    bool
        The axis-aligned test on ``(C - T)`` expressed along the axes.
    """
    c, r, t, s = _scalar_args(center, radius, box_center, size)
    a = _unit_axes(shaped(axes, (3, 3), "axes"), "axes")[None]
    return bool(folded_hit(frame_coords(c - t, a), s / 2.0, r)[0])


def sphere_vs_obb_batch(
    centers: ArrayLike,
    box_centers: ArrayLike,
    axes: ArrayLike,
    radii: ArrayLike,
    sizes: ArrayLike,
) -> np.ndarray:
    """`sphere_vs_obb` for N spheres at once.

    Parameters
    ----------
    centers : array_like, [N, 3]
    box_centers : array_like, [3] or [N, 3]
    axes : array_like, [3, 3] or [N, 3, 3]
        One box for all spheres, or one per sphere.
    radii : array_like, [N] or scalar
    sizes : array_like, [3] or [N, 3]

    Returns
    -------
    ndarray of bool, [N]
    """
    c, r, t, s = _batch_args(centers, radii, box_centers, sizes)
    a = _unit_axes(per_item(axes, (3, 3), len(c), "axes"), "axes")
    return folded_hit(frame_coords(c - t, a), s / 2.0, r)


# -- frames ------------------------------------------------------------------------------
def box_coords(center: ArrayLike, box_center: ArrayLike, axes: ArrayLike) -> np.ndarray:
    """The sphere centre in the box's frame: ``(C - T)·axes[:, k]`` for k = 0, 1, 2.

    Parameters
    ----------
    center, box_center : array_like, [3] or [N, 3]
    axes : array_like, [3, 3] or [N, 3, 3]

    Returns
    -------
    ndarray, [3] or [N, 3]
    """
    c, t = points(center, 3, "center"), points(box_center, 3, "box_center")
    a = _unit_axes(matrix(axes, (3,), "axes"), "axes")
    single = c.ndim == 1 and t.ndim == 1 and a.ndim == 2
    a = a if a.ndim == 3 else a[None]
    try:
        rel = np.atleast_2d(c - t)
        n = np.broadcast_shapes((len(rel),), (len(a),))[0]
    except ValueError:
        raise ValueError(
            f"expected one point or N points for each, got center {c.shape!r}, "
            f"box_center {t.shape!r}, axes {a.shape!r}"
        ) from None
    out = frame_coords(np.broadcast_to(rel, (n, 3)), np.broadcast_to(a, (n, 3, 3)))
    return out[0] if single else out


def box_axes(world_matrix: ArrayLike) -> np.ndarray:
    """The unit axes of a box from its world matrix: the normalised first three columns.

    Parameters
    ----------
    world_matrix : array_like, [4, 4] or [3, 3], or a stack [N, 4, 4] / [N, 3, 3]
        Column-vector matrix of the box's node.

    Returns
    -------
    ndarray, [3, 3] or [N, 3, 3]
        Column k is the node's local axis k in world space, of length 1. Perpendicular when
        the matrix is rotation times scale (no shear), which the folding test assumes.

    Raises
    ------
    ValueError
        If a column has zero length (a box squashed flat by a zero scale).
    """
    m = matrix(world_matrix, (3, 4), "world_matrix")
    cols = m[..., :3, :3]
    with np.errstate(over="ignore"):
        lengths = np.sqrt(np.sum(cols * cols, axis=-2))
    if (lengths == 0.0).any():
        raise ValueError(
            f"world_matrix has a column of zero length among its first three (lengths "
            f"{lengths!r}): the box is flat along that axis and has no direction for it"
        )
    return cols / lengths[..., None, :]


def box_from_world(
    world_matrix: ArrayLike, size: ArrayLike = (1.0, 1.0, 1.0)
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre, axes and world-space size of a box drawn by a node.

    Parameters
    ----------
    world_matrix : array_like, [4, 4] or a stack [N, 4, 4]
        The node's world matrix; the box is centred at the node's origin.
    size : array_like, [3]
        Size of the box in the node's local frame (before the node's scale), >= 0.

    Returns
    -------
    box_center : ndarray, [3] or [N, 3]
        The translation column.
    axes : ndarray, [3, 3] or [N, 3, 3]
        As `box_axes`.
    size : ndarray, [3] or [N, 3]
        The local size times the lengths of the first three columns (the node's scale),
        so ``size / 2`` are the half-sizes the folding test uses.
    """
    m = matrix(world_matrix, (4,), "world_matrix")
    s = non_negative(shaped(size, (3,), "size"), "size")
    axes = box_axes(m)
    cols = m[..., :3, :3]
    lengths = np.sqrt(np.sum(cols * cols, axis=-2))
    return np.ascontiguousarray(m[..., :3, 3]), axes, s * lengths
