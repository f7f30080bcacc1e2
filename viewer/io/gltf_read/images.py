"""glTF textures' images: which image a texture shows, its bytes and its decoded pixels.

Which image: a texture's core ``source`` is a PNG or a JPEG. Three extensions name an
image of another format, used in preference to the core one as each extension's
specification says (the core ``source`` is the fallback for a viewer without the
extension, and may be absent): ``KHR_texture_basisu`` (KTX2 holding Basis Universal
ETC1S or UASTC, transcoded to RGBA8 with opengl_basisu; an uncompressed RGBA8 or RGB8
KTX2 is read here), ``EXT_texture_avif`` and ``EXT_texture_webp`` (decoded by Pillow).
A texture with several takes the first of that order. An extension's image whose
``mimeType`` names another format, or whose bytes are not of that format, is refused in
one line.

Where from: a ``data:`` URI, a file in the glTF file's folder or a buffer view. Every
format's size is read from its header and checked (sides up to `MAX_TEXTURE_SIDE`,
decoded bytes against the scene's data budget) before it is decoded, so a small file
that declares a huge image costs nothing. A KTX2 file's own mip levels are not read: the
renderer builds the chain from level 0 when the sampler asks for mipmaps, as it does
for the other formats.
"""

from __future__ import annotations

import io
import struct
import warnings
from types import ModuleType

import numpy as np

from viewer.io.errors import SceneError
from viewer.io.gltf_read.container import data_uri_bytes
from viewer.io.gltf_read.data import GltfFile, brief, is_int, whole
from viewer.materials import CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT, TextureImage
from viewer.text import quoted

__all__ = ["IMAGE_EXTENSIONS", "MAX_TEXTURE_SIDE", "image_bytes", "texture_image"]

#: Largest texture side accepted, in pixels.
MAX_TEXTURE_SIDE = 8192
#: The texture extensions that name an image of their own format, in the order of
#: preference, with that format's MIME type.
IMAGE_EXTENSIONS = {
    "KHR_texture_basisu": "image/ktx2",
    "EXT_texture_avif": "image/avif",
    "EXT_texture_webp": "image/webp",
}
_CORE = ("image/png", "image/jpeg")
_LABELS = {"image/ktx2": "KTX2", "image/avif": "AVIF", "image/webp": "WebP"}
_EXTENSION_OF = {mime: name for name, mime in IMAGE_EXTENSIONS.items()}
_PILLOW = {"image/avif": ("AVIF",), "image/webp": ("WEBP",), "image/png": ("PNG", "JPEG")}
_WRAPS = (CLAMP_TO_EDGE, MIRRORED_REPEAT, REPEAT)
_NEAREST, _LINEAR = 9728, 9729
_MIPMAP_FILTERS = (9984, 9985, 9986, 9987)

# KTX2 (Khronos KTX File Format Specification 2.0): the identifier, the header's nine
# uint32 fields from byte 12, the index (four uint32, two uint64) and each level's
# (byteOffset, byteLength, uncompressedByteLength) uint64 triple from byte 80.
KTX2_IDENTIFIER = b"\xabKTX 20\xbb\r\n\x1a\n"
_KTX2_HEADER = struct.Struct("<9I")
_KTX2_LEVEL = struct.Struct("<3Q")
_KTX2_LEVELS_AT = 80
#: vkFormat -> bytes per pixel of the uncompressed formats read here (R8G8B8A8 and
#: R8G8B8, UNORM and SRGB: the colour space is the material slot's, as for PNG).
_KTX2_PLAIN = {37: 4, 43: 4, 23: 3, 29: 3}
_SUPERCOMPRESSION = {1: "BasisLZ", 2: "Zstandard", 3: "ZLIB"}
#: The Basis Universal codecs KHR_texture_basisu allows.
_BASIS_CODECS = ("ETC1S", "UASTC_LDR_4x4")
_INSTALL = "pip install opengl_basisu"


def texture_image(gltf: GltfFile, index: int) -> TextureImage | None:
    """Texture `index`'s image, decoded, with its sampler's settings; None when it has
    no image sgview can show."""
    where = f"texture {index}"
    texture = gltf.obj(gltf.array("textures")[index], where)
    chosen = _source(gltf, texture, where)
    if chosen is None:
        return None
    source, mime, here = chosen
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
    image_where = f"image {source}"
    image = gltf.obj(gltf.array("images")[source], image_where)
    declared = image.get("mimeType")
    if mime not in _CORE and declared is not None and declared != mime:
        raise gltf.error(
            here,
            f"source is image {source}, whose mimeType is {quoted(declared, 40)}, not {mime}",
            field="mimeType",
        )
    data = _image_bytes(gltf, image, image_where)
    if mime in _CORE:
        mime = _core_format(gltf, data, here, source)
    if mime == "image/ktx2":
        pixels = _decode_ktx2(gltf, data, image_where)
    else:
        pixels = _decode(gltf, data, mime, image_where)
    return TextureImage(pixels, wrap, nearest, mipmaps)


def _source(gltf: GltfFile, texture: dict, where: str) -> tuple[int, str, str] | None:
    """(image index, its format's MIME type, where to name it) of the image a texture
    shows: the first extension image sgview decodes, else the core ``source`` (a PNG or
    JPEG); None when neither is there."""
    ext = texture.get("extensions", {})
    if not isinstance(ext, dict):
        raise gltf.error(where, "extensions must be an object", field="extensions")
    wanting = None
    for name, mime in IMAGE_EXTENSIONS.items():
        value = ext.get(name)
        if value is None:
            continue
        here = f"{where} {name}"
        if not isinstance(value, dict):
            raise gltf.error(here, f"{name} must be an object")
        if mime == "image/ktx2" and _basisu() is None:
            wanting = name
            continue
        return gltf.index_into(value.get("source"), "images", here), mime, here
    if texture.get("source") is None:
        if wanting is not None:
            raise gltf.error(
                where,
                f"its only image is the {wanting} one (KTX2), which needs the "
                f"opengl_basisu package ({_INSTALL})",
            )
        return None  # only an unsupported extension's image: nothing we can show
    if wanting is not None:
        gltf.note(
            where,
            f"drawn from its PNG or JPEG fallback: its {wanting} image (KTX2) needs the "
            f"opengl_basisu package ({_INSTALL})",
        )
    source = gltf.index_into(texture["source"], "images", where)
    return source, "image/png", where


def _core_format(gltf: GltfFile, data: bytes, where: str, source: int) -> str:
    """The format of a core ``source`` image by its bytes. The core allows only PNG and
    JPEG, but real files (exporters that wrote a KTX2, WebP or AVIF file and forgot its
    extension) name others there, and a browser, which sniffs an image's bytes, draws
    the WebP and AVIF ones: such an image is read as what it is, with a note."""
    if data.startswith(KTX2_IDENTIFIER):
        if _basisu() is None and len(data) >= 16 and data[12:16] == bytes(4):
            raise gltf.error(
                where,
                f"its image {source} is a Basis Universal KTX2 file, which needs the "
                f"opengl_basisu package ({_INSTALL})",
            )
        mime = "image/ktx2"
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        mime = "image/webp"
    elif data[4:8] == b"ftyp" and data[8:12] in (b"avif", b"avis"):
        mime = "image/avif"
    else:
        return "image/png"
    # Named by the image, not the texture: one note however many textures show it.
    gltf.note(
        f"image {source}",
        f"a {_LABELS[mime]} file, not the PNG or JPEG the core allows (no "
        f"{_EXTENSION_OF[mime]} on the textures showing it): read as {_LABELS[mime]}",
    )
    return mime


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


def _check_size(gltf: GltfFile, w: int, h: int, where: str) -> None:
    """Refuse an image of `w` x `h` pixels over the side cap or the data budget, before
    anything is decoded."""
    if not (0 < w <= MAX_TEXTURE_SIDE and 0 < h <= MAX_TEXTURE_SIDE):
        raise gltf.error(
            where, f"the image is {w}x{h} pixels; sides up to {MAX_TEXTURE_SIDE} are accepted"
        )
    reason = gltf.budget.charge_data(4 * w * h)
    if reason is not None:
        raise gltf.error(where, reason)


def _decode(gltf: GltfFile, data: bytes, mime: str, where: str) -> np.ndarray:
    """RGBA pixels of a PNG or JPEG (`mime` image/png), a WebP or an AVIF, refusing a size
    over the caps before decoding it. An animated WebP or AVIF shows its first frame."""
    from PIL import Image

    what = "PNG or JPEG" if mime == "image/png" else _LABELS[mime]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's own bomb warning: we check below
            img = Image.open(io.BytesIO(data), formats=_PILLOW[mime])
            _check_size(gltf, *img.size, where)
            return np.asarray(img.convert("RGBA"), dtype=np.uint8).copy()
    except SceneError:
        raise
    except Image.UnidentifiedImageError:
        raise gltf.error(where, f"not a {what} image (Pillow cannot identify it)") from None
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError) as exc:
        raise gltf.error(where, f"not a {what} image it can read ({brief(exc)})") from None


def _decode_ktx2(gltf: GltfFile, data: bytes, where: str) -> np.ndarray:
    """RGBA pixels of level 0 of a 2D KTX2 image: Basis Universal (ETC1S or UASTC,
    transcoded) or uncompressed RGBA8 / RGB8. The header is checked against the file's
    length and the caps before any pixel is read."""
    if not data.startswith(KTX2_IDENTIFIER):
        raise gltf.error(where, "not a KTX2 file (it lacks the KTX2 identifier)")
    if len(data) < _KTX2_LEVELS_AT + _KTX2_LEVEL.size:
        raise gltf.error(where, f"the KTX2 file is {len(data)} bytes, too short for its header")
    fmt, _size, w, h, depth, layers, faces, levels, scheme = _KTX2_HEADER.unpack_from(data, 12)
    if depth != 0 or layers != 0 or faces != 1:
        raise gltf.error(
            where,
            f"the KTX2 image is not a plain 2D image (depth {depth}, layers {layers}, "
            f"faces {faces}): glTF textures are 2D",
        )
    _check_size(gltf, w, h, where)
    if not _KTX2_LEVELS_AT + max(1, levels) * _KTX2_LEVEL.size <= len(data):
        raise gltf.error(where, f"the KTX2 file's {levels} levels run past its end")
    start, length, _full = _KTX2_LEVEL.unpack_from(data, _KTX2_LEVELS_AT)
    if start + length > len(data):
        raise gltf.error(where, "the KTX2 file's level 0 runs past its end")
    if fmt == 0:
        return _transcode_basis(gltf, data, where)
    if fmt not in _KTX2_PLAIN:
        raise gltf.error(
            where,
            f"the KTX2 image's vkFormat is {fmt}; sgview reads Basis Universal and "
            "uncompressed RGBA8 or RGB8 KTX2 images",
        )
    if scheme != 0:
        name = _SUPERCOMPRESSION.get(scheme, f"scheme {scheme}")
        raise gltf.error(
            where,
            f"the KTX2 image is supercompressed ({name}); sgview reads that only with "
            "Basis Universal images",
        )
    channels = _KTX2_PLAIN[fmt]
    if length != w * h * channels:
        raise gltf.error(
            where,
            f"the KTX2 level 0 holds {length} bytes; a {w}x{h} image of {channels} "
            f"bytes a pixel needs {w * h * channels}",
        )
    raw = np.frombuffer(data, np.uint8, w * h * channels, start).reshape(h, w, channels)
    if channels == 4:
        return raw.copy()
    pixels = np.full((h, w, 4), 255, np.uint8)
    pixels[..., :3] = raw
    return pixels


def _basisu() -> ModuleType | None:
    """The Basis Universal transcoder, None when it is not installed.

    opengl_basisu: Binomial's own basis_universal transcoder (the one the glTF sample
    viewer and three.js run as WebAssembly) compiled into a small wheel whose only
    dependency is numpy; it reads KTX2 ETC1S and UASTC from bytes, transcodes to RGBA8
    as a numpy array and refuses corrupt or truncated data with a ValueError (its own
    tests fuzz it). pyktx has no Linux wheel; texture2ddecoder and imagecodecs decode
    GPU block formats but not Basis's supercompressed KTX2; alktx2 converts whole files
    through image formats and carries an encoder sgview does not need."""
    try:
        import opengl_basisu
    except ImportError:
        return None
    return opengl_basisu


def _transcode_basis(gltf: GltfFile, data: bytes, where: str) -> np.ndarray:
    basisu = _basisu()
    assert basisu is not None  # `_source` and `_core_format` read a Basis KTX2 only with it
    try:
        texture = basisu.open(bytes(data))
        if texture.codec.name not in _BASIS_CODECS:
            raise gltf.error(
                where,
                f"the KTX2 image's codec is {texture.codec.name}; KHR_texture_basisu "
                "allows ETC1S and UASTC (LDR 4x4)",
            )
        pixels = texture.transcode(basisu.Target.RGBA8, level=0).data
    except SceneError:
        raise
    except (ValueError, IndexError, MemoryError) as exc:
        raise gltf.error(where, f"not a KTX2 image it can transcode ({brief(exc)})") from None
    return np.ascontiguousarray(pixels, dtype=np.uint8)


def image_bytes(gltf: GltfFile, image: object, where: str) -> bytes:
    """The original (encoded) bytes of an ``images`` entry, read as the loader reads them."""
    return _image_bytes(gltf, gltf.obj(image, where), where)
