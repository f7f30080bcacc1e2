"""Geometry of USD prims as the arrays glTF meshes also become: (positions, normals,
indices) in float32 / uint32, triangles only.

- ``UsdGeom.Mesh``: points, ``faceVertexCounts`` and ``faceVertexIndices`` (polygons
  triangulated as fans; faces of fewer than three vertices and holes skipped), normals
  when given per vertex (else computed, area-weighted), ``orientation = "leftHanded"``
  flipping the winding. Counts and indices are checked (untrusted input) before use.
- The implicit shapes at their authored sizes and axes: Cube (``size``), Sphere
  (``radius``), Cylinder and Cone (``radius``, ``height``, ``axis``) and Capsule
  (``radius``, ``height`` of the cylinder part, ``axis``), tessellated here.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from pxr import UsdGeom

from viewer.content import meshes
from viewer.io.errors import ErrorPlace, SceneError

__all__ = ["SHAPES", "MeshRead", "mesh_arrays", "shape_arrays"]

SHAPES = ("Cube", "Sphere", "Cylinder", "Cone", "Capsule")
_SEGMENTS = 32


def _array(value, dtype, width: int | None = None) -> np.ndarray:
    arr = np.asarray(value if value is not None else [], dtype=dtype)
    return arr.reshape(-1, width) if width else arr.reshape(-1)


class MeshRead(NamedTuple):
    """A Mesh prim's triangles: `points` (n, 3), `normals` (n, 3) or None, `indices`
    (3k,) into the points, `faces` (k,) each triangle's face; `corners` (3k,) the same
    triangles as face-vertex numbers and `face_vertices` the point of each face-vertex
    (for face-varying primvars, `per_corner`)."""

    points: np.ndarray
    normals: np.ndarray | None
    indices: np.ndarray
    faces: np.ndarray
    corners: np.ndarray
    face_vertices: np.ndarray

    def per_corner(self) -> MeshRead:
        """The mesh with one vertex per face-vertex (a face-varying primvar needs it)."""
        fv = self.face_vertices
        normals = None if self.normals is None else self.normals[fv]
        return MeshRead(
            self.points[fv], normals, self.corners, self.faces, self.corners, np.arange(len(fv))
        )


def mesh_arrays(prim, time, display: str, budget) -> MeshRead | None:
    """The triangles of a Mesh prim at `time` (`MeshRead`); None when it has none.
    `budget` (a `Budget`) is charged for them."""
    mesh = UsdGeom.Mesh(prim)
    where: ErrorPlace = {"file": display, "section": f"prim {prim.GetPath()}"}
    points = _array(mesh.GetPointsAttr().Get(time), np.float32, 3)
    counts = _array(mesh.GetFaceVertexCountsAttr().Get(time), np.int64)
    indices = _array(mesh.GetFaceVertexIndicesAttr().Get(time), np.int64)
    reason = budget.charge_data(points.nbytes + 3 * indices.nbytes)
    if reason is not None:
        raise SceneError(reason, **where, field="points")
    if counts.size == 0 or points.size == 0:
        return None
    if (counts < 0).any() or int(counts.sum()) != len(indices):
        raise SceneError(
            f"faceVertexCounts add up to {int(counts.clip(0).sum()):,}, but "
            f"there are {len(indices):,} faceVertexIndices",
            **where,
            field="faceVertexCounts",
        )
    if len(indices) and (indices.min() < 0 or indices.max() >= len(points)):
        raise SceneError(
            f"expected point indices in 0..{len(points) - 1}", **where, field="faceVertexIndices"
        )
    if not np.isfinite(points).all():
        raise SceneError("expected finite numbers", **where, field="points")
    corners, faces = _fans(counts, _holes(mesh, time, len(counts)))
    if not len(corners):
        return None
    if mesh.GetOrientationAttr().Get() == UsdGeom.Tokens.leftHanded:
        corners = corners[:, ::-1]
    tris = indices[corners]
    normals = None
    attr = mesh.GetNormalsAttr()
    if attr.HasAuthoredValue() and mesh.GetNormalsInterpolation() in ("vertex", "varying"):
        given = _array(attr.Get(time), np.float32, 3)
        if len(given) == len(points) and np.isfinite(given).all():
            normals = given
    flat = np.ascontiguousarray(tris, dtype=np.uint32).reshape(-1)
    numbered = np.ascontiguousarray(corners, dtype=np.uint32).reshape(-1)
    return MeshRead(points, normals, flat, faces, numbered, indices)


def _holes(mesh, time, faces: int) -> np.ndarray:
    holes = _array(mesh.GetHoleIndicesAttr().Get(time), np.int64)
    return holes[(holes >= 0) & (holes < faces)]


def _fans(counts: np.ndarray, holes: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each polygon of `counts` corners as a fan of triangles (k, 3) of face-vertex
    numbers, in one pass, and the face each triangle comes from (k,)."""
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    keep = counts >= 3
    keep[holes] = False
    per_face = np.where(keep, counts - 2, 0)
    total = int(per_face.sum())
    face = np.repeat(np.arange(len(counts)), per_face)
    first = np.repeat(np.cumsum(per_face) - per_face, per_face)
    k = np.arange(total) - first  # the k-th triangle of its face: corners 0, k+1, k+2
    base = starts[face]
    return np.stack([base, base + k + 1, base + k + 2], axis=1), face


def shape_arrays(prim, time) -> tuple[tuple[np.ndarray, ...], str]:
    """(positions, normals, indices) of an implicit shape and a key naming its size."""
    kind = prim.GetTypeName()
    schema = getattr(UsdGeom, kind)(prim)
    if kind == "Cube":
        size = float(schema.GetSizeAttr().Get(time))
        data = meshes.cube((-size / 2,) * 3, (size / 2,) * 3)
        return (data.positions, data.normals, data.indices), f"{kind}:{size!r}"
    radius = float(schema.GetRadiusAttr().Get(time))
    if kind == "Sphere":
        profile = _arc(radius, 0.0, -90.0, 90.0)
        return _lathe(profile, "Y"), f"{kind}:{radius!r}"
    height = float(schema.GetHeightAttr().Get(time))
    axis = str(schema.GetAxisAttr().Get(time))
    h = height / 2
    if kind == "Cylinder":
        profile = [
            (0.0, -h, 0, -1),
            (radius, -h, 0, -1),
            (radius, -h, 1, 0),
            (radius, h, 1, 0),
            (radius, h, 0, 1),
            (0.0, h, 0, 1),
        ]
    elif kind == "Cone":
        slope = math.hypot(radius, height) or 1.0
        nr, ny = height / slope, radius / slope
        profile = [(0.0, -h, 0, -1), (radius, -h, 0, -1), (radius, -h, nr, ny), (0.0, h, nr, ny)]
    else:  # Capsule: two half spheres joined by the cylinder's side
        profile = _arc(radius, -h, -90.0, 0.0) + _arc(radius, h, 0.0, 90.0)
    return _lathe(profile, axis), f"{kind}:{radius!r}:{height!r}:{axis}"


def _arc(radius: float, y0: float, start: float, stop: float) -> list[tuple]:
    angles = np.radians(np.linspace(start, stop, _SEGMENTS // 2 + 1))
    return [
        (radius * math.cos(a), y0 + radius * math.sin(a), math.cos(a), math.sin(a)) for a in angles
    ]


def _lathe(profile: list[tuple], axis: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A surface of revolution about Y of (radius, y, normal radius, normal y) points,
    then turned so that Y becomes `axis`."""
    prof = np.asarray(profile, dtype=np.float64)
    turns = np.linspace(0.0, 2 * math.pi, _SEGMENTS + 1)
    c, s = np.cos(turns)[:, None], np.sin(turns)[:, None]
    n = len(prof)
    pos = np.stack(
        [prof[:, 0] * c, np.broadcast_to(prof[:, 1], (len(turns), n)), -prof[:, 0] * s], axis=-1
    )
    nrm = np.stack(
        [prof[:, 2] * c, np.broadcast_to(prof[:, 3], (len(turns), n)), -prof[:, 2] * s], axis=-1
    )
    a = (np.arange(_SEGMENTS)[:, None] * n + np.arange(n - 1)[None, :]).reshape(-1)
    quads = np.stack([a, a + n + 1, a + 1, a, a + n, a + n + 1], axis=1)
    order = {"X": [1, 2, 0], "Y": [0, 1, 2], "Z": [2, 0, 1]}[axis]
    pos = pos.reshape(-1, 3)[:, order]
    nrm = nrm.reshape(-1, 3)[:, order]
    return pos.astype(np.float32), nrm.astype(np.float32), quads.astype(np.uint32).reshape(-1)
