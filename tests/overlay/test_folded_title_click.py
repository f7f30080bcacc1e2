"""A single click on a folded panel's title opens it (docs/viewer.md, "Narrow pictures
and notebooks"): issue 34's newcomer trial at 640x360 found that only the small arrow or
a double-click opened the Frames panel. The arrow and a double-click open it too."""

from __future__ import annotations

from pathlib import Path

import app_driver
import pytest

from viewer.io.loader import load_scene

SCENES = Path(__file__).resolve().parents[2] / "scenes"
W, H = 640, 360


def _frames_height(d) -> float:
    return d.app.overlay.window_rects[1][3]  # the right panel's (x, y, w, h)


@pytest.mark.parametrize("where", ["title", "arrow", "double-click"])
def test_a_click_on_the_folded_frames_title_opens_it(drive, monkeypatch, where):
    monkeypatch.setattr(app_driver, "SIZE", (W, H))
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame(3)
    x, y, w, h = d.app.overlay.window_rects[1]
    assert h < 40  # folded to its title bar
    px = x + (10 if where == "arrow" else 70)
    d.click(px, y + 8)
    if where == "double-click":
        d.click(px, y + 8)
    d.frame(3)
    assert _frames_height(d) == H  # open over the view, the window's height


def test_a_double_click_on_the_opened_title_folds_it_again(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (W, H))
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame(3)
    x, y, w, h = d.app.overlay.window_rects[1]
    d.click(x + 70, y + 8)
    d.frame(30)  # past a double-click's interval (0.3 s)
    assert _frames_height(d) == H
    d.click(x + 70, y + 8)
    d.click(x + 70, y + 8)
    d.frame(3)
    assert _frames_height(d) < 40
