"""Boxes and spheres around the drawn nodes: picking, camera framing, labels, selection.

Plain numpy over each node's mesh kind and look size (`scene_bounds.SceneBounds`) and the
graph's world matrices, kept apart from the drawing: none of it touches the GPU. A node's
box is its mesh's bounds times its look's size, placed by its world matrix.
"""

from __future__ import annotations

import math

import numpy as np

#: Half the side of the box that stands for a node drawn without a mesh (a pivot) when it
#: is selected, and the radius of its bounding sphere, in a scene 4 to 40 units across
#: (`pivot_half` follows other scales).
PIVOT_HALF = 0.15
#: Bit of a corner's index that picks `hi` over `lo` on each axis (x, y, z).
CORNER_BITS = (4, 2, 1)


def nice_step(x: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is >= x (x > 0)."""
    x = max(x, 1e-6)
    base = 10.0 ** math.floor(math.log10(x))
    for m in (1.0, 2.0, 5.0):
        if m * base >= x:
            return m * base
    return 10.0 * base


def grid_span(center: np.ndarray, radius: float) -> tuple[float, float]:
    """(step, half side) of the ground grid for a scene of bounding sphere (`center`,
    `radius`): lines a nice step apart, reaching well past the scene."""
    reach = float(np.max(np.abs(center))) + radius
    step = nice_step(reach / 6.0)
    return step, step * max(5, math.ceil(reach * 1.6 / step))


def pivot_half(radius: float) -> float:
    """`PIVOT_HALF` for a scene of bounding radius `radius`: as is in scenes a few units
    across, following tinier or vaster scenes' scale."""
    return PIVOT_HALF * float(np.clip(1.0, radius / 20.0, radius / 2.0))


def node_boxes(
    kind_of: np.ndarray,
    sizes: np.ndarray,
    kind_bounds: np.ndarray,
    order: np.ndarray,
    world: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ids [n], worlds [n, 4, 4], lo [n, 3], hi [n, 3]) of every drawn node's box,
    grouped by mesh kind, in the order `order` (live ids, pre-order) within each kind.

    `kind_of[id]` indexes `kind_bounds` [k, 2, 3] (each kind's (lo, hi)), -1 for a node
    drawn without a mesh; `sizes[id]` is its look's size."""
    order = np.asarray(order, dtype=np.int64)
    order = order[order < len(kind_of)]
    kinds = kind_of[order]
    ids = [order[kinds == k] for k in range(len(kind_bounds))]
    all_ids = np.concatenate([np.zeros(0, dtype=np.int64), *ids])
    kind = kind_of[all_ids]
    size = sizes[all_ids]
    lo = kind_bounds[kind, 0] * size if len(all_ids) else np.zeros((0, 3))
    hi = kind_bounds[kind, 1] * size if len(all_ids) else np.zeros((0, 3))
    return all_ids, world[all_ids], lo, hi


def box_corners(worlds: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """World-space corners, [n, 8, 3], of the boxes [lo, hi] ([n, 3] each) placed by
    `worlds` [n, 4, 4]; see `CORNER_BITS` for their order."""
    # Each axis's two ends, placed: R[:, :, a] * lo[:, a] and R[:, :, a] * hi[:, a] ([n, 3]
    # each); a corner adds one end per axis to the origin (a few whole-array additions,
    # not a small matrix product per box).
    ends = [
        (worlds[:, :3, a] * lo[:, a, None], worlds[:, :3, a] * hi[:, a, None]) for a in range(3)
    ]
    out = np.empty((len(worlds), 8, 3))
    for k in range(8):
        x, y, z = ((k & bit) != 0 for bit in CORNER_BITS)
        out[:, k] = worlds[:, :3, 3] + ends[0][x] + ends[1][y] + ends[2][z]
    return out


def box_extremes(worlds: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """[2, 3]: the lowest and highest of `box_corners(worlds, lo, hi)` on each axis, exactly
    (the same products summed in the same order: rounding is monotonic, so each axis's
    extreme corner is the sum of each term's extreme), without making the 8 corners a box
    ([0, 3] without boxes)."""
    if len(worlds) == 0:
        return np.zeros((0, 3))
    low, high = worlds[:, :3, 3].copy(), worlds[:, :3, 3].copy()
    for a in range(3):
        ends = (worlds[:, :3, a] * lo[:, a, None], worlds[:, :3, a] * hi[:, a, None])
        low += np.minimum(*ends)
        high += np.maximum(*ends)
    return np.array([low.min(axis=0), high.max(axis=0)])


def box_support(
    worlds: np.ndarray, lo: np.ndarray, hi: np.ndarray, directions: np.ndarray
) -> np.ndarray:
    """[m]: for each of `directions` [m, 3], the largest d . p over the corners p of the
    boxes (-inf without boxes): the centre's plus each axis's reach, |d . axis| times its
    half length, so the corners are not made."""
    directions = np.asarray(directions, dtype=np.float64).reshape(-1, 3)
    if len(worlds) == 0:
        return np.full(len(directions), -np.inf)
    linear = worlds[:, :3, :3]
    centres = worlds[:, :3, 3] + np.einsum("nij,nj->ni", linear, 0.5 * (lo + hi))
    half = np.abs(0.5 * (hi - lo))
    best = []
    for d in directions:
        reach = np.abs(np.einsum("i,nij->nj", d, linear))  # |d . axis j| per box
        best.append(float(np.max(centres @ d + np.einsum("nj,nj->n", reach, half))))
    return np.array(best)


def sphere_around(points: np.ndarray) -> tuple[np.ndarray, float]:
    """Bounding sphere (centre [3], radius) of `points` [m, 3], at their own scale
    (millimetres or kilometres alike); one point gets radius 0.5, none radius 1."""
    if len(points) == 0:
        return np.zeros(3), 1.0
    lo_all, hi_all = points.min(axis=0), points.max(axis=0)
    center = (lo_all + hi_all) / 2.0
    radius = float(np.linalg.norm(hi_all - lo_all) / 2.0)
    if radius <= 1e-9 * max(1.0, float(np.abs(center).max())):
        radius = 0.5
    return center, radius


def label_spheres(
    kind_of: np.ndarray,
    sizes: np.ndarray,
    kind_bounds: np.ndarray,
    world: np.ndarray,
    ids: np.ndarray,
    pivot: float,
) -> tuple[np.ndarray, np.ndarray]:
    """World-space spheres around nodes `ids` as drawn: centres [n, 3] (the middle of the
    node's box: its mesh's bounds times the look's size, which for a glTF mesh need not be
    centred on the node nor span a unit) and radii [n] (half the box's diagonal times the
    largest world axis scale). A node drawn without a mesh: its origin and radius `pivot`;
    one added since the last build: a unit box."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    world = world[ids]
    built = ids < len(kind_of)
    kind = np.full(len(ids), -1, dtype=np.int64)
    kind[built] = kind_of[ids[built]]
    size = np.ones((len(ids), 3))
    size[built] = sizes[ids[built]]
    lo, hi = np.full((len(ids), 3), -0.5), np.full((len(ids), 3), 0.5)
    drawn = kind >= 0
    if drawn.any():
        lo[drawn], hi[drawn] = kind_bounds[kind[drawn], 0], kind_bounds[kind[drawn], 1]
    middle = 0.5 * (lo + hi) * size
    centres = np.einsum("nij,nj->ni", world[:, :3, :3], middle) + world[:, :3, 3]
    scale = np.linalg.norm(world[:, :3, :3], axis=1).max(axis=1, initial=0.0)
    radii = 0.5 * np.linalg.norm((hi - lo) * size, axis=1) * scale
    return centres, np.where(built & ~drawn, pivot, radii)


def selection_box(
    kind_of: np.ndarray,
    sizes: np.ndarray,
    kind_bounds: np.ndarray,
    world: np.ndarray,
    node_id: int,
    pivot: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(world [4, 4], lo [3], hi [3]) of the box outlined around a selected node: its
    mesh's box with a 4 % margin, or a cube of half side `pivot` around a pivot; None if
    `node_id` is not a node of the last build."""
    if not (0 <= node_id < min(len(kind_of), len(world))):
        return None
    k = int(kind_of[node_id])
    matrix = world[node_id]
    if k < 0:
        return matrix, np.full(3, -pivot), np.full(3, pivot)
    lo, hi = kind_bounds[k, 0] * sizes[node_id], kind_bounds[k, 1] * sizes[node_id]
    pad = 0.04 * np.max(hi - lo)
    return matrix, lo - pad, hi + pad
