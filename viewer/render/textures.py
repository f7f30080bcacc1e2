"""Base colour textures of glTF meshes on the GPU, bound per mesh kind while drawing.

Wrap modes: REPEAT and CLAMP_TO_EDGE are the texture's own (``repeat_x``/``repeat_y``);
MIRRORED_REPEAT repeats and the fragment shader mirrors the coordinate (``u_mirror``).
Filters: NEAREST or LINEAR magnification; minification through mipmaps when the sampler
asks for them.
"""

from __future__ import annotations

import moderngl
import numpy as np

from ..materials import CLAMP_TO_EDGE, MIRRORED_REPEAT, MeshSurface

__all__ = ["MeshTextures"]

#: Texture unit of the base colour texture (unit 0 is the skins' joint matrices).
UNIT = 1


class MeshTextures:
    """One GPU texture per textured mesh kind."""

    def __init__(self, ctx: moderngl.Context, surfaces: dict[str, MeshSurface]) -> None:
        self.textures: dict[str, tuple[moderngl.Texture, tuple[int, int]]] = {}
        for kind, surface in surfaces.items():
            image = surface.texture
            if image is None:
                continue
            h, w = image.pixels.shape[:2]
            # glTF's first row is the top of the image, at v = 0: GL's row 0 is at t = 0
            tex = ctx.texture((w, h), 4, np.ascontiguousarray(image.pixels).tobytes())
            tex.repeat_x = image.wrap[0] != CLAMP_TO_EDGE
            tex.repeat_y = image.wrap[1] != CLAMP_TO_EDGE
            if image.mipmaps:
                tex.build_mipmaps()
            mag = moderngl.NEAREST if image.nearest else moderngl.LINEAR
            minify = moderngl.LINEAR_MIPMAP_LINEAR if image.mipmaps else mag
            tex.filter = (minify, mag)
            mirror = tuple(int(m == MIRRORED_REPEAT) for m in image.wrap)
            self.textures[kind] = (tex, mirror)

    def alias(self, kind: str, same_as: str) -> None:
        """Draw mesh `kind` with the texture of `same_as` (a morphed node's copy of a mesh)."""
        if same_as in self.textures:
            self.textures[kind] = self.textures[same_as]

    def bind(self, program: moderngl.Program, kind: str) -> None:
        """Set up `program` to draw mesh `kind`: its texture, or none."""
        if "u_textured" not in program:
            return
        found = self.textures.get(kind)
        program["u_textured"].value = int(found is not None)
        if found is not None:
            tex, mirror = found
            tex.use(location=UNIT)
            program["u_base_tex"].value = UNIT
            program["u_mirror"].value = mirror

    def release(self) -> None:
        for tex, _mirror in {id(t[0]): t for t in self.textures.values()}.values():
            tex.release()
