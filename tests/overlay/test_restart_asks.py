"""`0` restarts the scene and empties the undo history; the key sits among those typed
into number fields, and a click that missed a field, then a 0, lost the edits for good
(the fourth newcomer trial). From the keyboard, over edits, the first 0 asks ("press 0
again to restart: N edits will be lost") and only a second 0 within a few seconds
restarts; with no edit it restarts at once. A script's or a notebook's 0 restarts at
once (written ahead, it stays frame for frame what it says)."""

from __future__ import annotations

import app_driver
import numpy as np
import pytest

from viewer.io.generate import default_scene
from viewer.session.commands import Duplicate
from viewer.window.input import RESTART_ASK_S


@pytest.fixture
def edited(drive):
    d = drive(default_scene(), still=False)
    session = d.app.session
    now = [100.0]
    session.messages.clock = lambda: now[0]
    d.run(30)
    session.editing.run(Duplicate(session.graph["Obj5"].id))
    d.run(2)
    assert len(session.editing.history.done) == 1
    return d, now


def restarted(d) -> bool:
    return d.app.session.frame == 0


def test_no_edit_restarts_at_once(drive):
    d = drive(default_scene(), still=False)
    d.run(20)
    d.press("NUMBER_0")
    assert restarted(d)


def test_over_edits_the_first_0_asks_and_the_second_restarts(edited):
    d, now = edited
    session = d.app.session
    d.press("NUMBER_0")
    assert not restarted(d)
    assert len(session.editing.history.done) == 1  # the edit kept
    d.frame()
    note = d.app.overlay.panel.scene.status_note
    assert note == "press 0 again to restart: 1 edit will be lost"
    now[0] += RESTART_ASK_S - 0.5
    d.press("NUMBER_0")
    assert restarted(d) and not session.editing.history.done
    d.frame()
    assert d.app.overlay.panel.scene.status_note != note  # the question went


def test_the_question_times_out_and_another_key_answers_it(edited):
    d, now = edited
    session = d.app.session
    d.press("NUMBER_0")
    now[0] += RESTART_ASK_S + 0.1  # too late: asked again
    d.press("NUMBER_0")
    assert not restarted(d)
    d.frame()
    assert d.app.overlay.panel.scene.status_note.startswith("press 0 again")
    d.press("G")  # another key: the question waits no more
    d.press("NUMBER_0")  # asks again
    assert not restarted(d) and session.messages.asked("restart")
    now[0] += RESTART_ASK_S + 0.1
    d.frame()
    assert d.app.overlay.panel.scene.status_note is None  # timed out: the line is gone


def test_a_script_s_or_a_notebook_s_0_restarts_at_once(edited):
    d, _ = edited
    d.app.key_down("0")  # as `--keys 0@F` and the widget's press("0") send it
    assert restarted(d) and not d.app.session.editing.history.done


def note_pixels(img, box) -> int:
    """Pixels of the note colour (the question's yellow) inside `box` (x, y, w, h)."""
    x, y, w, h = (int(round(v)) for v in box)
    crop = img[max(y, 0) : y + h, max(x, 0) : x + w].astype(int)
    note = np.array([255, 230, 115])
    return int((np.abs(crop - note).max(axis=-1) < 40).sum())


def inside(box, rect) -> bool:
    x, y, w, h = box
    rx, ry, rw, rh = rect
    return x < rx + rw and rx < x + w and y < ry + h and ry < y + h


@pytest.fixture
def scrolled(drive, monkeypatch):
    """The default 1280x720 window, one edit, the left panel scrolled down to the Edit
    section (as a newcomer does to reach its buttons: the fifth trial, step 49)."""
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(default_scene(), still=False)
    session = d.app.session
    now = [100.0]
    session.messages.clock = lambda: now[0]
    d.run(30)
    session.select(session.graph["Obj5"].id)
    session.editing.run(Duplicate(session.graph["Obj5"].id))
    d.app.overlay.panel.scene.edit.open_next = True
    d.frame(3)
    d.app.on_mouse_position_event(100, 400, 0, 0)
    d.frame()
    d.app.on_mouse_scroll_event(0.0, -40.0)  # down to the panel's end
    d.frame(3)
    return d, now


def test_the_question_is_seen_with_the_panel_scrolled_away_from_its_top(scrolled):
    d, now = scrolled
    ov = d.app.overlay
    scene = ov.panel.scene
    assert scene.status_rect is None and d.app.overlay.banner_rect is None  # nothing asked
    before = d.frame()
    d.press("NUMBER_0")
    img = d.frame()
    assert not restarted(d)
    question = "press 0 again to restart: 1 edit will be lost"
    # The panel's first line says it, but scrolled out of the window.
    assert scene.status_note == question and scene.status_rect[1][1] <= 0
    # The view's top says it, outside every panel, whole, in the note colour.
    box = ov.banner_rect
    assert box is not None
    x, y, w, h = box
    assert x >= 0 and x + w <= 1280 and y >= 0 and y + h <= 720  # in the window
    assert not any(inside(box, rect) for rect in ov.window_rects)
    assert note_pixels(img, box) > 100 and note_pixels(before, box) == 0
    # The Edit section's outcome line (in view: the panel is scrolled to it) says it too.
    edit = scene.edit
    assert edit.message == question
    (_, top), (_, bottom) = edit.message_rect
    assert top > 0 and bottom <= 720
    d.press("G")  # another key: the question waits no more; the banner goes
    d.frame()
    assert ov.banner_rect is None and edit.message != question


def test_with_the_panels_hidden_the_question_is_in_the_view(scrolled):
    d, now = scrolled
    ov = d.app.overlay
    d.press("TAB")
    d.frame()
    d.press("NUMBER_0")
    img = d.frame()
    assert not restarted(d) and not ov.window_rects  # no panel drawn
    x, _, w, _ = ov.banner_rect
    assert abs(x + 0.5 * w - 640) < 1.0  # centred on the whole picture
    assert note_pixels(img, ov.banner_rect) > 100
    now[0] += RESTART_ASK_S + 0.1  # timed out: gone
    d.frame()
    assert ov.banner_rect is None
