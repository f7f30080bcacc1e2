"""The live log never empties while nothing moves: about 600 frames after the last frame
that recomputed something (without an event), its report went with the plain reports'
window and the log said "the reports of those that recomputed were not kept", which a
newcomer reads as a bug. The newest frame that recomputed something keeps its report
(as long as its record is in the timeline records), and memory stays bounded: one report more
than before at most.

Checked on random runs (hypothesis) against a model of what must be kept, and in the app:
a scene stopped for 700 frames still shows its last busy frame in the log."""

from __future__ import annotations

import app_driver
from hypothesis import given, settings
from hypothesis import strategies as st
from overlay_helpers import chain5

from viewer.io.generate import default_scene
from viewer.overlay.model import quiet_log_text
from viewer.overlay.stats import FrameStats
from viewer.overlay.timeline_records import REPORT_COST, FrameRecords

#: Each frame: 0 idle, 1 a touch of Obj4 (two nodes), 2 a touch of Obj2 (four nodes),
#: each with or without an event.
FRAMES = st.lists(st.tuples(st.integers(0, 2), st.booleans()), min_size=1, max_size=400)


def weight(report) -> int:
    """A report's ids and its fixed cost, as the timeline records' budget counts them."""
    arrays = (report.local_updated, report.world_updated, report.cause, report.executed)
    return REPORT_COST + sum(int(a.size) for a in arrays)


@settings(max_examples=60, deadline=None)
@given(
    FRAMES,
    st.integers(20, 120),  # capacity
    st.integers(1, 30),  # plain_reports
    st.integers(REPORT_COST, 6 * REPORT_COST),  # id_budget
)
def test_the_newest_busy_frame_keeps_its_report_and_memory_stays_bounded(
    frames, capacity, plain, budget
):
    g = chain5()
    h = FrameRecords(capacity=capacity, id_budget=budget, plain_reports=plain)
    newest_busy = None
    biggest = 0  # the largest one report's weight against the budget
    for frame, (touch, event) in enumerate(frames, start=1):
        if touch:
            g.touch(g["Obj4" if touch == 1 else "Obj2"])
        report = g.update()
        biggest = max(biggest, weight(report))
        events = [("touch", "ObjN")] if event else []
        h.add(frame, report, FrameStats.of_report(frame, report), events)
        if report.world_updated.size:
            newest_busy = frame
        kept = [e.frame for e in h if e.report is not None]
        if newest_busy is not None and h.find(newest_busy) is not None:
            assert newest_busy in kept
            assert h.log(), quiet_log_text(h)  # the live log shows it
            assert h.log()[-1][0] == newest_busy
        assert h.last.frame in kept  # the newest frame's report, as before
        # Bounded: the plain window, the marked frames within the budget, and at most the
        # newest and the newest busy report beyond the budget.
        plain_kept = [f for f in kept if not h.notes(f)]
        assert len(plain_kept) <= plain + 1
        held = sum(weight(h.report(f)) for f in kept)
        assert held <= max(budget, 2 * biggest)


def test_a_stopped_scene_shows_its_last_work_in_the_log_700_frames_on(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(default_scene(), still=False)
    d.run(30)
    d.press("S")  # the motion stops: no frame recomputes anything from here
    d.run(2)
    ov, frames = d.app.overlay, d.app.overlay.panel.frames
    rec = ov.timeline.records()
    busy = int(rec["frame"][rec["world"] > 0][-1])
    d.run(700)
    d.frame()
    assert ov.timeline.last.frame > busy + 700
    first, stop = frames.log.view
    shown = frames.log.lines[first:stop]
    assert f"# frame {busy}" in shown, shown
    assert not any("were not kept" in line for line in frames.log.lines)
