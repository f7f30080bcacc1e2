"""A built-in or imported mesh's buffers on the GPU (the geometry itself is
`viewer.content.meshes`, plain numpy, which the glTF export shares)."""

from __future__ import annotations

import numpy as np

from viewer.content.meshes import MeshData


class GpuMesh:
    """A mesh's vertex and index buffers on the GPU."""

    def __init__(self, ctx, data: MeshData):
        self.data = data
        self.vbo = ctx.buffer(data.interleaved().tobytes())
        self.ibo = ctx.buffer(data.indices.astype(np.uint32).tobytes())
        lo, hi = data.bounds
        self.bounds = (lo.astype(np.float64), hi.astype(np.float64))

    def release(self) -> None:
        self.vbo.release()
        self.ibo.release()
