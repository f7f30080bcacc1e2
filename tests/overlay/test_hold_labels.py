"""A key hold's undo step is named for what it did: R held turns the node and was named
"move Obj5" in the history and the Edit line (the fifth newcomer trial); K then R in one
hold does both; the collision demo's keys move the disk and turn the rectangle."""

from __future__ import annotations

from pathlib import Path

import pytest
from moderngl_window.context.base import KeyModifiers
from overlay_helpers import tree10

from viewer.embed.api import scene_for
from viewer.io import load_scene
from viewer.session.edits import hold_label

COLLISION = Path(__file__).resolve().parents[2] / "scenes" / "collision.toml"


def key(d, name: str, down: bool, shift: bool = False) -> None:
    keys, mods = d.window.keys, KeyModifiers()
    mods.shift = shift
    action = keys.ACTION_PRESS if down else keys.ACTION_RELEASE
    d.app.on_key_event(getattr(keys, name), action, mods)


def selected(drive, name: str):
    d = drive(scene_for(tree10()), still=True)
    d.frame(2)
    d.app.session.select(d.app.session.graph[name].id)
    d.frame()
    return d, d.app.session


@pytest.mark.parametrize("shift", [False, True])
def test_an_r_hold_is_named_a_turn_while_it_goes_on_and_once_done(drive, shift):
    d, session = selected(drive, "Obj5")
    key(d, "R", True, shift)
    d.frame(3)
    assert session.messages.edit == "turn Obj5 about z (keys held: one step when let go)"
    key(d, "R", False, shift)
    d.frame()
    assert session.editing.history.labels()[0] == ["turn Obj5 about z"]
    assert session.messages.edit == "turn Obj5 about z"


def test_a_hold_that_moves_then_turns_is_named_for_both(drive):
    d, session = selected(drive, "Obj5")
    key(d, "K", True)
    d.frame(2)
    assert session.editing.history.open_label == "move Obj5"
    key(d, "R", True)
    d.frame(2)
    key(d, "K", False)
    key(d, "R", False)
    d.frame()
    assert session.editing.history.labels()[0] == ["move and turn Obj5"]


def test_the_collision_demos_holds_name_the_disk_and_the_rectangle(drive):
    d = drive(load_scene(COLLISION), still=True)
    d.frame()
    editing = d.app.session.editing
    editing.held.press("turn")
    d.frame(2)
    editing.release_key("turn")
    editing.held.press("right")
    d.frame(2)
    editing.release_key("right")
    d.frame()
    assert editing.history.labels()[0] == ["turn the rectangle", "move the disk"]


def test_hold_label_names_every_mix():
    assert hold_label("A", {"move"}) == hold_label("A", set()) == "move A"
    assert hold_label("A", {"turn"}) == "turn A about z"
    assert hold_label("A", {"move", "turn"}) == "move and turn A"
    assert hold_label(None, {"move", "turn"}) == "move the disk and turn the rectangle"
