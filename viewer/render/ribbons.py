"""Glowing parent -> child lines, drawn as camera-facing strips a few pixels wide.

GL lines wider than one pixel are not portable, so each lit line becomes two triangles
whose width is measured in pixels at each end (`Camera.pixel_size`).
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.palette import GLOW_WORLD

from .camera import ORTHOGRAPHIC, Camera
from .vertices import ColoredVertices

#: Width in pixels of the glowing lines.
GLOW_LINE_PX = 5.0


def strip_quads(
    a: np.ndarray, b: np.ndarray, camera: Camera, size: tuple[int, int],
    width_px: float | np.ndarray = GLOW_LINE_PX,
) -> np.ndarray:  # fmt: skip
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
    """The strips' vertices, rewritten at each draw since they turn with the camera
    ("lines" program, `u_view_proj` set by the caller)."""

    def __init__(self, ctx: moderngl.Context, program: moderngl.Program):
        self._strips = ColoredVertices(ctx, program, 6 * 64)

    def draw(
        self,
        fbo: moderngl.Framebuffer,
        camera: Camera,
        size: tuple[int, int],
        segments: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> None:
        """Draw `segments` = (a [k, 3], b [k, 3], opacity [k]) in the world glow colour,
        blended over the scene without writing depth."""
        a, b, strength = segments
        if len(a) == 0:
            return
        color = np.empty((len(a), 6, 4), dtype=np.float32)
        color[:, :, :3] = GLOW_WORLD
        color[:, :, 3] = np.clip(strength, 0.0, 1.0)[:, None]
        self._strips.write(strip_quads(a, b, camera, size), color.reshape(-1, 4))
        fbo.depth_mask = False
        self._strips.render(moderngl.TRIANGLES)
        fbo.depth_mask = True

    def release(self) -> None:
        self._strips.release()
