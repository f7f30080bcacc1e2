"""The gizmo's plane squares and scale mode (issue 24, item 1), through the app's mouse
path (headless): a plane drag moves only within its plane, a scale handle changes only
its own axis's scale, the centre square all three alike; Ctrl snaps; the node glows red
and its subtree orange during the drag; one undo step per drag gives back every array."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import rotation_from_quaternion
from overlay_helpers import tree10

import viewer.gizmo as gizmo
from viewer.embed.api import scene_for
from viewer.scene.math import quat_from_axis_angle

SUBTREE = ("Obj5", "Obj8", "Obj9", "Obj2")


def start(drive, euler=(0.0, 0.0, 0.0), scale=(1.0, 1.0, 1.0)):
    g0 = tree10()
    g0["Obj5"].local_euler = euler
    g0["Obj5"].local_scale = scale
    d = drive(scene_for(g0), still=True)
    d.frame(2)
    node = d.app.session.graph["Obj5"]
    d.app.session.select(node.id)
    d.frame()
    return d, node


def view(d):
    size = tuple(d.app.wnd.size)
    return d.app.camera.view_projection(size), size


def radius_of(d, node) -> float:
    """The node's drawn radius, which sizes its gizmo as the app's view and press do."""
    return gizmo.node_radius(d.app.bounds, node.id)


def arrays(g) -> list[bytes]:
    ids = g.alive_ids()
    pos, rot, scl = g.local_values()
    return [ids.tobytes(), g.parents().tobytes(), *(a[ids].tobytes() for a in (pos, rot, scl))]


def drag(d, start_xy, end_xy, ctrl=False, steps=4):
    """A left drag through the app's mouse path; the glow kinds of `SUBTREE` midway."""
    app, g = d.app, d.app.session.graph
    mods = d.window.modifiers
    mods.ctrl = ctrl
    start_xy, end_xy = np.asarray(start_xy, float), np.asarray(end_xy, float)
    app.on_mouse_position_event(int(start_xy[0]), int(start_xy[1]), 0, 0)
    app.on_mouse_press_event(int(start_xy[0]), int(start_xy[1]), 1)
    for k in range(1, steps + 1):
        p = start_xy + (end_xy - start_xy) * k / steps
        app.on_mouse_drag_event(int(p[0]), int(p[1]), 0, 0)
        d.frame()
    ids = np.array([g[n].id for n in SUBTREE])
    kinds = dict(zip(SUBTREE, d.app.renderer.glow.kinds(ids).tolist(), strict=True))
    app.on_mouse_release_event(int(end_xy[0]), int(end_xy[1]), 1)
    d.frame()
    mods.ctrl = False
    return kinds


def grab_point(h, square, plane):
    """A point of the square that grabs it (an axis handle seen across a square wins)."""
    for a in np.linspace(0.2, 0.8, 7):
        for b in np.linspace(0.2, 0.8, 7):
            p = square[0] + a * (square[1] - square[0]) + b * (square[3] - square[0])
            p = np.floor(p)  # the mouse path takes whole pixels
            if gizmo.hit(h, *p) is None and gizmo.hit_plane(h, *p) == plane:
                return p
    raise AssertionError("no free point on the square")


def assert_glowed(kinds) -> None:
    assert kinds["Obj5"] == -1 and kinds["Obj8"] == 1 and kinds["Obj9"] == 1  # red, orange
    assert kinds["Obj2"] == 0  # the parent: not touched


def assert_undo_exact(d, before) -> None:
    d.app.session.editing.undo()
    d.frame()
    assert arrays(d.app.session.graph) == before


@pytest.mark.parametrize("plane", [0, 1, 2])
@pytest.mark.parametrize("local", [False, True])
def test_a_plane_drag_moves_within_that_plane_only(drive, plane, local):
    d, node = start(drive, euler=(20.0, -30.0, 40.0))
    g = d.app.session.graph
    if local:
        d.press("X")
    h = gizmo.handles(node.world_matrix, *view(d), local, radius_of(d, node))
    square = gizmo.plane_squares(h)[plane]
    assert square is not None, "the default view sees every plane"
    before, worlds = arrays(g), {n.name: n.world_matrix.copy() for n in g}
    centre = grab_point(h, square, plane)
    kinds = drag(d, centre, centre + np.array([37.0, -23.0]))
    after = node.world_matrix
    moved = after[:3, 3] - worlds["Obj5"][:3, 3]
    normal = h.axes[3 - sum(gizmo.PLANES[plane])] if not local else None
    if local:  # the node's own axes: across the plane is the cross of the two in it
        i, j = gizmo.PLANES[plane]
        normal = np.cross(h.axes[i], h.axes[j])
    assert np.linalg.norm(moved) > 0.05
    assert abs(moved @ normal) / np.linalg.norm(normal) < 1e-9  # within the plane
    np.testing.assert_allclose(after[:3, :3], worlds["Obj5"][:3, :3], atol=1e-12)
    np.testing.assert_array_equal(g["Obj2"].world_matrix, worlds["Obj2"])
    assert_glowed(kinds)
    label = d.app.session.editing.history.labels()[0]
    assert label == [f"move Obj5 in {gizmo.PLANE_NAMES[plane]}"]
    assert_undo_exact(d, before)


def test_a_plane_drag_snaps_with_ctrl(drive):
    d, node = start(drive)
    h = gizmo.handles(node.world_matrix, *view(d), False, radius_of(d, node))
    centre = grab_point(h, gizmo.plane_squares(h)[0], 0)
    p0 = node.world_position.copy()
    drag(d, centre, centre + np.array([41.0, -29.0]), ctrl=True)
    moved = node.world_position - p0
    steps = moved[:2] / gizmo.SNAP
    np.testing.assert_allclose(steps, np.round(steps), atol=1e-9)
    assert np.abs(np.round(steps)).sum() >= 1 and moved[2] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_a_scale_handle_scales_that_own_axis_only(drive, axis):
    d, node = start(drive, euler=(0.0, 0.0, 40.0), scale=(1.0, 2.0, 0.5))
    g = d.app.session.graph
    d.press("E")
    assert d.app.session.editing.gizmo_scale
    sh = gizmo.scale_handles(node.world_matrix, *view(d), False, radius_of(d, node))
    assert not sh.along_world  # turned 40 degrees: world-axis scale would need shear
    h = sh.handles
    before, worlds = arrays(g), node.world_matrix.copy()
    scale0, pos0, rot0 = node.local_scale.copy(), node.local_position, node.local_rotation
    grab = h.origin + 0.9 * (h.tips[axis] - h.origin)
    unit = (h.tips[axis] - h.origin) / np.linalg.norm(h.tips[axis] - h.origin)
    kinds = drag(d, grab, grab + 45.0 * unit)
    scale = node.local_scale
    others = [k for k in range(3) if k != axis]
    np.testing.assert_array_equal(scale[others], scale0[others])
    out = 45.0 / np.linalg.norm(h.tips[axis] - h.origin)  # handle lengths dragged out
    assert scale[axis] / scale0[axis] == pytest.approx(1.0 + out, abs=0.04)
    np.testing.assert_array_equal(node.local_position, pos0)
    np.testing.assert_array_equal(node.local_rotation, rot0)
    after = node.world_matrix  # only that own axis's column grew
    np.testing.assert_allclose(after[:3, others], worlds[:3, others], atol=1e-12)
    np.testing.assert_allclose(after[:3, axis], worlds[:3, axis] * scale[axis] / scale0[axis])
    assert_glowed(kinds)
    assert d.app.session.editing.history.labels()[0] == [f"scale Obj5 along own {'xyz'[axis]}"]
    assert_undo_exact(d, before)


def test_world_axis_scale_where_exact_scales_along_that_world_axis(drive):
    d, node = start(drive, euler=(0.0, 0.0, 90.0))  # own x is world y, own y is world -x
    d.press("E")
    sh = gizmo.scale_handles(node.world_matrix, *view(d), False, radius_of(d, node))
    assert sh.along_world and sh.own == (1, 0, 2)
    h = sh.handles
    world0 = node.world_matrix.copy()
    grab = h.origin + 0.9 * (h.tips[0] - h.origin)
    drag(d, grab, grab + (h.tips[0] - h.origin), ctrl=True)  # a handle length: doubled
    stretch = np.diag([2.0, 1.0, 1.0])  # scaled along world x about the node's origin
    np.testing.assert_allclose(node.world_matrix[:3, :3], stretch @ world0[:3, :3], atol=1e-12)
    np.testing.assert_array_equal(node.local_scale, [1.0, 2.0, 1.0])
    assert d.app.session.editing.history.labels()[0] == ["scale Obj5 along x"]


def test_the_centre_square_scales_uniformly_and_snaps(drive):
    d, node = start(drive, euler=(10.0, 20.0, 30.0), scale=(1.0, 2.0, 0.5))
    g = d.app.session.graph
    d.press("E")
    h = gizmo.scale_handles(node.world_matrix, *view(d), False, radius_of(d, node)).handles
    assert gizmo.hit_centre(h, *h.origin) and gizmo.hit(h, *h.origin) is None
    before, scale0 = arrays(g), node.local_scale.copy()
    kinds = drag(d, h.origin, h.origin + np.array([31.0, -12.0]))  # right and up: grows
    ratio = node.local_scale / scale0
    assert ratio[0] == ratio[1] == ratio[2]  # all three alike, bit for bit
    assert ratio[0] == pytest.approx(1.0 + 43.0 / h.px, abs=1e-9)  # a handle's length: x2
    assert_glowed(kinds)
    assert d.app.session.editing.history.labels()[0] == ["scale Obj5 uniformly"]
    assert_undo_exact(d, before)
    drag(d, h.origin, h.origin + np.array([-24.0, 0.0]), ctrl=True)
    f = node.local_scale / scale0
    snapped = round((1.0 - 24.0 / h.px) / gizmo.SNAP_FACTOR) * gizmo.SNAP_FACTOR
    assert f[0] == pytest.approx(snapped) and f[0] == f[1] == f[2]  # 1 - 24/px, snapped
    drag(d, h.origin, h.origin + np.array([-400.0, 300.0]))  # far past zero: clamped
    assert (node.local_scale > 0).all()


def test_e_switches_the_drawn_gizmo_between_move_and_scale(drive):
    d, node = start(drive)
    d.frame()
    assert d.app.overlay.panel.scene.edit.gizmo_drawn is not None
    d.press("E")
    d.frame()
    assert d.app.session.editing.gizmo_scale
    d.press("E")
    assert not d.app.session.editing.gizmo_scale


@pytest.mark.parametrize("seed", range(8))
def test_world_axes_count_as_exact_only_where_scaling_one_own_axis_is_the_world_stretch(seed):
    """The rule of viewer/gizmo/scale.py checked against the stretch itself: where it
    names own axes, scaling own axis own[k] equals stretching along world axis k; a
    generic turn gets None."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(3)
    signs = rng.choice([-1.0, 1.0], 3)
    world = np.eye(4)
    world[:3, :3] = np.eye(3)[:, perm] * signs * rng.uniform(0.5, 2.0, 3)
    world[:3, 3] = rng.normal(size=3)
    own = gizmo.own_axes_along_world(world)
    assert own is not None
    for k in range(3):
        stretch = np.eye(3)
        stretch[k, k] = 1.7
        scaled = world[:3, :3].copy()
        scaled[:, own[k]] *= 1.7
        np.testing.assert_allclose(scaled, stretch @ world[:3, :3], atol=1e-12)
    q = quat_from_axis_angle(rng.normal(size=3), rng.uniform(5.0, 85.0))
    turned = np.eye(4)
    turned[:3, :3] = rotation_from_quaternion(q)
    assert gizmo.own_axes_along_world(turned) is None
