"""glTF textures' images: which image a texture shows, its bytes and its decoded pixels.

Images are PNG or JPEG, from a ``data:`` URI, a file in the glTF file's folder or a
buffer view; their size is read from the header and checked (sides up to
`MAX_TEXTURE_SIDE`, decoded bytes against the scene's data budget) before they are decoded.
"""

from __future__ import annotations

import io
import warnings

import numpy as np

from viewer.io.errors import SceneError
from viewer.io.gltf_read.container import data_uri_bytes
from viewer.io.gltf_read.data import GltfFile, brief, is_int, whole
from viewer.materials import CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT, TextureImage

__all__ = ["MAX_TEXTURE_SIDE", "image_bytes", "texture_image"]

#: Largest texture side accepted, in pixels.
MAX_TEXTURE_SIDE = 8192
_WRAPS = (CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT)
_NEAREST, _LINEAR = 9728, 9729
_MIPMAP_FILTERS = (9984, 9985, 9986, 9987)


def texture_image(gltf: GltfFile, index: int) -> TextureImage | None:
    """Texture `index`'s image, decoded, with its sampler's settings; None when it has
    no image sgview can show."""
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
