"""The start hint sits in the 3D view, clear of every panel: at the notebook's 640x360
the picture's middle put its box a few pixels over the left panel (the fifth newcomer
trial); where one line does not fit between the panels it takes two."""

from __future__ import annotations

from pathlib import Path

import app_driver
import pytest

from viewer.io.loader import load_scene
from viewer.overlay.help_window import free_span

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def overlaps(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.parametrize("size", [(1280, 720), (800, 450), (640, 360), (520, 300), (400, 240)])
def test_the_start_hint_is_whole_in_the_view_and_clear_of_the_panels(drive, monkeypatch, size):
    monkeypatch.setattr(app_driver, "SIZE", size)
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    ov = d.app.overlay
    ov.show_hint, ov.deterministic = True, False  # as in a window (headless: no hint)
    d.app.draw(0.05)
    d.app.draw(0.05)
    hint, panels = ov.hint_rect, list(ov.window_rects)
    assert hint is not None and panels  # drawn, and the panels noted where they lie
    x, y, w, h = hint
    assert min(x, y) >= 0 and x + w <= size[0] and y + h <= size[1], hint
    assert not any(overlaps(hint, panel) for panel in panels), (hint, panels)


def test_free_span_is_bounded_by_the_panels_that_reach_the_rows():
    panels = [(0, 0, 192, 360), (500, 0, 140, 20)]  # the left panel, a folded title bar
    assert free_span(640, 300, 360, panels) == (192, 640)
    assert free_span(640, 0, 10, panels) == (192, 500)
    assert free_span(640, 0, 10, [(0, 0, 400, 10), (300, 0, 340, 10)]) == (640, 640)  # no room
