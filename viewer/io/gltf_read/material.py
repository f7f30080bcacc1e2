"""glTF materials as the specification defines them, and the vertex data they read.

A material (`read_material`): ``pbrMetallicRoughness`` (base colour factor and texture,
metallic and roughness factors and texture), the normal texture with its ``scale``, the
occlusion texture with its ``strength``, the emissive factor and texture, ``alphaMode``
with ``alphaCutoff``, ``doubleSided``; and the extensions KHR_materials_emissive_strength
(the emissive factor's multiplier), KHR_materials_unlit (the base colour, unlit) and
KHR_texture_transform (offset, rotation, scale and texCoord of any texture). Each texture
reads TEXCOORD_0 or TEXCOORD_1, with its sampler's wrap and filter modes.

Per primitive (`vertex_data`): ``COLOR_0`` (floats or normalized unsigned integers, RGB
or RGBA) and the two coordinate sets. Images are PNG or JPEG, from a ``data:`` URI, a file
in the glTF file's folder or a buffer view; their size is read from the header and checked
(sides up to `MAX_TEXTURE_SIDE`, decoded bytes against the scene's data budget) before
they are decoded, each once per file however often it is used.
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
from numpy.typing import NDArray

from viewer.io.errors import SceneError, describe
from viewer.io.gltf_read.container import data_uri_bytes
from viewer.io.gltf_read.data import GltfFile, brief, is_int, whole
from viewer.materials import (
    BLEND,
    CLAMP_TO_EDGE,
    DEFAULT_MATERIAL,
    IDENTITY_UV,
    MASK,
    MIRRORED_REPEAT,
    OPAQUE,
    REPEAT,
    Material,
    TextureImage,
    TextureRef,
)

__all__ = ["MAX_TEXTURE_SIDE", "image_bytes", "read_material", "vertex_data"]

#: Largest texture side accepted, in pixels.
MAX_TEXTURE_SIDE = 8192
_WRAPS = (CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT)
_NEAREST, _LINEAR = 9728, 9729
_MIPMAP_FILTERS = (9984, 9985, 9986, 9987)


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
    return Material(
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


def _dict(gltf: GltfFile, obj: dict, name: str, where: str) -> dict:
    value = obj.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise gltf.error(where, f"{name} must be an object, got {describe(value)}")
    return value


def _number(
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


def _numbers(gltf: GltfFile, obj: dict, name: str, width: int, default: tuple, where: str) -> tuple:
    value = obj.get(name, default)
    if (
        not isinstance(value, list | tuple)
        or len(value) != width
        or not all(isinstance(c, int | float) and not isinstance(c, bool) for c in value)
        or not all(math.isfinite(c) for c in value)
    ):
        raise gltf.error(where, f"{name} must be {width} finite numbers, got {describe(value)}")
    return tuple(float(c) for c in value)


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
        cache[("texture", key)] = _texture(gltf, key)
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


def _texture(gltf: GltfFile, index: int) -> TextureImage | None:
    where = f"texture {index}"
    texture = gltf.obj(gltf.array("textures")[index], where)
    if texture.get("source") is None:
        return None  # only an extension's image: nothing we can show
    source, image = gltf.item(texture["source"], "images", where)
    wrap, nearest, mipmaps = (REPEAT, REPEAT), False, True
    if texture.get("sampler") is not None:
        s, sampler = gltf.item(texture["sampler"], "samplers", where)
        wrap = (
            _choice(gltf, sampler, "wrapS", _WRAPS, REPEAT, f"sampler {s}"),
            _choice(gltf, sampler, "wrapT", _WRAPS, REPEAT, f"sampler {s}"),
        )
        mag = _choice(gltf, sampler, "magFilter", (_NEAREST, _LINEAR), _LINEAR, f"sampler {s}")
        minf = _choice(
            gltf, sampler, "minFilter", (_NEAREST, _LINEAR, *_MIPMAP_FILTERS), 9987, f"sampler {s}"
        )
        nearest, mipmaps = mag == _NEAREST, minf in _MIPMAP_FILTERS
    pixels = _decode(gltf, _image_bytes(gltf, image, f"image {source}"), f"image {source}")
    return TextureImage(pixels, wrap, nearest, mipmaps)


def _choice(
    gltf: GltfFile, obj: dict, name: str, allowed: tuple[int, ...], default: int, where: str
) -> int:
    value = whole(obj.get(name, default))
    if not is_int(value) or value not in allowed:
        raise gltf.error(
            where, f"{name} must be one of {', '.join(map(str, allowed))}, got {value!r}"
        )
    return value


def _image_bytes(gltf: GltfFile, image: dict, where: str) -> bytes:
    uri = image.get("uri")
    cap = gltf.limits.max_buffer_bytes
    if isinstance(uri, str) and uri.startswith("data:"):
        return data_uri_bytes(gltf, uri, where)
    if isinstance(uri, str):
        file = gltf.local_file(uri, where)
        try:
            return gltf.read_file(file, "the image file", where)
        except OSError as exc:
            raise gltf.error(where, f"cannot read the image ({exc.strerror or exc})") from None
    if image.get("bufferView") is None:
        raise gltf.error(where, "an image needs a uri or a bufferView")
    v, view = gltf.item(image["bufferView"], "bufferViews", where)
    data = gltf.buffer_bytes(gltf.index_into(view.get("buffer"), "buffers", f"bufferView {v}"))
    offset, length = whole(view.get("byteOffset", 0)), whole(view.get("byteLength"))
    if not (
        is_int(offset)
        and is_int(length)
        and offset >= 0
        and length >= 0
        and offset + length <= len(data)
        and length <= cap
    ):
        raise gltf.error(f"bufferView {v}", "the image's bytes lie outside its buffer")
    gltf.charge_read(length, where)
    return bytes(data[offset : offset + length])


def _decode(gltf: GltfFile, data: bytes, where: str) -> np.ndarray:
    """RGBA pixels of a PNG or JPEG, refusing a size over the caps before decoding it."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's own bomb warning: we check below
            img = Image.open(io.BytesIO(data), formats=("PNG", "JPEG"))
            w, h = img.size
            if not (0 < w <= MAX_TEXTURE_SIDE and 0 < h <= MAX_TEXTURE_SIDE):
                raise gltf.error(
                    where,
                    f"the image is {w}x{h} pixels; sides up to {MAX_TEXTURE_SIDE} are accepted",
                )
            reason = gltf.budget.charge_data(4 * w * h)
            if reason is not None:
                raise gltf.error(where, reason)
            return np.asarray(img.convert("RGBA"), dtype=np.uint8).copy()
    except SceneError:
        raise
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise gltf.error(where, f"not a PNG or JPEG image it can read ({brief(exc)})") from None


def image_bytes(gltf: GltfFile, image: object, where: str) -> bytes:
    """The original (encoded) bytes of an ``images`` entry, read as the loader reads them."""
    return _image_bytes(gltf, gltf.obj(image, where), where)
