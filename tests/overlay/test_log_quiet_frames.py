"""Every frame explains itself in the log: a frame picked (on the timeline, or with `[`)
that recomputed nothing shows ``# frame N`` and ``frame N: nothing recomputed`` with why
(idle; a step while paused; the event that changed no transform, named), at the top of
the box, never another frame's lines in its place (a quiet frame has no lines of its
own, so the box would otherwise show the frames around it, under their numbers only)."""

from __future__ import annotations

from pathlib import Path

import app_driver
import pytest
from overlay_helpers import chain5

from viewer.io.loader import load_scene
from viewer.overlay.stats import FrameStats
from viewer.overlay.timeline_records import FrameRecords

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def shown(d) -> list[str]:
    """The log lines seen in the box at the last frame."""
    log = d.app.overlay.panel.frames.log
    return log.lines[slice(*log.view)]


def assert_explains(d, frame: int, why: str) -> None:
    """The box shows `frame`: its header in view, then its one line with `why` (at the
    top where the lines after it fill the box, as for any picked frame), the Counters
    naming the same frame."""
    ov = d.app.overlay
    assert ov.pinned == frame
    assert ov.shown_entry.frame == frame
    seen = shown(d)
    at = seen.index(f"# frame {frame}")
    assert seen[at + 1 : at + 2] == [f"frame {frame}: nothing recomputed ({why})"], seen
    log = ov.panel.frames.log
    assert log.block_of(frame) == [f"frame {frame}: nothing recomputed ({why})"]
    for k, line in enumerate(log.lines):  # every line under a header is that frame's
        if line.startswith("# frame"):
            number = int(line.split()[2])
            assert log.block_of(number) is not None
        elif line.startswith("frame "):
            assert line.split(":")[0] == f"frame {number}", (k, line)


@pytest.fixture
def tree10(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    return drive(load_scene(SCENES / "tree10.toml"), still=True, touches={2: ["Obj2"]})


def test_an_idle_frame_picked_says_it_recomputed_nothing(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    touches = {2: ["Obj2"], 9: ["Obj1"], 11: ["Obj1"]}
    d = drive(load_scene(SCENES / "tree10.toml"), still=True, touches=touches)
    d.run(12)
    d.frame()
    ov = d.app.overlay
    assert ov.timeline.find(7).stats.world == 0
    ov.pin(7)  # as a click on its bar does
    d.frame(2)
    assert_explains(d, 7, "idle: nothing moved, touched or edited")
    assert shown(d)[0] == "# frame 7"  # the later touches' lines fill the box below it
    ov.pin(2)  # a frame that did work: its own lines at the top, as before
    d.frame(2)
    assert shown(d)[0] == "# frame 2" and "Obj2" in shown(d)[1]


def test_a_step_while_paused_with_nothing_pending_says_so(tree10):
    d = tree10
    d.run(4)
    d.press("SPACE")
    d.frame()
    d.press("PERIOD")  # one step: nothing pending, no motion
    d.frame()
    stepped = d.app.overlay.timeline.last.frame
    d.press("PERIOD")
    d.frame(2)
    d.app.overlay.pin(stepped)
    d.frame(2)
    assert_explains(d, stepped, "paused: a step with nothing pending")


def test_an_event_that_changed_no_transform_is_named(tree10):
    """`[` to the reload's frame: the scene replaced by the same scene moved nothing."""
    d = tree10
    d.run(6)
    d.reload(load_scene(SCENES / "tree10.toml"))
    d.run(1)
    reloaded = d.app.overlay.timeline.last
    events = dict(reloaded.events)
    assert "reload" in events and reloaded.stats.world == 0, (events, reloaded.stats.world)
    d.run(5)
    d.frame()
    d.press("LEFT_BRACKET")  # the event before the latest frame: the reload
    d.frame(2)
    why = f"reload: {events['reload']}, which changed no transform"
    assert_explains(d, reloaded.frame, why)


def test_a_frame_whose_lines_went_says_so():
    """A frame that recomputed, whose report the records let go: its count, not lines."""
    g = chain5()
    records = FrameRecords(plain_reports=1)
    for frame in (1, 2):
        g.touch(g["Obj2"])
        report = g.update()
        records.add(frame, report, FrameStats.of_report(frame, report))
    assert records.report(1) is None and records.find(1).stats.world == 4
    assert records.own_block(1) == [
        "# frame 1",
        "frame 1: 4 nodes recomputed; their lines are no longer kept",
    ]
    assert records.own_block(2) == records.find(2).log  # its own lines
