"""The first hour in a real window (issue 34): sgview under Xvfb, keys typed with
xdotool. With no zenity or kdialog on PATH, Ctrl+O opens the in-window file browser:
letters typed into its path field (an ``l`` among them) move nothing, Esc closes it
without quitting, and a typed path opens with Enter (the title names the new scene).
0 while paused runs the default scene again with its motion, as at launch.
Skips like tests/test_window_xvfb.py when Xvfb or xdotool is missing (a failure in CI).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from test_window_edits_xvfb import _saved
from test_window_xvfb import PATIENCE, _wait_for, _x, display
from window_process import Viewer

from viewer.io import load_scene
from viewer.io.loader import file_signature

REPO = Path(__file__).resolve().parents[1]

__all__ = ["display"]  # the fixture, used by name


def test_ctrl_o_without_a_dialog_program_opens_the_browser_and_a_typed_path(display, tmp_path):
    scene = tmp_path / "tree10.toml"
    shutil.copy(REPO / "scenes" / "tree10.toml", scene)
    other = tmp_path / "chain5.toml"
    shutil.copy(REPO / "scenes" / "chain5.toml", other)
    start = load_scene(scene).graph["Obj2"].local_position
    empty = tmp_path / "bin"
    empty.mkdir()  # PATH: no zenity, no kdialog, nothing
    args = [scene, "--size", "720x400", "--still", "--select", "Obj2"]
    with Viewer(display, tmp_path, args, env={"PATH": str(empty)}) as viewer:
        time.sleep(1.0)  # the first frames drawn
        viewer.key("ctrl+o")
        time.sleep(0.5)
        viewer.type("lll hjk", delay_ms=60)
        time.sleep(0.3)
        viewer.key("Escape")  # closes the browser
        time.sleep(0.3)
        sig = file_signature(scene)
        viewer.key("ctrl+s")  # the window is alive
        _saved(scene, sig)
        assert load_scene(scene).graph["Obj2"].local_position.tolist() == start.tolist()
        assert viewer.proc.poll() is None
        viewer.key("ctrl+o")
        time.sleep(1.5)  # the browser drawn once (its path field takes the keys from then on)
        viewer.key("ctrl+a")
        viewer.type(str(other))
        viewer.key("Return")
        viewer.wait_title(load_scene(other).title)
        assert viewer.quit() == 0, viewer.err
        assert "Traceback" not in viewer.err and f"opened {other}" in viewer.out


def test_the_help_window_covers_the_gizmo_in_a_real_window(display, tmp_path):
    """Obj1 selected, its gizmo in the middle of the view; F1 opens the help window
    there: no gizmo pixel inside it (it is drawn under every ImGui window)."""
    import numpy as np
    from test_window_xvfb import _grab

    import viewer.gizmo as gizmo
    from viewer.overlay import help_window

    w, h = 720, 400

    def gizmo_pixels(img):
        px = img.astype(np.float64)
        mask = np.zeros(img.shape[:2], dtype=bool)
        for rgb in gizmo.COLORS:
            target = np.asarray(rgb) * 255.0
            norm = np.linalg.norm(px, axis=2)
            cos = (px @ target) / (norm * np.linalg.norm(target) + 1e-9)
            mask |= (cos > 0.995) & (norm > 0.6 * np.linalg.norm(target))
        return mask

    args = [REPO / "scenes" / "tree10.toml", "--size", f"{w}x{h}", "--still", "--select", "Obj1"]
    with Viewer(display, tmp_path, args) as viewer:
        wid = viewer.wid
        time.sleep(1.5)
        x, y, rw, rh = (int(v) for v in help_window.rect(w, h))
        inside = np.zeros((h, w), dtype=bool)
        inside[y + 2 : y + rh - 2, x + 2 : x + rw - 2] = True
        _wait_for(lambda: (lambda m: m if m[inside].sum() > 30 else None)(
            gizmo_pixels(_grab(display))), 30, "the gizmo in the view")  # fmt: skip
        _x(display, "xdotool", "key", "--window", wid, "F1")
        _wait_for(lambda: (lambda m: m if m[inside].sum() == 0 else None)(
            gizmo_pixels(_grab(display))), 30, "the help window over the gizmo")  # fmt: skip
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert viewer.proc.wait(timeout=PATIENCE) == 0, viewer.err


def test_zero_while_paused_runs_the_default_scene_again_with_its_motion(display, tmp_path):
    """Issue 34's newcomer trial: S (motion off), Space (paused), then 0 left the view
    standing, still paused, with a glow the tree did not show. 0 is frame 0 of the same
    run as at launch: the picture moves again (Obj3 spins, Obj7 slides, Obj9 pulses)."""
    import numpy as np
    from test_window_xvfb import VIEW, _grab

    def moving() -> bool:
        first = _grab(display)[:, VIEW].astype(int)
        time.sleep(0.4)
        return bool(np.abs(_grab(display)[:, VIEW].astype(int) - first).sum(axis=2).max() > 60)

    with Viewer(display, tmp_path, ["--size", "720x400"]) as viewer:
        wid = viewer.wid
        _wait_for(moving, 30, "the default scene's motion")
        _x(display, "xdotool", "key", "--window", wid, "s")
        _x(display, "xdotool", "key", "--window", wid, "space")
        time.sleep(0.5)  # paused: the picture stands, glow included
        assert not moving(), "paused, the view should stand still"
        _x(display, "xdotool", "key", "--window", wid, "0")
        time.sleep(1.0)  # the jump back to the first pose is one change: past it, still
        assert moving() and moving(), "the scene should run again with its motion after 0"
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert viewer.proc.wait(timeout=PATIENCE) == 0, viewer.err
