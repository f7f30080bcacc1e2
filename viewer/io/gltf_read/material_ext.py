"""glTF material extensions read into `Material` fields, each field's value checked

The checks every material field shares are here too (`number`, `numbers`,
`field_object`).

Each KHR_materials_* extension of a material (`read_extensions`) becomes `Material`
fields with the defaults of its specification: ior, specular, clearcoat, sheen,
transmission, volume, iridescence, anisotropy, dispersion. A value of the wrong type is
refused in one line naming the file, the material and the field; a number outside the
specification's range is clamped to it (it draws as the nearest valid value would), as
the core fields are.

KHR_materials_pbrSpecularGlossiness (archived, still shipped) is converted to
metallic-roughness as glTF-Transform's ``metalRough`` does, the conversion three.js points
to since its loader dropped the extension: the diffuse colour and texture become the base
colour, metallic 0, roughness 1 - glossiness (the texture's alpha times the glossiness
factor, turned into a roughness texture), ior 1000 (so F0 is the specular colour itself)
and KHR_materials_specular with the specular colour (and the texture's RGB).

KHR_materials_variants (`file_variants`, `read_variants`): the file's variant names and
each primitive's mappings, (name, material) pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from viewer.io.errors import describe
from viewer.io.gltf_read.data import GltfFile, is_int, whole
from viewer.materials import Material, TextureImage, TextureRef

__all__ = [
    "EXTENSIONS",
    "field_object",
    "file_variants",
    "number",
    "numbers",
    "read_extensions",
    "read_variants",
]

#: A textureInfo reader: (object holding it, its name, "scale"/"strength"/None) -> ref.
TextureReader = Callable[[dict, str, str | None], TextureRef | None]

#: The material extensions read here (KHR_materials_emissive_strength and _unlit are the
#: core reader's).
EXTENSIONS = (
    "KHR_materials_ior",
    "KHR_materials_specular",
    "KHR_materials_clearcoat",
    "KHR_materials_sheen",
    "KHR_materials_transmission",
    "KHR_materials_volume",
    "KHR_materials_iridescence",
    "KHR_materials_anisotropy",
    "KHR_materials_dispersion",
    "KHR_materials_pbrSpecularGlossiness",
)
_SPEC_GLOSS = "KHR_materials_pbrSpecularGlossiness"
_VARIANTS = "KHR_materials_variants"
#: The ior that makes F0 the specular colour (glTF-Transform's metalRough).
SPEC_GLOSS_IOR = 1000.0


def field_object(gltf: GltfFile, obj: dict, name: str, where: str) -> dict:
    """`obj[name]` as a JSON object ({} when absent), or a one-line refusal."""
    value = obj.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise gltf.error(where, f"{name} must be an object, got {describe(value)}")
    return value


def number(
    gltf: GltfFile,
    obj: dict,
    name: str,
    default: float,
    where: str,
    lo: float = 0.0,
    hi: float = 1.0,
) -> float:
    """`obj[name]` (`default` when absent): a finite number, or a one-line refusal; one
    outside the specification's range [lo, hi] is clamped to it (it draws as the nearest
    value would)."""
    value = obj.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise gltf.error(where, f"{name} must be a finite number, got {describe(value)}")
    return float(min(hi, max(lo, value)))


def numbers(gltf: GltfFile, obj: dict, name: str, width: int, default: tuple, where: str) -> tuple:
    """`obj[name]` (`default` when absent): `width` finite numbers, or a one-line refusal."""
    value = obj.get(name, default)
    if (
        not isinstance(value, list | tuple)
        or len(value) != width
        or not all(isinstance(c, int | float) and not isinstance(c, bool) for c in value)
        or not all(math.isfinite(c) for c in value)
    ):
        raise gltf.error(where, f"{name} must be {width} finite numbers, got {describe(value)}")
    return tuple(float(c) for c in value)


def _colour(gltf: GltfFile, obj: dict, name: str, default: tuple, where: str, hi: float = 1.0):
    return tuple(min(hi, max(0.0, c)) for c in numbers(gltf, obj, name, 3, default, where))


def read_extensions(
    gltf: GltfFile, ext: dict, material: Material, where: str, texture: TextureReader, cache: dict
) -> Material:
    """`material` (the core fields read) with the extensions of `ext` (the material's
    ``extensions`` object) applied."""
    fields: dict = {}
    used = [name for name in EXTENSIONS if name in ext]
    for name in used:
        here = f"{where} {name}"
        obj = field_object(gltf, ext, name, where)
        if name == _SPEC_GLOSS:
            fields.update(_spec_gloss(gltf, obj, here, texture, cache))
            continue
        fields.update(_READERS[name](gltf, obj, here, texture))
    if not used:
        return material
    return replace(material, **fields, extensions=material.extensions | frozenset(used))


def _ior(gltf: GltfFile, obj: dict, where: str, texture: TextureReader) -> dict:
    # 0 is the specification's "infinite" ior (F0 = 1); otherwise 1 or more
    ior = number(gltf, obj, "ior", 1.5, where, 0.0, math.inf)
    return {"ior": SPEC_GLOSS_IOR if ior == 0.0 else max(1.0, ior)}


def _specular(gltf: GltfFile, obj: dict, where: str, texture: TextureReader) -> dict:
    return {
        "specular": number(gltf, obj, "specularFactor", 1.0, where),
        "specular_color": _colour(
            gltf, obj, "specularColorFactor", (1.0, 1.0, 1.0), where, math.inf
        ),
        "specular_color_texture": texture(obj, "specularColorTexture", None),
        "specular_texture": texture(obj, "specularTexture", None),
    }


def _clearcoat(gltf: GltfFile, obj: dict, where: str, texture: TextureReader) -> dict:
    return {
        "clearcoat": number(gltf, obj, "clearcoatFactor", 0.0, where),
        "clearcoat_roughness": number(gltf, obj, "clearcoatRoughnessFactor", 0.0, where),
        "clearcoat_texture": texture(obj, "clearcoatTexture", None),
        "clearcoat_roughness_texture": texture(obj, "clearcoatRoughnessTexture", None),
        "clearcoat_normal_texture": texture(obj, "clearcoatNormalTexture", "scale"),
    }


def _sheen(gltf: GltfFile, obj: dict, where: str, texture: TextureReader) -> dict:
    return {
        "sheen_color": _colour(gltf, obj, "sheenColorFactor", (0.0, 0.0, 0.0), where),
        "sheen_roughness": number(gltf, obj, "sheenRoughnessFactor", 0.0, where),
        "sheen_color_texture": texture(obj, "sheenColorTexture", None),
        "sheen_roughness_texture": texture(obj, "sheenRoughnessTexture", None),
    }


def _transmission(gltf: GltfFile, obj: dict, where: str, texture: TextureReader) -> dict:
    return {
        "transmission": number(gltf, obj, "transmissionFactor", 0.0, where),
        "transmission_texture": texture(obj, "transmissionTexture", None),
    }


def _volume(gltf: GltfFile, obj: dict, where: str, texture: TextureReader) -> dict:
    distance = obj.get("attenuationDistance")
    if distance is not None:  # absent: infinite (no attenuation); given: above 0
        distance = number(gltf, obj, "attenuationDistance", 1.0, where, 0.0, math.inf)
        if distance <= 0.0:
            raise gltf.error(where, f"attenuationDistance must be above 0, got {distance!r}")
    return {
        "thickness": number(gltf, obj, "thicknessFactor", 0.0, where, 0.0, math.inf),
        "thickness_texture": texture(obj, "thicknessTexture", None),
        "attenuation_distance": math.inf if distance is None else distance,
        "attenuation_color": _colour(gltf, obj, "attenuationColor", (1.0, 1.0, 1.0), where),
    }


def _iridescence(gltf: GltfFile, obj: dict, where: str, texture: TextureReader) -> dict:
    lo = number(gltf, obj, "iridescenceThicknessMinimum", 100.0, where, 0.0, math.inf)
    hi = number(gltf, obj, "iridescenceThicknessMaximum", 400.0, where, 0.0, math.inf)
    return {
        "iridescence": number(gltf, obj, "iridescenceFactor", 0.0, where),
        "iridescence_ior": number(gltf, obj, "iridescenceIor", 1.3, where, 1.0, math.inf),
        "iridescence_thickness": (lo, hi),
        "iridescence_texture": texture(obj, "iridescenceTexture", None),
        "iridescence_thickness_texture": texture(obj, "iridescenceThicknessTexture", None),
    }


def _anisotropy(gltf: GltfFile, obj: dict, where: str, texture: TextureReader) -> dict:
    return {
        "anisotropy": number(gltf, obj, "anisotropyStrength", 0.0, where),
        "anisotropy_rotation": number(
            gltf, obj, "anisotropyRotation", 0.0, where, -math.inf, math.inf
        ),
        "anisotropy_texture": texture(obj, "anisotropyTexture", None),
    }


def _dispersion(gltf: GltfFile, obj: dict, where: str, texture: TextureReader) -> dict:
    return {"dispersion": number(gltf, obj, "dispersion", 0.0, where, 0.0, math.inf)}


_READERS = {
    "KHR_materials_ior": _ior,
    "KHR_materials_specular": _specular,
    "KHR_materials_clearcoat": _clearcoat,
    "KHR_materials_sheen": _sheen,
    "KHR_materials_transmission": _transmission,
    "KHR_materials_volume": _volume,
    "KHR_materials_iridescence": _iridescence,
    "KHR_materials_anisotropy": _anisotropy,
    "KHR_materials_dispersion": _dispersion,
}


def _spec_gloss(gltf: GltfFile, obj: dict, where: str, texture: TextureReader, cache: dict) -> dict:
    diffuse = numbers(gltf, obj, "diffuseFactor", 4, (1.0, 1.0, 1.0, 1.0), where)
    specular = _colour(gltf, obj, "specularFactor", (1.0, 1.0, 1.0), where)
    glossiness = number(gltf, obj, "glossinessFactor", 1.0, where)
    fields: dict = {
        "base_color": tuple(min(1.0, max(0.0, c)) for c in diffuse),
        "metallic": 0.0,
        "roughness": 1.0 - glossiness,
        "metallic_roughness_texture": None,
        "ior": SPEC_GLOSS_IOR,
        "specular": 1.0,
        "specular_color": specular,
    }
    diffuse_tex = texture(obj, "diffuseTexture", None)
    if diffuse_tex is not None:
        fields["base_color_texture"] = diffuse_tex
    sg = texture(obj, "specularGlossinessTexture", None)
    if sg is not None:
        fields["roughness"] = 1.0
        fields["specular_color_texture"] = sg  # its RGB is the specular colour (sRGB)
        fields["metallic_roughness_texture"] = replace(
            sg, image=_roughness_image(sg.image, glossiness, cache)
        )
    return fields


def _roughness_image(image: TextureImage, glossiness: float, cache: dict) -> TextureImage:
    """A metallic-roughness image from a specular-glossiness one: green = 255 - alpha x
    glossiness (rounded), blue (metallic) 0; made once per image and factor."""
    key = ("roughness from glossiness", id(image), glossiness)
    if key not in cache:
        alpha = image.pixels[..., 3].astype(np.float64)
        out = np.zeros_like(image.pixels)
        out[..., 1] = 255 - np.round(alpha * glossiness).astype(np.uint8)
        out[..., 3] = 255
        cache[key] = (replace(image, pixels=out), image)  # the source keeps its id alive
    return cache[key][0]


def file_variants(gltf: GltfFile) -> tuple[str, ...]:
    """The names of the file's KHR_materials_variants (the root extension), in order."""
    root = field_object(gltf, gltf.doc, "extensions", "the file")
    where = f"extensions {_VARIANTS}"
    variants = field_object(gltf, root, _VARIANTS, "extensions").get("variants", [])
    if not isinstance(variants, list):
        raise gltf.error(where, f"variants must be an array, got {describe(variants)}")
    names = []
    for k, variant in enumerate(variants):
        name = variant.get("name") if isinstance(variant, dict) else None
        if not isinstance(name, str):
            raise gltf.error(where, f"variant {k} needs a name (a string), got {describe(name)}")
        names.append(name)
    return tuple(names)


def read_variants(
    gltf: GltfFile,
    prim: dict,
    where: str,
    material: Callable[[object, str], Material],
) -> tuple[tuple[str, Material], ...]:
    """A primitive's KHR_materials_variants mappings as (variant name, material) pairs;
    `material` reads a material index."""
    ext = field_object(gltf, field_object(gltf, prim, "extensions", where), _VARIANTS, where)
    if not ext:
        return ()
    here = f"{where} {_VARIANTS}"
    names = file_variants(gltf)
    mappings = ext.get("mappings", [])
    if not isinstance(mappings, list):
        raise gltf.error(here, f"mappings must be an array, got {describe(mappings)}")
    pairs: list[tuple[str, Material]] = []
    for k, mapping in enumerate(mappings):
        at = f"{here} mapping {k}"
        if not isinstance(mapping, dict):
            raise gltf.error(at, f"expected a JSON object, got {describe(mapping)}")
        if mapping.get("material") is None:
            raise gltf.error(at, "a mapping needs a material")
        chosen = material(mapping.get("material"), at)
        variants = mapping.get("variants")
        if not isinstance(variants, list) or not variants:
            raise gltf.error(at, f"variants must be a non-empty array, got {describe(variants)}")
        for v in variants:
            v = whole(v)
            if not is_int(v) or not 0 <= v < len(names):
                span = f"0..{len(names) - 1}" if names else "the file declares none"
                raise gltf.error(at, f"variants: {v!r} is not a variant index ({span})")
            pairs.append((names[v], chosen))
    return tuple(pairs)
