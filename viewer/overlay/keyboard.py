"""What the text fields need from the keyboard, which moderngl-window's ImGui integration
does not send, and whether a field has the keyboard right now.

The integration (moderngl-window 3.1) forwards only navigation keys (arrows, Home, End,
Backspace, Enter, Esc, ...): no modifier state and no letters, so Ctrl+A, Ctrl+Backspace
and Ctrl+C / V / X / Z never reached a field. `send_edit_keys` adds them. And ImGui sets
``io.want_text_input`` at the start of the frame after a field became active, so a key
typed right after the click that activated a field went to the scene's shortcuts
(an ``l`` moved the node): `typing` also reads the flag the last frame left for the next.
"""

from __future__ import annotations

from imgui_bundle import imgui

#: Letters a text field's shortcuts use (select all, copy, paste, cut, undo, redo).
EDIT_LETTERS = "ACVXYZ"


def send_edit_keys(keys, key, action, modifiers) -> None:
    """Tell ImGui the modifier state and the editing letters of one key event."""
    io = imgui.get_io()
    for mod, name in ((imgui.Key.mod_ctrl, "CTRL"), (imgui.Key.mod_shift, "SHIFT"),
                      (imgui.Key.mod_alt, "ALT")):  # fmt: skip
        on = bool(getattr(modifiers, name.lower(), False))
        # The modifier key's own event: its state is the event's (X11 reports a Ctrl
        # release with Ctrl still among the modifiers, which would leave it held).
        own = {getattr(keys, f"{side}_{name}", None) for side in ("LEFT", "RIGHT")}
        if key in own - {None, "undefined"}:
            on = action == keys.ACTION_PRESS
        io.add_key_event(mod, on)
    for letter in EDIT_LETTERS:
        if key == getattr(keys, letter, None):
            io.add_key_event(getattr(imgui.Key, letter.lower()), action == keys.ACTION_PRESS)
            return


def typing() -> bool:
    """A text or number field has the keyboard (as of the last frame drawn)."""
    if imgui.get_io().want_text_input:
        return True
    return imgui.get_current_context().want_text_input_next_frame == 1
