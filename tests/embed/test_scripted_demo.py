"""Scripted keys reproduce the collision demo headless, as a user at the keyboard would."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from viewer.io import load_scene
from viewer.keys.controls import MOVE_STEP
from viewer.keys.script import parse_keys
from viewer.palette import HIT_COLOR
from viewer.window.runner import RunOptions, run

COLLISION = Path(__file__).resolve().parents[2] / "scenes" / "collision.toml"


def play(keys: str, frames: int, tmp_path: Path, **options):
    shot = tmp_path / "shot.png"
    opts = RunOptions(size=(320, 180), frames=frames, still=True, samples=0, screenshot=shot,
                      script=parse_keys(keys), **options)  # fmt: skip
    app = run(load_scene(COLLISION), opts, headless=True)
    return app, np.asarray(Image.open(shot).convert("RGB"))


def hit_pixels(img) -> int:
    target = np.array(HIT_COLOR) * 255
    return int((np.abs(img.astype(float) - target).max(axis=2) < 40).sum())


def test_held_l_moves_the_disk_into_the_rectangle(egl, tmp_path):
    app, before = play("", 1, tmp_path, overlay=False)
    x0 = app.session.graph["Disk"].world_position[0]
    assert not app.session.collision_reading.hit  # (the red x axis is a few pixels)
    # L held over frames 1-100: 100 steps right, from x = -8 into the rectangle at x = 0
    app, after = play("L@1-100", 101, tmp_path, overlay=False)
    disk = app.session.graph["Disk"]
    assert np.isclose(disk.world_position[0] - x0, 100 * MOVE_STEP)
    assert app.session.collision_reading.hit and hit_pixels(after) > hit_pixels(before) + 500


def test_m_switches_the_rectangle_to_revolving(egl, tmp_path):
    app, _ = play("M@2", 3, tmp_path, overlay=False)
    assert app.session.collision_mode == "revolve"
