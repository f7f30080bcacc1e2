"""The move gizmo (issue 24, item 1), through the app's mouse path (headless): a drag on
an axis handle moves the node along that axis only, glowing red with its subtree orange
during the drag, one undo step per drag; X switches to the node's own axes."""

from __future__ import annotations

import numpy as np
import pytest
from app_driver import SIZE
from overlay_helpers import tree10

import viewer.gizmo as gizmo
from viewer.embed.api import scene_for
from viewer.scene.math import quat_from_axis_angle


def handles_of(d, node):
    size = tuple(d.app.wnd.size)
    view_proj = d.app.camera.view_projection(size)
    local, radius = d.app.session.editing.gizmo_local, gizmo.node_radius(d.app.bounds, node.id)
    return gizmo.handles(node.world_matrix, view_proj, size, local, radius)


def drag_handle(d, node, axis, pixels, steps=4, during=None, frames_held=0):
    h = handles_of(d, node)
    start = h.origin + 0.8 * (h.tips[axis] - h.origin)  # on the handle, near its tip
    unit = (h.tips[axis] - h.origin) / np.linalg.norm(h.tips[axis] - h.origin)
    end = start + unit * pixels
    app = d.app
    app.on_mouse_position_event(int(start[0]), int(start[1]), 0, 0)
    app.on_mouse_press_event(int(start[0]), int(start[1]), 1)
    d.frame(frames_held)  # the button held still a while (0: no frame)
    for k in range(1, steps + 1):
        p = start + (end - start) * k / steps
        app.on_mouse_drag_event(int(p[0]), int(p[1]), 0, 0)
        d.frame()
    if during is not None:
        during()
    app.on_mouse_release_event(int(end[0]), int(end[1]), 1)
    d.frame()


def test_frames_drawn_while_the_button_is_held_still_keep_the_drag_one_step(drive):
    """A window draws frames between the press and the first move (a person rarely moves
    within 16 ms): those frames must not close the drag's undo step (they close a key
    hold's), or the drag would not be undoable at all."""
    d = drive(scene_for(tree10()), still=False)
    d.frame(2)
    session = d.app.session
    node = session.graph["Obj5"]
    session.select(node.id)
    d.frame()
    before = node.local_position.copy()
    drag_handle(d, node, 0, 60.0, frames_held=5)
    assert not np.array_equal(node.local_position, before)
    done, _ = session.editing.history.labels()
    assert done == ["move Obj5 along x"], done
    session.editing.undo()  # what Ctrl+Z calls
    np.testing.assert_array_equal(node.local_position, before)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_a_drag_on_an_axis_moves_along_that_axis_only_and_glows(drive, axis):
    d = drive(scene_for(tree10()), still=True)
    d.frame(2)
    session = d.app.session
    g = session.graph
    node = g["Obj5"]
    session.select(node.id)
    d.frame()
    before = {n.name: n.world_matrix.copy() for n in g}
    kinds = {}

    def glow_now():
        ids = [g[n].id for n in ("Obj5", "Obj8", "Obj9", "Obj2")]
        kinds.update(
            zip(("Obj5", "Obj8", "Obj9", "Obj2"), d.app.renderer.glow.kinds(np.array(ids)))
        )

    drag_handle(d, node, axis, 60.0, during=glow_now)
    moved = node.world_matrix[:3, 3] - before["Obj5"][:3, 3]
    assert abs(moved[axis]) > 0.05
    others = [k for k in range(3) if k != axis]
    np.testing.assert_allclose(moved[others], 0.0, atol=1e-9)
    np.testing.assert_allclose(node.world_matrix[:3, :3], before["Obj5"][:3, :3], atol=1e-12)
    assert kinds["Obj5"] == -1 and kinds["Obj8"] == 1 and kinds["Obj9"] == 1  # red, orange
    assert kinds["Obj2"] == 0
    np.testing.assert_array_equal(g["Obj2"].world_matrix, before["Obj2"])
    assert session.editing.history.labels()[0] == [f"move Obj5 along {'xyz'[axis]}"]
    session.editing.undo()
    d.frame()
    for n in g:
        np.testing.assert_array_equal(n.world_matrix, before[n.name])


def test_local_axes_and_snapping(drive):
    g0 = tree10()
    g0["Obj5"].local_rotation = quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), 40.0)
    d = drive(scene_for(g0), still=True)
    d.frame(2)
    session = d.app.session
    node = session.graph["Obj5"]
    session.select(node.id)
    d.app.on_key_event(d.window.keys.X, d.window.keys.ACTION_PRESS, d.window.modifiers)
    assert session.editing.gizmo_local
    start = node.world_matrix.copy()
    drag_handle(d, node, 0, 50.0)
    moved = node.world_matrix[:3, 3] - start[:3, 3]
    own_x = start[:3, 0] / np.linalg.norm(start[:3, 0])
    np.testing.assert_allclose(np.cross(moved, own_x), 0.0, atol=1e-9)  # along its own x
    h = handles_of(d, node)
    drag = gizmo.AxisDrag.begin(h, 1, node.world_matrix, *h.origin)
    t = drag.distance(*(h.origin + (h.tips[1] - h.origin) * 0.37), snap=True)
    assert t == pytest.approx(round(0.37 * h.length / gizmo.SNAP) * gizmo.SNAP)
    assert SIZE  # the driver's window size the handles were placed in


def test_a_press_off_the_handles_orbits_as_before(drive):
    d = drive(scene_for(tree10()), still=True)
    d.frame(2)
    session = d.app.session
    node = session.graph["Obj5"]
    session.select(node.id)
    h = handles_of(d, node)
    far = h.origin + np.array([0.0, 130.0])  # well away from every handle and ring
    assert gizmo.hit(h, *far) is None and gizmo.hit_ring(h, *far) is None
    before = node.world_matrix.copy()
    d.app.on_mouse_press_event(int(far[0]), int(far[1]), 1)
    d.app.on_mouse_drag_event(int(far[0]) + 30, int(far[1]), 30, 0)
    d.app.on_mouse_release_event(int(far[0]) + 30, int(far[1]), 1)
    d.frame()
    np.testing.assert_array_equal(node.world_matrix, before)
    assert session.editing.history.labels() == ([], [])


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_a_drag_along_a_ring_turns_about_that_axis_only(drive, axis):
    d = drive(scene_for(tree10()), still=True)
    d.frame(2)
    session = d.app.session
    g = session.graph
    node = g["Obj5"]
    session.select(node.id)
    d.frame()
    before = node.world_matrix.copy()
    h = handles_of(d, node)
    ring = gizmo.rings(h)[axis]
    for k in (0, 4, 8, 12, 16):  # a grab not on a handle: rings cross the handles
        if gizmo.hit(h, *ring[k]) is None and gizmo.hit_ring(h, *ring[k]) == axis:
            break
    path = [ring[(k + j) % len(ring)] for j in range(0, 7, 2)]  # along the ring's way
    app = d.app
    app.on_mouse_position_event(int(path[0][0]), int(path[0][1]), 0, 0)
    app.on_mouse_press_event(int(path[0][0]), int(path[0][1]), 1)
    for p in path[1:]:
        app.on_mouse_drag_event(int(p[0]), int(p[1]), 0, 0)
        d.frame()
    app.on_mouse_release_event(int(path[-1][0]), int(path[-1][1]), 1)
    d.frame()
    after = node.world_matrix
    np.testing.assert_allclose(after[:3, 3], before[:3, 3], atol=1e-12)  # turned in place
    turn = after[:3, :3] @ np.linalg.inv(before[:3, :3])
    e = np.eye(3)[axis]
    np.testing.assert_allclose(turn @ e, e, atol=1e-9)  # about that axis only
    i, j = (axis + 1) % 3, (axis + 2) % 3  # the turn takes axis i toward axis j
    angle = np.degrees(np.arctan2(turn[j, i], turn[i, i]))
    assert 20.0 < angle < 90.0  # the ring's own way round is the positive turn
    assert session.editing.history.labels()[0] == [f"turn Obj5 about {'xyz'[axis]}"]


def test_tab_hides_the_panels_and_leaves_the_gizmo_seen_and_working(drive):
    """Trial 3: Tab hid the gizmo with the panels, while its handles still took a drag
    (README: Tab shows / hides the panels). The gizmo stays, drawn and draggable."""
    d = drive(scene_for(tree10()), still=True)
    session = d.app.session
    node = session.graph["Obj5"]
    session.select(node.id)
    d.frame(2)
    with_panels = d.app.overlay.panel.scene.edit.gizmo_drawn
    assert with_panels is not None
    d.press("TAB")
    d.app.overlay.panel.scene.edit.gizmo_drawn = None
    img = d.frame(2)
    assert not d.app.overlay.visible
    drawn = d.app.overlay.panel.scene.edit.gizmo_drawn
    assert drawn is not None  # drawn, where the view now centres the node
    x, y = (drawn.origin + 0.8 * (drawn.tips[0] - drawn.origin)).astype(int)
    assert img[y - 1 : y + 2, x - 1 : x + 2].max(axis=(0, 1))[0] > 180  # the red x handle
    before = node.local_position.copy()
    drag_handle(d, node, 0, 40)
    assert node.local_position[0] > before[0] and node.local_position[1] == before[1]
