"""Cheap checks on TOML text before the TOML parser reads it.

A parser's cost is not linear in every input. In Python's tomllib a key of k dotted
parts costs O(k²) time and memory (a 60 kB key ``a.a.a…`` takes 20 s and 3.4 GB), and
deeply nested empty arrays cost about 44 bytes of memory per byte of text; toml_rs, the
compiled parser sgview uses, overflows its stack on a few thousand nested brackets and
ends the process. The scene format needs neither: its
deepest key is ``motion.spin.axis`` and its deepest value three levels of brackets. So
before parsing, with the strings and comments blanked out, the text may hold no dotted
key of more than `MAX_KEY_PARTS` parts and no brackets nested deeper than `MAX_NESTING`.
The whole scan is a few regular-expression passes and one chunked numpy pass: linear,
and small next to the parse itself.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = [
    "MAX_ANY_SHAPE_BYTES",
    "MAX_KEY_PARTS",
    "MAX_NESTING",
    "MAX_TOML_BYTES",
    "MIN_BYTES_PER_VALUE",
    "blanked",
    "density_problem",
    "sparse_at_a_glance",
    "toml_problem",
]

#: The largest scene file read (checked on disk, before reading): a 1,000,000-node file
#: written by --save is about 175 MB (170 to 200 bytes a node).
MAX_TOML_BYTES = 256 * 1024 * 1024
#: Files up to this size are read whatever their shape: once the checks below hold,
#: loading costs at most about 90 bytes of memory per byte of TOML (the smallest nodes,
#: about 1.6 KB each; a file of richer nodes about 20), measured in
#: tests/io/test_toml_memory.py.
MAX_ANY_SHAPE_BYTES = 32 * 1024 * 1024
#: A larger file must hold no more values than a scene needs: at least this many bytes
#: per value on average (a value counted by its ``=``, ``,``, ``[`` or ``{``; files that
#: --save writes have 11 to 15). The costliest shapes (``{},{},...``: 3 bytes a value,
#: ~270 bytes of memory each) would cost 90 bytes per byte; at 8 bytes a value they cost
#: at most ~35, next to the ~21 of a --save file.
MIN_BYTES_PER_VALUE = 8
#: The most parts a dotted key may have (``a.b.c`` has 3).
MAX_KEY_PARTS = 16
#: The deepest nesting of ``[`` and ``{`` (a ``[[node]]`` header counts 2).
MAX_NESTING = 16

# Strings (multi-line first; a closing delimiter may carry up to two extra quotes) and
# comments. Possessive repeats: no backtracking, so the scan stays linear.
_BLANKED = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*+"{3,5}'
    r"|'''.*?'{3,5}"
    r'|"(?:[^"\\\n]|\\.)*+"'
    r"|'[^'\n]*+'"
    r"|#[^\n]*+",
    re.S,
)
_PART = r'(?:[A-Za-z0-9_-]++|"")'
_LONG_KEY = re.compile(rf"(?<![A-Za-z0-9_-]){_PART}(?:[ \t]*+\.[ \t]*+{_PART}){{{MAX_KEY_PARTS},}}")
#: The start of each line with at least `MAX_KEY_PARTS` dots: only those can hold a
#: key that long (found without splitting the text into lines).
_DOTTED_LINE = re.compile(rf"^(?:[^\n.]*+\.){{{MAX_KEY_PARTS}}}", re.M)
_CHUNK = 1 << 20


def blanked(text: str) -> str:
    """`text` with every string and comment made ``""``: what both checks below read
    (made once and handed to both, it is most of their cost on a large file)."""
    return _BLANKED.sub('""', text)


def density_problem(text: str, bare: str | None = None) -> str | None:
    """Why `text`, larger than `MAX_ANY_SHAPE_BYTES`, holds more values than a scene
    file needs (see `MIN_BYTES_PER_VALUE`); None when it is smaller, or sparse enough.
    `bare`: `blanked(text)`, when the caller has it."""
    size = len(text.encode("utf-8", "surrogatepass")) if len(text) > MAX_ANY_SHAPE_BYTES else 0
    if size <= MAX_ANY_SHAPE_BYTES:
        return None
    bare = blanked(text) if bare is None else bare
    values = sum(bare.count(c) for c in "=,[{")
    if values * MIN_BYTES_PER_VALUE <= size:
        return None
    return (
        f"a scene file over {MAX_ANY_SHAPE_BYTES >> 20} MB must average at least "
        f"{MIN_BYTES_PER_VALUE} bytes per value; this one has {values:,} values in "
        f"{size:,} bytes (a file --save writes has 11 or more)"
    )


def sparse_at_a_glance(text: str, encoded: bytes | None = None) -> bool:
    """True when `density_problem` surely finds nothing: the text is small, or its values
    counted with the strings and comments in (more than it really holds) are few enough.
    Cheap: no blanking. `encoded`: the text's UTF-8 bytes, where the caller has them."""
    if len(text) * 4 <= MAX_ANY_SHAPE_BYTES:  # UTF-8: at most 4 bytes a character
        return True
    if encoded is None:
        encoded = text.encode("utf-8", "surrogatepass")
    size = len(encoded)  # (the counted characters are ASCII: one byte each in UTF-8)
    return size <= MAX_ANY_SHAPE_BYTES or (
        sum(encoded.count(c) for c in (b"=", b",", b"[", b"{")) * MIN_BYTES_PER_VALUE <= size
    )


def toml_problem(text: str, bare: str | None = None) -> tuple[int, str] | None:
    """(line, why) when `text` holds a key or a nesting the parser would choke on, else
    None. `bare`: `blanked(text)`, when the caller has it."""
    found = _first_problem(blanked(text) if bare is None else bare)
    if found is None:
        return None
    # again with every newline kept, so that the offset gives the line (rare: slower)
    bare = _BLANKED.sub(lambda m: '""' + "\n" * m.group().count("\n"), text)
    offset, why = _first_problem(bare) or found
    return bare.count("\n", 0, offset) + 1, why


def _first_problem(bare: str) -> tuple[int, str] | None:
    for dotted in _DOTTED_LINE.finditer(bare):  # a key never spans lines
        start = dotted.start()
        end = bare.find("\n", start)
        m = _LONG_KEY.search(bare, start, len(bare) if end < 0 else end)
        if m:
            parts = m.group().count(".") + 1
            return m.start(), f"a dotted key of {parts} or more parts (at most {MAX_KEY_PARTS})"
    deep = _too_deep(bare)
    if deep is not None:
        return deep, f"values nested too deeply (over {MAX_NESTING} levels of brackets)"
    return None


def _too_deep(bare: str) -> int | None:
    """Offset in `bare` where ``[``/``{`` nesting first exceeds `MAX_NESTING`, or None."""
    data = bare.encode("utf-8", "surrogatepass")
    depth = 0
    for start in range(0, len(data), _CHUNK):
        count = min(_CHUNK, len(data) - start)
        chunk = np.frombuffer(data, dtype=np.uint8, count=count, offset=start)
        step = ((chunk == 91) | (chunk == 123)).astype(np.int32)  # [ {
        step -= (chunk == 93) | (chunk == 125)  # ] }
        levels = depth + np.cumsum(step, dtype=np.int32)
        over = np.flatnonzero(levels > MAX_NESTING)
        if over.size:
            byte = start + int(over[0])
            return len(data[:byte].decode("utf-8", "surrogatepass"))
        if levels.size:
            depth = int(levels[-1])
    return None
