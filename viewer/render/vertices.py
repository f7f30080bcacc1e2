"""Coloured vertices (position, RGBA) on the GPU for the "lines" program, written from numpy.

The selection outline, the glowing line strips and the world axes are all such small
vertex lists; this keeps their buffer, vertex array and resizing in one place.
"""

from __future__ import annotations

import moderngl
import numpy as np

#: Bytes per vertex: position (3 floats) and colour (4 floats).
VERTEX_BYTES = 7 * 4


class ColoredVertices:
    """A growable vertex buffer bound to a program with `in_position` and `in_color`.

    Parameters
    ----------
    ctx : moderngl.Context
    program : moderngl.Program
        The "lines" program; its `u_view_proj` is set by whoever draws.
    reserve : int
        Vertices to make room for at first (the buffer grows when a write needs more).
    """

    def __init__(self, ctx: moderngl.Context, program: moderngl.Program, reserve: int):
        self.count = 0
        self._buf = ctx.buffer(reserve=max(reserve, 1) * VERTEX_BYTES, dynamic=True)
        self._vao = ctx.vertex_array(program, [(self._buf, "3f 4f", "in_position", "in_color")])

    def write(self, positions: np.ndarray, colors) -> None:
        """Replace the vertices: `positions` [n, 3], `colors` [n, 4] or one RGBA for all."""
        positions = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
        rgba = np.broadcast_to(np.asarray(colors, dtype=np.float32), (len(positions), 4))
        data = np.ascontiguousarray(np.hstack([positions, rgba]))
        if data.nbytes > self._buf.size:
            self._buf.orphan(data.nbytes)
        self._buf.write(data.tobytes())
        self.count = len(positions)

    def render(self, mode: int) -> None:
        """Draw the vertices written last as `mode` (moderngl.LINES, TRIANGLES, ...)."""
        if self.count:
            self._vao.render(mode, vertices=self.count)

    def release(self) -> None:
        self._vao.release()
        self._buf.release()
