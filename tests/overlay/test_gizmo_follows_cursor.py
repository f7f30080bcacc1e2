"""The move gizmo keeps the grabbed point under the cursor (issue 24, item 1), in
perspective and orthographic views from random cameras: a plane drag puts the grabbed
point exactly where the mouse's ray meets the plane, an axis drag to a pixel on the
handle's line moves the node by the distance whose point projects there. Pure maths on
the camera's matrices (no GL); the mouse paths through the window are in test_gizmo*.py.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import viewer.gizmo as gizmo
from viewer.render.camera import ORTHOGRAPHIC, PERSPECTIVE, Camera
from viewer.scene.math import pixel_ray, quat_to_matrix3

SIZE = (800, 450)
#: The nodes' drawn radius (world units): it sizes the handles (`gizmo.handle_px`).
RADIUS = 0.5
angles = st.floats(-170.0, 170.0)
cameras = st.builds(
    lambda yaw, pitch, distance, projection: Camera(
        distance=distance, yaw=yaw, pitch=pitch, projection=projection
    ),
    angles,
    st.floats(-60.0, 60.0),
    st.floats(4.0, 30.0),
    st.sampled_from([PERSPECTIVE, ORTHOGRAPHIC]),
)
positions = st.lists(st.floats(-2.0, 2.0), min_size=3, max_size=3).map(np.array)
quaternions = st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).filter(
    lambda q: np.linalg.norm(q) > 0.2
)


def world_of(position: np.ndarray, q) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = quat_to_matrix3(np.asarray(q) / np.linalg.norm(q))
    m[:3, 3] = position
    return m


def pixel(view_proj: np.ndarray, point: np.ndarray) -> np.ndarray:
    return gizmo.project(view_proj, np.asarray(point, dtype=np.float64)[None], SIZE)[0]


@settings(max_examples=60, deadline=None)
@given(cameras, positions, quaternions, st.booleans(), st.integers(0, 2), st.data())
def test_a_plane_drag_keeps_the_grabbed_point_under_the_cursor(
    camera, position, q, local, plane, data
):
    world = world_of(position, q)
    view_proj = camera.view_projection(SIZE)
    h = gizmo.handles(world, view_proj, SIZE, local, RADIUS)
    if h is None or gizmo.plane_squares(h)[plane] is None:
        return  # behind the camera, or the plane edge-on: no square to grab
    press = gizmo.plane_squares(h)[plane].mean(axis=0)  # the square's centre
    drag = gizmo.PlaneDrag.begin(h, plane, world, *press)
    i, j = gizmo.PLANES[plane]
    offset = data.draw(st.lists(st.floats(-1.5, 1.5), min_size=2, max_size=2))
    target = drag.grabbed + offset[0] * h.axes[i] + offset[1] * h.axes[j]
    if (np.append(target, 1.0) @ view_proj[3]) <= 1e-3:
        return  # that point is behind the camera
    mouse = pixel(view_proj, target)
    moved = drag.position(*mouse)
    np.testing.assert_allclose(moved - position, target - drag.grabbed, atol=1e-6)
    normal = np.cross(h.axes[i], h.axes[j])
    assert abs((moved - position) @ normal) < 1e-9  # within the plane
    grabbed_now = drag.grabbed + (moved - position)
    np.testing.assert_allclose(pixel(view_proj, grabbed_now), mouse, atol=1e-4)


@settings(max_examples=60, deadline=None)
@given(cameras, positions, quaternions, st.booleans(), st.integers(0, 2), st.floats(-1.5, 1.5))
def test_an_axis_drag_to_a_pixel_on_its_line_moves_by_that_points_distance(
    camera, position, q, local, axis, s
):
    world = world_of(position, q)
    view_proj = camera.view_projection(SIZE)
    h = gizmo.handles(world, view_proj, SIZE, local, RADIUS)
    if h is None:
        return
    tip = h.tips[axis]
    screen = tip - h.origin
    if np.linalg.norm(screen) < 20.0:
        return  # the axis points at the camera: no handle to grab along
    press = h.origin + 0.6 * screen
    drag = gizmo.AxisDrag.begin(h, axis, world, *press)
    grabbed = position + drag.grabbed * h.axes[axis]
    np.testing.assert_allclose(pixel(view_proj, grabbed), press, atol=1e-4)
    target = grabbed + s * h.axes[axis]
    if (np.append(target, 1.0) @ view_proj[3]) <= 1e-3:
        return
    assert abs(drag.distance(*pixel(view_proj, target)) - s) < 1e-6
    moved = drag.position(*pixel(view_proj, target))
    np.testing.assert_allclose(np.cross(moved - position, h.axes[axis]), 0.0, atol=1e-9)


def test_where_the_ray_misses_the_plane_the_node_stays_at_its_last_place():
    camera = Camera(distance=8.0, yaw=0.0, pitch=20.0)
    world = np.eye(4)
    view_proj = camera.view_projection(SIZE)
    h = gizmo.handles(world, view_proj, SIZE, False, RADIUS)
    zx = 2  # the ground plane, seen from above
    press = gizmo.plane_squares(h)[zx].mean(axis=0)
    drag = gizmo.PlaneDrag.begin(h, zx, world, *press)
    near = drag.position(press[0] + 30.0, press[1] - 10.0)
    above_horizon = drag.position(press[0] + 30.0, 0.0)  # the ray goes up, over the plane
    origin, direction = pixel_ray(view_proj, SIZE, press[0] + 30.0, 0.0)
    assert direction[1] > 0 and origin[1] > 0  # it never meets y = 0 ahead
    np.testing.assert_array_equal(above_horizon, near)
