"""Hold edits (W) in a `--keys` script: paused with hold edits on, K moves the selected
node's value and nothing executes (no frame is logged) until `.` runs the step, whose log
is the node's own local update and its subtree's world updates; without W the same K
executes at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from needs import need_gl

from viewer.cli.main import main

TREE10 = str(Path(__file__).resolve().parents[1] / "scenes" / "tree10.toml")
RUN = ["--headless", "--still", "--log", "--size", "160x90", "--select", "Obj2", "--frames", "8"]
OBJ2_MOVED = [
    "# frame 3",
    "*Update Local : Obj2*",
    "=Update World : Obj2=",
    "=Update World : Obj5=",
    "=Update World : Obj8=",
    "=Update World : Obj9=",
]


@pytest.fixture(scope="module", autouse=True)
def _need_egl():
    need_gl().release()


@pytest.mark.parametrize(
    "keys, log",
    [
        ("Space@3,W@4,K@5", []),  # held: marked, pending, nothing executed
        ("Space@3,W@4,K@5,.@7", OBJ2_MOVED),  # the step executes it
        ("Space@3,K@5", OBJ2_MOVED),  # hold off: shown at once
    ],
)
def test_a_scripted_held_edit_waits_for_the_step(capsys, keys, log):
    assert main([TREE10, *RUN, "--keys", keys]) == 0
    assert capsys.readouterr().out.splitlines() == log


def test_the_lesson_s_value_that_waits_is_what_a_session_does():
    """docs/getting-started.md's step 4, on the built-in scene as the page leaves it
    (motion stopped, paused, Obj2 touched and stepped): W, K; the value moves by the
    page's step at once, the page's pending count is marked, nothing runs; `.` runs the
    update with the page's five log lines."""
    import re

    from viewer.io import default_scene
    from viewer.overlay.model import Flags, pending_notes
    from viewer.session.session import Session

    page = (Path(__file__).resolve().parents[1] / "docs" / "getting-started.md").read_text()
    section = page[page.index("## Make it show a change") :]
    log = re.search(r"```\n(.*?)```", section, re.S)[1]
    quoted_log = [line.strip() for line in log.strip().splitlines()]
    step = section[section.index("4. Leave a value waiting") : section.index("5. Press")]
    assert "press **W**" in step and "press **K** once" in step
    moved = float(re.search(r"changes at once, ([\d.]+)\s+up", step)[1])
    note = re.search(r'the panel says "(pending: \d+ nodes)"', step)[1]

    step_s = 1.0 / 60.0
    session = Session(default_scene(), fixed_step=step_s)
    for _ in range(45):
        session.advance(step_s)
    session.toggle_motion()  # S
    session.toggle_pause()  # Space
    session.select(session.graph["Obj2"].id)
    session.touch_selected()  # T
    session.request_step()  # .
    session.advance(step_s)
    g = session.graph
    y = g.peek.local_values(g["Obj2"].id)[0][1]
    frame = g.frame

    session.toggle_hold_edits()  # W
    session.press_move_key("up")  # K, once
    session.release_move_key("up")
    assert session.advance(step_s) is None and g.frame == frame  # nothing executed
    assert g.peek.local_values(g["Obj2"].id)[0][1] == pytest.approx(y + moved)
    marks = Flags.of_marks(g)
    assert note in pending_notes(marks.count, session.paused)
    session.request_step()  # .
    report = session.advance(step_s).report
    assert report.log_lines() == quoted_log
    assert g["Obj2"].world_position[1] == pytest.approx(y + moved + g["Obj1"].world_position[1])
