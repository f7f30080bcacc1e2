"""What the text fields need from the keyboard, which moderngl-window's ImGui integration
does not send, and whether a field has the keyboard right now.

The integration (moderngl-window 3.1) forwards only navigation keys (arrows, Home, End,
Backspace, Enter, Esc, ...): no modifier state and no letters, so Ctrl+A, Ctrl+Backspace
and Ctrl+C / V / X / Z would never reach a field. `EditKeys` adds them. And ImGui sets
``io.want_text_input`` at the start of the frame after a field becomes active, so a key
typed right after the click that activates a field would go to the scene's shortcuts
(an ``l`` would move the node): `typing` also reads the flag the last frame left for the
next.
"""

from __future__ import annotations

from typing import Any

from imgui_bundle import imgui
from moderngl_window.context.base import BaseKeys, KeyModifiers

#: Letters a text field's shortcuts use (select all, copy, paste, cut, undo, redo).
EDIT_LETTERS = "ACVXYZ"


class EditKeys:
    """Tells ImGui the modifier state and the editing letters of each key event, a
    modifier's release after the release of a letter pressed with it.

    ImGui's input queue hands the events of one frame to it in order, splitting only
    where one key changes twice: so Ctrl down (an earlier frame), A down, Ctrl up, A up
    within one frame would become "A down, Ctrl up" in one frame, and Ctrl+A would not
    select the field's text. X11 reports that order when Ctrl is let go first, as people (and
    xdotool) often do; at a few frames per second the whole shortcut fits in a frame.
    A modifier's release therefore waits while a letter is down, until that letter's
    release or the next key that is pressed without the modifier."""

    def __init__(self) -> None:
        self._letters_down: set[str] = set()
        self._held_back: dict[int, bool] = {}  # modifier -> the state it waits to take

    def send(
        self, keys: type[BaseKeys], key: int | str, action: int | str, modifiers: KeyModifiers
    ) -> None:
        io = imgui.get_io()
        press = action == keys.ACTION_PRESS
        letter = next((c for c in EDIT_LETTERS if key == getattr(keys, c, None)), None)
        states: dict[int, bool] = {}
        modifier_keys = (
            (imgui.Key.mod_ctrl, "CTRL"),
            (imgui.Key.mod_shift, "SHIFT"),
            (imgui.Key.mod_alt, "ALT"),
        )
        for mod, name in modifier_keys:
            on = bool(getattr(modifiers, name.lower(), False))
            # The modifier key's own event: its state is the event's (X11 reports a Ctrl
            # release with Ctrl still among the modifiers, which would leave it held).
            own = {getattr(keys, f"{side}_{name}", None) for side in ("LEFT", "RIGHT")}
            if key in own - {None, "undefined"}:
                on = press
            states[mod] = on
        if press and letter is None and not any(states.values()):
            self._release_held_back(io)  # a plain key: no modifier is held any more
        for mod, on in states.items():
            if on or not self._letters_down:
                self._held_back.pop(mod, None)
                io.add_key_event(mod, on)
            else:
                self._held_back[mod] = on
        if letter is not None:
            io.add_key_event(getattr(imgui.Key, letter.lower()), press)
            (self._letters_down.add if press else self._letters_down.discard)(letter)
            if not self._letters_down:
                self._release_held_back(io)

    def _release_held_back(self, io: Any) -> None:  # ImGui's io (imgui-bundle is Any here)
        self._letters_down.clear()
        for mod, on in self._held_back.items():
            io.add_key_event(mod, on)
        self._held_back.clear()


def typing() -> bool:
    """A text or number field has the keyboard (as of the last frame drawn)."""
    if imgui.get_io().want_text_input:
        return True
    return bool(imgui.get_current_context().want_text_input_next_frame == 1)
