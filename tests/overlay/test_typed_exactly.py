"""A value typed into a field is the value the node gets, exactly, and the value a save
writes: the fields were float32, and a typed -0.15 was saved as -0.15000000596046448
(the fourth newcomer trial). Typed into the real fields, through ImGui, then saved and
read back."""

from __future__ import annotations

import tomllib

import pytest

from viewer.io.loader import load_scene


@pytest.mark.parametrize("text", ["-0.15", "0.1", "1234.5678", "-2.3"])
def test_a_typed_position_round_trips_through_save(edit_open, tmp_path, text):
    d, session, node, edit = edit_open((800, 1000))
    low, _ = edit.field_rects["local_position"]
    d.click(low.x + 6, low.y + 6)  # the first number, x: its text selected whole
    for char in text:
        d.app.on_unicode_char_entered(char)
        d.frame()
    d.press("ENTER")
    d.frame(2)
    assert float(node.local_position[0]) == float(text)  # exactly: no float32 on the way
    path = tmp_path / "typed.toml"
    assert session.save(path)
    nodes = {n["name"]: n for n in tomllib.loads(path.read_text())["node"]}
    assert nodes["Obj5"]["position"][0] == float(text)
    again = load_scene(path).graph["Obj5"]
    assert float(again.local_position[0]) == float(text)
