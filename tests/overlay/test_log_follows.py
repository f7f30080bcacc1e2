"""A log that follows (issue 34, item 1), in the default 1280x720 window: live, the newest
frame's lines are in view without any scrolling, also after hundreds of frames; a frame
picked with `[` shows its lines at the top of the log; `]` past the last event brings the
timeline, the log and the panels back to live together; the wheel lets go of the log
and the "follow" toggle takes it back."""

from __future__ import annotations

import app_driver
import pytest

from viewer.io.generate import default_scene


@pytest.fixture
def running(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(default_scene(), still=False, touches={40: ["Obj2"], 90: ["Obj4"]})
    d.run(300)
    d.frame()
    return d


def newest_busy(d) -> int:
    """The newest frame that recomputed something (the newest with log lines)."""
    rec = d.app.overlay.timeline.records()
    return int(rec["frame"][rec["world"] > 0][-1])


def header_in_view(frames, frame: int) -> int | None:
    """Where ``# frame N`` lies among the log lines in view (None: not in view)."""
    first, stop = frames.log.view
    view = frames.log.lines[first:stop]
    return view.index(f"# frame {frame}") if f"# frame {frame}" in view else None


def test_live_the_newest_frame_is_in_view_after_300_frames(running):
    d = running
    frames = d.app.overlay.panel.frames
    latest = newest_busy(d)
    assert latest == d.app.overlay.timeline.last.frame > 300  # the motion: every frame
    assert header_in_view(frames, latest) is not None, frames.log.view
    top, bottom = frames.log.box
    assert bottom <= app_driver.SIZE[1]  # the panel itself needs no scrolling either
    assert bottom - top >= 6 * 15
    d.frame(65)  # and it keeps up
    assert newest_busy(d) > latest
    assert header_in_view(frames, newest_busy(d)) is not None


def test_a_picked_frame_shows_at_the_top_and_brackets_return_everything_to_live(running):
    d = running
    ov, frames = d.app.overlay, d.app.overlay.panel.frames
    d.press("LEFT_BRACKET")
    d.frame()
    assert ov.pinned == 90
    assert header_in_view(frames, 90) == 0  # the picked frame's lines at the top
    d.press("LEFT_BRACKET")
    d.frame()
    assert ov.pinned == 40 and header_in_view(frames, 40) == 0
    assert frames.back > 0  # the timeline went back to show it
    d.press("RIGHT_BRACKET")
    d.press("RIGHT_BRACKET")  # past the last event: live
    d.frame(2)
    assert ov.pinned is None
    assert frames.back == 0  # the timeline ends at the latest frame
    assert header_in_view(frames, newest_busy(d)) is not None
    assert ov.panel.scene.tree.tree_drawn  # the panels show the live frame
    assert ov.shown_entry is ov.timeline.last


def test_the_wheel_lets_go_of_the_log_and_follow_takes_it_back(running):
    d = running
    frames = d.app.overlay.panel.frames
    top, bottom = frames.log.box
    x = app_driver.SIZE[0] - 100
    d.app.on_mouse_position_event(x, int(0.5 * (top + bottom)), 0, 0)
    d.frame()
    d.app.on_mouse_scroll_event(0.0, 5.0)  # up: back in the log
    d.frame(3)
    assert not frames.log.follow
    held = frames.log.view
    d.frame(10)
    assert frames.log.view == held  # new frames do not pull it down
    frames.log.follow = True
    d.frame(2)
    assert header_in_view(frames, newest_busy(d)) is not None


def let_go(d, frames) -> None:
    """The wheel up over the log: follow lets go."""
    top, bottom = frames.log.box
    d.app.on_mouse_position_event(app_driver.SIZE[0] - 100, int(0.5 * (top + bottom)), 0, 0)
    d.frame()
    d.app.on_mouse_scroll_event(0.0, 5.0)
    d.frame(3)
    assert not frames.log.follow


def test_a_click_on_the_follow_toggle_switches_it_and_leaves_the_log_open(running):
    """The toggle once sat on the Log's header, which took the click and folded the log."""
    d = running
    frames = d.app.overlay.panel.frames
    for expected, at in ((False, 0.05), (True, 0.5), (False, 0.95)):  # box ... label's end
        low, high = frames.log.follow_rect
        frames.log.box = None
        d.click(low.x + at * (high.x - low.x), 0.5 * (low.y + high.y))
        d.frame()
        assert frames.log.follow is expected
        assert frames.log.box is not None  # the Log section was drawn: not folded


@pytest.mark.parametrize("how", ["live button", "bracket", "wheel to the end"])
def test_live_and_the_end_of_the_log_take_follow_back(running, how):
    """Also when live already: the log follows again, the newest frame in view."""
    d = running
    frames = d.app.overlay.panel.frames
    let_go(d, frames)
    d.frame(5)
    if how == "live button":
        frames._live()  # what the "live" button runs
    elif how == "bracket":
        d.press("RIGHT_BRACKET")  # live already: `]` finds no later event
    else:
        for _ in range(40):
            d.app.on_mouse_scroll_event(0.0, -3.0)
            d.frame()
    d.frame(2)
    assert frames.log.follow
    d.frame(20)
    assert header_in_view(frames, newest_busy(d)) is not None


def test_when_the_motion_stops_the_log_shows_its_end_on_every_frame_of_a_window(drive, monkeypatch):
    """The fourth trial: in a window, once the motion stopped, the old frames' reports
    went one a frame and the followed log showed past its end (empty, then the newest
    frame's last 2 lines at its top). A window lays each frame out once (headless runs
    twice, which hid it): so does this run."""
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(default_scene(), still=False)
    d.app.overlay.timeline.plain_reports = 100  # reports go after 100 frames, not 600
    d.app.overlay.deterministic = False  # each frame laid out once, as in a window
    d.run(150)
    d.frame()
    d.press("S")  # the motion stops: no new lines, the oldest frames' go one a frame
    log = d.app.overlay.panel.frames.log
    for _ in range(110):
        d.frame()
        assert log.lines  # never empty: the newest busy frame keeps its report
        first, stop = log.view
        assert stop == len(log.lines), (log.view, len(log.lines))  # the newest line seen
        assert stop - first >= min(len(log.lines), 10)  # and the box filled
        header = len(log.lines) - len(log.blocks[-1][1])
        assert first <= header  # the newest frame's `# frame` line too
    # Every other frame's report went; the last one that recomputed something stays.
    assert [frame for frame, _ in log.blocks] == [newest_busy(d)]
