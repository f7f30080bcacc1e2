"""glTF materials as the specification defines them, and the vertex data they read.

A material (`read_material`): ``pbrMetallicRoughness`` (base colour factor and texture,
metallic and roughness factors and texture), the normal texture with its ``scale``, the
occlusion texture with its ``strength``, the emissive factor and texture, ``alphaMode``
with ``alphaCutoff``, ``doubleSided``; and the extensions KHR_materials_emissive_strength
(the emissive factor's multiplier), KHR_materials_unlit (the base colour, unlit) and
KHR_texture_transform (offset, rotation, scale and texCoord of any texture). Each texture
reads TEXCOORD_0 or TEXCOORD_1, with its sampler's wrap and filter modes.

Per primitive (`vertex_data`): ``COLOR_0`` (floats or normalized unsigned integers, RGB
or RGBA) and the two coordinate sets. Textures are read and decoded by images.py, each
once per file however often it is used.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from viewer.io.errors import describe
from viewer.io.gltf_read.data import GltfFile, is_int, whole
from viewer.io.gltf_read.images import texture_image
from viewer.io.gltf_read.material_ext import field_object as _dict
from viewer.io.gltf_read.material_ext import number as _number
from viewer.io.gltf_read.material_ext import numbers as _numbers
from viewer.io.gltf_read.material_ext import read_extensions
from viewer.materials import (
    BLEND,
    DEFAULT_MATERIAL,
    IDENTITY_UV,
    MASK,
    OPAQUE,
    Material,
    TextureRef,
)

__all__ = ["read_material", "vertex_data"]


def vertex_data(gltf: GltfFile, attrs: dict, n: int, where: str):
    """(COLOR_0 as (n, 4) float32 RGBA or None, TEXCOORD_0 and TEXCOORD_1 as (n, 2)
    float32 or None) of a primitive with `n` vertices."""
    colors = None
    if attrs.get("COLOR_0") is not None:
        rgba = gltf.floats(attrs["COLOR_0"], f"{where} COLOR_0", ("VEC3", "VEC4"))
        if rgba.shape[0] != n:
            raise gltf.error(where, f"COLOR_0 has {rgba.shape[0]} items, POSITION has {n}")
        if not np.all(np.isfinite(rgba)):
            raise gltf.error(where, "COLOR_0 holds NaN or infinite values")
        colors = np.ones((n, 4), np.float32)
        colors[:, : rgba.shape[1]] = np.clip(rgba, 0.0, 1.0)
    uvs: list[NDArray[np.float32] | None] = []
    for name in ("TEXCOORD_0", "TEXCOORD_1"):
        if attrs.get(name) is None:
            uvs.append(None)
            continue
        # KHR_mesh_quantization: plain integer coordinates too, as their values
        uv = gltf.floats(attrs[name], f"{where} {name}", ("VEC2",), integers=True)
        if uv.shape[0] != n:
            raise gltf.error(where, f"{name} has {uv.shape[0]} items, POSITION has {n}")
        if not np.all(np.isfinite(uv)):  # any finite value is valid (and wraps)
            raise gltf.error(where, f"{name} holds NaN or infinite values")
        uvs.append(uv.astype(np.float32))
    return colors, uvs[0], uvs[1]


def read_material(gltf: GltfFile, index: object, where: str, cache: dict) -> Material:
    """The material `index` (None: the specification's default material); `cache` keeps
    decoded materials and textures by index, for the whole file."""
    if index is None:
        return DEFAULT_MATERIAL
    m, mat = gltf.item(index, "materials", where)
    key = ("material", m)
    if key not in cache:
        cache[key] = _material(gltf, mat, f"material {m}", cache)
    return cache[key]


def _material(gltf: GltfFile, mat: dict, where: str, cache: dict) -> Material:
    pbr = _dict(gltf, mat, "pbrMetallicRoughness", where)
    ext = _dict(gltf, mat, "extensions", where)
    base = _numbers(gltf, pbr, "baseColorFactor", 4, (1.0, 1.0, 1.0, 1.0), where)
    emissive = _numbers(gltf, mat, "emissiveFactor", 3, (0.0, 0.0, 0.0), where)
    strength_ext = _dict(gltf, ext, "KHR_materials_emissive_strength", where)
    strength = _number(gltf, strength_ext, "emissiveStrength", 1.0, where, hi=math.inf)
    mode = mat.get("alphaMode", OPAQUE)
    if mode not in (OPAQUE, MASK, BLEND):
        raise gltf.error(where, f"alphaMode must be OPAQUE, MASK or BLEND, got {describe(mode)}")
    double = mat.get("doubleSided", False)
    if not isinstance(double, bool):
        raise gltf.error(where, f"doubleSided must be true or false, got {describe(double)}")
    tex = {
        slot: _texture_ref(gltf, holder, name, where, cache, scale)
        for slot, holder, name, scale in (
            ("base_color", pbr, "baseColorTexture", None),
            ("metallic_roughness", pbr, "metallicRoughnessTexture", None),
            ("normal", mat, "normalTexture", "scale"),
            ("occlusion", mat, "occlusionTexture", "strength"),
            ("emissive", mat, "emissiveTexture", None),
        )
    }
    core = Material(
        base_color=tuple(min(1.0, max(0.0, c)) for c in base),
        metallic=_number(gltf, pbr, "metallicFactor", 1.0, where),
        roughness=_number(gltf, pbr, "roughnessFactor", 1.0, where),
        emissive=tuple(min(1.0, max(0.0, c)) * strength for c in emissive),
        alpha_mode=mode,
        alpha_cutoff=_number(gltf, mat, "alphaCutoff", 0.5, where, hi=math.inf),
        double_sided=double,
        unlit="KHR_materials_unlit" in ext,
        base_color_texture=tex["base_color"],
        metallic_roughness_texture=tex["metallic_roughness"],
        normal_texture=tex["normal"],
        occlusion_texture=tex["occlusion"],
        emissive_texture=tex["emissive"],
    )

    def texture(holder: dict, name: str, scale: str | None) -> TextureRef | None:
        return _texture_ref(gltf, holder, name, where, cache, scale)

    return read_extensions(gltf, ext, core, where, texture, cache)


def _texture_ref(
    gltf: GltfFile, holder: dict, name: str, where: str, cache: dict, scale_name: str | None
) -> TextureRef | None:
    """A textureInfo: its texture (decoded once), coordinate set and transform; None
    when absent or when the texture has no image sgview can show."""
    info = holder.get(name)
    if info is None:
        return None
    here = f"{where} {name}"
    if not isinstance(info, dict):
        raise gltf.error(where, f"{name} must be an object, got {describe(info)}")
    texcoord = info.get("texCoord", 0)
    scale = 1.0
    if scale_name is not None:
        # the normal texture's scale may be any number (negative flips the normals)
        lo, hi = (0.0, 1.0) if scale_name == "strength" else (-math.inf, math.inf)
        scale = _number(gltf, info, scale_name, 1.0, here, lo, hi)
    transform = IDENTITY_UV
    ext = _dict(gltf, _dict(gltf, info, "extensions", here), "KHR_texture_transform", here)
    if ext:
        transform = _uv_transform(gltf, ext, here)
        texcoord = ext.get("texCoord", texcoord)
    texcoord = whole(texcoord)  # an integral 1.0 is the index 1
    if not is_int(texcoord) or texcoord < 0:
        raise gltf.error(here, f"texCoord must be 0 or more, got {describe(texcoord)}")
    if texcoord > 1:  # TEXCOORD_2 and beyond: drawn without, said once per file
        cache.setdefault("notes", set()).add(
            f"textures reading TEXCOORD_2 or beyond are left out (a {name} reads "
            f"TEXCOORD_{texcoord})"
        )
        return None
    key = gltf.index_into(info.get("index"), "textures", here)
    if ("texture", key) not in cache:
        cache[("texture", key)] = texture_image(gltf, key)
    image = cache[("texture", key)]
    if image is None:
        return None
    return TextureRef(image, int(texcoord), transform, scale)


def _uv_transform(
    gltf: GltfFile, ext: dict, where: str
) -> tuple[float, float, float, float, float, float]:
    """KHR_texture_transform's matrix translation x rotation x scale, its first two rows
    (a, b, c, d, e, f): u' = a u + b v + c, v' = d u + e v + f. The rotation turns the UVs
    counter-clockwise in glTF's UV space, whose v axis points down: u' = cos u + sin v,
    v' = -sin u + cos v, as Babylon.js, three.js, Blender and the TextureTransformTest
    sample model do (the extension's GLSL listing has the matrix transposed: KhronosGroup/glTF
    issue 1563)."""
    where = f"{where} KHR_texture_transform"
    ox, oy = _numbers(gltf, ext, "offset", 2, (0.0, 0.0), where)
    sx, sy = _numbers(gltf, ext, "scale", 2, (1.0, 1.0), where)
    (rot,) = _numbers(gltf, {"r": [ext.get("rotation", 0.0)]}, "r", 1, (0.0,), where)
    c, s = math.cos(rot), math.sin(rot)
    return (c * sx, s * sy, ox, -s * sx, c * sy, oy)
