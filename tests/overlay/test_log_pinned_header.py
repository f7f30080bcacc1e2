"""The log box names the frame whose lines it shows: live with follow ticked, a frame with
more lines than the box holds shows its last lines (the newest line stays in view,
test_replay_log_in_view.py), its ``# frame N`` line scrolled away above (the fourth
trial's screenshot 72; the fifth trial, step 48: "in the cut box you cannot tell which
frame the lines are"). A row pinned at the box's top then names that frame, over the row
there; where a ``# frame`` line is seen, none is drawn (the lines above it are the frame
before's)."""

from __future__ import annotations

from pathlib import Path

import app_driver
import numpy as np
import pytest

from viewer.io.generate import default_scene, generate_scene
from viewer.io.loader import load_scene

SCENES = Path(__file__).resolve().parents[2] / "scenes"
#: The glow colours the log's lines are written in (local red, world orange), in pixels.
LINE_COLORS = ("local", "world")


def colored(img, rect_x, top, bottom, color) -> int:
    """Pixels near `color` (0-1 RGBA) in the rows top..bottom, columns rect_x."""
    crop = img[int(np.ceil(top)) : int(bottom), rect_x[0] : rect_x[1]].astype(int)
    target = np.array(color[:3]) * 255
    return int((np.abs(crop - target).max(axis=-1) < 30).sum())


def newest_busy(d) -> int:
    rec = d.app.overlay.timeline.records()
    return int(rec["frame"][rec["world"] > 0][-1])


def test_a_frame_longer_than_the_box_is_named_at_its_top(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(generate_scene("chain:40"), still=True, touches={2: ["Obj1"]})
    d.run(3)
    d.press("SPACE")  # paused: frame 2's 42 lines are the newest
    d.frame(2)
    img = d.frame()
    log = d.app.overlay.panel.frames.log
    assert len(log.lines) == 42 and log.lines[0] == "# frame 2"
    first, stop = log.view
    assert stop == len(log.lines)  # the newest line is seen
    assert first > 1  # the frame's head is above the box's top
    assert log.pinned_header == 2
    top, bottom = log.pinned_rect
    assert top == log.seen[0] and bottom - top < 2.5 * 17  # a row at the top seen
    assert all(y0 >= bottom for k, (y0, _) in log.drawn.items() if first <= k < stop)
    # Drawn over the row there: none of the lines' colours shows through, its text does.
    colors = d.app.overlay.panel.frames.colors
    xs = (1280 - 300, 1280 - 30)
    assert not any(colored(img, xs, top, bottom, getattr(colors, c)) for c in LINE_COLORS)
    assert colored(img, xs, top, bottom, colors.dim) > 20
    assert colored(img, xs, bottom, bottom + 17, colors.world) > 20  # the lines below


def test_a_frame_that_fits_keeps_its_own_header_and_no_pinned_row(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(load_scene(SCENES / "tree10.toml"), still=True, touches={2: ["Obj2"]})
    d.run(3)
    d.press("SPACE")
    d.frame(2)
    log = d.app.overlay.panel.frames.log
    assert "# frame 2" in log.lines[slice(*log.view)]
    assert log.pinned_header is None and log.pinned_rect is None


@pytest.mark.parametrize("size", [(1280, 720), (640, 360)])
def test_the_fifth_trial_s_cut_box_names_the_newest_frame(drive, monkeypatch, size):
    """Step 48 (1280x720, Totals open, the Frames panel wheeled to its end) and step 52
    (640x360, Frames opened): the box showed the newest frame's last 6 lines, no header."""
    monkeypatch.setattr(app_driver, "SIZE", size)
    monkeypatch.setattr("viewer.overlay.frames_panel.TOTALS_OPEN_FROM", 0)
    monkeypatch.setattr("viewer.overlay.panel.panels_folded", lambda width: (False, False))
    d = drive(default_scene(), still=False)
    d.run(60)
    d.frame(2)
    d.app.on_mouse_position_event(size[0] - 60, size[1] // 2, 0, 0)
    d.frame()
    d.app.on_mouse_scroll_event(0.0, -40.0)  # the Frames panel down to its end
    d.frame(3)
    log = d.app.overlay.panel.frames.log
    first, stop = log.view
    newest = newest_busy(d)
    assert stop == len(log.lines)  # the newest line seen
    assert log.lines.index(f"# frame {newest}") < first  # its own header scrolled away
    assert log.pinned_header == newest  # the pinned row names it
    assert log.pinned_rect[0] == log.seen[0]  # at the top of the part seen


def test_live_with_the_newest_header_seen_no_row_is_pinned(drive, monkeypatch):
    """The default scene live: the box shows the frame before's last lines, then the
    newest frame whole with its header: nothing to name, no line hidden."""
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(default_scene(), still=False)
    d.run(100)
    for _ in range(5):
        d.frame()
        log = d.app.overlay.panel.frames.log
        first, stop = log.view
        shown = log.lines[first:stop]
        assert f"# frame {newest_busy(d)}" in shown and not shown[0].startswith("#")
        assert log.pinned_header is None
