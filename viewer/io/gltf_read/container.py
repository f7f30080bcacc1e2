"""The glTF container: a ``.glb``'s chunks and the JSON text, before anything is read.

Why apart from data.py: these two steps see only bytes (the binary header, the chunk
table, UTF-8 text) and end in the parsed document; everything after them reads that
document. Each problem is a `SceneError` naming the file (and the line, for JSON).
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from collections.abc import Callable

from viewer.io.errors import SceneError, decode_utf8, describe
from viewer.text import brief

_GLB_JSON = 0x4E4F534A
#: Where a .glb's JSON chunk starts in the file: the header (12 bytes), its chunk header (8).
GLB_JSON_AT = 20
_GLB_BIN = 0x004E4942


def glb_chunks(
    data: memoryview, error: Callable[[str | None, str], SceneError]
) -> tuple[memoryview, memoryview | None]:
    """The JSON and (optional) BIN chunks of a binary glTF container; ``error(where,
    reason)`` makes the file's error."""
    if len(data) < 20:
        raise error(None, f"the .glb file is {len(data)} bytes, too short for a header")
    _magic, version, total = struct.unpack_from("<4sII", data, 0)
    if version != 2:
        raise error(None, f"expected binary glTF version 2, got {version}")
    if total > len(data):
        raise error(None, f"the header says {total:,} bytes, the file has {len(data):,}")
    chunks: list[tuple[int, memoryview]] = []
    offset = 12
    while offset + 8 <= total:
        length, kind = struct.unpack_from("<II", data, offset)
        if offset + 8 + length > total:
            raise error(None, f"chunk {len(chunks)} runs past the end of the file")
        chunks.append((kind, data[offset + 8 : offset + 8 + length]))
        offset += 8 + (length + 3) // 4 * 4
    if not chunks or chunks[0][0] != _GLB_JSON:
        raise error(None, "the .glb file has no JSON chunk first")
    blob = chunks[1][1] if len(chunks) > 1 and chunks[1][0] == _GLB_BIN else None
    return chunks[0][1], blob


def parse_json(text: bytes, what: str, display: str, start: int = 0) -> dict:
    """``text`` (``what``: the .gltf file or a .glb's JSON chunk, ``start`` bytes into
    the file) parsed to its top object; errors name ``display`` and, where JSON can say,
    the line (bytes that are not UTF-8: also their offset in the file)."""
    decoded = decode_utf8(text, what, display, start=start, bom=True)
    try:
        doc = json.loads(decoded)
    except json.JSONDecodeError as exc:
        raise SceneError(
            f"{what} is not valid JSON: {exc.msg} (column {exc.colno})",
            file=display,
            line=exc.lineno,
        ) from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise SceneError(f"{what} is not valid JSON ({brief(exc)})", file=display) from None
    if not isinstance(doc, dict):
        raise SceneError(f"expected a JSON object at the top, got {describe(doc)}", file=display)
    return doc


def data_uri_bytes(gltf, uri: str, where: str) -> bytes:
    """The bytes of a ``data:...;base64,`` URI (a buffer's or an image's), counted against
    `gltf`'s size cap and read budget before decoding (`gltf`: the `GltfFile` reading)."""
    header, sep, payload = uri.partition(",")
    if not sep or not header.endswith(";base64"):
        raise gltf.error(where, "a data URI must be base64-encoded ('data:...;base64,')")
    gltf.check_size(len(payload) // 4 * 3, "the data URI", where)
    gltf.charge_read(len(payload) // 4 * 3, where)
    try:
        return base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise gltf.error(where, "the data URI is not valid base64") from None
