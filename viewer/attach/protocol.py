"""The attach protocol (docs/attach.md): message kinds, byte layouts, strict decoding.

Every message is one binary WebSocket message: an 8-byte header (magic ``SGVW``, the
protocol version, the kind) and a body whose layout the kind fixes, all little-endian.
`decode_*` check everything a message says (sizes, counts, ids, finite numbers, names
as UTF-8, the limits) before returning it, and raise `ProtocolError` with one
line saying what was wrong; nothing is applied from a message that fails. No pickle, no
eval: numbers are read with `struct` and `numpy.frombuffer`, names with a strict UTF-8
decoder.
"""

from __future__ import annotations

import re
import struct
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from viewer.errors import SgviewError

MAGIC = b"SGVW"
#: The newest version this code speaks. A message carries the lowest version that holds
#: what it says: a frame with no held section is version 1, as before version 2 existed,
#: so a version-1 viewer still reads every publisher that sends no held reason.
VERSION = 2
VERSIONS = (1, 2)
HELLO, WELCOME, STRUCTURE, FRAME = 1, 2, 3, 4
KIND_NAMES = {HELLO: "hello", WELCOME: "welcome", STRUCTURE: "structure", FRAME: "frame"}
HEADER = struct.Struct("<4sHH")  # magic, version, kind
WELCOME_BODY = struct.Struct("<IQ")  # max nodes, max message bytes
STRUCTURE_HEAD = struct.Struct("<II")  # node count, name bytes in all
#: frame number, program frames merged into it, flags, suppressed, products,
#: naive products, then the counts: local_updated, world_updated, values, worlds
FRAME_HEAD = struct.Struct("<qIIQQQIIII")
FLAG_STRUCTURE_CHANGED = 1
#: Version 2: a held section follows the worlds (`ProgramFrame.held_ids`).
FLAG_HELD = 2
#: The held section's head: held rows, reasons, reason bytes in all.
HELD_HEAD = struct.Struct("<III")
#: A held reason's longest encoding (one line of printable text).
REASON_BYTES_MAX = 64
#: The reasons docs/attach.md defines ("Held worlds"); any other one-line text is allowed,
#: shown as the program sent it (escaped).
HELD_REASONS = ("frozen", "billboard", "constraint", "driver", "ik", "parent inverse", "custom")
#: A node name's longest encoding, and a hello's token or program name.
NAME_BYTES_MAX = 1024
#: A value row: position x y z, quaternion x y z w, scale x y z (float64).
VALUE_WIDTH = 10
#: A value row's quaternion needs a component at least this large (the core refuses
#: zero-length ones).
MIN_QUATERNION_NORM = 1e-6
#: The largest magnitude of any number in a frame (values and matrices).
MAGNITUDE_MAX = 1e12


class ProtocolError(SgviewError, ValueError):
    """A message that breaks the protocol: one line saying what and where."""


@dataclass
class Structure:
    """The whole hierarchy in pre-order: ``parents[k]`` is -1 or an id listed before."""

    ids: NDArray[np.int64]  # (n,)
    parents: NDArray[np.int64]  # (n,)
    names: list[str]


@dataclass
class ProgramFrame:
    """One program frame (or several merged: ``merged`` > 1), in the program's ids."""

    frame: int
    merged: int
    local_updated: NDArray[np.int64]  # (k,), pre-order
    world_updated: NDArray[np.int64]  # (m,), pre-order
    cause: NDArray[np.int64]  # (m,)
    value_ids: NDArray[np.int64]  # (v,)
    #: (v, 10): position, quaternion (x y z w), scale; a publisher may keep the three
    #: column blocks apart, (v, 3), (v, 4), (v, 3), joined when encoded.
    values: NDArray[np.float64] | tuple[NDArray[np.float64], ...]
    world_ids: NDArray[np.int64]  # (w,)
    worlds: NDArray[np.float64]  # (w, 4, 4), row-major in memory (column vectors)
    structure_changed: bool = False
    suppressed: int = 0
    products: int = 0
    naive_products: int = 0
    structure: Structure | None = field(default=None, repr=False)
    #: Version 2: nodes whose held reason this frame sets ("": cleared), each to
    #: ``held_reasons[k]``; a reason holds until a later frame changes or clears it.
    held_ids: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    held_reasons: list[str] = field(default_factory=list)

    @property
    def nbytes(self) -> int:
        """About what the frame takes in memory (the queues' budgets count this)."""
        arrays = (
            self.local_updated,
            self.world_updated,
            self.cause,
            self.value_ids,
            *_blocks(self.values),
            self.world_ids,
            self.worlds,
        )
        extra = 0 if self.structure is None else 24 * len(self.structure.names)
        return sum(a.nbytes for a in arrays) + extra + 256

    def value_rows(self) -> NDArray[np.float64]:
        """`values` as (v, 10) rows: a decoded frame's as they are, a publisher's column
        blocks joined."""
        values = self.values
        return np.concatenate(values, axis=1) if isinstance(values, tuple) else values


def _blocks(
    values: NDArray[np.float64] | tuple[NDArray[np.float64], ...],
) -> tuple[NDArray[np.float64], ...]:
    return values if isinstance(values, tuple) else (values,)


@dataclass(frozen=True)
class ProgramLimits:
    """What a viewer accepts from one program (`--max-nodes`, the message budget)."""

    max_nodes: int = 2_000_000
    max_message_bytes: int = 256 * 1024 * 1024


# -- encoding ---------------------------------------------------------------------------
def header(kind: int, version: int = 1) -> bytes:
    return HEADER.pack(MAGIC, version, kind)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: str) -> bytes:
    """`value` as UTF-8, exactly, cut to `NAME_BYTES_MAX` bytes between characters. A
    Python string may hold a lone surrogate, which UTF-8 cannot: it goes as U+FFFD."""
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError:
        data = _LONE_SURROGATE.sub("\ufffd", value).encode("utf-8")
    if len(data) <= NAME_BYTES_MAX:
        return data
    return data[:NAME_BYTES_MAX].decode("utf-8", "ignore").encode("utf-8")


def encode_hello(name: str, token: str = "") -> bytes:
    """The client's first message: its token (empty: none) and its program's name."""
    parts = [header(HELLO)]
    for text in (token, name):
        data = _text(text)
        parts += [struct.pack("<I", len(data)), data]
    return b"".join(parts)


def encode_welcome(limits: ProgramLimits, version: int = VERSION) -> bytes:
    """The viewer's answer, in the hello's ``version`` (a program that spoke version 1
    hears version 1)."""
    body = WELCOME_BODY.pack(limits.max_nodes, limits.max_message_bytes)
    return header(WELCOME, version) + body


def encode_structure(structure: Structure) -> bytes:
    names = [_text(n) for n in structure.names]
    lengths = np.fromiter((len(n) for n in names), dtype="<u4", count=len(names))
    blob = b"".join(names)
    return b"".join(
        (
            header(STRUCTURE),
            STRUCTURE_HEAD.pack(len(names), len(blob)),
            structure.ids.astype("<u4").tobytes(),
            structure.parents.astype("<i4").tobytes(),
            lengths.tobytes(),
            blob,
        )
    )


def encode_frame(frame: ProgramFrame) -> bytes:
    """A FRAME message (preceded by a STRUCTURE one when ``frame.structure`` is set)."""
    flags = FLAG_STRUCTURE_CHANGED if frame.structure_changed else 0
    held = _held_section(frame.held_ids, frame.held_reasons) if frame.held_ids.size else b""
    if held:
        flags |= FLAG_HELD
    head = FRAME_HEAD.pack(
        frame.frame,
        frame.merged,
        flags,
        frame.suppressed,
        frame.products,
        frame.naive_products,
        frame.local_updated.size,
        frame.world_updated.size,
        frame.value_ids.size,
        frame.world_ids.size,
    )
    worlds = np.ascontiguousarray(frame.worlds.transpose(0, 2, 1), dtype="<f8")  # columns
    return b"".join(
        (
            header(FRAME, 2 if held else 1),
            head,
            frame.local_updated.astype("<u4").tobytes(),
            frame.world_updated.astype("<u4").tobytes(),
            frame.cause.astype("<u4").tobytes(),
            frame.value_ids.astype("<u4").tobytes(),
            np.concatenate(_blocks(frame.values), axis=1).astype("<f8", copy=False).tobytes(),
            frame.world_ids.astype("<u4").tobytes(),
            worlds.tobytes(),
            held,
        )
    )


def _held_section(ids: NDArray[np.int64], reasons: list[str]) -> bytes:
    """The held section: each distinct reason once in a table, a row per id indexing it."""
    table = sorted(set(reasons))
    index = {r: k for k, r in enumerate(table)}
    encoded = [r.encode("utf-8") for r in table]
    blob = b"".join(encoded)
    return b"".join(
        (
            HELD_HEAD.pack(ids.size, len(table), len(blob)),
            ids.astype("<u4").tobytes(),
            np.array([index[r] for r in reasons], dtype="<u4").tobytes(),
            np.array([len(e) for e in encoded], dtype="<u4").tobytes(),
            blob,
        )
    )


# -- decoding ---------------------------------------------------------------------------
def read_header(data: bytes) -> int:
    """The kind of a message, after checking its magic and version (`message_version`)."""
    message_version(data)
    return int(HEADER.unpack_from(data)[2])


def message_version(data: bytes) -> int:
    """The version of a message, after checking its magic, version and kind."""
    if len(data) < HEADER.size:
        raise ProtocolError(f"a message of {len(data)} bytes is shorter than the 8-byte header")
    magic: bytes
    version: int
    kind: int
    magic, version, kind = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ProtocolError(f"not an sgview attach message (starts with {magic!r})")
    if version not in VERSIONS:
        raise ProtocolError(
            f"protocol version {version}; this viewer speaks versions 1 to {VERSION}"
        )
    if kind not in KIND_NAMES:
        raise ProtocolError(f"unknown message kind {kind}")
    return int(version)


class _Reader:
    """Reads a body front to back, refusing to go past its end."""

    def __init__(self, data: bytes, what: str) -> None:
        self.view, self.at, self.what = memoryview(data), HEADER.size, what

    def take(self, size: int) -> memoryview:
        if self.at + size > len(self.view):
            raise ProtocolError(
                f"{self.what}: truncated (needs {self.at + size} bytes, has {len(self.view)})"
            )
        chunk = self.view[self.at : self.at + size]
        self.at += size
        return chunk

    def unpack(self, fmt: struct.Struct) -> tuple[Any, ...]:
        return fmt.unpack(self.take(fmt.size))

    def ints(self, dtype: str, count: int) -> NDArray[np.int64]:
        """`count` integers stored as `dtype` ("<u4", "<i4"), as int64."""
        raw = np.frombuffer(self.take(np.dtype(dtype).itemsize * count), dtype=dtype)
        return raw.astype(np.int64)

    def floats(self, count: int, width: int) -> NDArray[np.float64]:
        """`count` rows of `width` little-endian float64."""
        raw = np.frombuffer(self.take(8 * width * count), dtype="<f8")
        return raw.astype(np.float64).reshape(count, width)

    def text(self, what: str) -> str:
        (size,) = self.unpack(struct.Struct("<I"))
        if size > NAME_BYTES_MAX:
            raise ProtocolError(f"{self.what}: {what} of {size} bytes (at most {NAME_BYTES_MAX})")
        return _utf8_text(bytes(self.take(size)), f"{self.what}: {what}")

    def end(self) -> None:
        if self.at != len(self.view):
            raise ProtocolError(f"{self.what}: {len(self.view) - self.at} bytes after its end")


def _utf8_text(data: bytes, what: str) -> str:
    """`data` decoded, strictly: any Unicode text is a valid name (names are data; what
    is printed of them is escaped by `viewer.text.printable`), bytes that are no UTF-8
    (a surrogate's encoding included) are refused."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolError(f"{what} is not UTF-8 text") from None


def decode_hello(data: bytes) -> tuple[str, str]:
    """(token, program name) of a HELLO message."""
    if read_header(data) != HELLO:
        raise ProtocolError("the first message must be a hello")
    reader = _Reader(data, "hello")
    token, name = reader.text("token"), reader.text("program name")
    reader.end()
    return token, name


def decode_welcome(data: bytes) -> ProgramLimits:
    if read_header(data) != WELCOME:
        raise ProtocolError("the viewer's first answer must be a welcome")
    reader = _Reader(data, "welcome")
    max_nodes, max_bytes = reader.unpack(WELCOME_BODY)
    reader.end()
    return ProgramLimits(max_nodes, max_bytes)


def decode_structure(data: bytes, limits: ProgramLimits) -> Structure:
    """A STRUCTURE message, checked: counts within the limits, unique ids, parents
    listed before their children (so no cycle), names UTF-8."""
    reader = _Reader(data, "structure")
    count, name_bytes = reader.unpack(STRUCTURE_HEAD)
    if count > limits.max_nodes:
        raise ProtocolError(f"structure: {count} nodes (--max-nodes is {limits.max_nodes})")
    need = HEADER.size + STRUCTURE_HEAD.size + 12 * count + name_bytes
    if need != len(data):
        raise ProtocolError(
            f"structure: {count} nodes and {name_bytes} name bytes make "
            f"{need} bytes; the message has {len(data)}"
        )
    ids = reader.ints("<u4", count)
    parents = reader.ints("<i4", count)
    lengths = reader.ints("<u4", count)
    if count and int(lengths.max()) > NAME_BYTES_MAX:
        raise ProtocolError(
            f"structure: a name of {int(lengths.max())} bytes (at most {NAME_BYTES_MAX})"
        )
    if int(lengths.sum()) != name_bytes:
        raise ProtocolError(
            f"structure: name lengths add up to {int(lengths.sum())} bytes, not {name_bytes}"
        )
    order = np.argsort(ids, kind="stable")
    if count and (np.diff(ids[order]) == 0).any():
        raise ProtocolError("structure: an id is listed twice")
    rooted = parents >= 0
    at = np.searchsorted(ids[order], parents[rooted])
    at = np.minimum(at, max(count - 1, 0))
    known = count > 0 and bool((ids[order][at] == parents[rooted]).all())
    if rooted.any() and not known:
        raise ProtocolError("structure: a parent id that is not a listed node")
    if rooted.any() and (order[at] >= np.flatnonzero(rooted)).any():
        raise ProtocolError("structure: a node listed before its parent (not pre-order)")
    if (parents < -1).any():
        raise ProtocolError("structure: a parent id below -1")
    blob = bytes(reader.take(name_bytes))
    reader.end()
    ends = np.cumsum(lengths).tolist()
    starts = [0, *ends[:-1]] if ends else []
    names = [
        _utf8_text(blob[a:b], f"structure: the name of node {int(i)}")
        for a, b, i in zip(starts, ends, ids.tolist(), strict=True)
    ]
    return Structure(ids, parents, names)


def _check_ids(ids: NDArray[np.int64], known: NDArray[np.int64], what: str) -> None:
    """Every id a node of the current structure (``known``: sorted), none twice."""
    if ids.size == 0:
        return
    at = np.minimum(np.searchsorted(known, ids), max(known.size - 1, 0))
    if known.size == 0 or not (known[at] == ids).all():
        bad = ids[(known.size == 0) | (known[at] != ids)][0] if known.size else ids[0]
        raise ProtocolError(f"frame: {what} names id {int(bad)}, not a node of the structure")
    if np.unique(ids).size != ids.size:
        raise ProtocolError(f"frame: {what} lists an id twice")


def decode_frame(data: bytes, known: NDArray[np.int64], last_frame: int) -> ProgramFrame:
    """A FRAME message, checked against the structure's ids (``known``, sorted) and the
    previous frame number (frames count up)."""
    reader = _Reader(data, "frame")
    head = reader.unpack(FRAME_HEAD)
    number, merged, flags, suppressed, products, naive, n_local, n_world, n_values, n_worlds = head
    for count, what in (
        (n_local, "local_updated"),
        (n_world, "world_updated"),
        (n_values, "values"),
        (n_worlds, "worlds"),
    ):
        if count > known.size:
            raise ProtocolError(f"frame: {count} {what} for {known.size} nodes")
    need = (
        HEADER.size
        + FRAME_HEAD.size
        + 4 * (n_local + 2 * n_world + n_values + n_worlds)
        + 8 * VALUE_WIDTH * n_values
        + 128 * n_worlds
    )
    allowed = FLAG_STRUCTURE_CHANGED | (FLAG_HELD if message_version(data) >= 2 else 0)
    if merged < 1 or flags & ~allowed:
        raise ProtocolError(f"frame {number}: merged count {merged} or flags {flags} invalid")
    if flags & FLAG_HELD:
        need += _held_size(data, need, known.size)
    if need != len(data):
        raise ProtocolError(f"frame: its counts make {need} bytes; the message has {len(data)}")
    if number <= last_frame:
        raise ProtocolError(f"frame: number {number} after frame {last_frame} (must count up)")
    local = reader.ints("<u4", n_local)
    world = reader.ints("<u4", n_world)
    cause = reader.ints("<u4", n_world)
    value_ids = reader.ints("<u4", n_values)
    values = reader.floats(n_values, VALUE_WIDTH)
    world_ids = reader.ints("<u4", n_worlds)
    columns = reader.floats(n_worlds, 16)
    held_ids, held_reasons = _read_held(reader) if flags & FLAG_HELD else (_NO_IDS, [])
    reader.end()
    for ids, what in (
        (local, "local_updated"),
        (world, "world_updated"),
        (value_ids, "values"),
        (world_ids, "worlds"),
        (held_ids, "held"),
    ):
        _check_ids(ids, known, what)
    if cause.size:
        _check_ids(np.unique(cause), known, "cause")
    for block, what in ((values, "a value"), (columns, "a world matrix")):
        if not (np.abs(block) <= MAGNITUDE_MAX).all():  # NaN fails the comparison too
            raise ProtocolError(
                f"frame {number}: {what} that is not a finite number of "
                f"magnitude at most {MAGNITUDE_MAX:g}"
            )
    if n_values and (np.abs(values[:, 3:7]).max(axis=1) < MIN_QUATERNION_NORM).any():
        raise ProtocolError(f"frame {number}: a rotation quaternion of zero length")
    worlds = columns.reshape(n_worlds, 4, 4).transpose(0, 2, 1).copy()  # to row-major
    return ProgramFrame(
        frame=number,
        merged=merged,
        local_updated=local,
        world_updated=world,
        cause=cause,
        value_ids=value_ids,
        values=values,
        world_ids=world_ids,
        worlds=worlds,
        structure_changed=bool(flags & FLAG_STRUCTURE_CHANGED),
        suppressed=suppressed,
        products=products,
        naive_products=naive,
        held_ids=held_ids,
        held_reasons=held_reasons,
    )


_NO_IDS = np.zeros(0, dtype=np.int64)


def _held_size(data: bytes, at: int, nodes: int) -> int:
    """The held section's size, from its head at ``at`` (checked against the nodes)."""
    if at + HELD_HEAD.size > len(data):
        raise ProtocolError("frame: truncated (its held section has no head)")
    rows, reasons, blob = HELD_HEAD.unpack_from(data, at)
    if rows > nodes or reasons > rows:
        raise ProtocolError(f"frame: {rows} held rows and {reasons} reasons for {nodes} nodes")
    if blob > REASON_BYTES_MAX * reasons:
        raise ProtocolError(f"frame: {blob} bytes of held reasons for {reasons} reasons")
    return int(HELD_HEAD.size + 8 * rows + 4 * reasons + blob)


#: Bidi marks, embeddings, overrides and isolates: a reason holding one could reorder the
#: log line it is printed in.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def one_line_reason(reason: str) -> bool:
    """Whether a held reason is one line a viewer accepts: no control character (Cc), line
    or paragraph separator, lone surrogate or bidi control. Unlike ``str.isprintable``
    this takes characters newer than this Python's Unicode database (a program's emoji),
    no-break spaces and joiners: a reason is shown through `viewer.text.printable`
    anyway, and refusing a valid one would lock its program out."""
    return not any(ch in _BIDI or unicodedata.category(ch) in _NOT_IN_A_LINE for ch in reason)


_NOT_IN_A_LINE = frozenset({"Cc", "Zl", "Zp", "Cs"})


def _read_held(reader: _Reader) -> tuple[NDArray[np.int64], list[str]]:
    """The held section (its size already checked): ids, and each one's reason text."""
    rows, count, blob_size = reader.unpack(HELD_HEAD)
    ids = reader.ints("<u4", rows)
    index = reader.ints("<u4", rows)
    lengths = reader.ints("<u4", count)
    blob = bytes(reader.take(blob_size))
    if count and int(lengths.max()) > REASON_BYTES_MAX:
        raise ProtocolError(
            f"frame: a held reason of {int(lengths.max())} bytes (at most {REASON_BYTES_MAX})"
        )
    if int(lengths.sum()) != blob_size:
        raise ProtocolError(
            f"frame: held reason lengths add up to {int(lengths.sum())} bytes, not {blob_size}"
        )
    if rows and int(index.max()) >= count:
        raise ProtocolError(f"frame: held reason {int(index.max())} of a table of {count}")
    ends = np.cumsum(lengths).tolist()
    table = []
    for a, b in zip([0, *ends[:-1]], ends, strict=True):
        reason = _utf8_text(blob[a:b], "frame: a held reason")
        if not one_line_reason(reason):
            raise ProtocolError("frame: a held reason that is not one printable line")
        table.append(reason)
    return ids, [table[k] for k in index.tolist()]
