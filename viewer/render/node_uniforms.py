"""The uniforms of the node pass (shaders/instanced.vert and .frag): light, camera,
glow colours, style and clock, one place for the renderer and nothing else to spell them
out."""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.palette import GLOW_LOCAL, GLOW_WORLD

from .camera import ORTHOGRAPHIC, Camera
from .shaders import set_uniform, uniform

#: Direction towards the light (world space); normalised at use. Flat (2D) scenes in the
#: XY plane are lit mostly from +Z, the side they are seen from.
LIGHT_DIR = (0.45, 0.85, 0.35)
LIGHT_DIR_FLAT = (0.30, 0.40, 0.87)
#: Width in pixels of the halo around glowing nodes (the glowing lines: `ribbons`).
HALO_PX = 4.0


def node_uniforms(
    prog: moderngl.Program,
    camera: Camera,
    size: tuple[int, int],
    vp_bytes: bytes,
    *,
    flat: bool,
    unlit: bool,
    glow_style: int,
    glow_on: bool,
    clock: dict[str, float],
) -> None:
    """Set the node program's per-draw uniforms (`glow_style`: index into GLOW_STYLES;
    `clock`: `Glow.uniforms()`, the time the shader fades the glow stamps to)."""
    uniform(prog, "u_view_proj").write(vp_bytes)
    light = np.asarray(LIGHT_DIR_FLAT if flat else LIGHT_DIR)
    uniform(prog, "u_light_dir").value = tuple(light / np.linalg.norm(light))
    uniform(prog, "u_eye").value = tuple(camera.eye)
    uniform(prog, "u_view_dir").value = tuple(camera.forward)
    uniform(prog, "u_ortho").value = int(camera.projection == ORTHOGRAPHIC)
    uniform(prog, "u_unlit").value = int(unlit)
    uniform(prog, "u_glow_local").value = GLOW_LOCAL
    uniform(prog, "u_glow_world").value = GLOW_WORLD
    uniform(prog, "u_viewport").value = (float(size[0]), float(size[1]))
    uniform(prog, "u_halo_px").value = HALO_PX
    uniform(prog, "u_glow_style").value = glow_style
    uniform(prog, "u_glow_on").value = int(glow_on)
    for name, value in clock.items():
        uniform(prog, name).value = value


def set_each(programs: tuple[moderngl.Program, ...], name: str, value: int | float) -> None:
    """Set uniform `name` of each of the node `programs` that has it (the built-in meshes'
    program lacks the glTF ones)."""
    for prog in programs:
        set_uniform(prog, name, value)
