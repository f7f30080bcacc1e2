"""Text that is safe to print: one line, no control characters, bounded length.

Names, titles and paths are data: a name may hold any Unicode text, and it is kept and
saved exactly. Printed raw, though, some characters could rewrite the terminal, forge
log lines or disguise one name as another; so every such string goes through
`printable` (or `quoted`) before it reaches stdout, stderr, the panel, the names over
nodes or the window title. Exception texts (a shader log, an OS error) go through
`one_line`. This module imports nothing from the package.

What `printable` escapes (docs/api.md, "Names", cites this rule): every character for
which Python's ``str.isprintable()`` is false, that is the Unicode categories Cc (C0 and
C1 controls, DEL), Cf (format characters: bidi embeddings, overrides, isolates and
marks, zero-width spaces and joiners, the byte-order mark, the soft hyphen, tags), Cs
(lone surrogates), Co (private use), Cn (unassigned in this Python's Unicode database),
Zl and Zp (line and paragraph separators) and Zs other than the ASCII space (no-break and
other spaces, which pass for a space). Each becomes ``\\n``, ``\\r``, ``\\t``,
``\\xHH``, ``\\uHHHH`` or ``\\UHHHHHHHH``; everything else is shown as it is, a backslash
included (messages quote Python reprs and paths), so distinct texts print distinctly
except where a text spells out an escape itself.
"""

from __future__ import annotations

__all__ = [
    "MAX_MESSAGE",
    "MAX_NAME",
    "brief",
    "closest_name",
    "one_line",
    "printable",
    "quoted",
    "shorten",
]

#: The longest error message printed (characters); longer ones are cut in the middle.
MAX_MESSAGE = 400
#: The longest untrusted name shown inside a message, a log line or the panel.
MAX_NAME = 80

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def shorten(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, keeping its start and end around '...'."""
    if len(text) <= limit:
        return text
    if limit < 8:
        return text[:limit]
    head = (limit - 3) * 2 // 3
    tail = limit - 3 - head
    return text[:head] + "..." + text[len(text) - tail :]


def printable(text: object, limit: int | None = MAX_NAME) -> str:
    """`text` with every character that cannot be printed safely escaped visibly (the
    rule in this module's notes: ESC as ``\\x1b``, a line break as ``\\n``, a bidi
    override as ``\\u202e``, ...), then shortened to `limit` characters (no limit with
    None)."""
    text = str(text)
    if limit is not None and len(text) > 4 * limit:  # do not escape megabytes to cut them
        text = text[: 2 * limit] + text[-2 * limit :]
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else _escape(ch) for ch in text)
    return text if limit is None else shorten(text, limit)


def quoted(text: object, limit: int = MAX_NAME) -> str:
    """`printable(text)` in single quotes, for naming a node or a file in a message."""
    return f"'{printable(text, limit - 2)}'"


def one_line(text: object, limit: int = MAX_MESSAGE) -> str:
    """A message on one line: runs of whitespace (line breaks included) become one space,
    other control characters are escaped, and the result is at most `limit` characters."""
    text = str(text)
    if len(text) > 4 * limit:
        text = text[: 2 * limit] + " " + text[-2 * limit :]
    return printable(" ".join(text.split()), limit)


def brief(exc: BaseException, limit: int = 160) -> str:
    """An unexpected exception as ``Type: message`` on one short line."""
    return one_line(f"{type(exc).__name__}: {exc}", limit)


#: Beyond this many names `closest_name` only looks for a difference of case (a fuzzy
#: search over every name of a huge scene would keep an error waiting for seconds).
FUZZY_NAMES_MAX = 20_000


def closest_name(given: str, names) -> str | None:
    """The name in `names` the user most likely meant by `given` (not itself among them):
    the one that differs only in case, else the closest spelling (difflib); None when
    nothing is close."""
    import difflib

    names = list(names)
    lower = given.lower()
    same = [name for name in names if name.lower() == lower]
    if same:
        return same[0]
    if len(names) > FUZZY_NAMES_MAX:
        return None
    close = difflib.get_close_matches(given, names, n=1, cutoff=0.6)
    return close[0] if close else None
