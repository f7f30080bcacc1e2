"""The left panel stays where the hand expects it (trial 3): a message of any length
takes one line, so the fields and tree rows never move when one comes or goes (a refusal
that wrapped onto three lines pushed the field a click was meant for, and the digits typed
next restarted the scene); a field whose typing Esc cancelled does nothing and says
nothing."""

from __future__ import annotations

import pytest
from imgui_bundle import imgui
from test_fields_keyboard import click_into, key

from viewer.session.commands import Reparent
from viewer.text import one_line


@pytest.fixture(params=[(1280, 1000), (1280, 720)])
def editing(edit_open, request):
    """(driver, session, edit section): Obj5 selected, the Edit section open."""
    d, session, _, edit = edit_open(request.param)
    return d, session, edit


def places(d, edit) -> dict[str, float]:
    """Where the tree's rows and the Edit section's fields lie (their tops, pixels)."""
    rows = d.app.overlay.panel.scene.tree.row_rects
    ys = {f"row {k}": rect[0].y for k, rect in rows.items()}
    ys.update({field: rect[0].y for field, rect in edit.field_rects.items()})
    return ys


def read_whole(d, rect, start: str) -> tuple[str, str]:
    """(the message line starting with `start` as drawn, the text read while the mouse
    rests on it: its tooltip's, or the line's when it is whole)."""
    drawn: list[str] = []
    calls = {name: getattr(imgui, name) for name in ("text_colored", "text_unformatted")}
    try:
        for name, call in calls.items():
            setattr(imgui, name, lambda *a, _c=call: (drawn.append(a[-1]), _c(*a))[1])
        low, high = rect
        d.app.on_mouse_position_event(int(0.5 * (low.x + high.x)), int(0.5 * (low.y + high.y)),
                                      0, 0)  # fmt: skip
        d.frame(3)
    finally:
        for name, call in calls.items():
            setattr(imgui, name, call)
    line = next(t for t in drawn if t.startswith(start))
    tip = drawn[drawn.index(line) + 1] if line.endswith("...") else line  # whole: no tip
    return line, tip


LONG = "cannot parent 'Obj3' to 'Obj8': " + "a reason that goes on " * 30


def test_a_long_message_moves_no_field_and_no_row(editing):
    d, session, edit = editing
    before = places(d, edit)
    assert any(k.startswith("row") for k in before) and "local_position" in before
    session.messages.refuse(LONG)  # both the status line and the Edit line
    d.frame(2)
    assert places(d, edit) == before
    g = session.graph
    session.editing.run(Reparent(g["Obj2"].id, g["Obj5"].id, True))  # a real refusal
    d.frame(2)
    assert "cycle" in session.messages.refused
    assert places(d, edit) == before
    session.messages.failed("open", "x.toml:1: " + "an error of many words " * 20, "not opened")
    session.messages.edited("done: " + "a long outcome " * 30)
    d.frame(2)
    assert places(d, edit) == before
    scene = d.app.overlay.panel.scene
    assert scene.status_note.startswith("not opened")
    line, tip = read_whole(d, scene.status_rect, "not opened")  # one line, whole on hover
    assert line.endswith("...") and tip == one_line(scene.status_note)
    assert tip.startswith(line[:-3])
    line, tip = read_whole(d, edit.message_rect, "done:")
    assert line.endswith("...") and tip == one_line(session.messages.edit)
    assert tip.startswith(line[:-3])


def test_esc_in_a_field_makes_no_edit_and_no_message(editing):
    d, session, edit = editing
    session.messages.edited(None)
    click_into(d, edit, "local_position")
    key(d, "A", ctrl=True)
    key(d, "NUMBER_9", char="9")
    key(d, "ESCAPE")
    d.frame(2)
    assert session.messages.edit is None
    assert session.messages.refused is None
    assert session.editing.history.labels() == ([], [])
    assert not d.app.wnd.is_closing
