"""Parsing `--keys` and `--click`: the key table's names, frames and ranges, one-line errors."""

from __future__ import annotations

import pytest

from viewer.keys.controls import KEY_HELP
from viewer.keys.script import KEY_NAMES, ScriptError, parse_clicks, parse_keys


def test_every_key_of_the_table_is_a_script_name():
    table = " ".join(k for k, _ in KEY_HELP)
    for name in KEY_NAMES:
        assert name in table
    assert {"Space", ".", "T", "H", "J", "K", "L", "R", "Shift+R", "Esc", "Tab"} <= set(KEY_NAMES)


def test_the_issue_example():
    script = parse_keys("L@1-80,T@90,space@100,.@101")
    assert script.presses == {1: ["L"], 90: ["T"], 100: ["Space"], 101: ["."]}
    assert script.releases == {81: ["L"], 91: ["T"], 101: ["Space"], 102: ["."]}
    assert script.last_frame == 101


def test_names_are_case_insensitive_and_spaces_are_ignored():
    script = parse_keys(" shift+r@2-3 , esc@9 ,")
    assert script.presses == {2: ["Shift+R"], 9: ["Esc"]}


@pytest.mark.parametrize(
    "spec, words",
    [
        ("Q@1", ["unknown key 'Q'", "valid keys: Space, ., T, H"]),
        ("L", ["expected NAME@F"]),
        ("L@0", ["1 <= F <= G"]),
        ("L@5-3", ["1 <= F <= G"]),
        ("L@x", ["1 <= F <= G"]),
    ],
)
def test_bad_key_specs_say_what_is_wrong_in_one_line(spec, words):
    with pytest.raises(ScriptError) as info:
        parse_keys(spec)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message


def test_clicks():
    script = parse_clicks(["10,20@3", "5.5, 7@3"])
    assert script.clicks == {3: [(10.0, 20.0), (5.5, 7.0)]}
    for bad in ("10@3", "10,20", "10,20@2-4", "-1,2@1"):
        with pytest.raises(ScriptError, match="click"):
            parse_clicks(bad)


def test_scripts_add_up():
    script = parse_keys("T@2").add(parse_clicks("1,1@2"))
    assert script.presses == {2: ["T"]} and script.clicks == {2: [(1.0, 1.0)]}
    assert bool(script) and not bool(parse_keys(""))


def test_the_key_table_is_the_one_source_of_the_dispatch_the_names_and_the_help():
    """Every action of the key table has one handler and every handler one key; every
    key names a key moderngl-window has; the help and the script names come from it."""
    from moderngl_window.context.base import BaseKeys

    from viewer.keys.controls import HELD_ACTIONS, KEYS, MOUSE_HELP
    from viewer.overlay.help_window import ROWS
    from viewer.window.input import ACTIONS

    actions = {key.action for row in KEYS for key in row.keys}
    assert actions - HELD_ACTIONS == set(ACTIONS)
    assert actions >= HELD_ACTIONS
    assert all(hasattr(BaseKeys, key.code) for row in KEYS for key in row.keys)
    assert ROWS == KEY_HELP + MOUSE_HELP
    assert tuple(key.name for row in KEYS for key in row.keys) == KEY_NAMES
    names = [key.name for row in KEYS for key in row.keys]
    assert len(names) == len(set(names))
