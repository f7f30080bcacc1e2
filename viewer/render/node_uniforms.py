"""The uniforms of the node pass (shaders/instanced.vert and .frag): light, camera,
glow colours, style and clock, one place for the renderer and nothing else to spell them
out."""

from __future__ import annotations

import numpy as np

from viewer.palette import GLOW_LOCAL, GLOW_WORLD

from .camera import ORTHOGRAPHIC, Camera

#: Direction towards the light (world space); normalised at use. Flat (2D) scenes in the
#: XY plane are lit mostly from +Z, the side they are seen from.
LIGHT_DIR = (0.45, 0.85, 0.35)
LIGHT_DIR_FLAT = (0.30, 0.40, 0.87)
#: Width in pixels of the halo around glowing nodes (the glowing lines: `ribbons`).
HALO_PX = 4.0


def node_uniforms(
    prog, camera: Camera, size: tuple[int, int], vp_bytes: bytes, *, flat: bool, unlit: bool,
    glow_style: int, glow_on: bool, clock: dict[str, float],
) -> None:  # fmt: skip
    """Set the node program's per-draw uniforms (`glow_style`: index into GLOW_STYLES;
    `clock`: `Glow.uniforms()`, the time the shader fades the glow stamps to)."""
    prog["u_view_proj"].write(vp_bytes)
    light = np.asarray(LIGHT_DIR_FLAT if flat else LIGHT_DIR)
    prog["u_light_dir"].value = tuple(light / np.linalg.norm(light))
    prog["u_eye"].value = tuple(camera.eye)
    prog["u_view_dir"].value = tuple(camera.forward)
    prog["u_ortho"].value = int(camera.projection == ORTHOGRAPHIC)
    prog["u_unlit"].value = int(unlit)
    prog["u_glow_local"].value = GLOW_LOCAL
    prog["u_glow_world"].value = GLOW_WORLD
    prog["u_viewport"].value = (float(size[0]), float(size[1]))
    prog["u_halo_px"].value = HALO_PX
    prog["u_glow_style"].value = glow_style
    prog["u_glow_on"].value = int(glow_on)
    for name, value in clock.items():
        prog[name].value = value
