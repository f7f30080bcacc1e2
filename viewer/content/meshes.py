"""Mesh geometry: the built-in kinds and glTF meshes, as numpy arrays (no GL; the GPU
buffers are `viewer.render.gpu_mesh`).

Every built-in mesh fits the unit box centred on the origin ([-0.5, 0.5] on each axis),
so a look's `size` is the drawn extent along the node's local axes: a cube of size
(2, 1, 1) is 2 wide. Exceptions: the flat `disk` and `rect` lie in the local XY plane
(z = 0, normal +Z), and the `axes` gizmo has its origin at the node's origin with arms
of length 1 along +X (red), +Y (green), +Z (blue).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: Vertex layout shared by all meshes: position 3f, normal 3f, vertex colour 4f, two sets
#: of texture coordinates 2f 2f (zeros where a vertex has none; glTF meshes use them).
VERTEX_FORMAT = "3f 3f 4f 2f 2f"
VERTEX_ATTRS = ("in_position", "in_normal", "in_vcolor", "in_uv", "in_uv1")


@dataclass
class MeshData:
    """Triangles on the CPU.

    positions, normals : ndarray, [n, 3] float32
    vcolors : ndarray, [n, 4] float32 (built-in meshes: alpha = how much rgb replaces the
        instance colour; glTF meshes: COLOR_0, which their material multiplies)
    indices : ndarray, [m] uint32, three per triangle
    uvs, uvs1 : ndarray, [n, 2] float32 texture coordinates (sets 0 and 1), or None (zeros)
    lines, points : ndarray, [k] uint32 line-segment (two per line) and point indices of
        glTF meshes that have them, or None
    """

    positions: np.ndarray
    normals: np.ndarray
    vcolors: np.ndarray
    indices: np.ndarray
    uvs: np.ndarray | None = None
    uvs1: np.ndarray | None = None
    lines: np.ndarray | None = None
    points: np.ndarray | None = None

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Axis-aligned (min, max) corners in mesh space, each [3]."""
        return self.positions.min(axis=0), self.positions.max(axis=0)


def _mesh(pos, nrm, idx, vcol=None) -> MeshData:
    pos = np.asarray(pos, dtype=np.float32).reshape(-1, 3)
    nrm = np.asarray(nrm, dtype=np.float32).reshape(-1, 3)
    if vcol is None:
        vcol = np.zeros((len(pos), 4), dtype=np.float32)
    return MeshData(pos, nrm, np.asarray(vcol, dtype=np.float32), np.asarray(idx, np.uint32))


def _merge(parts: list[MeshData]) -> MeshData:
    offsets = np.cumsum([0] + [len(p.positions) for p in parts[:-1]])
    return MeshData(
        np.vstack([p.positions for p in parts]),
        np.vstack([p.normals for p in parts]),
        np.vstack([p.vcolors for p in parts]),
        np.concatenate([p.indices + o for p, o in zip(parts, offsets, strict=True)]).astype(
            np.uint32
        ),
    )


def cube(
    lo: tuple[float, float, float] = (-0.5, -0.5, -0.5),
    hi: tuple[float, float, float] = (0.5, 0.5, 0.5),
) -> MeshData:
    """An axis-aligned box from corner `lo` to corner `hi` (24 vertices, flat faces)."""
    low, high = np.asarray(lo, np.float32), np.asarray(hi, np.float32)
    pos: list[np.ndarray] = []
    nrm: list[np.ndarray] = []
    idx: list[int] = []
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for sign in (-1.0, 1.0):
            base = len(pos)
            n = np.zeros(3)
            n[axis] = sign
            for a, b in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = np.empty(3)
                p[axis] = high[axis] if sign > 0 else low[axis]
                p[u] = (low[u], high[u])[a]
                p[v] = (low[v], high[v])[b if sign > 0 else 1 - b]
                pos.append(p)
                nrm.append(n)
            idx += [base, base + 1, base + 2, base, base + 2, base + 3]
    return _mesh(pos, nrm, idx)


def sphere(segments: int = 32, rings: int = 16) -> MeshData:
    """A UV sphere of radius 0.5."""
    theta = np.linspace(0.0, np.pi, rings + 1)  # from +Y down
    phi = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    n = np.stack([np.sin(t) * np.cos(p), np.cos(t), -np.sin(t) * np.sin(p)], axis=-1)
    n = n.reshape(-1, 3)
    n[np.abs(n) < 1e-9] = 0.0  # exact zeros at the poles and seams
    r, s = np.meshgrid(np.arange(rings), np.arange(segments), indexing="ij")
    a = r * (segments + 1) + s
    b = a + segments + 1
    idx = np.stack([a, b, a + 1, a + 1, b, b + 1], axis=-1).reshape(-1)
    return _mesh(n * 0.5, n, idx)


def _ring(radius: float, y: float, segments: int) -> np.ndarray:
    ang = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    return np.stack([radius * np.cos(ang), np.full_like(ang, y), -radius * np.sin(ang)], axis=-1)


def _cap(y: float, up: bool, segments: int) -> MeshData:
    rim = _ring(0.5, y, segments)
    pos = np.vstack([[0.0, y, 0.0], rim])
    nrm = np.tile([0.0, 1.0 if up else -1.0, 0.0], (len(pos), 1))
    i = np.arange(1, segments + 1)
    tri = (
        np.stack([np.zeros_like(i), i, i + 1], axis=-1)
        if up
        else np.stack([np.zeros_like(i), i + 1, i], axis=-1)
    )
    return _mesh(pos, nrm, tri.reshape(-1))


def _side(bottom: np.ndarray, top: np.ndarray, normals: np.ndarray) -> MeshData:
    segments = len(bottom) - 1
    pos = np.vstack([bottom, top])
    nrm = np.vstack([normals, normals])
    i = np.arange(segments)
    j = i + segments + 1
    idx = np.stack([i, i + 1, j, j, i + 1, j + 1], axis=-1).reshape(-1)
    return _mesh(pos, nrm, idx)


def cylinder(segments: int = 32) -> MeshData:
    """A cylinder of radius 0.5 along Y, from y = -0.5 to 0.5, with caps."""
    bottom, top = _ring(0.5, -0.5, segments), _ring(0.5, 0.5, segments)
    nrm = bottom * [2.0, 0.0, 2.0]
    side = _side(bottom, top, nrm)
    return _merge([side, _cap(0.5, True, segments), _cap(-0.5, False, segments)])


def cone(segments: int = 32) -> MeshData:
    """A cone along Y: base of radius 0.5 at y = -0.5, apex at y = 0.5."""
    bottom = _ring(0.5, -0.5, segments)
    top = _ring(0.0, 0.5, segments)
    # Slope normal of a cone with radius 0.5 and height 1: (cos, 0.5, -sin) normalised.
    nrm = bottom * [2.0, 0.0, 2.0] + [0.0, 0.5, 0.0]
    nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
    return _merge([_side(bottom, top, nrm), _cap(-0.5, False, segments)])


def disk(segments: int = 64) -> MeshData:
    """A flat disk of radius 0.5 in the XY plane, facing +Z (shaded from both sides)."""
    ang = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    rim = np.stack([0.5 * np.cos(ang), 0.5 * np.sin(ang), np.zeros_like(ang)], axis=-1)
    pos = np.vstack([[0.0, 0.0, 0.0], rim])
    nrm = np.tile([0.0, 0.0, 1.0], (len(pos), 1))
    i = np.arange(1, segments + 1)
    return _mesh(pos, nrm, np.stack([np.zeros_like(i), i, i + 1], axis=-1).reshape(-1))


def rect() -> MeshData:
    """A flat unit square in the XY plane, facing +Z (shaded from both sides)."""
    pos = [(-0.5, -0.5, 0.0), (0.5, -0.5, 0.0), (0.5, 0.5, 0.0), (-0.5, 0.5, 0.0)]
    return _mesh(pos, [(0.0, 0.0, 1.0)] * 4, [0, 1, 2, 0, 2, 3])


def axes() -> MeshData:
    """An axes gizmo: red +X, green +Y, blue +Z arms of length 1 with cone tips."""
    colors = ((0.90, 0.25, 0.22), (0.35, 0.80, 0.30), (0.25, 0.45, 0.95))
    parts = [cube((-0.06, -0.06, -0.06), (0.06, 0.06, 0.06))]
    parts[0].vcolors[:] = (0.85, 0.85, 0.85, 1.0)
    # Rotations taking +Y onto +X, +Y, +Z (column-vector convention, det = +1).
    turn = (
        np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 1]], dtype=np.float64),
        np.eye(3),
        np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=np.float64),
    )
    for axis in range(3):
        shaft = cube((-0.025, 0.0, -0.025), (0.025, 0.78, 0.025))
        tip = cone(16)
        tip.positions = tip.positions * [0.16, 0.22, 0.16] + [0.0, 0.89, 0.0]
        tip.normals = tip.normals * [1.0 / 0.16, 1.0 / 0.22, 1.0 / 0.16]
        tip.normals /= np.linalg.norm(tip.normals, axis=1, keepdims=True)
        for part in (shaft, tip):
            # Build along +Y, then turn +Y onto the wanted axis.
            rot = turn[axis].T
            part.positions = (part.positions @ rot).astype(np.float32)
            part.normals = (part.normals @ rot).astype(np.float32)
            part.vcolors[:] = (*colors[axis], 1.0)
            parts.append(part)
    return _merge(parts)


BUILDERS: dict[str, Callable[[], MeshData]] = {
    "cube": cube,
    "sphere": sphere,
    "cylinder": cylinder,
    "cone": cone,
    "disk": disk,
    "rect": rect,
    "axes": axes,
}


def from_arrays(
    positions: np.ndarray, normals: np.ndarray | None, indices: np.ndarray, surface=None
) -> MeshData:
    """A mesh from glTF-style arrays; missing or mismatched normals are computed.
    `surface` (a `viewer.materials.MeshSurface`) adds vertex colours and coordinates."""
    pos = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
    idx = np.asarray(indices, dtype=np.uint32).reshape(-1)
    nrm = None if normals is None else np.asarray(normals, dtype=np.float32).reshape(-1, 3)
    if nrm is None or len(nrm) != len(pos):
        tri = idx.reshape(-1, 3)
        face = np.cross(pos[tri[:, 1]] - pos[tri[:, 0]], pos[tri[:, 2]] - pos[tri[:, 0]])
        nrm = np.zeros_like(pos)
        for corner in range(3):
            np.add.at(nrm, tri[:, corner], face)
        length = np.linalg.norm(nrm, axis=1, keepdims=True)
        nrm = np.divide(nrm, length, out=np.zeros_like(nrm), where=length > 0)
    if surface is None:
        return _mesh(pos, nrm, idx)
    mesh = _mesh(pos, nrm, idx, surface.vcolors)
    mesh.uvs = None if surface.uvs is None else np.asarray(surface.uvs, np.float32)
    mesh.uvs1 = None if surface.uvs1 is None else np.asarray(surface.uvs1, np.float32)
    return mesh


def builtin(kind: str) -> MeshData:
    """The built-in mesh `kind` (one of `BUILDERS`)."""
    try:
        return BUILDERS[kind]()
    except KeyError:
        raise KeyError(f"unknown mesh kind {kind!r}; expected one of {sorted(BUILDERS)}") from None
