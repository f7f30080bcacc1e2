"""A built-in or imported mesh's buffers on the GPU (the geometry itself is
`viewer.content.meshes`, plain numpy, which the glTF export shares)."""

from __future__ import annotations

import moderngl
import numpy as np
from numpy.typing import NDArray

from viewer.content import meshes
from viewer.content.meshes import MeshData
from viewer.content.scene import Scene

#: Pixel size of glTF POINTS.
POINT_SIZE = 4.0
#: Floats of one vertex in the vertex buffer.
_FLOATS = sum(int(kind[0]) for kind in meshes.VERTEX_FORMAT.split())


def upload_scene_meshes(ctx: moderngl.Context, scene: Scene, into: dict[str, GpuMesh]) -> list[str]:
    """Upload the scene's meshes (with their material parts, lines and points) that
    `into` (mesh key -> GpuMesh) lacks; returns their keys (a live stage reads new
    meshes after the first upload)."""
    surfaces, geometry = scene.surfaces, scene.geometry
    new = [key for key in scene.mesh_data if key not in into]
    for key in new:
        pos, nrm, idx = scene.mesh_data[key]
        data = meshes.from_arrays(pos, nrm, idx, surfaces.get(key))
        data.lines, data.points = geometry.lines.get(key), geometry.points.get(key)
        into[key] = GpuMesh(ctx, data)
    return new


class GpuMesh:
    """A mesh's vertex and index buffers on the GPU.

    One index buffer holds the triangles, then the line segments, then the points (glTF
    meshes may have all three); `render` draws each range in its own mode.
    """

    def __init__(self, ctx: moderngl.Context, data: MeshData) -> None:
        self.data = data
        self.vbo = ctx.buffer(interleaved(data))
        parts = _index_parts(data)
        self.ranges = [
            (mode, int(sum(p.size for p in parts[:k])), int(parts[k].size))
            for k, mode in enumerate((moderngl.TRIANGLES, moderngl.LINES, moderngl.POINTS))
            if parts[k].size
        ]
        joined = joined_indices(data)
        self.ibo = ctx.buffer(joined if joined.size else b"\0" * 4)
        lo, hi = data.bounds
        self.bounds = (lo.astype(np.float64), hi.astype(np.float64))

    def render(self, vao: moderngl.VertexArray, instances: int = 1) -> None:
        """Draw `instances` instances of the mesh through `vao` (built on this mesh's
        buffers): triangles, lines and points, each range in its mode."""
        for mode, first, count in self.ranges:
            if mode == moderngl.POINTS:
                vao.ctx.point_size = POINT_SIZE
            vao.render(mode, vertices=count, first=first, instances=instances)

    def release(self) -> None:
        self.vbo.release()
        self.ibo.release()


def _index_parts(data: MeshData) -> list[np.ndarray]:
    parts = [data.indices, data.lines, data.points]
    return [np.zeros(0, np.uint32) if p is None else np.asarray(p, np.uint32) for p in parts]


def joined_indices(data: MeshData) -> NDArray[np.uint32]:
    """The mesh's one index list, uint32: its triangles, then its line segments, then its
    points (where a `viewer.materials.MeshPart` counts its `first`); a mesh of one kind
    gives its list itself, not a copy."""
    parts = [p for p in _index_parts(data) if p.size]
    if len(parts) == 1:
        return np.ascontiguousarray(parts[0])
    return np.concatenate(parts) if parts else np.zeros(0, np.uint32)


def interleaved(data: MeshData) -> NDArray[np.float32]:
    """The vertex buffer's contents in `meshes.VERTEX_FORMAT` order, [n, 14] float32,
    written column by column into one array: the only per-vertex copy the upload makes
    (`GPU_VERTEX_BYTES` a vertex, what the loader charges for it), for plain and skinned
    meshes alike."""
    out = np.zeros((len(data.positions), _FLOATS), np.float32)  # absent coordinates: zeros
    out[:, 0:3] = data.positions
    out[:, 3:6] = data.normals
    out[:, 6:10] = data.vcolors
    if data.uvs is not None:
        out[:, 10:12] = data.uvs
    if data.uvs1 is not None:
        out[:, 12:14] = data.uvs1
    return out
