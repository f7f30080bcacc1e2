"""How glTF meshes look: their materials as glTF 2.0 defines them (metallic-roughness,
with the KHR_materials_emissive_strength, KHR_materials_unlit and KHR_texture_transform
extensions), vertex colours and texture coordinates. No GL here: the renderer uploads
them (render/textures.py, render/material_uniforms.py).

`Scene.mesh_data` keeps (positions, normals, indices) per mesh; every glTF mesh also has a
`MeshSurface` under the same key, in `Scene.surfaces`: its per-vertex colour and
coordinates, and its parts (one per primitive: a range of the index list and a material).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "REPEAT",
    "MIRRORED_REPEAT",
    "CLAMP_TO_EDGE",
    "OPAQUE",
    "MASK",
    "BLEND",
    "Material",
    "MeshPart",
    "MeshSurface",
    "TextureImage",
    "TextureRef",
]

#: glTF (OpenGL) wrap modes.
CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT = 33071, 33648, 10497
#: glTF alpha modes.
OPAQUE, MASK, BLEND = "OPAQUE", "MASK", "BLEND"
#: The identity texture-coordinate transform, as the first two rows of a 3 x 3 matrix.
IDENTITY_UV = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0)


@dataclass(frozen=True, eq=False)
class TextureImage:
    """An RGBA image (h, w, 4) uint8, top row first, with its sampler's settings.

    `wrap` is (s, t), each a glTF wrap mode; `nearest` (magnification without smoothing)
    and `mipmaps` (minification through mipmaps) follow the sampler's filters. Compared
    by identity: one decoded image per glTF texture.
    """

    pixels: np.ndarray
    wrap: tuple[int, int] = (REPEAT, REPEAT)
    nearest: bool = False
    mipmaps: bool = True


@dataclass(frozen=True)
class TextureRef:
    """A material's use of a texture: which coordinate set (0: TEXCOORD_0, 1:
    TEXCOORD_1), the KHR_texture_transform matrix (rows 1 and 2 of the 3 x 3 matrix
    that maps (u, v, 1)), and the normal texture's `scale` or the occlusion texture's
    `strength` (1 for the others)."""

    image: TextureImage
    texcoord: int = 0
    transform: tuple[float, ...] = IDENTITY_UV
    scale: float = 1.0


@dataclass(frozen=True)
class Material:
    """A glTF material; the defaults are the specification's (a mesh without a material
    is drawn with these). Colours are linear; `emissive` includes the emissive strength."""

    base_color: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0)
    metallic: float = 1.0
    roughness: float = 1.0
    emissive: tuple[float, float, float] = (0.0, 0.0, 0.0)
    alpha_mode: str = OPAQUE
    alpha_cutoff: float = 0.5
    double_sided: bool = False
    unlit: bool = False
    base_color_texture: TextureRef | None = None
    metallic_roughness_texture: TextureRef | None = None
    normal_texture: TextureRef | None = None
    occlusion_texture: TextureRef | None = None
    emissive_texture: TextureRef | None = None

    def textures(self) -> dict[str, TextureRef]:
        """The textures it uses, by slot name."""
        slots = ("base_color", "metallic_roughness", "normal", "occlusion", "emissive")
        found = {s: getattr(self, f"{s}_texture") for s in slots}
        return {s: ref for s, ref in found.items() if ref is not None}


DEFAULT_MATERIAL = Material()


@dataclass(frozen=True)
class MeshPart:
    """One primitive of a merged mesh: `count` indices from index `first` of the mesh's
    index buffer (its triangles, then its line segments, then its points), drawn in
    `mode` (GL's and glTF's numbers: 4 triangles, 1 lines, 0 points) with `material`;
    `center` is the middle of its box in mesh space (for sorting the transparent parts
    back to front). One part per primitive (a primitive has one mode)."""

    first: int
    count: int
    material: Material
    center: tuple[float, float, float] = (0.0, 0.0, 0.0)
    mode: int = 4


@dataclass(frozen=True)
class MeshSurface:
    """Per vertex: COLOR_0 as RGBA (n, 4) float32 (1 where a primitive has none),
    TEXCOORD_0 and TEXCOORD_1 as (n, 2) float32 or None (zeros where a primitive has
    none); the parts, one per primitive."""

    vcolors: np.ndarray
    uvs: np.ndarray | None = None
    uvs1: np.ndarray | None = None
    parts: tuple[MeshPart, ...] = ()
