"""How glTF meshes look: their materials as glTF 2.0 defines them (metallic-roughness,
with the ratified KHR_materials_* extensions: emissive strength, unlit, ior, specular,
clearcoat, sheen, transmission, volume, iridescence, anisotropy, dispersion; KHR_materials_
pbrSpecularGlossiness converted to metallic-roughness; KHR_materials_variants as each
part's alternative materials; KHR_texture_transform), vertex colours and texture
coordinates. No GL here: the renderer uploads
them (render/textures.py, render/material_uniforms.py).

`Scene.mesh_data` keeps (positions, normals, indices) per mesh; every glTF mesh also has a
`MeshSurface` under the same key, in `Scene.surfaces`: its per-vertex colour and
coordinates, and its parts (one per primitive: a range of the index list and a material).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

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
    "FEATURES",
    "drawn_late",
    "material_features",
    "variant_names",
    "with_variant",
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


#: Texture slots of the core material, then of the extensions the shader samples.
CORE_SLOTS = ("base_color", "metallic_roughness", "normal", "occlusion", "emissive")
EXTENSION_SLOTS = (
    "clearcoat",
    "clearcoat_roughness",
    "clearcoat_normal",
    "transmission",
    "thickness",
    "sheen_color",
    "specular_color",
    "iridescence",
    "iridescence_thickness",
    "anisotropy",
    "sheen_roughness",
    "specular",
)


@dataclass(frozen=True)
class Material:
    """A glTF material; the defaults are the specification's (a mesh without a material
    is drawn with these). Colours are linear; `emissive` includes the emissive strength.

    The extensions' values keep their specification defaults when absent (then they
    change nothing): `ior` (KHR_materials_ior), `specular` and `specular_color`
    (KHR_materials_specular), `clearcoat`, `clearcoat_roughness`
    (KHR_materials_clearcoat), `sheen_color`, `sheen_roughness` (KHR_materials_sheen),
    `transmission` (KHR_materials_transmission), `thickness`, `attenuation_distance`
    (inf: none), `attenuation_color` (KHR_materials_volume), `iridescence`,
    `iridescence_ior`, `iridescence_thickness` (nanometres, the thickness texture's 0
    and 1; KHR_materials_iridescence), `anisotropy`, `anisotropy_rotation`
    (KHR_materials_anisotropy), `dispersion` (KHR_materials_dispersion). `extensions`
    names the ones the file gave (what the shader's feature set is chosen by).
    """

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
    ior: float = 1.5
    specular: float = 1.0
    specular_color: tuple[float, float, float] = (1.0, 1.0, 1.0)
    clearcoat: float = 0.0
    clearcoat_roughness: float = 0.0
    sheen_color: tuple[float, float, float] = (0.0, 0.0, 0.0)
    sheen_roughness: float = 0.0
    transmission: float = 0.0
    thickness: float = 0.0
    attenuation_distance: float = math.inf
    attenuation_color: tuple[float, float, float] = (1.0, 1.0, 1.0)
    iridescence: float = 0.0
    iridescence_ior: float = 1.3
    iridescence_thickness: tuple[float, float] = (100.0, 400.0)
    anisotropy: float = 0.0
    anisotropy_rotation: float = 0.0
    dispersion: float = 0.0
    clearcoat_texture: TextureRef | None = None
    clearcoat_roughness_texture: TextureRef | None = None
    clearcoat_normal_texture: TextureRef | None = None
    transmission_texture: TextureRef | None = None
    thickness_texture: TextureRef | None = None
    sheen_color_texture: TextureRef | None = None
    specular_color_texture: TextureRef | None = None
    iridescence_texture: TextureRef | None = None
    iridescence_thickness_texture: TextureRef | None = None
    anisotropy_texture: TextureRef | None = None
    sheen_roughness_texture: TextureRef | None = None
    specular_texture: TextureRef | None = None
    extensions: frozenset[str] = frozenset()

    def textures(self) -> dict[str, TextureRef]:
        """The textures it uses, by slot name."""
        found = {s: getattr(self, f"{s}_texture") for s in (*CORE_SLOTS, *EXTENSION_SLOTS)}
        return {s: ref for s, ref in found.items() if ref is not None}


#: The shader's optional features (a #define each), and the extension that needs it.
FEATURES = {
    "KHR_materials_ior": "SPECULAR",
    "KHR_materials_specular": "SPECULAR",
    "KHR_materials_clearcoat": "CLEARCOAT",
    "KHR_materials_sheen": "SHEEN",
    "KHR_materials_transmission": "TRANSMISSION",
    "KHR_materials_volume": "TRANSMISSION",
    "KHR_materials_dispersion": "DISPERSION",
    "KHR_materials_iridescence": "IRIDESCENCE",
    "KHR_materials_anisotropy": "ANISOTROPY",
}


def drawn_late(material: Material) -> bool:
    """Whether parts in `material` are drawn after everything opaque, back to front:
    blended ones (over what is behind) and transmissive ones (which show it)."""
    return material.alpha_mode == BLEND or material.transmission > 0.0


def material_features(material: Material) -> frozenset[str]:
    """The shader features `material` needs (see `FEATURES`)."""
    return frozenset(FEATURES[e] for e in material.extensions if e in FEATURES)


DEFAULT_MATERIAL = Material()


@dataclass(frozen=True)
class MeshPart:
    """One primitive of a merged mesh: `count` indices from index `first` of the mesh's
    index buffer (its triangles, then its line segments, then its points), drawn in
    `mode` (GL's and glTF's numbers: 4 triangles, 1 lines, 0 points) with `material`;
    `center` is the middle of its box in mesh space (for sorting the transparent parts
    back to front). One part per primitive (a primitive has one mode). Its `material`
    is the file's default; `variants` the ones KHR_materials_variants maps."""

    first: int
    count: int
    material: Material
    center: tuple[float, float, float] = (0.0, 0.0, 0.0)
    mode: int = 4
    #: KHR_materials_variants: (variant name, material) pairs, the material this part
    #: takes when that variant is chosen (unlisted variants: `material`).
    variants: tuple[tuple[str, Material], ...] = ()


@dataclass(frozen=True)
class MeshSurface:
    """Per vertex: COLOR_0 as RGBA (n, 4) float32 (1 where a primitive has none),
    TEXCOORD_0 and TEXCOORD_1 as (n, 2) float32 or None (zeros where a primitive has
    none); the parts, one per primitive."""

    vcolors: np.ndarray
    uvs: np.ndarray | None = None
    uvs1: np.ndarray | None = None
    parts: tuple[MeshPart, ...] = ()
    #: The file's KHR_materials_variants names, in file order (each surface of the file
    #: carries them, so a scene's list survives meshes without mappings).
    variant_names: tuple[str, ...] = ()
    #: The variant its parts are in (`with_variant`; None: the file's defaults).
    variant: str | None = None


def variant_names(surfaces: dict[str, MeshSurface]) -> list[str]:
    """Every KHR_materials_variants name of the scene's files, each once, in order."""
    names: list[str] = []
    for surface in surfaces.values():
        names += [n for n in surface.variant_names if n not in names]
    return names


def with_variant(surface: MeshSurface, name: str | None) -> MeshSurface:
    """`surface` with each part in its material for variant `name` (None: the file's
    default materials); parts without a mapping for it keep their default."""
    parts = []
    for part in surface.parts:
        if part.variants:
            kept = _keep_default(part)
            table = dict(kept)
            part = replace(part, material=table.get(name or "", table[""]), variants=kept)
        parts.append(part)
    return replace(surface, parts=tuple(parts), variant=name)


def _keep_default(part: MeshPart) -> tuple[tuple[str, Material], ...]:
    """`part.variants` with its default material first under the name "" (so a switch
    back to the default finds it after another variant replaced `material`)."""
    if part.variants and part.variants[0][0] == "":
        return part.variants
    return (("", part.material), *part.variants)
