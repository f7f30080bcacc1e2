"""Counters and the timeline records, without GL."""

from __future__ import annotations

import numpy as np
import pytest
from overlay_helpers import chain5

from viewer.overlay.stats import FrameStats, Timings, counter_rows
from viewer.overlay.timeline_records import FrameRecords, log_block


def test_counters_of_example_a():
    g = chain5()
    g.touch(g["Obj3"])
    stats = FrameStats.of_report(7, g.update(), bytes_uploaded=228)
    assert (stats.frame, stats.nodes, stats.local, stats.world, stats.executed) == (7, 5, 1, 3, 3)
    # Cached: one product per recomputed non-root world. Naive: every world from scratch,
    # node k costs k - 1 products: 0 + 1 + 2 + 3 + 4.
    assert (stats.products, stats.naive_products) == (3, 10)
    assert stats.saved_products == 7 and stats.saving == pytest.approx(0.7)
    rows = dict(counter_rows(stats))
    assert rows["products done"] == "3" and rows["naive products"] == "10"
    assert rows["saved"] == "7 (70.0 %)" and rows["bytes uploaded"] == "228"


def test_suppressed_sets_are_counted():
    g = chain5()
    g["Obj2"].local_position = g["Obj2"].local_position  # the same value again
    stats = FrameStats.of_report(1, g.update())
    assert stats.suppressed == 1 and stats.world == 0 and stats.saving == 1.0


def test_empty_frame_saves_nothing_to_divide():
    assert FrameStats(frame=1).saving == 0.0


def test_timeline_records_are_a_ring_buffer_and_finds_frames():
    g = chain5()
    h = FrameRecords(capacity=4)
    for frame in range(1, 8):
        if frame % 2:
            g.touch(g["Obj4"])
        report = g.update()
        h.add(frame, report, FrameStats.of_report(frame, report))
    assert [e.frame for e in h] == [4, 5, 6, 7]
    assert h.find(3) is None and h.find(5).frame == 5 and h.last.frame == 7
    frames, local, world = h.counts()
    assert frames.tolist() == [4, 5, 6, 7]
    assert local.tolist() == [0, 1, 0, 1] and world.tolist() == [0, 2, 0, 2]
    # The log keeps only frames that recomputed something, in the --log format.
    assert h.log() == [
        (
            5,
            [
                "# frame 5",
                "*Update Local : Obj4*",
                "=Update World : Obj4=",
                "=Update World : Obj5=",
            ],
        ),
        (
            7,
            [
                "# frame 7",
                "*Update Local : Obj4*",
                "=Update World : Obj4=",
                "=Update World : Obj5=",
            ],
        ),
    ]


def test_timeline_records_drop_old_reports_beyond_its_id_budget():
    g = chain5()
    h = FrameRecords(capacity=10, id_budget=20)
    for frame in range(1, 6):
        g.touch(g["Obj1"])  # 1 local + 5 world + 5 causes + 5 executed = 16 ids
        report = g.update()
        h.add(frame, report, FrameStats.of_report(frame, report))
    assert [e.report is not None for e in h] == [False] * 4 + [True]
    assert [e.stats.world for e in h] == [5] * 5  # counters stay for the timeline


def test_log_block_is_the_report_log_and_is_trimmed_for_huge_frames():
    g = chain5()
    g.touch(g["Obj3"])
    report = g.update()
    assert log_block(1, report) == ["# frame 1", *report.log_lines()]
    assert log_block(2, g.update()) == []
    g.touch(g["Obj1"])
    report = g.update()
    block = log_block(3, report, limit=2)
    assert block == [
        "# frame 3",
        "*Update Local : Obj1*",
        "=Update World : Obj1=",
        "=Update World : Obj2=",
        "... 3 more world updates",
    ]


def test_timings_average_and_rate():
    t = Timings(window=4)
    for ms in (1.0, 2.0, 3.0, 4.0, 5.0):
        t.add_step(ms, ms / 2)
        t.add_draw(2 * ms)
        t.add_frame_time(1 / 50)
    assert t.row() == "update 3.50  upload 1.75  draw 7.00 ms"
    assert t.fps == pytest.approx(50.0)
    t.clear()
    assert t.fps == 0.0 and np.isfinite(t.fps)
