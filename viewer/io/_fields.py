"""Checked conversion of parsed TOML values, and finding the line a value came from.

Every checker takes a `Where` (file, line finder, node or section) and raises `SceneError`
naming the field and what was expected. Nothing here trusts the type of its input: the
loader feeds it whatever the file holds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeGuard, overload

from viewer.io.errors import SceneError, describe

from ..scene.math import quat_from_euler, quat_to_euler

__all__ = ["Locator", "Where", "quat_from_euler", "quat_to_euler"]

# --------------------------------------------------------------------------- line finding
# One pass, no backtracking: the name is everything up to the first "]" (spaces and quotes
# are stripped afterwards). A lazy name group between optional blanks took cubic time on a
# line of spaces inside a multi-line string, so a 10 kB file hung the loader.
_HEADER = re.compile(r"^[ \t]*(\[\[?)([^\[\]#]*)\]")


def _key_pattern(key: str) -> re.Pattern:
    k = re.escape(key)
    return re.compile(rf"""^[ \t]*(?:{k}|"{k}"|'{k}')[ \t]*[=.]""")


class Locator:
    """Best-effort map from a place in the parsed document back to a line of the text.

    tomllib does not report positions for values, so this scans the text: the k-th
    ``[[node]]`` header is the k-th node (when the name given in it matches; otherwise the
    line holding ``name = "..."`` is used), and a field is the first line of that table
    that starts with the field's key. Headers inside multi-line strings or nodes written
    as inline tables can fool it; then the message gives the node's line or no line.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: list[str] | None = None
        self._headers: list[tuple[int, bool, str]] = []

    # Built on the first error only: the lines and headers of a large file cost more
    # memory than its nodes, and a file that loads never needs them.
    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self._text.split("\n")
            for i, line in enumerate(self._lines):
                m = _HEADER.match(line)
                if m:
                    name = re.sub(r"[ \t\"']", "", m.group(2))
                    self._headers.append((i, m.group(1) == "[[", name))
        return self._lines

    @property
    def headers(self) -> list[tuple[int, bool, str]]:
        """(line index, is an array table, dotted name) of every table header."""
        self.lines  # noqa: B018 - builds both
        return self._headers

    # -- blocks of lines belonging to one table
    def _block(self, section: str, index: int | None) -> tuple[int, int] | None:
        """Line range [start, end) of the table `section` (the index-th when an array)."""
        count = -1
        for h, (i, is_array, name) in enumerate(self.headers):
            if name != section or (index is not None) != is_array:
                continue
            count += 1
            if index is not None and count != index:
                continue
            end = len(self.lines)
            for j, is_arr2, name2 in self.headers[h + 1 :]:
                if not is_arr2 and name2.startswith(section + "."):
                    continue  # a sub-table of this table
                end = j
                break
            return i, end
        return None

    def _top_block(self) -> tuple[int, int]:
        end = self.headers[0][0] if self.headers else len(self.lines)
        return 0, end

    def find(
        self,
        section: str | None,
        index: int | None = None,
        field: Sequence[str] = (),
        name: str | None = None,
    ) -> int | None:
        """1-based line of `field` in the table `section` (index-th of an array), or None."""
        if section is None:
            return self._top_key(field[0]) if field else None
        else:
            block = self._block(section, index)
            if block is not None and name is not None and not self._has_name(block, name):
                block = None
            if block is None and name is not None:
                block = self._block_by_name(name)
            if block is None:
                return self._top_key(section)
        start, end = block
        if field:
            line = self._field_line(section, field, start, end)
            if line is not None:
                return line + 1
        return start + 1 if section is not None else None

    def _has_name(self, block: tuple[int, int], name: str) -> bool:
        pat = _key_pattern("name")
        return any(pat.match(line) and name in line for line in self.lines[block[0] : block[1]])

    def _block_by_name(self, name: str) -> tuple[int, int] | None:
        pat = _key_pattern("name")
        quoted = (f'"{name}"', f"'{name}'")
        for i, line in enumerate(self.lines):
            if pat.match(line) and any(q in line for q in quoted):
                return i, i + 1
        return None

    def _top_key(self, key: str) -> int | None:
        """Line of a top-level key or table header named `key`."""
        for i, _is_array, name in self.headers:
            if name == key or name.startswith(key + "."):
                return i + 1
        start, end = self._top_block()
        pat = _key_pattern(key)
        for i in range(start, end):
            if pat.match(self.lines[i]):
                return i + 1
        return None

    def _field_line(self, section: str | None, field: Sequence[str], start: int, end: int):
        # a sub-table header naming the field path, then the last key below it
        if section is not None and len(field) > 1:
            for k in range(len(field) - 1, 0, -1):
                dotted = ".".join([section, *field[:k]])
                for i, is_array, name in self.headers:
                    if start <= i < end and not is_array and name == dotted:
                        pat = _key_pattern(field[k])
                        sub_end = next((j for j, _a, _n in self.headers if j > i), end)
                        for j in range(i + 1, min(sub_end, end)):
                            if pat.match(self.lines[j]):
                                return j
                        return i
        pat = _key_pattern(field[0])
        for i in range(start, end):
            if pat.match(self.lines[i]):
                return i
        return None


# --------------------------------------------------------------------------- value checks
@dataclass
class Where:
    """Where a value sits, for the errors about it. `index` counts tables of one array."""

    file: str
    locator: Locator | None
    section: str | None = None  # "node", "event", "camera", "scene", None (top level)
    index: int | None = None
    node: str | None = None  # node name, for node tables
    label: str | None = None  # "event 2", "camera", ...

    def error(self, field: str | Sequence[str] | None, reason: str) -> SceneError:
        parts = [field] if isinstance(field, str) else list(field or ())
        line = None
        if self.locator is not None:
            try:
                line = self.locator.find(self.section, self.index, parts, self.node)
            except Exception:  # the locator is a best effort; never let it mask the error
                line = None
        return SceneError(
            reason,
            file=self.file,
            line=line,
            node=self.node,
            field=".".join(parts) if parts else None,
            section=None if self.node is not None else self.label,
        )


def is_number(value: object) -> TypeGuard[int | float]:
    """An int or a float, not a bool (TOML and JSON both hand bools over as ints)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def number(where: Where, field, value: object, *, what: str = "a number") -> float:
    """A finite float."""
    if not is_number(value):
        raise where.error(field, f"expected {what}, got {describe(value)}")
    try:
        out = float(value)
    except OverflowError:
        raise where.error(field, f"expected {what}, got a number too large") from None
    if not math.isfinite(out):
        raise where.error(field, f"expected a finite number, got {_non_finite(out)}")
    return out


def _non_finite(x: float) -> str:
    """What the file said, as far as the parsed value tells: tomllib reads both ``inf``
    and ``1e400`` as infinity, so the message must not claim the file says "inf"."""
    if math.isnan(x):
        return "nan"
    sign = "-" if x < 0 else ""
    return f"{sign}inf (or a number beyond {sign}1.8e308)"


def positive(where: Where, field, value: object, *, what: str = "a positive number") -> float:
    out = number(where, field, value, what=what)
    if not out > 0:
        raise where.error(field, f"expected {what}, got {value!r}")
    return out


@overload
def vector(where: Where, field, value: object, n: Literal[3]) -> tuple[float, float, float]: ...
@overload
def vector(
    where: Where, field, value: object, n: Literal[4]
) -> tuple[float, float, float, float]: ...
@overload
def vector(where: Where, field, value: object, n: int) -> tuple[float, ...]: ...
def vector(where: Where, field, value: object, n: int) -> tuple[float, ...]:
    """A list of exactly `n` finite numbers."""
    if not isinstance(value, list):
        raise where.error(field, f"expected {n} numbers, got {describe(value)}")
    if len(value) != n:
        raise where.error(field, f"expected {n} numbers, got {len(value)}")
    out = []
    for i, item in enumerate(value):
        if not is_number(item):
            raise where.error(field, f"expected {n} numbers, item {i} is {describe(item)}")
        try:
            x = float(item)
        except OverflowError:
            raise where.error(field, f"item {i} is a number too large") from None
        if not math.isfinite(x):
            raise where.error(field, f"expected finite numbers, item {i} is {_non_finite(x)}")
        out.append(x)
    return tuple(out)


@overload
def vector_or_number(
    where: Where, field, value: object, n: Literal[3] = 3
) -> tuple[float, float, float]: ...
@overload
def vector_or_number(where: Where, field, value: object, n: int) -> tuple[float, ...]: ...
def vector_or_number(where: Where, field, value: object, n: int = 3) -> tuple[float, ...]:
    """A list of `n` numbers, or one number used for all of them."""
    if is_number(value):
        x = number(where, field, value)
        return (x,) * n
    if not isinstance(value, list):
        raise where.error(field, f"expected a number or {n} numbers, got {describe(value)}")
    return vector(where, field, value, n)


def string(where: Where, field, value: object, *, what: str = "a string") -> str:
    if not isinstance(value, str):
        raise where.error(field, f"expected {what}, got {describe(value)}")
    return value


def table(where: Where, field, value: object) -> dict:
    if not isinstance(value, dict):
        raise where.error(field, f"expected a table, got {describe(value)}")
    return value


def check_keys(where: Where, value: dict, allowed: Sequence[str], prefix: Sequence[str] = ()):
    """Refuse keys outside `allowed`, naming the first unknown one and the allowed ones."""
    for key in value:
        if key not in allowed:
            raise where.error(
                [*prefix, str(key)],
                f"unknown key {str(key)!r}; expected one of: {', '.join(allowed)}",
            )


_HEX = re.compile(r"^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")


def color(where: Where, field, value: object) -> tuple[float, float, float]:
    """``"#rrggbb"``, ``"#rgb"`` or ``[r, g, b]`` in 0..1."""
    if isinstance(value, str):
        m = _HEX.match(value)
        if not m:
            raise where.error(field, f"expected a colour like '#4c72b0', got {value!r}")
        digits = m.group(1)
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        r, g, b = (int(digits[i : i + 2], 16) / 255.0 for i in (0, 2, 4))
        return r, g, b
    if not isinstance(value, list):
        raise where.error(
            field, f"expected a colour ('#rrggbb' or [r, g, b] in 0..1), got {describe(value)}"
        )
    rgb = vector(where, field, value, 3)
    if any(not 0.0 <= c <= 1.0 for c in rgb):
        raise where.error(field, f"expected colour components in 0..1, got {list(rgb)}")
    return rgb


# --------------------------------------------------------------------------- rotations
def unit_quaternion(where: Where, field, value: object) -> tuple[float, float, float, float]:
    q = vector(where, field, value, 4)
    norm = math.sqrt(sum(c * c for c in q))
    if not norm > 1e-12 or not math.isfinite(norm):
        raise where.error(field, f"expected a non-zero quaternion [x, y, z, w], got {list(q)}")
    x, y, z, w = q
    return x / norm, y / norm, z / norm, w / norm
