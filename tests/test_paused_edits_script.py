"""Frames that only show an edit while paused (a drag, an undo: `request_step(still=True)`)
are no steps of the scene's script: tree10's scripted touch of Obj2 at frame 60 and a
``--touch`` at frame 61 wait for the scene's own frames 60 and 61, however many edits
were shown before them."""

from __future__ import annotations

from pathlib import Path

from viewer.io import load_scene
from viewer.session.session import Session

TREE10 = Path(__file__).resolve().parents[1] / "scenes" / "tree10.toml"


def test_edits_shown_while_paused_do_not_play_the_script():
    session = Session(load_scene(TREE10), fixed_step=1 / 60, touches={61: ["Obj4"]})
    for _ in range(59):
        session.advance(1 / 60)
    session.toggle_pause()
    touched = []
    for _ in range(5):  # five edits shown while paused (frames 60 to 64)
        session.graph["Obj9"].local_position = (0.1 * len(touched), 0.0, 0.0)
        session.request_step(still=True)
        frame = session.advance(1 / 60)
        touched += [what for kind, what in frame.events if kind == "touch"]
    assert session.frame == 64
    assert touched == []  # the script's frame 60 has not come
    session.request_step()  # the Step key: the scene's frame 60
    frame = session.advance(1 / 60)
    assert [what for kind, what in frame.events if kind == "touch"] == ["Obj2"]
    session.request_step()
    frame = session.advance(1 / 60)
    assert [what for kind, what in frame.events if kind == "touch"] == ["Obj4"]
