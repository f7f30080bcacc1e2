"""The in-window file browser fits small windows: at the notebook's 640x360 its line of
the kinds it lists ran past the window's right edge ("... .usda, .usd" cut: the fifth
newcomer trial); it wraps. Read from ImGui's item rectangles (`ClipCheck`)."""

from __future__ import annotations

from pathlib import Path

import app_driver
import pytest
from test_fields_keyboard import key
from test_layout_fits import ClipCheck

from viewer.io.loader import load_scene

SCENES = Path(__file__).resolve().parents[2] / "scenes"


@pytest.mark.parametrize("size", [(1280, 720), (640, 360), (400, 240)])
def test_no_browser_text_is_cut_off(drive, monkeypatch, tmp_path, size):
    monkeypatch.setattr(app_driver, "SIZE", size)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))  # no zenity, no kdialog
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame(2)
    ov = d.app.overlay
    monkeypatch.setattr(ov, "visible", False)  # only the browser's items are checked
    key(d, "O", ctrl=True)
    assert ov.browser.shown
    d.frame(2)
    check = ClipCheck(monkeypatch)
    d.frame(2)
    assert check.items >= 5  # the path field, Open, Up, the kinds line, the listing
    assert check.cut == [], check.cut
