"""A timeline scrolled back holds still while the scene runs (fifth newcomer trial, step
32: `|<` showed "frames 14 to 82 of 895", 2 s later "frames 33 to 101 of 914"; after `[`
to frame 1 that frame's bar was already out of view): scrolled back (`|<`, the wheel) or
showing a picked frame, the timeline stays on the same frame numbers as new frames come,
until the wheel, `live`, or those frames leaving the kept records (then it shows the
oldest kept). Live, it follows the newest frame."""

from __future__ import annotations

import pytest

from viewer.io.generate import default_scene
from viewer.overlay.timeline_records import FrameRecords


@pytest.fixture
def running(drive):
    d = drive(default_scene(), still=False, touches={40: ["Obj2"], 90: ["Obj4"]})
    d.run(300)
    d.frame()
    return d


def shown(frames) -> tuple[int, int]:
    """The first and last frame numbers the timeline draws (as its caption names them)."""
    fits = int(frames.timeline_rect[2] // frames.timeline_slot)
    rec = frames.ov.timeline.records()["frame"]
    first = int(rec.tolist().index(frames.timeline_first))
    last = rec[min(first + fits, len(rec)) - 1]
    return frames.timeline_first, int(last)


def click_oldest(d) -> None:
    """A click on `|<`, the first of the buttons below the timeline."""
    (x, y), _ = d.app.overlay.panel.frames.buttons_rect
    d.click(x + 4, y + 4)


def test_oldest_holds_still_while_frames_come(running):
    d = running
    frames = d.app.overlay.panel.frames
    click_oldest(d)
    before = shown(frames)
    assert before[0] == d.app.overlay.timeline[0].frame  # `|<`: the oldest frame kept
    d.run(120)  # two seconds at 60 frames a second
    d.frame()
    assert shown(frames) == before
    assert frames.back > 120


def test_a_picked_frame_holds_its_place_on_the_timeline(running):
    d = running
    ov, frames = d.app.overlay, d.app.overlay.panel.frames
    d.press("LEFT_BRACKET")
    d.press("LEFT_BRACKET")
    d.frame()
    assert ov.pinned == 40
    before = shown(frames)
    assert before[0] <= 40 <= before[1]
    x0, _, _, _ = frames.timeline_rect
    bar = x0 + (41 - before[0] + 0.5) * frames.timeline_slot  # frame 41's bar
    d.run(200)
    d.frame()
    assert shown(frames) == before  # the bars are where they were
    d.app.on_mouse_position_event(int(bar), int(frames.timeline_rect[1] + 20), 0, 0)
    d.frame()
    d.app.on_mouse_press_event(int(bar), int(frames.timeline_rect[1] + 20), 1)
    d.frame()
    d.app.on_mouse_release_event(int(bar), int(frames.timeline_rect[1] + 20), 1)
    d.frame()
    assert ov.pinned == 41  # the bar under the pointer is the one clicked


def test_a_picked_frame_at_the_newest_end_holds_too(running):
    """A frame picked with its bar in view at live: the timeline stops following."""
    d = running
    ov, frames = d.app.overlay, d.app.overlay.panel.frames
    frame = ov.timeline.last.frame - 3
    ov.pin(frame)
    d.frame()
    before = shown(frames)
    d.run(50)
    d.frame()
    assert shown(frames) == before and before[0] <= frame <= before[1]


def test_the_wheel_holds_and_scrolling_to_the_end_follows_again(running):
    d = running
    frames = d.app.overlay.panel.frames
    x, y, w, h = frames.timeline_rect
    d.app.on_mouse_position_event(int(x + w / 2), int(y + h / 2), 0, 0)
    d.frame()
    d.app.on_mouse_scroll_event(0.0, 2.0)  # back in time
    d.frame()
    before = shown(frames)
    d.frame(30)  # the pointer still over it
    assert shown(frames) == before
    d.app.on_mouse_scroll_event(0.0, -50.0)  # forward, past the latest: live again
    d.frame()
    assert frames.back == 0
    latest = shown(frames)
    d.frame(10)
    assert shown(frames)[1] == latest[1] + 10  # it follows


def test_live_follows_and_live_button_lets_go_of_a_held_window(running):
    d = running
    frames = d.app.overlay.panel.frames
    before = shown(frames)
    d.frame(5)
    assert shown(frames) == (before[0] + 5, before[1] + 5)
    click_oldest(d)
    d.run(30)
    d.frame()
    assert frames.back > 0
    d.press("RIGHT_BRACKET")  # no later event: live, the timeline too
    d.frame()
    assert frames.back == 0 and shown(frames)[1] == d.app.overlay.timeline.last.frame


def test_frames_leaving_the_records_show_the_oldest_kept(running):
    d = running
    ov, frames = d.app.overlay, d.app.overlay.panel.frames
    ov.timeline = FrameRecords(capacity=150)  # a short ring: frames leave it soon
    d.run(150)
    d.frame()
    click_oldest(d)
    oldest = ov.timeline[0].frame
    assert shown(frames)[0] == oldest
    d.run(40)  # the 40 oldest leave, those shown among them
    d.frame()
    assert ov.timeline[0].frame > oldest
    assert shown(frames)[0] == ov.timeline[0].frame  # the oldest kept, not a stale window
