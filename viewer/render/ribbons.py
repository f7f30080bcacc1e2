"""Glowing parent -> child lines, drawn as strips a few pixels wide.

GL lines wider than one pixel are not portable, so each lit line becomes two triangles.
`GlowRibbons` draws them on the GPU from the buffers the plain lines already use (node
origins and the parent-child element buffer) plus one float per node, the time the line
to it was last lit (`glow.py`): shaders/ribbons.vert fades it from the current time and
ribbons.geom widens it on screen, so a fading line costs no write. `strip_quads` builds
such strips on the CPU, in world space, for the joint markers (`joints.py`).
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.palette import GLOW_WORLD

from .camera import ORTHOGRAPHIC, Camera
from .shaders import load_program, uniform

#: Width in pixels of the glowing lines.
GLOW_LINE_PX = 5.0


def strip_quads(
    a: np.ndarray,
    b: np.ndarray,
    camera: Camera,
    size: tuple[int, int],
    width_px: float | np.ndarray = GLOW_LINE_PX,
) -> np.ndarray:
    """Two triangles per segment a[k] -> b[k] ([k, 3] each), facing the camera and
    `width_px` pixels wide (one width, or one per segment) in an image of `size`:
    [k, 6, 3] world positions."""
    to_eye = (
        np.broadcast_to(-camera.forward, a.shape)
        if camera.projection == ORTHOGRAPHIC
        else camera.eye[None, :] - (a + b) / 2.0
    )
    side = np.cross(b - a, to_eye)
    norm = np.linalg.norm(side, axis=1, keepdims=True)
    side = np.divide(side, norm, out=np.zeros_like(side), where=norm > 1e-12)
    half = 0.5 * np.broadcast_to(np.asarray(width_px, dtype=np.float64), len(a))
    wa = (camera.pixel_size(a, size) * half)[:, None]
    wb = (camera.pixel_size(b, size) * half)[:, None]
    corners = [a - side * wa, a + side * wa, b + side * wb, b - side * wb]
    return np.stack([corners[i] for i in (0, 1, 2, 0, 2, 3)], axis=1)


class GlowRibbons:
    """The lit lines of `Instances` (origins, link stamps, element buffer): one draw."""

    def __init__(self, ctx: moderngl.Context):
        self.ctx = ctx
        self.program = load_program(ctx, "ribbons")
        self._vao: moderngl.VertexArray | None = None

    def bind(
        self, origins: moderngl.Buffer, link_times: moderngl.Buffer, links: moderngl.Buffer
    ) -> None:
        """Draw from these buffers (after every rebuild of the instance buffers)."""
        if self._vao is not None:
            self._vao.release()
        self._vao = self.ctx.vertex_array(
            self.program,
            [(origins, "3f", "in_position"), (link_times, "1f", "in_link_time")],
            index_buffer=links,
            index_element_size=4,
        )

    def draw(
        self,
        fbo: moderngl.Framebuffer,
        vp_bytes: bytes,
        size: tuple[int, int],
        clock: dict[str, float],
        lines: int,
    ) -> None:
        """Draw the lit ones of `lines` parent-child lines in the world glow colour,
        blended over the scene without writing depth (`clock`: `Glow.uniforms()`)."""
        if self._vao is None or lines == 0:
            return
        prog = self.program
        uniform(prog, "u_view_proj").write(vp_bytes)
        uniform(prog, "u_time").value = clock["u_time"]
        uniform(prog, "u_fade").value = clock["u_fade"]
        uniform(prog, "u_viewport").value = (float(size[0]), float(size[1]))
        uniform(prog, "u_width_px").value = GLOW_LINE_PX
        uniform(prog, "u_color").value = tuple(GLOW_WORLD)
        fbo.depth_mask = False
        self._vao.render(moderngl.LINES, vertices=2 * lines)
        fbo.depth_mask = True

    def release(self) -> None:
        if self._vao is not None:
            self._vao.release()
        self.program.release()
