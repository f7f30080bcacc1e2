"""The collision demo in the app, headless and frame by frame: holding L moves the disk
into the rectangle, and both turn red exactly at the frame the geometry predicts."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from viewer.collision import disk_vs_rect
from viewer.collision.demo import MOVE_STEP
from viewer.io import load_scene

SCENE = Path(__file__).resolve().parents[2] / "scenes" / "collision.toml"


def red(rgb) -> bool:
    return rgb[0] > 150 and rgb[1] < 80 and rgb[2] < 80


def predicted_hit_frame(x: float) -> int:
    """First frame at which the disk, stepped right from x, overlaps the still rectangle."""
    k = 0
    while not disk_vs_rect((x, 5.0), 1.0, (0.0, 5.0), 6.0, 2.0):
        x += MOVE_STEP
        k += 1
    return k


# The headless window has no key codes, so held keys are pressed where the app's key
# handler puts them (HeldKeys); the real keys are driven under Xvfb elsewhere.


def test_holding_l_turns_both_red_at_the_predicted_frame(drive):  # noqa: F811
    scene = load_scene(SCENE)
    d = drive(scene, still=True)
    app = d.app
    k = predicted_hit_frame(float(scene.graph["Disk"].world_position[0]))
    assert k > 10
    img = d.frame()  # frame 1: nothing held yet
    assert not red(d.pixel(img, "Disk")) and not red(d.pixel(img, "Rect"))
    app.session.editing.held.press("right")  # L
    img = d.frame(k - 1)  # k - 1 steps taken: not yet
    assert not app.session.collision_reading.hit
    assert not red(d.pixel(img, "Disk")) and not red(d.pixel(img, "Rect"))
    img = d.frame()  # step k: they overlap
    assert (
        app.session.collision_reading.hit and app.session.collision_reading.test == "axis-aligned"
    )
    assert red(d.pixel(img, "Disk")) and red(d.pixel(img, "Rect"))
    app.session.editing.held.release("right")
    app.session.editing.held.press("left")  # H, and back out: the colours return
    img = d.frame(3)
    assert not app.session.collision_reading.hit
    assert not red(d.pixel(img, "Disk")) and not red(d.pixel(img, "Rect"))


def test_r_turns_the_rectangle_and_m_switches_its_motion(drive):  # noqa: F811
    d = drive(load_scene(SCENE), still=True)
    app = d.app
    app.session.editing.held.press("turn")  # R
    d.frame(30)
    app.session.editing.held.release("turn")
    reading = app.session.collision_reading
    assert reading.test == "oriented" and np.isclose(reading.angle, 30.0)
    d.frame(60)  # released: no more turning
    assert np.isclose(app.session.collision_reading.angle, 30.0)
    assert app.session.collision.mode == "oscillate"
    app.session.collision.switch_mode()  # M
    assert app.session.collision.mode == "revolve"


def test_red_means_overlap_only_in_the_collision_view(drive):  # noqa: F811
    # The rectangle moves every frame (its own change): in other scenes its name would be
    # red; here red in the view means overlap, so its name keeps the neutral colour.
    d = drive(load_scene(SCENE))
    d.frame(3)
    ov = d.app.overlay
    assert not d.app.session.collision_reading.hit and not ov.glow_in_view
    colours = dict(ov.names_drawn)
    assert {"Disk", "Rect", "Pivot"} <= set(colours)
    assert colours["Rect"] == colours["Disk"] == colours["Pivot"]
    assert dict(ov.panel.scene.tree.tree_drawn)["Rect"] == "L W E"  # the panel still says


def test_elsewhere_a_changed_nodes_name_is_red(drive):  # noqa: F811
    d = drive(load_scene(SCENE.parent / "tree10.toml"), still=True, touches={1: ["Obj2"]})
    d.frame()
    colours = dict(d.app.overlay.names_drawn)
    assert colours["Obj2"] != colours["Obj1"] and colours["Obj5"] != colours["Obj1"]
