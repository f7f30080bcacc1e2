"""The timeline for teaching: thousands of frames in bounded memory, events marked
and jumped to with the keys, running totals of the method against the naive one, the
restart that replays the scripted events, and the help window that lists the keys.

Driven headless frame by frame through the app's own key path (`Driver.press`); the same
keys in a real window are driven under Xvfb in tests/test_window_xvfb.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from overlay_helpers import chain5

from viewer.io import load_scene
from viewer.overlay.stats import FrameStats
from viewer.overlay.timeline_records import RECORD, REPORT_COST, FrameRecords

REPO = Path(__file__).resolve().parents[2]


def tree10(events: bool = False):
    scene = load_scene(REPO / "scenes" / "tree10.toml")
    if not events:
        scene.events = []
    return scene


def test_timeline_keeps_thousands_of_frames_in_bounded_memory():
    g = chain5()
    h = FrameRecords(capacity=5_000, id_budget=2_000)
    products = naive = 0
    for frame in range(1, 12_001):
        touched = frame % 7 == 0
        if touched:
            g.touch(g["Obj2"])
        report = g.update()
        products += report.products
        naive += report.naive_products
        events = [("touch", "Obj2")] if touched else []
        h.add(frame, report, FrameStats.of_report(frame, report), events)
    assert len(h) == 5_000 and h[0].frame == 7_001 and h.last.frame == 12_000
    # Counters: one fixed-size record a frame; reports only within the id budget, those
    # of the touch frames kept first: only the latest frames' reports besides.
    assert h.records().nbytes == 5_000 * RECORD.itemsize < 600_000
    kept = [e.frame for e in h if e.report is not None]
    assert 5 < len(kept) <= 2_000 // REPORT_COST
    assert all(f % 7 == 0 or f > 11_990 for f in kept)
    # Totals count every frame since the start, also those the ring let go.
    assert (h.totals.frames, h.totals.products, h.totals.naive_products) == (
        12_000, products, naive,
    )  # fmt: skip
    frames, done, naive_sum = h.cumulative()
    assert frames[-1] == 12_000 and done[-1] == products and naive_sum[-1] == naive
    # Events: every 7th frame kept, and the jumps between them.
    marks = h.event_frames()
    assert marks[0] == 7_007 and (np.diff(marks) == 7).all()
    assert h.next_event(None, -1) == 11_998 and h.next_event(11_998, -1) == 11_991
    assert h.next_event(7_007, -1) is None and h.next_event(11_998, 1) is None
    h.reset_totals()
    assert h.totals.since is None and h.cumulative()[0].size == 0
    # Without an event, only the latest frames keep their report.
    h2 = FrameRecords(plain_reports=50)
    for frame in range(1, 301):
        if frame == 100:
            g.touch(g["Obj2"])
        report = g.update()
        events = [("touch", "Obj2")] if frame == 100 else []
        h2.add(frame, report, FrameStats.of_report(frame, report), events)
    assert [e.frame for e in h2 if e.report is not None] == [100, *range(251, 301)]


def test_the_timeline_jumps_to_a_touch_a_thousand_frames_back(drive):
    d = drive(tree10())  # running: the motion recomputes nodes in every frame
    d.frame(4)
    session, ov = d.app.session, d.app.overlay
    session.select(session.graph["Obj2"].id)
    d.press("T")  # touches Obj2 in the next frame
    d.frame()
    touch = session.frame
    d.run(1_000)
    assert session.frame == touch + 1_000 and len(ov.timeline) == touch + 1_000
    d.press("LEFT_BRACKET")  # [: the event before the frame shown (live: the latest)
    assert ov.pinned == touch
    d.frame()
    tree = dict(ov.panel.scene.tree.tree_drawn)
    assert tree["Obj2"] == "L W E" and tree["Obj5"] == ". W E"
    # The log shows that frame's block, the timeline has scrolled to it.
    assert ov.panel.frames.log.block_of(touch)[0] == "*Update Local : Obj2*"
    frames = ov.panel.frames
    assert frames.timeline_first <= touch
    assert touch < frames.timeline_first + frames.timeline_rect[2] // frames.timeline_slot
    d.press("RIGHT_BRACKET")  # no later event: back to live
    assert ov.pinned is None


def test_totals_are_the_sums_of_the_frames_reports(drive):
    d = drive(tree10(events=True))
    reports = []
    for _ in range(150):
        d.run(1)
        reports.append(d.app.session.last_report)
    totals = d.app.overlay.timeline.totals
    assert totals.frames == 150
    assert totals.products == sum(r.products for r in reports)
    assert totals.naive_products == sum(r.naive_products for r in reports)
    assert totals.saved == totals.naive_products - totals.products > 0
    # The same numbers in the panel.
    d.app.overlay.reset_totals()
    later = []
    for _ in range(10):
        d.frame()
        later.append(d.app.session.last_report)
    totals = d.app.overlay.timeline.totals
    assert totals.since == 151 and totals.products == sum(r.products for r in later)


def test_restart_replays_the_scripted_events_from_frame_zero(drive):
    d = drive(tree10(events=True), touches={90: ["Obj7"]})
    session, ov = d.app.session, d.app.overlay

    def run() -> tuple:
        logs, worlds = {}, []
        for _ in range(310):
            d.run(1)
            logs[session.frame] = session.last_report.log_lines()
            worlds.append(session.graph.world_matrices().copy())
        marks = ov.timeline.event_frames().tolist()
        notes = [ov.timeline.notes(f) for f in marks]
        return logs, np.stack(worlds), marks, notes

    first = run()
    assert first[2] == [60, 90, 120, 180, 240, 300]
    assert first[3][-1] == (("touch", "Obj2"), ("touch", "Obj5"))
    session.select(session.graph["Obj4"].id)
    d.press("H")  # an edit of the user's: moved away from the start pose
    d.run(5)
    d.press("NUMBER_0")  # over an edit, 0 asks first (test_restart_asks.py)
    d.press("NUMBER_0")  # restart
    assert session.frame == 0 and len(ov.timeline) == 0
    again = run()
    assert again[0] == first[0]
    np.testing.assert_array_equal(again[1], first[1])
    assert again[2:] == first[2:]


def test_help_window_lists_the_keys_in_readable_rows(drive):
    d = drive(tree10(), still=True)
    before = d.frame()
    d.press("F1")
    shown = d.frame()
    ov = d.app.overlay
    assert ov.show_help
    changed = np.abs(shown.astype(int) - before.astype(int)).sum(axis=2) > 60
    # Text is light on the window's dark ground: rows of letters, not a column of them.
    bright = (shown.min(axis=2) > 170) & changed
    rows = np.flatnonzero(bright.any(axis=1))
    cols = np.flatnonzero(bright.any(axis=0))
    assert cols.size > 300, "the help's text is not spread across the window"
    lines = np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1)
    assert len(lines) >= 12, f"only {len(lines)} lines of text"
    widths = [np.ptp(np.flatnonzero(bright[line].any(axis=0))) for line in lines]
    assert np.median(widths) > 150, f"lines are narrow: {widths}"
    d.press("F1")
    assert not ov.show_help
    # Closed: the view between the panels is as before (the panels' title bars may show
    # which window had the focus last).
    view = slice(240, 580)
    assert np.array_equal(d.frame()[30:, view], before[30:, view])


def test_the_log_keeps_its_frames_through_a_long_quiet_spell(drive):
    """After 400 frames that recompute nothing the log still shows the touch before them
    (it said "no frame has recomputed anything yet" once 300 quiet frames had passed); a
    timeline of quiet frames only says so."""
    from viewer.overlay.model import quiet_log_text

    d = drive(tree10(), still=True, touches={2: ["Obj4"]})
    d.run(400)
    d.frame()
    blocks = d.app.overlay.panel.frames.log.blocks
    assert [f for f, _ in blocks] == [2] and blocks[0][1][1] == "*Update Local : Obj4*"
    quiet = FrameRecords()
    g = chain5()
    for frame in range(1, 401):
        report = g.update()
        quiet.add(frame, report, FrameStats.of_report(frame, report))
    assert quiet_log_text(quiet) == "frames 1 to 400 recomputed nothing"
    assert quiet_log_text(FrameRecords()) == "no frame yet"


def test_times_are_a_row_each_so_big_numbers_fit():
    from viewer.overlay.stats import Timings

    t = Timings()
    t.add_step(1234.5, 456.25)
    t.add_draw(2345.0)
    assert t.rows() == [
        ("update (ms)", "1,234.50"), ("upload (ms)", "456.25"), ("draw (ms)", "2,345.00")
    ]  # fmt: skip


def test_the_wheel_over_the_timeline_scrolls_it_back_and_live_returns(drive):
    d = drive(tree10(), still=True)
    d.run(500)
    d.frame()
    frames = d.app.overlay.panel.frames
    x, y, w, h = frames.timeline_rect
    latest_first = frames.timeline_first
    distance = d.app.camera.distance
    d.app.on_mouse_position_event(int(x + w / 2), int(y + h / 2), 0, 0)
    d.frame()
    d.app.on_mouse_scroll_event(0.0, 2.0)  # two notches back in time
    d.frame(2)
    assert frames.timeline_first < latest_first and frames.back > 0
    assert d.app.camera.distance == distance  # the panel's wheel, not the view's zoom
    frames._live()
    d.frame()
    assert frames.back == 0 and frames.timeline_first == latest_first + 4  # 4 frames on


def test_the_timeline_caption_counts_to_the_newest_frame_number():
    """An attached program's frames start at its own count: frames 3 to 7 are "of 7", not
    "of 5" (how many are kept); a local scene reads as before."""
    from viewer.overlay.model import timeline_span

    g = chain5()
    attached = FrameRecords()
    for frame in range(3, 8):
        report = g.update()
        attached.add(frame, report, FrameStats.of_report(frame, report))
    frames = np.array([e.frame for e in attached])
    assert timeline_span(frames, attached) == "frames 3 to 7 of 7"
    assert timeline_span(frames[1:3], attached) == "frames 4 to 5 of 7"
    assert timeline_span(frames[:0], attached) == "no frames yet"
