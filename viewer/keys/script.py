"""Scripted input: keys and clicks at given frames, the same in a window and headless.

A key spec lists comma-separated items ``NAME@F`` (press NAME before frame F is drawn) or
``NAME@F-G`` (hold NAME from frame F to frame G, both included), for example
``"L@1-80,T@90,space@100,.@101"``. Key names are those of the key table
(`viewer.keys.controls.KEYS`), case-insensitive: ``Space``, ``.``, ``T``, ``H``, ``Shift+R``,
``Tab``, ``Home``, ``Esc``, ... A click spec is ``X,Y@F``: a left click at window pixel
(X, Y), from the top-left, before frame F. It picks in the 3D view as a mouse click does
(`SgviewApp.select_at`), also where a panel covers the view: scripts do not press the
panels' buttons (their actions are keys: Space, ., T, ...).

Frames count redraws from 1. Until the first pause that is the simulated frame number;
while paused, redraws go on but no frame is simulated, which is why ``space@100,.@101``
pauses before frame 100 and then steps frame 100 one redraw later.

Parsing has no GL and no window: `viewer.window.app.SgviewApp` plays a `KeyScript` through the
same handlers the keyboard and the mouse use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypeVar

from viewer.errors import SgviewError
from viewer.keys.controls import KEY_BY_NAME
from viewer.text import quoted

__all__ = ["KEY_NAMES", "KeyScript", "ScriptError", "parse_clicks", "parse_keys"]


#: The key names a script may use, as the key table spells them.
KEY_NAMES = tuple(KEY_BY_NAME)
_BY_LOWER = {name.lower(): name for name in KEY_NAMES}


#: Clicks beyond this window pixel are refused (no window is that large; a click at 1e39
#: would overflow the float32 picking maths).
MAX_CLICK_PIXEL = 100_000

_Item = TypeVar("_Item", str, tuple[float, float])  # a key name, or a click's pixel


class ScriptError(SgviewError, ValueError):
    """A key or click spec that does not parse (one line, naming the bad item)."""


@dataclass
class KeyScript:
    """What to do before each redraw: presses, releases and clicks, by frame number."""

    presses: dict[int, list[str]] = field(default_factory=dict)
    releases: dict[int, list[str]] = field(default_factory=dict)
    clicks: dict[int, list[tuple[float, float]]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.presses or self.releases or self.clicks)

    @property
    def last_frame(self) -> int:
        """The last frame at which the script does something (0: nothing)."""
        frames = [*self.presses, *self.clicks]
        return max(frames, default=0)

    def add(self, other: KeyScript) -> KeyScript:
        """This script and `other` together (in place; returns self)."""
        _join(self.presses, other.presses)
        _join(self.releases, other.releases)
        _join(self.clicks, other.clicks)
        return self


def _join(mine: dict[int, list[_Item]], theirs: dict[int, list[_Item]]) -> None:
    """Append each frame's items of ``theirs`` to that frame's in ``mine``."""
    for frame, items in theirs.items():
        mine.setdefault(frame, []).extend(items)


def _frames(text: str, item: str, what: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d{1,10})\s*(?:-\s*(\d{1,10})\s*)?", text)
    if not m or int(m[1]) < 1 or (m[2] is not None and int(m[2]) < int(m[1])):
        raise ScriptError(
            f"{what} {quoted(item)}: expected @F or @F-G with 1 <= F <= G (at most 10 digits)"
        )
    return int(m[1]), int(m[2] or m[1])


def parse_keys(spec: str) -> KeyScript:
    """``"L@1-80,T@90,space@100,.@101"`` -> a `KeyScript` (see the module notes)."""
    script = KeyScript()
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        name, sep, when = item.rpartition("@")
        if not sep:
            raise ScriptError(f"key {quoted(item)}: expected NAME@F or NAME@F-G")
        key = _BY_LOWER.get(name.strip().lower())
        if key is None:
            raise ScriptError(
                f"unknown key {quoted(name.strip())} in {quoted(item)}; "
                f"valid keys: {', '.join(KEY_NAMES)}"
            )
        first, last = _frames(when, item, "key")
        script.presses.setdefault(first, []).append(key)
        script.releases.setdefault(last + 1, []).append(key)
    return script


def parse_clicks(specs: list[str] | tuple[str, ...] | str) -> KeyScript:
    """``"X,Y@F"`` (or several) -> a `KeyScript` of left clicks."""
    script = KeyScript()
    for item in [specs] if isinstance(specs, str) else specs:
        where, sep, when = item.rpartition("@")
        m = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*,\s*(\d+(?:\.\d*)?)\s*", where)
        if not sep or not m:
            raise ScriptError(f"click {quoted(item)}: expected X,Y@F (window pixels, frame >= 1)")
        first, last = _frames(when, item, "click")
        if first != last:
            raise ScriptError(f"click {quoted(item)}: a click happens at one frame, not a range")
        x, y = float(m[1]), float(m[2])
        if max(x, y) > MAX_CLICK_PIXEL:
            raise ScriptError(f"click {quoted(item)}: window pixels go up to {MAX_CLICK_PIXEL}")
        script.clicks.setdefault(first, []).append((x, y))
    return script
