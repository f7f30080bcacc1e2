"""The containers a built glTF export is written as: one ``.glb``, or a ``.gltf`` with
its buffer and images beside it or inside it as data URIs (export.py builds the
document)."""

from __future__ import annotations

import base64
import json
import struct
import urllib.parse
from dataclasses import dataclass

import msgspec

from viewer.io.gltf_write.pack import Packer

__all__ = ["GltfExport", "glb_bytes", "gltf_files", "json_bytes"]

_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "image/ktx2": ".ktx2",
    "image/avif": ".avif",
    "image/vnd-ms.dds": ".dds",
}


@dataclass
class GltfExport:
    """A built document: the JSON without buffer or image locations, the binary buffer,
    each image's (bytes, MIME type), the size of the data-less second buffer (views whose
    bytes the source did not have; `meshopt`: it is a meshopt fallback) and the notes."""

    doc: dict
    blob: bytearray
    images: list
    dataless: int
    notes: list[str]
    meshopt: bool = False


def json_bytes(doc: dict) -> bytes:
    """The document as compact UTF-8 JSON: msgspec's encoder (about ten times faster than
    ``json.dumps`` on a million nodes), but ``json.dumps`` wherever msgspec refuses a value
    or the text has a ``null``, which is how msgspec writes a number that is not finite:
    JSON has none, and ``json.dumps`` refuses it as it always did."""
    try:
        text = msgspec.json.encode(doc)
    except Exception:  # e.g. a lone surrogate: json.dumps raises its own error below
        text = b"null"
    if b"null" in text:
        return json.dumps(doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    return text


def _buffers(export: GltfExport, blob_uri: str | None) -> None:
    doc = export.doc
    buffers: list[dict[str, object]] = []
    if export.blob or export.dataless:
        buffers.append({"byteLength": len(export.blob)})
        if blob_uri is not None:
            buffers[0]["uri"] = blob_uri
    if export.dataless:
        buffers.append({"byteLength": export.dataless})
        if export.meshopt:
            buffers[1]["extensions"] = {"EXT_meshopt_compression": {"fallback": True}}
    if buffers:
        doc["buffers"] = buffers
    elif "bufferViews" in doc:
        del doc["bufferViews"]


def glb_bytes(export: GltfExport) -> bytes:
    """A binary glTF container: the JSON chunk (padded with spaces), the BIN chunk
    (zeros), the images as buffer views."""
    packer = Packer(export.doc.setdefault("bufferViews", []), [])
    packer.blob = export.blob
    placed: dict[int, int] = {}  # one view per distinct bytes object (images sharing a file)
    for image, (data, mime) in zip(export.doc.get("images", []), export.images, strict=True):
        if id(data) not in placed:
            placed[id(data)] = packer.view(data)
        image["bufferView"] = placed[id(data)]
        image["mimeType"] = mime
    if not export.doc["bufferViews"]:
        del export.doc["bufferViews"]
    _buffers(export, None)
    text = json_bytes(export.doc)
    text_pad, blob_pad = -len(text) % 4, -len(export.blob) % 4
    parts: list[bytes | bytearray] = [
        struct.pack("<I4s", len(text) + text_pad, b"JSON"),
        text,
        b" " * text_pad,
    ]
    if export.blob:
        parts += [
            struct.pack("<I4s", len(export.blob) + blob_pad, b"BIN\0"),
            export.blob,
            b"\0" * blob_pad,
        ]
    total = 12 + sum(map(len, parts))
    return b"".join([struct.pack("<4sII", b"glTF", 2, total), *parts])  # one copy of each part


def _data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def gltf_files(export: GltfExport, stem: str, embed: bool) -> list[tuple[str, bytes]]:
    """Give the buffer and images their URIs; return the files to write beside."""
    files: list[tuple[str, bytes]] = []
    placed: dict[int, str] = {}  # one file per distinct bytes object (images sharing a file)
    for n, (image, (data, mime)) in enumerate(
        zip(export.doc.get("images", []), export.images, strict=True)
    ):
        if id(data) not in placed:
            if embed:
                placed[id(data)] = _data_uri(data, mime)
            else:
                name = f"{stem}_{n}{_EXTENSIONS.get(mime, '.bin')}"
                files.append((name, data))
                placed[id(data)] = urllib.parse.quote(name)
        image["uri"] = placed[id(data)]
        image["mimeType"] = mime
    if export.blob or export.dataless:
        if embed:
            _buffers(export, _data_uri(bytes(export.blob), "application/octet-stream"))
        else:
            files.append((f"{stem}.bin", bytes(export.blob)))
            _buffers(export, urllib.parse.quote(f"{stem}.bin"))
    else:
        _buffers(export, None)
    return files
