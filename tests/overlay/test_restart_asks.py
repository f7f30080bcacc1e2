"""`0` restarts the scene and empties the undo history; the key sits among those typed
into number fields, and a click that missed a field, then a 0, lost the edits for good
(the fourth newcomer trial). From the keyboard, over edits, the first 0 asks ("press 0
again to restart: N edits will be lost") and only a second 0 within a few seconds
restarts; with no edit it restarts at once. A script's or a notebook's 0 restarts at
once (written ahead, it stays frame for frame what it says)."""

from __future__ import annotations

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
