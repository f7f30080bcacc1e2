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


def pale_red(rgb) -> bool:
    """The disk's colour while it overlaps: a paler red than the rectangle's."""
    return rgb[0] > 200 and 110 < rgb[1] < 200 and 100 < rgb[2] < 200 and rgb[0] - rgb[1] > 50


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
    disk = d.pixel(img, "Disk")
    assert not red(disk) and not pale_red(disk) and not red(d.pixel(img, "Rect"))
    img = d.frame()  # step k: they overlap
    assert (
        app.session.collision_reading.hit and app.session.collision_reading.test == "axis-aligned"
    )
    assert pale_red(d.pixel(img, "Disk")) and red(d.pixel(img, "Rect"))  # the disk paler
    app.session.editing.held.release("right")
    app.session.editing.held.press("left")  # H, and back out: the colours return
    img = d.frame(3)
    assert not app.session.collision_reading.hit
    disk = d.pixel(img, "Disk")
    assert not red(disk) and not pale_red(disk) and not red(d.pixel(img, "Rect"))


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


def test_the_disk_reads_inside_the_rectangle_while_they_overlap(drive):  # noqa: F811
    """Both were drawn in one red, so the disk vanished inside the rectangle it was moved
    into (the third to fifth newcomer trials): the disk is drawn in front in a paler red,
    so its outline shows against the rectangle all round it."""
    scene = load_scene(SCENE)
    d = drive(scene, still=True)
    app, graph = d.app, scene.graph
    k = predicted_hit_frame(float(graph["Disk"].world_position[0]))
    d.frame()
    app.session.editing.held.press("right")  # L: well into the rectangle
    img = d.frame(k + 60)
    disk, rect = graph["Disk"].world_position, graph["Rect"].world_position
    assert app.session.collision_reading.hit and abs(disk[0] - rect[0]) < 2.0  # inside

    def at(dx: float, dy: float) -> np.ndarray:
        size = img.shape[1], img.shape[0]
        x, y = app.camera.project(disk + np.array([dx, dy, 0.0]), size)[0, :2]
        return img[int(y) - 1 : int(y) + 2, int(x) - 1 : int(x) + 2].reshape(-1, 3).mean(axis=0)

    angles = np.linspace(0.0, 2.0 * np.pi, 12, endpoint=False)
    inside = [at(0.8 * np.cos(a), 0.8 * np.sin(a)) for a in angles]  # radius 1
    beside = [at(s * 1.3, dy) for s in (-1, 1) for dy in (-0.6, 0.0, 0.6)]  # the rectangle
    assert all(red(rgb) for rgb in beside), beside
    assert not any(red(rgb) for rgb in inside), inside
    assert all(pale_red(rgb) for rgb in inside), inside
    app.session.editing.held.release("right")
    app.session.editing.held.press("left")  # out again: its own colour back
    img = d.frame(k + 80)
    assert not app.session.collision_reading.hit and not pale_red(d.pixel(img, "Disk"))
