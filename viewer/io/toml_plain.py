"""Reading the plain [[node]] tables of a scene file a column at a time.

A file --save writes of a million nodes is a million tables of the same few lines
(``name = "Obj2"``, ``position = [0.8, 0.0038, 0]``, ...). A TOML parser builds a dict, its
strings, lists and floats for each (toml_rs: about 6 µs a node), and the checks then take
them apart again. Here such tables are read straight from the bytes with numpy: a
*plain block* is a ``[[node]]`` header line, then only lines of the exact forms

    name = "…"  parent = "…"  mesh = "…"  color = "…"     (no escape, quote or control)
    position = [N, N, N]  rotation = [N, N, N]            (N a TOML integer or float)
    scale = [N, N, N] or N  size = [N, N, N] or N
    (empty lines)

each key at most once, up to the next line that starts with ``[`` (or the end). Every
other part of the file (its other tables, and any node table written another way) is
left for the TOML parser, with each run of plain blocks cut down to one ``[[node]]``
header line (blank lines mean nothing to TOML outside multi-line strings; the parser's
line numbers are not the file's, but an error it finds there is never reported: the
whole file is then read again the usual way, which names the line). The parser must
then see exactly one empty table per run, and no more node tables than the
``[[node]]`` header lines found here; anything else, or a file with a multi-line string
(in which a header line could hide), reads the whole file the usual way. Why that is
safe: without multi-line strings, a line that is exactly ``[[node]]`` is either a table
header or (inside a multi-line array) a syntax error, which the parser then finds at
the header kept in the run's place. Lines are told apart by their first bytes (8 at a
time, as one integer), and each distinct value text is checked and read once.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np

from viewer.io.distinct import distinct_rows
from viewer.spans import aranges

__all__ = ["PlainNodes", "merge_plain", "split_plain", "spread"]

_HEADER = b"[[node]]"
#: Files with shorter lines on average are left to the parser (and its density rule):
#: the arrays here cost about 70 bytes a line (a --save file has about 19 bytes a line).
MIN_BYTES_PER_LINE = 8
#: The keys of a plain block, with their prefixes; strings first, then numbers.
_STRINGS = ("name", "parent", "mesh", "color")
_CODED = ("mesh", "color")  # few distinct values, short
_VECTORS = ("position", "rotation")  # three numbers
_SCALARS = ("scale", "size")  # three numbers, or one for all three
_KEYS = _STRINGS + _VECTORS + _SCALARS
_PREFIX = {k: f'{k} = "'.encode() if k in _STRINGS else f"{k} = ".encode() for k in _KEYS}
# TOML 1.0 numbers in the forms that read the same with Python's float(): no sign on
# zero (-0 is the integer 0), no '+', no '_', no inf or nan, an integer within 18 digits
_EXPONENT = r"[eE][-+]?[0-9]{1,4}"
_NUMBER = (
    rf"(?:0|-?[1-9][0-9]{{0,17}}"  # an integer
    rf"|-?(?:0|[1-9][0-9]{{0,30}})(?:\.[0-9]{{1,40}}(?:{_EXPONENT})?|{_EXPONENT}))"  # a float
)
_TRIPLE = rf"\[{_NUMBER}, {_NUMBER}, {_NUMBER}\]"
_VALUE = {"vector": re.compile(_TRIPLE), "scalar": re.compile(rf"{_TRIPLE}|{_NUMBER}")}
#: Bytes a plain string may not hold: controls (tab too), the quote, the backslash.
_UNSAFE = np.zeros(256, dtype=bool)
_UNSAFE[:32] = _UNSAFE[34] = _UNSAFE[92] = _UNSAFE[127] = True
_UNSAFE[10] = False  # newlines end lines: never inside a line
_SPANS = 1 << 16  # spans gathered at a time (the index arrays: ~16 bytes a byte)
_SAMPLE = 4096  # spans looked at to judge whether a column repeats its values
_NUMBER_BYTES = 96  # longer number values are read as text (12 words a row at most)


@dataclass
class PlainNodes:
    """The plain blocks' values, by their index among all the file's [[node]] tables.

    `strings[key]` and `numbers[key]`: one entry per row of `rows` (None, or a NaN row,
    where the block has no such line; a scale or size written as one number is held as
    three equal ones, as `F.vector_or_number` reads it)."""

    count: int  # the [[node]] header lines of the file, plain or not
    rows: np.ndarray  # (k,) indices among the [[node]] tables, increasing
    strings: dict[str, list[str | None]]
    numbers: dict[str, np.ndarray]  # (k, 3) float64; NaN where absent
    present: dict[str, np.ndarray]  # (k,) bool
    runs: list[int]  # per run of consecutive plain blocks, its number of blocks


def split_plain(text: str, data: bytes | None = None) -> tuple[str, PlainNodes] | None:
    """(the text left for the TOML parser, the plain blocks), or None when the file has
    no plain block or a shape this reader does not vouch for. `data`: the text's UTF-8
    bytes, where the caller has them (a file's); else the text is encoded here."""
    if data is None:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (text given in code): the parser says
            return None
    # (an ASCII character is the same one byte in UTF-8, never part of another's bytes)
    if _HEADER not in data or b'"""' in data or b"'''" in data:
        return None
    if data.count(b"\n") * MIN_BYTES_PER_LINE > len(data):
        return None  # a file of short lines: its arrays would cost more than it is worth
    padded = data + b"\n" + bytes(8)  # every line ends in a newline; 8 bytes to spare
    buf = np.frombuffer(padded, dtype=np.uint8, count=len(data) + 1)
    # the 8 bytes from each offset as one little-endian integer (a view: no copy)
    words = np.ndarray((buf.size,), dtype="<u8", buffer=padded, strides=(1,))
    stops = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], stops[:-1] + 1))
    length = stops - starts
    first = buf[starts]
    bracket = first == ord("[")
    segment = np.cumsum(bracket)  # line -> its segment (0: before the first '[' line)
    heads = np.flatnonzero(bracket)
    is_node = _matches(words, starts[heads], length[heads], _HEADER, exact=True)
    plain_seg = np.zeros(heads.size + 1, dtype=bool)
    plain_seg[1:] = is_node
    if not is_node.any():
        return None

    # every line of a node segment: its header, an empty line or a key line
    in_node = plain_seg[segment] & ~bracket
    key_of = np.full(starts.size, -1, dtype=np.int8)
    key_of[in_node & (length == 0)] = len(_KEYS)  # empty
    lines = np.flatnonzero(in_node & (length > 0))
    head = words[starts[lines]]  # each line's first 8 bytes (one gather for all keys)
    hits = []  # each key's lines, in file order, and their segments
    for k, key in enumerate(_KEYS):
        prefix = _PREFIX[key]
        value = np.uint64(int.from_bytes(prefix[:8], "little"))
        if len(prefix) < 8:  # ('size = ': its 7 bytes alone)
            cand = lines[(head & np.uint64((1 << (8 * len(prefix))) - 1)) == value]
        else:
            cand = lines[head == value]
        if len(prefix) > 8:  # the rest of the prefix, on the candidates only
            cand = cand[
                _matches(words, starts[cand] + 8, length[cand] - 8, prefix[8:], exact=False)
            ]
        else:
            cand = cand[length[cand] > len(prefix)]
        key_of[cand] = k
        seg = segment[cand]
        plain_seg[seg[1:][seg[1:] == seg[:-1]]] = False  # the key twice in a block
        hits.append((cand, seg))
    bad = in_node & (key_of < 0)
    plain_seg[segment[bad]] = False

    # the values: strings with nothing to unescape, numbers in the plain forms
    values = {}
    for key, (rows, seg) in zip(_KEYS, hits, strict=True):
        begin = starts[rows] + len(_PREFIX[key])
        if key in _CODED:  # a mesh, a colour: a few distinct values, each decoded once
            coded = _coded_strings(buf, words, begin, stops[rows] - 1)
            good, read = coded or _strings(buf, begin, stops[rows] - 1)
        elif key in _STRINGS:
            good, read = _strings(buf, begin, stops[rows] - 1)  # up to the closing quote
        else:
            good, read = _numbers(buf, words, begin, stops[rows], key in _VECTORS)
        plain_seg[seg[~good]] = False
        values[key] = (seg, read)

    plain_seg[0] = False
    if not plain_seg.any():
        return None
    return _assemble(data, starts, segment, heads, is_node, plain_seg, values)


def _matches(words, starts, length, literal: bytes, *, exact: bool) -> np.ndarray:
    """Which lines (by start and length) are `literal` (`exact`) or start with it;
    `words`: the 8 bytes at each offset, compared 8 at a time."""
    size = len(literal)
    ok = (length == size) if exact else (length > size)
    for at in range(0, size, 8):
        part = literal[at : at + 8]
        mask = np.uint64((1 << (8 * len(part))) - 1)
        cand = np.flatnonzero(ok)
        ok[cand] = (words[starts[cand] + at] & mask) == np.uint64(int.from_bytes(part, "little"))
    return ok


def _gather(buf: np.ndarray, begin: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The bytes [begin, end] of `buf` (each span with the byte that ends it), one after
    the other; a few thousand spans at a time, to keep the index arrays small."""
    out = []
    for at in range(0, begin.size, _SPANS):
        out.append(buf[aranges(begin[at : at + _SPANS], end[at : at + _SPANS] + 1)])
    return np.concatenate(out) if out else np.zeros(0, dtype=np.uint8)


def _coded_strings(buf, words, begin: np.ndarray, end: np.ndarray) -> tuple | None:
    """`_strings` for a column of short values with few distinct ones (else None): each
    distinct one is checked and decoded once, and its rows share its string."""
    codes = _span_codes(words, begin, end, max_bytes=16)
    if codes is None:
        return None
    first, which = codes
    texts, fine = [], []
    for b, e in zip(begin[first].tolist(), end[first].tolist()):
        raw = buf[b:e]
        fine.append(not _UNSAFE[raw].any())
        texts.append(raw.tobytes().decode("utf-8", "replace"))  # (a bad one goes unused)
    good = (buf[end] == 34) & np.array(fine, dtype=bool)[which]
    return good, np.array(texts, dtype=object)[which].tolist()


def _span_codes(words, begin: np.ndarray, end: np.ndarray, max_bytes: int) -> tuple | None:
    """(the first span of each distinct byte content of the spans [begin, end), each
    span's index into those), or None where a span is longer than `max_bytes` or most
    of them differ (judged on the first few thousand): the spans as rows of integers,
    8 bytes each and the length, grouped by `distinct_rows`."""
    size = end - begin
    if not size.size or size.max() > max_bytes:
        return None
    head = size[:_SAMPLE]
    sample = np.stack([words[begin[:_SAMPLE]] & _masks(head), head.astype(np.uint64)], 1)
    if distinct_rows(sample)[0].size * 2 > head.size:  # mostly distinct: no gain here
        return None
    columns = [size.astype(np.uint64)]
    for at in range(0, int(size.max()), 8):
        column = words[np.minimum(begin + at, words.size - 1)]  # (masked out past the span)
        columns.append(column & _masks(np.clip(size - at, 0, 8)))
    first, which = distinct_rows(np.stack(columns, axis=1))
    return None if first.size * 2 > size.size else (first, which)


def _masks(count: np.ndarray) -> np.ndarray:
    """Per row, the mask that keeps the low `count` bytes (0 to 8) of a 64-bit word."""
    bits = np.minimum(count, 7).astype(np.uint64) * np.uint64(8)
    return np.where(
        count >= 8, np.uint64(0xFFFFFFFFFFFFFFFF), (np.uint64(1) << bits) - np.uint64(1)
    )


def _strings(buf: np.ndarray, begin: np.ndarray, end: np.ndarray) -> tuple:
    """(which spans [begin, end) are plain strings closed by a quote at `end`, the
    strings); a string is plain when it holds no quote, backslash or control."""
    gathered = _gather(buf, begin, end)
    closing = np.cumsum(end - begin + 1) - 1  # where each span's closing byte landed
    good = gathered[closing] == 34 if closing.size else np.ones(0, dtype=bool)
    unsafe = np.flatnonzero(_UNSAFE[gathered])
    span = np.searchsorted(closing, unsafe)
    good[span[closing[span] != unsafe]] = False
    text = gathered.tobytes().decode("utf-8")
    if good.all():
        return good, text.split('"')  # each string ends at its closing quote
    ends = np.cumsum(end - begin + 1).tolist()  # else cut at the span ends, not at quotes
    return good, [
        gathered[a : b - 1].tobytes().decode("utf-8") for a, b in zip([0, *ends[:-1]], ends)
    ]


def _numbers(buf, words, begin: np.ndarray, end: np.ndarray, vector: bool) -> tuple:
    """`_number_texts`, on each distinct span alone where few of them are distinct (a
    chain repeats its offset and turn: no string is made per row)."""
    codes = _span_codes(words, begin, end, max_bytes=_NUMBER_BYTES)
    if codes is None:
        return _number_texts(buf, begin, end, vector)
    first, which = codes
    good, read = _number_texts(buf, begin[first], end[first], vector)
    return good[which], read[which]


def _number_texts(buf: np.ndarray, begin: np.ndarray, end: np.ndarray, vector: bool) -> tuple:
    """(which spans [begin, end) (`end`: the line's newline) hold a plain value: three
    numbers ``[a, b, c]``, or with `vector` False also one number for all three; the
    (k, 3) values, NaN in rows that are not plain)."""
    read = np.full((begin.size, 3), np.nan)
    good = np.ones(begin.size, dtype=bool)
    if not begin.size:
        return good, read
    text = _gather(buf, begin, end).tobytes().decode("utf-8")
    lines = text.split("\n")[:-1]
    # each distinct value checked and read once (nodes often share an offset, a size)
    distinct = list(dict.fromkeys(lines))
    pattern = _VALUE["vector" if vector else "scalar"]
    whole = re.compile(rf"(?:(?:{pattern.pattern})\n)*+")
    if whole.fullmatch("".join(value + "\n" for value in distinct)) is None:
        plain = {value: pattern.fullmatch(value) is not None for value in distinct}
        good[:] = list(map(plain.__getitem__, lines))  # some value is not plain: which
        distinct = [value for value in distinct if plain[value]]
        lines = list(itertools.compress(lines, good.tolist()))
    slot = dict(zip(distinct, range(len(distinct))))
    which = np.fromiter(map(slot.__getitem__, lines), np.int64, len(lines))
    read[good] = _values(distinct)[which]
    return good, read


def _values(lines: list[str]) -> np.ndarray:
    """(k, 3) floats of plain values, each ``[a, b, c]`` or one number for all three."""
    if not lines:
        return np.zeros((0, 3))
    tokens = "\n".join(lines).replace("[", "").replace("]", "").replace(", ", "\n").split("\n")
    numbers = np.fromiter(map(float, tokens), dtype=np.float64, count=len(tokens))
    triple = np.fromiter((line[0] == "[" for line in lines), dtype=bool, count=len(lines))
    width = np.where(triple, 3, 1)
    offset = np.cumsum(width) - width
    return numbers[offset[:, None] + np.where(triple[:, None], np.arange(3), 0)]


def _assemble(data, starts, segment, heads, is_node, plain_seg, values) -> tuple:
    """The text with each run of plain blocks cut to one header, and the columns."""
    node_segs = np.flatnonzero(is_node) + 1  # segment ids of the [[node]] segments
    plain_nodes = plain_seg[node_segs]
    rows = np.flatnonzero(plain_nodes)  # index among the node tables
    plain_ids = node_segs[plain_nodes]
    # runs: consecutive segment ids; each becomes one '[[node]]' line
    breaks = np.flatnonzero(np.diff(plain_ids) != 1) + 1
    run_first = plain_ids[np.concatenate(([0], breaks))]
    run_last = plain_ids[np.concatenate((breaks - 1, [plain_ids.size - 1]))]
    first_line = heads[run_first - 1]
    after = np.append(heads, starts.size)[run_last]  # the line after the run's last
    pieces, cursor = [], 0
    for a, b in zip(first_line.tolist(), after.tolist()):
        pieces.append(data[cursor : int(starts[a])])
        pieces.append(_HEADER)  # (the newline that ends the run's last line follows)
        cursor = int(starts[b]) - 1 if b < starts.size else len(data)
    pieces.append(data[cursor:])
    rest = b"".join(pieces).decode("utf-8")

    slot = np.full(segment[-1] + 1, -1, dtype=np.int64)
    slot[plain_ids] = np.arange(plain_ids.size)
    k = plain_ids.size
    strings, numbers, present = {}, {}, {}
    for key, (seg, read) in values.items():
        where = slot[seg]
        keep = where >= 0
        at = where[keep]  # increasing: one line of a key in a plain block
        present[key] = np.zeros(k, dtype=bool)
        present[key][at] = True
        every = keep.all()
        if key in _STRINGS:
            kept = read[: keep.size] if every else list(itertools.compress(read, keep.tolist()))
            strings[key] = spread(kept, at, k)
        elif at.size == k:  # a line in every block: the rows as read
            numbers[key] = read if every else read[keep]
        else:
            numbers[key] = np.full((k, 3), np.nan)
            numbers[key][at] = read[keep]
    runs = np.diff(np.concatenate((np.searchsorted(plain_ids, run_first), [k]))).tolist()
    return rest, PlainNodes(int(node_segs.size), rows, strings, numbers, present, runs)


def spread(values: list, at: np.ndarray, size: int) -> list:
    """A list of `size` items: `values` at the increasing positions `at`, None elsewhere
    (copied a run of consecutive positions at a time)."""
    if at.size == size:  # every position
        return values
    out: list = [None] * size
    if not at.size:
        return out
    breaks = np.flatnonzero(np.diff(at) != 1) + 1
    firsts = np.concatenate(([0], breaks)).astype(np.int64)
    lasts = np.concatenate((breaks, [at.size])).astype(np.int64)
    for first, last, to in zip(firsts.tolist(), lasts.tolist(), at[firsts].tolist()):
        out[to : to + last - first] = values[first:last]
    return out


def merge_plain(tables: object, plain: PlainNodes) -> list | None:
    """The file's node items: the parser's `tables` (the doc's ``node`` value, read from
    the text `split_plain` left) with None at each plain row; None when the parser did
    not see one empty table for each run and one table for each other [[node]] header."""
    k = plain.rows.size
    if type(tables) is not list or len(tables) != plain.count - k + len(plain.runs):
        return None
    items: list = [None] * plain.count
    others = np.ones(plain.count, dtype=bool)
    others[plain.rows] = False
    run_rows = plain.rows[np.concatenate(([0], np.cumsum(plain.runs)[:-1]))]
    # a run's empty table comes after the tables of the other nodes before it
    before = run_rows - np.searchsorted(plain.rows, run_rows) + np.arange(len(plain.runs))
    placeholder = np.zeros(len(tables), dtype=bool)
    placeholder[before] = True
    if any(type(tables[i]) is not dict or tables[i] for i in before.tolist()):
        return None
    rest = [t for t, skip in zip(tables, placeholder.tolist(), strict=True) if not skip]
    for row, table in zip(np.flatnonzero(others).tolist(), rest, strict=True):
        items[row] = table
    return items
