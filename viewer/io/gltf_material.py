"""glTF materials beyond one colour: vertex colours and the base colour texture.

Per primitive: ``COLOR_0`` (floats or normalized unsigned integers, RGB or RGBA; alpha
is not used) times the material's ``baseColorFactor``; the base colour texture with its
``TEXCOORD_0`` coordinates and its sampler's wrap and filter modes. Images are PNG or
JPEG, from a ``data:`` URI, a file in the glTF file's folder or a buffer view; their size
is read from the header and checked (sides up to `MAX_TEXTURE_SIDE`, decoded bytes against
the scene's data budget) before they are decoded.
"""

from __future__ import annotations

import base64
import binascii
import io
import warnings

import numpy as np

from ..materials import CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT, TextureImage
from .errors import SceneError
from .gltf_data import GltfFile, brief, is_int

__all__ = ["MAX_TEXTURE_SIDE", "base_color_texture", "image_bytes", "vertex_colors"]

#: Largest texture side accepted, in pixels.
MAX_TEXTURE_SIDE = 8192
_WRAPS = (CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT)
_NEAREST, _LINEAR = 9728, 9729
_MIPMAP_FILTERS = (9984, 9985, 9986, 9987)


def vertex_colors(gltf: GltfFile, attrs: dict, n: int, factor, where: str) -> np.ndarray | None:
    """COLOR_0 times `factor` (rgb) as (n, 4) float32 with alpha 1; None without COLOR_0."""
    if attrs.get("COLOR_0") is None:
        return None
    rgb = gltf.floats(attrs["COLOR_0"], f"{where} COLOR_0", ("VEC3", "VEC4"))
    if rgb.shape[0] != n:
        raise gltf.error(where, f"COLOR_0 has {rgb.shape[0]} items, POSITION has {n}")
    if not np.all(np.isfinite(rgb)):
        raise gltf.error(where, "COLOR_0 holds NaN or infinite values")
    out = np.ones((n, 4), np.float32)
    out[:, :3] = np.clip(rgb[:, :3], 0.0, 1.0) * np.asarray(factor, np.float64)[:3]
    return out


def base_color_texture(gltf: GltfFile, material: object, attrs: dict, n: int, where: str,
                       cache: dict) -> tuple[np.ndarray, TextureImage] | None:  # fmt: skip
    """(TEXCOORD_0 (n, 2) float32, the texture) of a material's base colour texture, or
    None when it has none (or names coordinates other than TEXCOORD_0)."""
    if material is None:
        return None
    _index, mat = gltf.item(material, "materials", where)
    pbr = mat.get("pbrMetallicRoughness")
    info = pbr.get("baseColorTexture") if isinstance(pbr, dict) else None
    if not isinstance(info, dict) or info.get("texCoord", 0) != 0:
        return None
    if attrs.get("TEXCOORD_0") is None:
        raise gltf.error(where, "a base colour texture needs TEXCOORD_0")
    uvs = gltf.floats(attrs["TEXCOORD_0"], f"{where} TEXCOORD_0", ("VEC2",))
    if uvs.shape[0] != n:
        raise gltf.error(where, f"TEXCOORD_0 has {uvs.shape[0]} items, POSITION has {n}")
    if not np.all(np.isfinite(uvs)) or np.abs(uvs).max(initial=0.0) > 1e6:
        raise gltf.error(where, "TEXCOORD_0 must be finite and within ±1e6")
    tex = info.get("index")
    key = gltf.index_into(tex, "textures", f"{where} baseColorTexture")
    if key not in cache:
        cache[key] = _texture(gltf, key)
    return None if cache[key] is None else (uvs.astype(np.float32), cache[key])


def _texture(gltf: GltfFile, index: int) -> TextureImage | None:
    where = f"texture {index}"
    texture = gltf.obj(gltf.array("textures")[index], where)
    if texture.get("source") is None:
        return None  # only an extension's image: nothing we can show
    source, image = gltf.item(texture["source"], "images", where)
    wrap, nearest, mipmaps = (REPEAT, REPEAT), False, True
    if texture.get("sampler") is not None:
        s, sampler = gltf.item(texture["sampler"], "samplers", where)
        wrap = tuple(_choice(gltf, sampler, name, _WRAPS, REPEAT, f"sampler {s}")
                     for name in ("wrapS", "wrapT"))  # fmt: skip
        mag = _choice(gltf, sampler, "magFilter", (_NEAREST, _LINEAR), _LINEAR, f"sampler {s}")
        minf = _choice(gltf, sampler, "minFilter", (_NEAREST, _LINEAR, *_MIPMAP_FILTERS),
                       9987, f"sampler {s}")  # fmt: skip
        nearest, mipmaps = mag == _NEAREST, minf in _MIPMAP_FILTERS
    pixels = _decode(gltf, _image_bytes(gltf, image, f"image {source}"), f"image {source}")
    return TextureImage(pixels, wrap, nearest, mipmaps)


def _choice(gltf: GltfFile, obj: dict, name: str, allowed, default, where: str) -> int:
    value = obj.get(name, default)
    if not is_int(value) or value not in allowed:
        raise gltf.error(where, f"{name} must be one of {', '.join(map(str, allowed))}, "
                         f"got {value!r}")  # fmt: skip
    return value


def _image_bytes(gltf: GltfFile, image: dict, where: str) -> bytes:
    uri = image.get("uri")
    cap = gltf.limits.max_buffer_bytes
    if isinstance(uri, str) and uri.startswith("data:"):
        header, sep, payload = uri.partition(",")
        if not sep or not header.endswith(";base64"):
            raise gltf.error(where, "a data URI must be base64-encoded ('data:...;base64,')")
        gltf._check_size(len(payload) // 4 * 3, "the data URI", where)
        gltf._charge_read(len(payload) // 4 * 3, where)
        try:
            return base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            raise gltf.error(where, "the data URI is not valid base64") from None
    if isinstance(uri, str):
        file = gltf._local_file(uri, where)
        try:
            return gltf._read_file(file, "the image file", where)
        except OSError as exc:
            raise gltf.error(where, f"cannot read the image ({exc.strerror or exc})") from None
    if image.get("bufferView") is None:
        raise gltf.error(where, "an image needs a uri or a bufferView")
    v, view = gltf.item(image["bufferView"], "bufferViews", where)
    data = gltf._buffer(gltf.index_into(view.get("buffer"), "buffers", f"bufferView {v}"), where)
    offset, length = view.get("byteOffset", 0), view.get("byteLength")
    if not (is_int(offset) and is_int(length) and offset >= 0 and length >= 0
            and offset + length <= len(data) and length <= cap):  # fmt: skip
        raise gltf.error(f"bufferView {v}", "the image's bytes lie outside its buffer")
    gltf._charge_read(length, where)
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
                raise gltf.error(where, f"the image is {w}x{h} pixels; sides up to "
                                 f"{MAX_TEXTURE_SIDE} are accepted")  # fmt: skip
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
