"""An unticked checkbox shows its square: ImGui's dark square on the dark panel was hard
to see (the fourth newcomer trial, "keep world pose on drop" unticked). Its edge is drawn
in a light colour; the square's inside, and every other widget, look as before."""

from __future__ import annotations

import app_driver
import numpy as np
from imgui_bundle import imgui

from viewer.io.generate import default_scene
from viewer.overlay.widgets import CHECKBOX_EDGE


def luminance(pixels: np.ndarray) -> np.ndarray:
    return pixels.astype(float) @ np.array([0.299, 0.587, 0.114])


def test_an_unticked_box_has_a_visible_edge(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(default_scene(), still=True)
    d.run(3)
    log = d.app.overlay.panel.frames.log
    d.frame()
    log.follow = False
    img = d.frame()
    low, high = log.follow_rect
    side = int(high.y - low.y)  # the square is as high as the item
    x0, y0 = int(round(low.x)), int(round(low.y))
    square = img[y0 : y0 + side, x0 : x0 + side]
    edge = np.concatenate([square[0, 2:-2], square[-1, 2:-2], square[2:-2, 0], square[2:-2, -1]])
    inside = square[3:-3, 3:-3].reshape(-1, 3)
    ground = img[y0 : y0 + side, x0 - 6 : x0 - 2].reshape(-1, 3)  # the panel beside it
    assert luminance(inside).max() - luminance(ground).mean() < 40  # dark inside, unticked
    assert luminance(edge).mean() - luminance(ground).mean() > 60  # the edge stands out
    expected = np.array(CHECKBOX_EDGE[:3]) * 255
    assert np.abs(np.median(edge, axis=0) - expected).max() < 40


def test_the_edge_is_the_checkbox_s_alone(drive):
    """The border is pushed around each checkbox only: the style the other widgets use
    keeps ImGui's (no frame border)."""
    d = drive(default_scene(), still=True)
    d.run(2)
    d.frame()
    assert imgui.get_style().frame_border_size == 0.0
