"""Undo and save in a real window (issue 24): sgview under Xvfb, keys sent with xdotool.

Holding L moves the selected node (one undo step), Ctrl+S writes the scene back to its
file, Ctrl+Z puts the node back exactly and a second Ctrl+S writes that: the file then
holds the node's original values bit for bit. Skips like tests/test_window_xvfb.py when
Xvfb or xdotool is missing (a failure in CI).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import numpy as np
from test_window_xvfb import (
    PATIENCE,
    VIEW,
    _grab,
    _near,
    _solid_squares,
    _wait_for,
    _x,
    display,
)
from window_process import Viewer

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
    args = [scene, "--size", "720x400", "--still", "--select", "Obj2"]
    with Viewer(display, tmp_path, args) as viewer:
        wid = viewer.wid
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
        assert viewer.proc.wait(timeout=PATIENCE) == 0, viewer.err
        assert "Traceback" not in viewer.err


#: The gizmo's x colour (viewer/gizmo), as the overlay draws it.
PINK = (237, 89, 140)


def _box_tip(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x scale handle on screen: its box tip's centre, and the unit direction from
    the handle's line towards that tip (the line is 3 px wide, the box 10 px)."""
    pink = np.zeros(img.shape[:2], dtype=bool)
    pink[:, VIEW] = _near(img[:, VIEW], PINK, cos_min=0.998)  # not the panels
    total = np.pad(pink.astype(np.int64), ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    side = 8
    full = (total[side:, side:] - total[:-side, side:] - total[side:, :-side]
            + total[:-side, :-side]) == side * side  # fmt: skip
    ys, xs = np.nonzero(full)
    assert len(xs), "no box-tipped pink handle on screen"
    tip = np.array([xs.mean(), ys.mean()]) + side / 2
    ys, xs = np.nonzero(pink)
    near = np.hypot(xs - tip[0], ys - tip[1]) < 70  # the handle, not the world tripod
    line = np.array([xs[near].mean(), ys[near].mean()])  # the handle and its tip together
    direction = (tip - line) / np.linalg.norm(tip - line)
    return tip, direction


def test_a_scale_drag_with_the_real_mouse_changes_one_axis_and_undoes_exactly(display, tmp_path):
    """E, then the x scale handle dragged with xdotool's mouse: during the drag the node
    glows red and its subtree orange; the saved file has one scale component changed
    (position and rotation untouched); Ctrl+Z and a second save give the values back."""
    scene = tmp_path / "tree10.toml"
    text = (REPO / "scenes" / "tree10.toml").read_text()
    scene.write_text(text.split("[[event]]")[0])  # no scripted touches: only the drag glows
    start = load_scene(scene).graph["Obj2"]
    values = [start.local_position, start.local_rotation, start.local_scale]
    args = [scene, "--size", "720x400", "--still", "--select", "Obj2"]
    with Viewer(display, tmp_path, args) as viewer:
        wid = viewer.wid
        time.sleep(1.0)  # the first frames drawn
        _x(display, "xdotool", "mousemove", "--window", wid, "700", "390")  # off the gizmo
        _x(display, "xdotool", "key", "--window", wid, "e")
        found = _wait_for(lambda: _try_box_tip(_grab(display)), 20, "the scale handles")
        tip, direction = found
        _x(display, "xdotool", "mousemove", "--window", wid, *map(str, tip.astype(int)))
        _x(display, "xdotool", "mousedown", "1")
        for k in range(1, 7):
            p = (tip + direction * 8.0 * k).astype(int)
            _x(display, "xdotool", "mousemove", "--window", wid, *map(str, p))
            time.sleep(0.05)

        def glowing() -> bool:
            img = _grab(display)[:, VIEW]
            red = _near(img, (255, 33, 20), cos_min=0.99)
            orange = _near(img, (255, 143, 0), cos_min=0.99)
            return _solid_squares(red, 7) > 0 and _solid_squares(orange, 9) > 0

        _wait_for(glowing, 20, "Obj2 red and its subtree orange during the drag")
        _x(display, "xdotool", "mouseup", "1")
        time.sleep(0.3)
        sig = file_signature(scene)
        _x(display, "xdotool", "key", "--window", wid, "ctrl+s")
        sig = _saved(scene, sig)
        node = load_scene(scene).graph["Obj2"]
        np.testing.assert_array_equal(node.local_position, values[0])
        np.testing.assert_array_equal(node.local_rotation, values[1])
        grown = node.local_scale / values[2]
        assert sorted(grown.tolist())[:2] == [1.0, 1.0] and grown.max() > 1.2, grown
        _x(display, "xdotool", "key", "--window", wid, "ctrl+z")
        time.sleep(0.3)
        _x(display, "xdotool", "key", "--window", wid, "ctrl+s")
        _saved(scene, sig)
        back = load_scene(scene).graph["Obj2"]
        for got, want in zip((back.local_position, back.local_rotation, back.local_scale),
                             values, strict=True):  # fmt: skip
            np.testing.assert_array_equal(got, want)  # exactly
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert viewer.proc.wait(timeout=PATIENCE) == 0, viewer.err
        assert "Traceback" not in viewer.err


def _try_box_tip(img: np.ndarray):
    try:
        return _box_tip(img)
    except AssertionError:
        return None
