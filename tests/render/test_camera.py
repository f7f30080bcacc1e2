"""Camera maths and picking (pure numpy)."""

import math

import numpy as np
import pytest

from viewer.render.camera import ORTHOGRAPHIC, Camera, pick

SIZE = (320, 240)


def test_target_projects_to_the_image_centre():
    cam = Camera(target=np.array([1.0, 2.0, 3.0]), distance=7.0, yaw=40.0, pitch=20.0)
    x, y, depth = cam.project([[1.0, 2.0, 3.0]], SIZE)[0]
    assert (x, y) == pytest.approx((160.0, 120.0))
    assert -1.0 < depth < 1.0


@pytest.mark.parametrize("projection", ["perspective", ORTHOGRAPHIC])
def test_ray_through_a_projected_point_passes_through_it(projection):
    cam = Camera(distance=9.0, yaw=-30.0, pitch=35.0, projection=projection)
    point = np.array([1.5, -0.5, 2.0])
    x, y, _ = cam.project([point], SIZE)[0]
    origin, direction = cam.ray(x, y, SIZE)
    assert np.linalg.norm(direction) == pytest.approx(1.0)
    to_point = point - origin
    off_axis = to_point - direction * (to_point @ direction)
    assert np.linalg.norm(off_axis) < 1e-6


def test_look_from_recovers_the_eye():
    cam = Camera()
    cam.look_from((3.0, 4.0, 5.0), (1.0, 0.0, 0.0))
    np.testing.assert_allclose(cam.eye, [3.0, 4.0, 5.0], atol=1e-9)


def test_home_restores_the_camera_after_orbit_pan_zoom():
    cam = Camera()
    cam.set_home()
    before = (cam.eye.copy(), cam.target.copy())
    cam.orbit(50, 20)
    cam.pan(10, -5, 240)
    cam.zoom(3)
    cam.reset()
    np.testing.assert_allclose(cam.eye, before[0])
    np.testing.assert_allclose(cam.target, before[1])


def test_frame_keeps_the_sphere_in_view():
    cam = Camera(yaw=10.0, pitch=30.0)
    cam.frame((2.0, 1.0, -1.0), 3.0)
    # Points on the sphere along the camera's up and right axes stay inside the image.
    view = cam.view_matrix()
    for axis in (view[0, :3], view[1, :3]):
        for sign in (-1, 1):
            x, y, _ = cam.project([np.array([2.0, 1.0, -1.0]) + sign * 3.0 * axis], SIZE)[0]
            assert 0 <= x <= SIZE[0] and 0 <= y <= SIZE[1]


def _rot_z(deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    m = np.eye(4)
    m[:2, :2] = [[c, -s], [s, c]]
    return m


def test_pick_hits_the_nearest_oriented_box():
    near, far = _rot_z(45.0), np.eye(4)
    near[:3, 3] = (0.0, 0.0, 2.0)
    far[:3, 3] = (0.0, 0.0, -2.0)
    lo, hi = np.full((2, 3), -0.5), np.full((2, 3), 0.5)
    index, t = pick((0.0, 0.0, 10.0), (0.0, 0.0, -1.0), np.stack([far, near]), lo, hi)
    assert index == 1 and t == pytest.approx(7.5)


def test_pick_uses_the_box_orientation():
    # A 4 x 0.2 bar turned 90 degrees about Z stands upright: a ray at x = 1.5 misses it.
    bar = _rot_z(90.0)
    lo, hi = np.array([[-2.0, -0.1, -0.1]]), np.array([[2.0, 0.1, 0.1]])
    assert pick((1.5, 0.0, 5.0), (0.0, 0.0, -1.0), bar[None], lo, hi)[0] == -1
    assert pick((0.0, 1.5, 5.0), (0.0, 0.0, -1.0), bar[None], lo, hi)[0] == 0


def test_pick_skips_singular_boxes_and_handles_flat_ones():
    flat = np.eye(4)
    zero = np.diag([0.0, 0.0, 0.0, 1.0])
    lo, hi = np.array([[-0.5, -0.5, 0.0]] * 2), np.array([[0.5, 0.5, 0.0]] * 2)
    index, _ = pick((0.2, 0.1, 3.0), (0.0, 0.0, -1.0), np.stack([zero, flat]), lo, hi)
    assert index == 1
