"""The box drawn around the selected node: its 12 edges, over everything else.

The renderer says which box (world matrix and local corners); this draws it, rewriting
its vertices only when the box moved.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.palette import SELECTION_COLOR

from .node_bounds import CORNER_BITS, box_corners
from .vertices import ColoredVertices

#: The 12 edges of a box, as pairs of corner indices that differ in one bit.
EDGES = [(a, a | bit) for a in range(8) for bit in CORNER_BITS[::-1] if not a & bit]


class SelectionOutline:
    """The outline's vertices on the GPU ("lines" program, `u_view_proj` set by the caller)."""

    def __init__(self, ctx: moderngl.Context, program: moderngl.Program):
        self._lines = ColoredVertices(ctx, program, 2 * len(EDGES))
        self._key: bytes | None = None

    def draw(self, ctx: moderngl.Context, world: np.ndarray, lo, hi) -> None:
        """Draw the edges of the box [lo, hi] placed by `world`, without depth test."""
        lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
        pts = box_corners(world[None], lo[None], hi[None])[0]
        key = pts.tobytes()
        if key != self._key:
            self._key = key
            self._lines.write(pts[np.ravel(EDGES)], SELECTION_COLOR)
        ctx.disable(moderngl.DEPTH_TEST)
        self._lines.render(moderngl.LINES)

    def release(self) -> None:
        self._lines.release()
