"""The one error type the scene loaders raise, and the helpers that build its message.

Every problem with a scene file, whatever its kind (unreadable bytes, bad TOML, a field of
the wrong type, a cycle, a glTF buffer that is too short), surfaces as a `SceneError`: a
`ValueError` whose text is a single line naming the file, the line when it is known, the
node (or section) and the field, and what was expected::

    scenes/bad.toml:12: node 'Obj3', field 'position': expected 3 numbers, got 2

The parts are also available as attributes, so the viewer can show them separately.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from ..errors import SgviewError
from ..text import MAX_MESSAGE, one_line, printable, quoted, shorten

__all__ = ["ErrorPlace", "SceneError", "decode_utf8", "describe"]


class ErrorPlace(TypedDict, total=False):
    """Where a `SceneError` points but its field, kept to raise several from:
    ``SceneError(reason, **place, field=...)``."""

    file: str | Path | None
    line: int | None
    node: str | None
    section: str | None


class SceneError(SgviewError, ValueError):
    """A scene that cannot be loaded, with where and why.

    Parameters
    ----------
    reason : str
        What is wrong, phrased as what was expected and what was found.
    file : str or Path, optional
        The file, as the user named it.
    line : int, optional
        1-based line in `file`, when the parser can tell it.
    node : str, optional
        Name of the node the problem belongs to.
    field : str, optional
        Dotted field name inside the node or section (``"motion.spin.axis"``).
    section : str, optional
        Where the problem is when it is not a node (``"camera"``, ``"event 2"``).
    """

    def __init__(
        self,
        reason: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        node: str | None = None,
        field: str | None = None,
        section: str | None = None,
    ) -> None:
        self.reason = one_line(reason, MAX_MESSAGE // 2)
        self.file = None if file is None else str(file)
        self.line = line
        self.node = node
        self.field = field
        self.section = section
        super().__init__(self._message())

    def _message(self) -> str:
        where = ""
        if self.file is not None:
            where = printable(self.file, 120)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        parts = []
        if self.node is not None:
            parts.append(f"node {quoted(self.node)}")
        elif self.section is not None:
            parts.append(one_line(self.section, 80))
        if self.field is not None:
            parts.append(f"field {quoted(self.field)}")
        context = ", ".join(parts)
        if context:
            context += ": "
        return shorten(f"{where}{context}{self.reason}", MAX_MESSAGE)

    def __reduce__(self):  # keep the keyword-only fields through pickling
        return (
            _rebuild,
            (self.reason, self.file, self.line, self.node, self.field, self.section),
        )


def _rebuild(reason, file, line, node, field, section) -> SceneError:
    return SceneError(reason, file=file, line=line, node=node, field=field, section=section)


def describe(value: object) -> str:
    """Say briefly what a value is, for "expected X, got Y" messages."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string ({quoted(value)})"
    if isinstance(value, int) and abs(value) > 10**30:
        return "a very large integer"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return f"a {type(value).__name__}"


#: The byte order mark a UTF-8 file may start with (JSON readers skip it; TOML has none).
UTF8_BOM = b"\xef\xbb\xbf"


def decode_utf8(
    data: bytes, what: str, display: str | Path, *, start: int = 0, bom: bool = False
) -> str:
    """`data` (`what`: "the file", "the JSON chunk", ..., which starts `start` bytes into
    the file `display`) as text; a leading byte order mark is skipped where `bom`. Bytes
    that are not UTF-8 raise one SceneError for every reader alike: the file, the line,
    and the first bad byte's offset in the file, its value and why it is not UTF-8."""
    skip = len(UTF8_BOM) if bom and data[: len(UTF8_BOM)] == UTF8_BOM else 0
    try:
        return bytes(data[skip:]).decode("utf-8")
    except UnicodeDecodeError as exc:
        at = skip + exc.start
        line = bytes(data[:at]).count(b"\n") + 1
        raise SceneError(
            f"{what} is not UTF-8 text: byte {start + at:,} (0x{data[at]:02X}): {exc.reason}",
            file=display,
            line=line,
        ) from None
