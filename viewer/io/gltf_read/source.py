"""What a loaded glTF file was, kept so that `--save` can write it back without loss.

The loader draws only part of a glTF file (triangles, colours, a base colour texture,
skins, TRS animations); the rest (every material property and extension, cameras,
lights, morph targets, other attributes, instancing...) would be lost on export if the
exporter rebuilt the file from what the viewer draws. So each loaded file keeps its
`GltfSource`: the JSON text as read (parsed again for each save: a parsed document costs
about five times its text, 680 MB for a million nodes; the loader has checked it where
it reads it), every buffer's bytes and every image's original bytes. A large JSON text
(`REREAD_BYTES` and over, 157 MB for a million nodes) is not kept: a save reads it from
the file again, checked against the length and CRC-32 it had when loaded, and refuses in
one line when the file no longer holds it. The exporter (gltf_write/export.py)
writes the nodes from the live graph and everything else from here, re-packing the
binary data. Whatever a loader learns to read later is carried over without a change
here.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np

from viewer.io.errors import SceneError
from viewer.io.gltf_read.container import parse_json
from viewer.io.gltf_read.data import GltfFile
from viewer.io.gltf_read.images import image_bytes
from viewer.io.limits import Budget

__all__ = ["REREAD_BYTES", "GltfSource", "JsonOnDisk", "image_mime", "read_source"]

#: JSON texts this long or longer are read again from the file for a save, not kept.
REREAD_BYTES = 32 << 20


@dataclass(frozen=True)
class JsonOnDisk:
    """Where a JSON text not kept in memory lies in its file, and its CRC-32 then."""

    path: Path
    offset: int
    length: int
    crc32: int

    def read(self, display: str) -> bytes:
        """The text, as it was when loaded; a `SceneError` naming `display` otherwise."""
        try:
            with open(self.path, "rb") as file:
                file.seek(self.offset)
                text = file.read(self.length)
        except OSError as exc:
            raise SceneError(
                f"cannot read its JSON again for the save ({exc.strerror or exc})", file=display
            ) from None
        if len(text) != self.length or zlib.crc32(text) != self.crc32:
            raise SceneError(
                "the file changed since it was loaded, so what it holds besides "
                "its nodes cannot be carried over; load it again to save it",
                file=display,
            )
        return text


@dataclass
class GltfSource:
    """One glTF file as loaded.

    `json_text`: the document's text as read (a .gltf file's bytes, or a view of a .glb's
    JSON chunk), or a `JsonOnDisk` to read it from for a large one; `display`: the file
    as messages name it. `buffers[i]`: the bytes of buffer i (None: it has none, e.g. a
    meshopt fallback buffer). `images[i]`: (original bytes, MIME type) of image i, None
    when it could not be read. `rows[i]`: the model row of glTF node i (-1: not
    imported). `rest`:
    (translations, rotations, scales) of the rows as loaded, so that an unchanged node is
    written exactly as read (its ``matrix`` included). `views`: decoded replacements
    of buffer views, by index (a loader that decompresses a view puts its bytes here).
    """

    json_text: bytes | memoryview | JsonOnDisk
    display: str
    buffers: list[bytes | memoryview | None]
    images: list[tuple[bytes, str] | None]
    rows: np.ndarray
    rest: tuple[np.ndarray, np.ndarray, np.ndarray]
    views: dict[int, bytes] = field(default_factory=dict)
    #: Buffers without data by design (a ``.gltf`` buffer with no URI).
    dataless: set[int] = field(default_factory=set)
    #: The parsed document, held by the copy `with_doc` makes for one save.
    parsed_doc: dict | None = None

    @property
    def doc(self) -> dict:
        """The JSON document as read (parsed from `json_text` unless this is a `with_doc`
        copy: keep that copy while the document is used, rather than reading this again)."""
        if self.parsed_doc is not None:
            return self.parsed_doc
        text = self.json_text
        text = text.read(self.display) if isinstance(text, JsonOnDisk) else bytes(text)
        return parse_json(text, "the JSON", self.display)

    def with_doc(self) -> GltfSource:
        """A copy holding the parsed document, for one save (dropped with it)."""
        return replace(self, parsed_doc=self.doc)


_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\xabKTX 20\xbb", "image/ktx2"),
    (b"DDS ", "image/vnd-ms.dds"),
)


def image_mime(data: bytes, declared: object = None) -> str:
    """The MIME type of image bytes, from their signature (the declared one otherwise)."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[4:12] in (b"ftypavif", b"ftypavis"):
        return "image/avif"
    return declared if isinstance(declared, str) else "application/octet-stream"


def read_source(
    gltf: GltfFile, rows: np.ndarray, rest: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> GltfSource:
    """The `GltfSource` of an opened, imported file.

    Buffers and images the loader did not need are read here too, each distinct URI or
    buffer view once, and their bytes charged to the scene's data budget: a file cannot
    make the export copy one large file many times. What does not fit, or cannot be read,
    is left as None (the exporter names it)."""
    budget = gltf.budget
    buffers: list[bytes | memoryview | None] = []
    dataless = set()
    by_uri: dict[tuple[str, object], bytes | memoryview | None] = {}
    for i, buf in enumerate(gltf.array("buffers")):
        uri = buf.get("uri") if isinstance(buf, dict) else None
        if isinstance(buf, dict) and uri is None and (i > 0 or gltf.bin is None):
            dataless.add(i)
            buffers.append(None)
            continue
        key: tuple[str, object] = ("uri", uri) if isinstance(uri, str) else ("index", i)
        if key not in by_uri:
            by_uri[key] = _read(budget, partial(gltf.buffer, i), i in gltf.buffers)
        buffers.append(by_uri[key])
    images: list[tuple[bytes, str] | None] = []
    for i, image in enumerate(gltf.array("images")):
        if not isinstance(image, dict):
            images.append(None)
            continue
        uri, view = image.get("uri"), image.get("bufferView")
        key = ("uri", uri) if isinstance(uri, str) else ("view", view if uri is None else i)
        if key not in by_uri:
            by_uri[key] = _read(budget, partial(image_bytes, gltf, image, f"image {i}"))
        # bytes() of an image's bytes is the same object (only buffer 0 of a .glb, never
        # an image's key, holds a view of the file)
        got = by_uri[key]
        data = None if got is None else bytes(got)
        images.append(None if data is None else (data, image_mime(data, image.get("mimeType"))))
    text: bytes | memoryview | JsonOnDisk = gltf.json_text
    if _reread(gltf):  # the file's bytes go with the reader: no view of them is kept
        raw = gltf.json_text
        text = JsonOnDisk(gltf.path.resolve(), gltf.json_offset, len(raw), zlib.crc32(raw))
        buffers = [bytes(b) if isinstance(b, memoryview) else b for b in buffers]
        images = [None if i is None else (bytes(i[0]), i[1]) for i in images]
    frozen = (_frozen(rest[0]), _frozen(rest[1]), _frozen(rest[2]))
    return GltfSource(text, gltf.display, buffers, images, _frozen(rows), frozen, dataless=dataless)


def _reread(gltf: GltfFile) -> bool:
    """Whether the source reads the JSON text from the file again rather than keeping it:
    a large text, unless the .glb's binary chunk (kept) is larger still and the text,
    a view of the same bytes, costs nothing more."""
    size = len(gltf.json_text)
    return size >= REREAD_BYTES and (gltf.bin is None or len(gltf.bin) <= size)


def _frozen(values: np.ndarray) -> np.ndarray:
    """A read-only view of the model's array (no copy: 80 bytes a node for TRS; nothing
    writes the model's arrays once it is read, and nothing can write them through here)."""
    view = np.asarray(values).view()
    view.flags.writeable = False
    return view


def _read(
    budget: Budget, read: Callable[[], bytes | memoryview], already_charged: bool = False
) -> bytes | memoryview | None:
    """`read()`'s bytes, charged to `budget`; None when unreadable or over the budget. A
    view of a .glb's binary chunk stays a view (no copy of the file's largest part)."""
    try:
        data = read()
        if not isinstance(data, (bytes, memoryview)):
            data = bytes(data)
    except Exception:  # a buffer or image the loader never needed and cannot read
        return None
    if not already_charged and budget.charge_data(len(data)) is not None:
        return None
    return data
