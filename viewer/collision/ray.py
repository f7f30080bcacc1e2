"""Rays against boxes by the slab method; picking in the viewer uses these kernels.

A box is closed: a ray that grazes a face, edge or corner hits it, and a ray starting
inside hits at distance 0. Distances are ray parameters, the hit point being
``origin + t * direction``, so they are lengths when `direction` has unit length; a miss
is ``inf``.

`slab_hits` and `obb_ray_hits` are the unchecked kernels, and `pick` (the nearest of many
boxes, run on every click in the view) is built on them; the `ray_vs_*` functions check
their arguments first.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._checks import per_item, shaped

__all__ = [
    "obb_ray_hits",
    "pick",
    "ray_vs_aabb",
    "ray_vs_aabb_batch",
    "ray_vs_obb",
    "ray_vs_obb_batch",
    "slab_hits",
]

#: World matrices whose 3 x 3 part has ``|det|`` at most this are never hit.
SINGULAR_DET = 1e-12


def slab_hits(
    origin: np.ndarray, direction: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Ray against axis-aligned boxes, no argument checks.

    Parameters
    ----------
    origin, direction : ndarray, [3] or [n, 3]
        The ray, in the boxes' frame (broadcast against the boxes).
    lo, hi : ndarray, [n, 3]
        Box corners, ``lo <= hi``.

    Returns
    -------
    hit : ndarray of bool, [n]
    t : ndarray, [n]
        Entry parameter, clamped to 0 when the origin is inside; ``inf`` where not hit.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t1 = (lo - origin) / direction
        t2 = (hi - origin) / direction
        # A ray parallel to a slab: inside it the slab does not constrain (-inf, inf);
        # outside it (inf, inf) makes tmin infinite, so no hit.
        parallel = direction == 0.0
        inside = (origin >= lo) & (origin <= hi)
        t1 = np.where(parallel, np.where(inside, -np.inf, np.inf), t1)
        t2 = np.where(parallel, np.inf, t2)
    tmin = np.max(np.minimum(t1, t2), axis=-1)
    tmax = np.min(np.maximum(t1, t2), axis=-1)
    hit = tmax >= np.maximum(tmin, 0.0)
    return hit, np.where(hit, np.maximum(tmin, 0.0), np.inf)


def obb_ray_hits(
    origin: ArrayLike, direction: ArrayLike, worlds: ArrayLike, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Ray against boxes placed by world matrices, no argument checks.

    Parameters
    ----------
    origin, direction : array_like, [3]
        The ray in world space.
    worlds : array_like, [n, 4, 4]
        Each box's world matrix (column vectors, any affine map); the box is ``[lo, hi]``
        in its local space. Singular ones (``|det| <= SINGULAR_DET``) are never hit.
    lo, hi : ndarray, [n, 3]
        Box corners in local space.

    Returns
    -------
    hit : ndarray of bool, [n]
    t : ndarray, [n]
        The world ray's parameter at entry (an affine map keeps ray parameters), ``inf``
        where not hit.
    """
    worlds = np.asarray(worlds, dtype=np.float64)
    det = np.linalg.det(worlds[:, :3, :3])
    ok = np.abs(det) > SINGULAR_DET
    safe = np.where(ok[:, None, None], worlds, np.eye(4))
    inv = np.linalg.inv(safe)
    o = inv[:, :3, :3] @ np.asarray(origin, dtype=np.float64) + inv[:, :3, 3]
    d = inv[:, :3, :3] @ np.asarray(direction, dtype=np.float64)
    hit, t = slab_hits(o, d, lo, hi)
    hit &= ok
    return hit, np.where(hit, t, np.inf)


def pick(
    origin: ArrayLike, direction: ArrayLike, worlds: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[int, float]:
    """The nearest oriented box hit by a ray, no argument checks.

    Parameters
    ----------
    origin, direction : array_like, [3]
        The ray in world space (a camera's `ray` through a pixel).
    worlds : ndarray, [n, 4, 4]
        Each box's world matrix (column vectors); the box is [lo, hi] in its local space.
    lo, hi : ndarray, [n, 3]
        Box corners in local space (already scaled by the look's size).

    Returns
    -------
    (index, t) of the nearest box in front of the origin, or (-1, inf) when none is hit.
    """
    if len(worlds) == 0:
        return -1, math.inf
    # Flat meshes (disk, rect) get a little thickness so they can be hit edge-on too.
    pad = np.maximum(0.0, 0.01 * np.max(hi - lo, axis=1, keepdims=True) - (hi - lo) / 2.0)
    hit, t = obb_ray_hits(origin, direction, worlds, lo - pad, hi + pad)
    if not hit.any():
        return -1, math.inf
    best = int(np.argmin(t))
    return best, float(t[best])


def _ray(origin: ArrayLike, direction: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    o = shaped(origin, (3,), "origin")
    d = shaped(direction, (3,), "direction")
    if not (d != 0.0).any():
        raise ValueError(f"direction must be non-zero, got {direction!r}")
    return o, d


def _boxes(lo: ArrayLike, hi: ArrayLike, count: int | None) -> tuple[np.ndarray, np.ndarray]:
    if count is None:
        lo_arr, hi_arr = shaped(lo, (3,), "lo")[None], shaped(hi, (3,), "hi")[None]
    else:
        lo_arr, hi_arr = per_item(lo, (3,), count, "lo"), per_item(hi, (3,), count, "hi")
    if (lo_arr > hi_arr).any():
        raise ValueError(
            f"box corners must satisfy lo <= hi (sizes >= 0), got lo {lo!r}, hi {hi!r}"
        )
    return lo_arr, hi_arr


def ray_vs_aabb(origin: ArrayLike, direction: ArrayLike, lo: ArrayLike, hi: ArrayLike) -> float:
    """Where a ray enters an axis-aligned box.

    Parameters
    ----------
    origin, direction : array_like, [3]
        The ray; `direction` non-zero.
    lo, hi : array_like, [3]
        Opposite corners of the box, ``lo <= hi``.

    Returns
    -------
    float
        The parameter t of the entry point ``origin + t * direction`` (0 when the origin is
        inside), ``inf`` when the ray misses.

    Examples
    --------
    >>> ray_vs_aabb((0, 0, 5), (0, 0, -1), (-1, -1, -1), (1, 1, 1))
    4.0
    """
    o, d = _ray(origin, direction)
    lo_arr, hi_arr = _boxes(lo, hi, None)
    return float(slab_hits(o, d, lo_arr, hi_arr)[1][0])


def ray_vs_aabb_batch(
    origin: ArrayLike, direction: ArrayLike, lo: ArrayLike, hi: ArrayLike
) -> np.ndarray:
    """`ray_vs_aabb` for one ray against N boxes.

    Parameters
    ----------
    origin, direction : array_like, [3]
    lo, hi : array_like, [N, 3]

    Returns
    -------
    ndarray, [N]
        Entry parameters, ``inf`` for the boxes missed.
    """
    o, d = _ray(origin, direction)
    lo_arr = shaped(lo, ("N", 3), "lo")
    lo_arr, hi_arr = _boxes(lo_arr, hi, len(lo_arr))
    return slab_hits(o, d, lo_arr, hi_arr)[1]


def ray_vs_obb(
    origin: ArrayLike,
    direction: ArrayLike,
    world_matrix: ArrayLike,
    lo: ArrayLike = (-0.5, -0.5, -0.5),
    hi: ArrayLike = (0.5, 0.5, 0.5),
) -> float:
    """Where a ray enters a box placed by a world matrix (an oriented box).

    Parameters
    ----------
    origin, direction : array_like, [3]
        The ray in world space; `direction` non-zero.
    world_matrix : array_like, [4, 4]
        The box's world matrix (column vectors); a singular one is never hit.
    lo, hi : array_like, [3]
        The box in the node's local space; the unit cube by default.

    Returns
    -------
    float
        The world ray's parameter at entry, ``inf`` when it misses.
    """
    o, d = _ray(origin, direction)
    m = shaped(world_matrix, (4, 4), "world_matrix")
    lo_arr, hi_arr = _boxes(lo, hi, None)
    return float(obb_ray_hits(o, d, m[None], lo_arr, hi_arr)[1][0])


def ray_vs_obb_batch(
    origin: ArrayLike,
    direction: ArrayLike,
    world_matrices: ArrayLike,
    lo: ArrayLike = (-0.5, -0.5, -0.5),
    hi: ArrayLike = (0.5, 0.5, 0.5),
) -> np.ndarray:
    """`ray_vs_obb` for one ray against N boxes.

    Parameters
    ----------
    origin, direction : array_like, [3]
    world_matrices : array_like, [N, 4, 4]
    lo, hi : array_like, [3] or [N, 3]
        One local box for all, or one per box.

    Returns
    -------
    ndarray, [N]
        Entry parameters, ``inf`` for the boxes missed.
    """
    o, d = _ray(origin, direction)
    m = shaped(world_matrices, ("N", 4, 4), "world_matrices")
    lo_arr, hi_arr = _boxes(lo, hi, len(m))
    return obb_ray_hits(o, d, m, lo_arr, hi_arr)[1]
