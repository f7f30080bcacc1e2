"""glTF textures on the GPU: one texture per decoded image and colour space, made when a
material first needs it and bound per draw.

Base colour and emissive textures hold sRGB values: they are uploaded as sRGB textures,
so the GPU decodes them to linear before filtering. The others (metallic-roughness,
normal, occlusion) are linear data. Wrap modes: REPEAT and CLAMP_TO_EDGE are the
texture's own (``repeat_x``/``repeat_y``); MIRRORED_REPEAT repeats and the fragment shader
mirrors the coordinate (``u_tex_mirror``). Filters: NEAREST or LINEAR magnification;
minification through mipmaps when the sampler asks for them.
"""

from __future__ import annotations

import moderngl
import numpy as np

from ..materials import CLAMP_TO_EDGE, MIRRORED_REPEAT, TextureImage

__all__ = ["TexturePool"]

#: GL_SRGB8_ALPHA8: an 8-bit sRGB texture with linear alpha.
SRGB8_ALPHA8 = 0x8C43


class TexturePool:
    """The GPU textures of a scene's materials, by image and colour space."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self._textures: dict[tuple[int, bool], tuple[moderngl.Texture, TextureImage]] = {}

    def get(self, image: TextureImage, srgb: bool) -> moderngl.Texture:
        """The texture of `image` (uploaded on first use), sRGB-decoded when `srgb`."""
        key = (id(image), srgb)
        found = self._textures.get(key)
        if found is not None:
            return found[0]
        h, w = image.pixels.shape[:2]
        # glTF's first row is the top of the image, at v = 0: GL's row 0 is at t = 0
        tex = self.ctx.texture(
            (w, h),
            4,
            np.ascontiguousarray(image.pixels).tobytes(),
            internal_format=SRGB8_ALPHA8 if srgb else None,
        )
        tex.repeat_x = image.wrap[0] != CLAMP_TO_EDGE
        tex.repeat_y = image.wrap[1] != CLAMP_TO_EDGE
        if image.mipmaps:
            tex.build_mipmaps()
        mag = moderngl.NEAREST if image.nearest else moderngl.LINEAR
        minify = moderngl.LINEAR_MIPMAP_LINEAR if image.mipmaps else mag
        tex.filter = (minify, mag)
        self._textures[key] = (tex, image)  # the image kept alive: its id stays unique
        return tex

    @staticmethod
    def mirror(image: TextureImage) -> tuple[int, int]:
        """Per axis, 1 where the sampler asks for MIRRORED_REPEAT."""
        s, t = image.wrap
        return int(s == MIRRORED_REPEAT), int(t == MIRRORED_REPEAT)

    def release(self) -> None:
        for tex, _image in self._textures.values():
            tex.release()
        self._textures.clear()
