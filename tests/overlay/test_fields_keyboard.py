"""Fields own the keyboard: while an inspector or path field is being typed in, no key
reaches the scene's shortcuts (also the key typed right after the click that activated
the field, before ImGui's own flag says so), Ctrl+A selects the field's text so that
typing replaces it, Ctrl+Backspace deletes a word, and Esc cancels the typing instead
of quitting."""

from __future__ import annotations

import numpy as np
import pytest
from moderngl_window.context.base import KeyModifiers

from viewer.session.commands import numbers


def key(d, name: str, ctrl: bool = False, char: str | None = None) -> None:
    """Press and release key `name` (with Ctrl: Ctrl down first and up last, its own
    release reported with Ctrl still among the modifiers, as X11 does); `char`: the
    character it types."""
    keys = d.window.keys
    mods = KeyModifiers()
    mods.ctrl = ctrl
    if ctrl:
        d.app.on_key_event(keys.LEFT_CTRL, keys.ACTION_PRESS, mods)
    d.app.on_key_event(getattr(keys, name), keys.ACTION_PRESS, mods)
    if char is not None:
        d.app.on_unicode_char_entered(char)
    d.frame()
    d.app.on_key_event(getattr(keys, name), keys.ACTION_RELEASE, mods)
    if ctrl:
        d.app.on_key_event(keys.LEFT_CTRL, keys.ACTION_RELEASE, mods)
    d.frame()


@pytest.fixture
def field(edit_open):
    """(driver, session, node, edit section) with Obj5 selected, the Edit section open."""
    return edit_open((1280, 1000))  # the tree and the fields in view


def click_into(d, edit, field: str) -> None:
    """A press and release on the field's first number, with no frame drawn after the
    release: the next key comes at once, as a quick hand types."""
    x0 = edit.field_rects[field][0]
    x, y = int(x0.x + 6), int(x0.y + 6)
    d.app.on_mouse_position_event(x, y, 0, 0)
    d.frame()
    d.app.on_mouse_press_event(x, y, 1)
    d.frame()
    d.app.on_mouse_release_event(x, y, 1)


def test_a_key_typed_into_a_field_reaches_no_shortcut(field):
    d, session, node, edit = field
    before = {n.name: n.local_position.copy() for n in session.graph}
    click_into(d, edit, "local_position")
    for name, char in (("L", "l"), ("H", "h"), ("T", "t"), ("G", "g")):
        key(d, name, char=char)
    key(d, "ESCAPE")
    for n in session.graph:
        np.testing.assert_array_equal(n.local_position, before[n.name])
    assert session.editing.history.labels() == ([], [])
    assert d.app.settings.show_grid  # G went to the field
    assert not d.app.wnd.is_closing  # Esc cancelled the typing, the window stays


def test_ctrl_a_then_typing_replaces_the_number(field):
    d, session, node, edit = field
    click_into(d, edit, "local_position")
    key(d, "A", ctrl=True)
    key(d, "NUMBER_7", char="7")
    key(d, "ENTER")
    assert node.local_position[0] == 7.0
    assert session.editing.history.labels()[0] == [
        f"move Obj5 to {numbers(node.local_position)}"  # one step, named in words
    ]


def test_esc_cancels_the_typed_number_and_does_not_quit(field):
    d, session, node, edit = field
    before = node.local_position.copy()
    click_into(d, edit, "local_position")
    key(d, "A", ctrl=True)
    key(d, "NUMBER_9", char="9")
    key(d, "ESCAPE")
    d.frame(2)
    np.testing.assert_array_equal(node.local_position, before)
    assert session.editing.history.labels() == ([], [])
    assert not d.app.wnd.is_closing
    assert not d.app.overlay.wants_keyboard
    key(d, "ESCAPE")  # with no field active, Esc quits as before
    assert d.app.wnd.is_closing


def test_ctrl_backspace_deletes_a_word_of_the_path_field(field):
    d, session, node, edit = field
    edit.save_path = "/tmp/some/folder/my-tree.toml"
    d.frame()
    x0, x1 = edit.save_rect
    d.app.on_mouse_position_event(int(x1.x - 4), int(x0.y + 6), 0, 0)
    d.frame()
    d.app.on_mouse_press_event(int(x1.x - 4), int(x0.y + 6), 1)
    d.frame()
    d.app.on_mouse_release_event(int(x1.x - 4), int(x0.y + 6), 1)
    key(d, "END")
    key(d, "BACKSPACE", ctrl=True)
    assert edit.save_path.startswith("/tmp/some/folder/")
    assert len(edit.save_path) < len("/tmp/some/folder/my-tree.toml") - 1
    key(d, "A", ctrl=True)
    for ch in "x.toml":
        d.app.on_unicode_char_entered(ch)
        d.frame()
    assert edit.save_path == "x.toml"


def test_a_key_typed_in_the_same_frame_as_the_click_into_a_field_reaches_no_shortcut(field):
    """A quick hand (or xdotool's `click 1 type l`): the press on the field and the key
    come before any frame has drawn, so ImGui has not yet said the field has the keyboard;
    the key still does not reach the scene."""
    d, session, node, edit = field
    before = node.local_position.copy()
    x0 = edit.field_rects["local_position"][0]
    x, y = int(x0.x + 6), int(x0.y + 6)
    d.app.on_mouse_position_event(x, y, 0, 0)
    d.frame()
    d.app.on_mouse_press_event(x, y, 1)
    d.app.on_mouse_release_event(x, y, 1)
    key(d, "L", char="l")  # no frame between the click and the key
    d.frame(3)
    key(d, "ESCAPE")
    np.testing.assert_array_equal(node.local_position, before)
    assert session.editing.history.labels() == ([], [])
    assert not d.app.wnd.is_closing


def test_enter_in_the_save_as_field_saves_as_the_button_does(field, tmp_path):
    d, session, node, edit = field
    target = tmp_path / "entered.toml"
    edit.save_path = str(target)
    d.frame()
    x0, x1 = edit.save_rect
    d.app.on_mouse_position_event(int(x1.x - 4), int(x0.y + 6), 0, 0)
    d.frame()
    d.app.on_mouse_press_event(int(x1.x - 4), int(x0.y + 6), 1)
    d.frame()
    d.app.on_mouse_release_event(int(x1.x - 4), int(x0.y + 6), 1)
    d.frame()
    assert not target.exists()
    key(d, "ENTER")
    d.frame(2)
    assert target.exists()
    assert "Obj5" in target.read_text()
