"""Boxes and spheres around the drawn nodes: picking, camera framing, labels, selection.

Plain numpy over the renderer's instance data (each node's mesh kind and size) and the
graph's world matrices, kept apart from the drawing: none of it touches the GPU. A node's
box is its mesh's bounds times its look's size, placed by its world matrix.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # for the annotations only: this module itself needs no GL
    from .gpu_mesh import GpuMesh
    from .instances import Instances

#: Half the side of the box that stands for a node drawn without a mesh (a pivot) when it
#: is selected, and the radius of its bounding sphere, in a scene 4 to 40 units across
#: (`pivot_half` follows other scales).
PIVOT_HALF = 0.15


def pivot_half(radius: float) -> float:
    """`PIVOT_HALF` for a scene of bounding radius `radius`: as is in scenes a few units
    across, following tinier or vaster scenes' scale."""
    return PIVOT_HALF * float(np.clip(1.0, radius / 20.0, radius / 2.0))


def node_boxes(
    instances: Instances, meshes: Mapping[str, GpuMesh], world: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ids [n], worlds [n, 4, 4], lo [n, 3], hi [n, 3]) of every drawn node's box."""
    ids, lo, hi = [], [], []
    for batch in instances.batches:
        mesh_lo, mesh_hi = meshes[batch.kind].bounds
        size = instances.sizes[batch.ids]
        ids.append(batch.ids)
        lo.append(mesh_lo * size)
        hi.append(mesh_hi * size)
    if not ids:
        empty = np.zeros((0, 3))
        return np.zeros(0, dtype=np.int64), np.zeros((0, 4, 4)), empty, empty
    all_ids = np.concatenate(ids)
    return all_ids, world[all_ids], np.vstack(lo), np.vstack(hi)


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
    instances: Instances, meshes: Mapping[str, GpuMesh], world: np.ndarray, ids: np.ndarray,
    pivot: float,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """World-space spheres around nodes `ids` as drawn: centres [n, 3] (the middle of the
    node's box: its mesh's bounds times the look's size, which for a glTF mesh need not be
    centred on the node nor span a unit) and radii [n] (half the box's diagonal times the
    largest world axis scale). A node drawn without a mesh: its origin and radius `pivot`;
    one added since the last build: a unit box."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    world = world[ids]
    built = ids < len(instances.kind_of)
    batch = np.full(len(ids), -1, dtype=np.int64)
    batch[built] = instances.kind_of[ids[built]]
    sizes = np.ones((len(ids), 3))
    sizes[built] = instances.sizes[ids[built]]
    lo, hi = np.full((len(ids), 3), -0.5), np.full((len(ids), 3), 0.5)
    drawn = batch >= 0
    if drawn.any():
        kind_bounds = np.array([meshes[b.kind].bounds for b in instances.batches])
        lo[drawn], hi[drawn] = kind_bounds[batch[drawn], 0], kind_bounds[batch[drawn], 1]
    middle = 0.5 * (lo + hi) * sizes
    centres = np.einsum("nij,nj->ni", world[:, :3, :3], middle) + world[:, :3, 3]
    scale = np.linalg.norm(world[:, :3, :3], axis=1).max(axis=1, initial=0.0)
    radii = 0.5 * np.linalg.norm((hi - lo) * sizes, axis=1) * scale
    return centres, np.where(built & ~drawn, pivot, radii)


def selection_box(
    instances: Instances, meshes: Mapping[str, GpuMesh], world: np.ndarray, node_id: int,
    pivot: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:  # fmt: skip
    """(world [4, 4], lo [3], hi [3]) of the box outlined around a selected node: its
    mesh's box with a 4 % margin, or a cube of half side `pivot` around a pivot; None if
    `node_id` is not a node of the last build."""
    if not (0 <= node_id < len(instances.kind_of)):
        return None
    b = int(instances.kind_of[node_id])
    matrix = world[node_id]
    if b < 0:
        return matrix, np.full(3, -pivot), np.full(3, pivot)
    mesh_lo, mesh_hi = meshes[instances.batches[b].kind].bounds
    size = instances.sizes[node_id]
    lo, hi = mesh_lo * size, mesh_hi * size
    pad = 0.04 * np.max(hi - lo)
    return matrix, lo - pad, hi + pad
