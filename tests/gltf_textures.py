"""Textures in the formats the glTF texture extensions name, built in code: WebP and AVIF
with Pillow, KTX2 with Basis Universal's encoder (alktx2: ETC1S and UASTC) and an
uncompressed RGBA8 KTX2 written here from the KTX 2.0 specification; each embedded in a
textured quad."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import numpy as np
from gltf_geometry import QUAD, QUAD_INDICES, Doc
from PIL import Image

RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)
#: The texture: four 8 x 8 quadrants, red and green on top, blue and white below (whole
#: 4 x 4 blocks of one colour, so the block codecs can hold it all but exactly).
PIXELS = np.zeros((16, 16, 4), np.uint8)
for (row, col), rgb in zip([(0, 0), (0, 1), (1, 0), (1, 1)], [RED, GREEN, BLUE, WHITE],
                           strict=True):  # fmt: skip
    PIXELS[8 * row : 8 * row + 8, 8 * col : 8 * col + 8] = (*rgb, 255)

EXTENSION = {"webp": "EXT_texture_webp", "avif": "EXT_texture_avif", "etc1s": "KHR_texture_basisu",
             "uastc": "KHR_texture_basisu", "rgba8": "KHR_texture_basisu"}  # fmt: skip
MIME = {"webp": "image/webp", "avif": "image/avif", "etc1s": "image/ktx2",
        "uastc": "image/ktx2", "rgba8": "image/ktx2", "png": "image/png"}  # fmt: skip


def encode(kind: str, pixels: np.ndarray = PIXELS) -> bytes:
    """`pixels` (h, w, 4) uint8 as a `kind` file: png, webp (lossless), avif (4:4:4, the
    best quality), etc1s or uastc (KTX2 from Basis Universal's encoder), rgba8 (KTX2)."""
    h, w = pixels.shape[:2]
    if kind in ("etc1s", "uastc"):
        import alktx2

        return alktx2.encode_raw_rgba_to_ktx2(pixels.tobytes(), w, h, True, codec=kind,
                                              quality=255 if kind == "etc1s" else 100,
                                              mipmaps=True)  # fmt: skip
    if kind == "rgba8":
        return ktx2_rgba8(pixels)
    out = io.BytesIO()
    options = {"webp": {"lossless": True}, "avif": {"quality": 100, "subsampling": "4:4:4"},
               "png": {}}[kind]  # fmt: skip
    Image.fromarray(pixels).save(out, format=kind.upper(), **options)
    return out.getvalue()


def ktx2_rgba8(pixels: np.ndarray, *, vk_format: int = 43, scheme: int = 0,
               width: int | None = None, height: int | None = None) -> bytes:  # fmt: skip
    """A one-level 2D KTX2 file of R8G8B8A8 pixels (vkFormat 43, SRGB), as the KTX 2.0
    specification lays it out: identifier, header, index, level index, a basic data
    format descriptor (RGBSDA, BT.709, sRGB transfer, four 8-bit samples) and level 0.
    `width` / `height` override the header's sizes (a file that lies about them)."""
    h, w = pixels.shape[:2]
    samples = b"".join(struct.pack("<HBB4BII", 8 * k, 7, channel, 0, 0, 0, 0, 0, 255)
                       for k, channel in enumerate((0, 1, 2, 15)))  # fmt: skip
    block = struct.pack("<IHH4B4B8B", 0, 2, 24 + len(samples), 1, 1, 2, 0,
                        0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0) + samples  # fmt: skip
    dfd = struct.pack("<I", 4 + len(block)) + block
    dfd_at = 80 + 24
    data_at = dfd_at + len(dfd) + (-(dfd_at + len(dfd)) % 4)
    data = np.ascontiguousarray(pixels, np.uint8).tobytes()
    header = struct.pack("<9I", vk_format, 1, width or w, height or h, 0, 0, 1, 1, scheme)
    index = struct.pack("<4I2Q", dfd_at, len(dfd), 0, 0, 0, 0)
    levels = struct.pack("<3Q", data_at, len(data), len(data))
    head = b"\xabKTX 20\xbb\r\n\x1a\n" + header + index + levels + dfd
    return head + b"\0" * (data_at - len(head)) + data


def textured_quad(path: Path, kind: str = "webp", *, data: bytes | None = None,
                  fallback: bool = False, mime: str | None = "", required: bool = True,
                  sampler: dict | None = None) -> Path:  # fmt: skip
    """A quad, corners (0, 0)..(2, 2) in the XY plane, facing +Z, textured with `kind`'s
    file (or `data`) through its extension; `fallback` adds a PNG as the core source.
    `mime`: the image's mimeType ("" the format's own, None none)."""
    doc = Doc()
    pos = doc.accessor(QUAD * 2.0)
    uv = doc.accessor(np.array([[0, 1], [1, 1], [1, 0], [0, 0]], np.float32))  # v = 0 at top
    idx = doc.accessor(QUAD_INDICES)
    image = {"bufferView": doc.view(encode(kind) if data is None else data)}
    if mime is not None:
        image["mimeType"] = mime or MIME[kind]
    doc.add("images", image)
    texture: dict = {"sampler": 0}
    if kind in EXTENSION:
        texture["extensions"] = {EXTENSION[kind]: {"source": 0}}
        doc.doc["extensionsUsed"] = [EXTENSION[kind]]
        if required and not fallback:
            doc.doc["extensionsRequired"] = [EXTENSION[kind]]
    else:
        texture["source"] = 0
    if fallback:
        texture["source"] = doc.add("images", {"bufferView": doc.view(encode("png", 0 * PIXELS)),
                                               "mimeType": "image/png"})  # fmt: skip
    doc.add("samplers", sampler or {"magFilter": 9728, "minFilter": 9986})
    doc.add("textures", texture)
    doc.add("materials", {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0},
                                                   "metallicFactor": 0.0}})  # fmt: skip
    prim = {"attributes": {"POSITION": pos, "TEXCOORD_0": uv}, "indices": idx, "material": 0}
    doc.add("meshes", {"primitives": [prim]})
    doc.add("nodes", {"name": "Quad", "mesh": 0})
    doc.add("scenes", {"nodes": [0]})
    doc.doc["scene"] = 0
    doc.doc["accessors"][pos].update(min=[0, 0, 0], max=[2, 2, 0])
    return doc.write(path)
