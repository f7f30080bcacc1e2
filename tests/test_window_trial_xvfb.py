"""What issue 34's newcomer trial saw in a real window (sgview under Xvfb, xdotool):
``?`` toggles the help every time, not only at its first use; at 640x360 a single click
on the folded Frames panel's title opens it.
Skips like tests/test_window_xvfb.py when Xvfb or xdotool is missing (a failure in CI).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from test_window_xvfb import PATIENCE, _grab, _wait_for, _x, display
from window_process import Viewer

import viewer.gizmo as gizmo
from viewer.overlay import help_window

REPO = Path(__file__).resolve().parents[1]

__all__ = ["display"]  # the fixture, used by name


def _gizmo_pixels(img: np.ndarray) -> np.ndarray:
    """Mask of the pixels in one of the gizmo's colours."""
    px = img.astype(np.float64)
    mask = np.zeros(img.shape[:2], dtype=bool)
    norm = np.linalg.norm(px, axis=2)
    for rgb in gizmo.COLORS:
        target = np.asarray(rgb) * 255.0
        cos = (px @ target) / (norm * np.linalg.norm(target) + 1e-9)
        mask |= (cos > 0.995) & (norm > 0.6 * np.linalg.norm(target))
    return mask


def test_question_mark_toggles_the_help_every_time(display, tmp_path):
    """xdotool's "?" is Shift down, / down, Shift up, / up: pyglet then took "?" for held
    and never reported its press again, so only the first ? opened the help. Obj1's gizmo
    lies where the help window opens: its pixels there say whether the help is shown."""
    w, h = 720, 400
    x, y, rw, rh = (int(v) for v in help_window.rect(w, h))
    inside = np.zeros((h, w), dtype=bool)
    inside[y + 2 : y + rh - 2, x + 2 : x + rw - 2] = True

    def help_shown(shown: bool):
        count = int(_gizmo_pixels(_grab(display))[inside].sum())
        return (count == 0) if shown else (count > 30)

    args = [REPO / "scenes" / "tree10.toml", "--size", f"{w}x{h}", "--still", "--select", "Obj1"]
    with Viewer(display, tmp_path, args) as viewer:
        wid = viewer.wid
        time.sleep(1.5)
        _wait_for(lambda: help_shown(False), 30, "the gizmo in the view")
        for shown in (True, False, True, False):
            _x(display, "xdotool", "key", "--window", wid, "question")
            _wait_for(lambda s=shown: help_shown(s), 30, f"? to {'open' if shown else 'close'}")
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert viewer.proc.wait(timeout=PATIENCE) == 0, viewer.err


def test_a_click_on_the_folded_frames_title_opens_it(display, tmp_path):
    """At 640x360 the Frames panel folds to its title bar; one click on the word
    "Frames" (not the arrow) opens it over the view: its opaque background fills the
    right of the window."""
    w, h = 640, 360
    panel_x = w - 220  # a folded panel opens NARROW_OPEN (220) pixels wide

    def panel_share() -> float:
        below = _grab(display)[40:h, panel_x + 10 : w - 10].astype(int)
        return float((np.abs(below - (18, 20, 26)).sum(axis=2) <= 3).mean())

    args = [REPO / "scenes" / "tree10.toml", "--size", f"{w}x{h}", "--still"]
    with Viewer(display, tmp_path, args) as viewer:
        wid = viewer.wid
        time.sleep(1.5)

        def title_drawn() -> bool:  # the folded title bar, of one dark colour mostly
            bar = _grab(display)[2:16, panel_x + 5 : w - 5].astype(int)
            same = float((np.abs(bar - bar[7, 100]).sum(axis=2) <= 3).mean())
            return same > 0.7 and bar[7, 100].sum() > 40  # not the black of no frame yet

        _wait_for(title_drawn, 30, "the folded Frames title bar")
        assert panel_share() < 0.3  # folded: the view shows below it
        _x(display, "xdotool", "mousemove", str(panel_x + 60), "9")  # the window is at 0, 0
        time.sleep(0.3)
        _x(display, "xdotool", "click", "1")  # a real click (XTest), as a hand's
        _wait_for(lambda: panel_share() > 0.3, 30, "the Frames panel open")
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert viewer.proc.wait(timeout=PATIENCE) == 0, viewer.err
