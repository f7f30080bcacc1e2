"""The timeline's tooltip ("frame 706: 3 local, 5 world") never covers the buttons below
the timeline (`|<`, `< event`, `event >`, `live`): at the mouse it did (the third and
fourth newcomer trials). Read from ImGui's own window rectangles, at every bar of the
timeline, on frames with events (a longer tooltip) and without, at the docs' sizes."""

from __future__ import annotations

import app_driver
import pytest
from imgui_bundle import imgui

from viewer.io.generate import default_scene


def tooltip_rect():
    """The tooltip window ImGui drew at the last frame: (x0, y0, x1, y1), or None."""
    window = imgui.internal.find_window_by_name("##Tooltip_00")
    if window is None or not window.active:
        return None
    return (window.pos.x, window.pos.y, window.pos.x + window.size.x, window.pos.y + window.size.y)


def overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("size", [(1280, 720), (800, 450), (640, 360)])
def test_the_timeline_tooltip_leaves_the_buttons_free(drive, monkeypatch, size):
    monkeypatch.setattr(app_driver, "SIZE", size)
    monkeypatch.setattr("viewer.overlay.panel.panels_folded", lambda width: (False, False))
    d = drive(default_scene(), still=False, touches={20: ["Obj2"], 40: ["Obj3", "Obj4"]})
    d.run(60)
    d.frame()
    frames = d.app.overlay.panel.frames
    x, y, w, h = frames.timeline_rect
    shown = 0
    for k in range(0, int(w), max(1, int(w) // 12)):  # bars from left to right
        d.app.on_mouse_position_event(int(x + k + 1), int(y + h / 2), 0, 0)
        d.frame(2)  # a tooltip is sized at its first frame and shown at the next
        tip = tooltip_rect()
        if tip is None:
            continue
        shown += 1
        low, high = frames.buttons_rect
        assert not overlaps(tip, (low.x, low.y, high.x, high.y)), (tip, low, high)
        assert not overlaps(tip, (x, y, x + w, y + h))  # nor the bars looked at
        assert tip[0] >= 0 and tip[1] >= 0 and tip[2] <= size[0] and tip[3] <= size[1]
    assert shown >= 6


def test_an_event_frame_s_longer_tooltip_leaves_them_free_too(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(default_scene(), still=True, touches={3: ["Obj2", "Obj5", "Obj3"]})
    d.run(5)
    d.frame()
    frames = d.app.overlay.panel.frames
    x, y, w, h = frames.timeline_rect
    first = frames.timeline_first
    d.app.on_mouse_position_event(
        int(x + (3 - first + 0.5) * frames.timeline_slot), int(y + h / 2), 0, 0
    )
    d.frame(2)
    tip = tooltip_rect()
    assert tip is not None and tip[3] - tip[1] > 40  # the touch's notes: several lines
    low, high = frames.buttons_rect
    assert not overlaps(tip, (low.x, low.y, high.x, high.y))
    assert tip[0] >= 0 and tip[1] >= 0
