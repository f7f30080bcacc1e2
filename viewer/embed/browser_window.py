"""A headless moderngl-window window whose input comes from a browser (jupyter_rfb).

The notebook widget (`viewer.embed.widget`) renders offscreen with EGL and shows the frames in
the browser; the browser sends pointer, wheel, key and resize events back as jupyter_rfb
event dicts. `BrowserWindow.dispatch` turns each into the moderngl-window event that a
real window would deliver (press, drag, release, scroll, key with `KeyModifiers`,
character, resize) and calls the window config's callbacks with it, keeping the mouse
button and modifier state that those callbacks read. So `viewer.window.app.SgviewApp` handles
a notebook's input on the same code path as a window's: the overlay sees it first, then
the key table, orbit, pan, zoom and click-to-select.

Key codes are the browser's key names (`BrowserKeys`): "t", "Tab", " ", "ArrowLeft", ...
"""

from __future__ import annotations

import string
from collections.abc import Callable, Collection, Mapping
from typing import Any

from moderngl_window.context.headless import Window as HeadlessWindow
from moderngl_window.context.headless.keys import Keys

__all__ = ["WHEEL_NOTCH", "BrowserEvent", "BrowserKeys", "BrowserWindow", "key_code"]

#: A jupyter_rfb event dict: "type" and the fields of that type (coordinates, buttons,
#: modifiers, a key name), whose value types vary with the event.
BrowserEvent = Mapping[str, Any]

#: Browser wheel pixels per notch of a mouse wheel (Chromium and Firefox: 100): one
#: notch zooms as one notch does in the window.
WHEEL_NOTCH = 100.0


class BrowserKeys(Keys):
    """moderngl-window key codes as the browser names keys (`KeyboardEvent.key`).

    Letters are upper case whatever Shift does (see `key_code`); "?" stands where
    moderngl-window has SLASH, since the key table's "?" is what the browser reports."""

    ESCAPE = "Escape"
    SPACE = " "
    ENTER = "Enter"
    PAGE_UP = "PageUp"
    PAGE_DOWN = "PageDown"
    LEFT = "ArrowLeft"
    RIGHT = "ArrowRight"
    UP = "ArrowUp"
    DOWN = "ArrowDown"
    TAB = "Tab"
    COMMA = ","
    MINUS = "-"
    PERIOD = "."
    SLASH = "?"
    SEMICOLON = ";"
    EQUAL = "="
    LEFT_BRACKET = "["
    RIGHT_BRACKET = "]"
    BACKSLASH = "\\"
    BACKSPACE = "Backspace"
    INSERT = "Insert"
    DELETE = "Delete"
    HOME = "Home"
    END = "End"


for _letter in string.ascii_uppercase:
    setattr(BrowserKeys, _letter, _letter)
for _digit in string.digits:
    setattr(BrowserKeys, f"NUMBER_{_digit}", _digit)
for _n in range(1, 13):
    setattr(BrowserKeys, f"F{_n}", f"F{_n}")


def key_code(key: str) -> str:
    """The `BrowserKeys` code of the browser's key name: letters in upper case."""
    return key.upper() if len(key) == 1 and key.isalpha() else key


class BrowserWindow(HeadlessWindow):
    """An EGL window of a given size that takes its events from `dispatch`."""

    name = "browser"
    keys = BrowserKeys

    # The browser's pointer positions are fractional pixels, and the app's handlers take
    # them as they are (moderngl-window declares these slots for its own windows' ints).
    _mouse_position_event_func: Callable[[float, float, float, float], None]
    _mouse_drag_event_func: Callable[[float, float, float, float], None]
    _mouse_press_event_func: Callable[[float, float, int], None]
    _mouse_release_event_func: Callable[[float, float, int], None]

    def __init__(
        self,
        *,
        title: str,
        size: tuple[int, int],
        gl_version: tuple[int, int],
        vsync: bool,
        samples: int,
        backend: str,
        resizable: bool,
    ) -> None:
        super().__init__(
            title=title,
            size=size,
            gl_version=gl_version,
            vsync=vsync,
            samples=samples,
            backend=backend,
            resizable=resizable,
        )
        self._resizable = True
        self._pointer: tuple[float, float] | None = None

    def close(self) -> None:
        """Esc quits a window; a notebook's view lives as long as its cell output, so
        nothing closes here (``widget.close()`` ends the widget)."""

    def resize(self, width: int, height: int) -> None:
        """A new size in pixels: a new framebuffer, and the app's resize callback."""
        width, height = max(int(width), 1), max(int(height), 1)
        if (width, height) == self.size:
            return
        self._buffer_width, self._buffer_height = width, height
        self.size = (width, height)  # the headless window makes a new framebuffer
        self.set_default_viewport()
        self._resize_func(width, height)

    def dispatch(self, event: BrowserEvent) -> bool:
        """Deliver one jupyter_rfb event dict; returns whether it was one sgview takes."""
        kind = event.get("type") or event.get("event_type")
        if kind == "resize":
            self.resize(round(event["width"]), round(event["height"]))
            return True
        self._set_modifiers(event.get("modifiers", ()))
        if kind in ("pointer_down", "pointer_up", "pointer_move"):
            self._pointer_event(kind, event)
        elif kind == "wheel":
            x, y = event.get("x", 0.0), event.get("y", 0.0)
            self._mouse_position_event_func(x, y, 0, 0)
            self._mouse_scroll_event_func(
                -float(event.get("dx", 0.0)) / WHEEL_NOTCH, -float(event["dy"]) / WHEEL_NOTCH
            )
        elif kind in ("key_down", "key_up"):
            action = self.keys.ACTION_PRESS if kind == "key_down" else self.keys.ACTION_RELEASE
            self._key_event_func(key_code(event["key"]), action, self._modifiers)
        elif kind == "char":
            for char in event.get("data") or "":
                self._unicode_char_entered_func(char)
        else:
            return False
        return True

    def _set_modifiers(self, names: Collection[str]) -> None:
        self._modifiers.shift = "Shift" in names
        self._modifiers.ctrl = "Control" in names or "Meta" in names
        self._modifiers.alt = "Alt" in names

    def _pointer_event(self, kind: str, event: BrowserEvent) -> None:
        x, y = float(event["x"]), float(event["y"])
        last = self._pointer or (x, y)
        dx, dy = x - last[0], y - last[1]
        self._pointer = (x, y)
        button = int(event.get("button", 0))
        if kind == "pointer_down" and button in (1, 2, 3):
            self._handle_mouse_button_state_change(button, True)
            self._mouse_press_event_func(x, y, button)
        elif kind == "pointer_up" and button in (1, 2, 3):
            self._handle_mouse_button_state_change(button, False)
            self._mouse_release_event_func(x, y, button)
        elif kind == "pointer_move":
            held = self.mouse_states
            if held.left or held.right or held.middle:
                self._mouse_drag_event_func(x, y, dx, dy)
            else:
                self._mouse_position_event_func(x, y, dx, dy)
