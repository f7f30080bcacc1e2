"""Undo and save in a real window (issue 24): sgview under Xvfb, keys sent with xdotool.

Holding L moves the selected node (one undo step), Ctrl+S writes the scene back to its
file, Ctrl+Z puts the node back exactly and a second Ctrl+S writes that: the file then
holds the node's original values bit for bit. Skips like tests/test_window_xvfb.py when
Xvfb or xdotool is missing (a failure in CI).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
from test_window_xvfb import PATIENCE, _sgview_command, _wait_for, _x, display, window_id

from viewer.io import load_scene
from viewer.io.loader import file_signature

REPO = Path(__file__).resolve().parents[1]

__all__ = ["display"]  # the fixture, used by name


def _saved(path: Path, before) -> tuple:
    """Wait for a new version of `path`; its signature."""
    return _wait_for(
        lambda: (lambda s: s if s is not None and s != before else None)(file_signature(path)),
        20, f"a save of {path.name}",
    )  # fmt: skip


def test_hold_l_save_undo_save_gives_back_the_file_values(display, tmp_path):
    scene = tmp_path / "tree10.toml"
    shutil.copy(REPO / "scenes" / "tree10.toml", scene)
    start = load_scene(scene).graph["Obj2"].local_position
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [*_sgview_command(), str(scene), "--size", "720x400", "--still", "--select", "Obj2"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wid = window_id(display)
        _x(display, "xdotool", "windowfocus", "--sync", wid)
        time.sleep(1.0)  # the first frames drawn
        _x(display, "xdotool", "keydown", "--window", wid, "l")
        time.sleep(0.5)
        _x(display, "xdotool", "keyup", "--window", wid, "l")
        time.sleep(0.3)
        sig = file_signature(scene)
        _x(display, "xdotool", "key", "--window", wid, "ctrl+s")
        sig = _saved(scene, sig)
        moved = load_scene(scene).graph["Obj2"].local_position
        assert moved[0] > start[0] and moved[1:].tolist() == start[1:].tolist()
        _x(display, "xdotool", "key", "--window", wid, "ctrl+z")
        time.sleep(0.3)
        _x(display, "xdotool", "key", "--window", wid, "ctrl+s")
        _saved(scene, sig)
        back = load_scene(scene).graph["Obj2"].local_position
        np.testing.assert_array_equal(back, start)  # exactly
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert proc.wait(timeout=PATIENCE) == 0, proc.stderr.read()
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
