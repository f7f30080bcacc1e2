"""Camera maths and picking (pure numpy)."""

import math

import numpy as np
import pytest

from viewer.collision.ray import pick
from viewer.render.camera import ORTHOGRAPHIC, Camera, look_at

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


# -- the camera's matrices against a hand computation -------------------------------------
def _hand_view(eye, target):
    """World to camera: rows side, up, -forward; up is +Y, or -Z when looking along Y."""
    f = np.subtract(target, eye) / np.linalg.norm(np.subtract(target, eye))
    s = np.cross(f, (0.0, 1.0, 0.0))
    if np.linalg.norm(s) < 1e-9:
        s = np.cross(f, (0.0, 0.0, -1.0))
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    rot = np.eye(4)
    rot[:3, :3] = [s, u, -f]
    move = np.eye(4)
    move[:3, 3] = -np.asarray(eye)
    return rot @ move


def _hand_projection(cam, aspect):
    """gluPerspective / glOrtho, then the picture moved right by shift_x of its width."""
    n, f = cam.clip_range()
    proj = np.zeros((4, 4))
    if cam.projection == ORTHOGRAPHIC:
        h = 2.0 * cam.distance * math.tan(math.radians(cam.fov) / 2.0)
        proj[0, 0], proj[1, 1], proj[2, 2] = 2.0 / (h * aspect), 2.0 / h, -2.0 / (f - n)
        proj[2, 3], proj[3, 3] = -(f + n) / (f - n), 1.0
    else:
        cot = 1.0 / math.tan(math.radians(cam.fov) / 2.0)
        proj[0, 0], proj[1, 1] = cot / aspect, cot
        proj[2, 2], proj[2, 3], proj[3, 2] = (f + n) / (n - f), 2.0 * f * n / (n - f), -1.0
    shift = np.eye(4)
    shift[0, 3] = 2.0 * cam.shift_x
    return shift @ proj


MATRIX_CASES = [
    # (projection, target, distance, yaw, pitch, fov, shift_x, size)
    ("perspective", (0.0, 0.0, 0.0), 10.0, 30.0, 25.0, 45.0, 0.0, (320, 240)),
    ("perspective", (1.5, -2.0, 4.0), 0.02, -140.0, -60.0, 70.0, 0.0, (200, 500)),
    ("perspective", (3e3, 10.0, -2e3), 5e4, 200.0, 10.0, 30.0, 0.125, (1280, 720)),
    (ORTHOGRAPHIC, (0.0, 0.0, 0.0), 10.0, 0.0, 0.0, 45.0, 0.0, (320, 240)),
    (ORTHOGRAPHIC, (-1.0, 2.0, 0.5), 3e-3, 75.0, 80.0, 50.0, -0.08, (640, 640)),
    (ORTHOGRAPHIC, (0.0, 1.0, 0.0), 7.0, 10.0, 89.9, 45.0, 0.2, (1000, 300)),
]


@pytest.mark.parametrize("case", MATRIX_CASES)
def test_matrices_match_a_hand_computation(case):
    projection, target, distance, yaw, pitch, fov, shift_x, size = case
    cam = Camera(target=np.array(target), distance=distance, yaw=yaw, pitch=pitch, fov=fov)
    cam.projection, cam.shift_x, cam.extent = projection, shift_x, 2.0 * distance
    aspect = size[0] / size[1]
    view, proj = _hand_view(cam.eye, target), _hand_projection(cam, aspect)
    scale = max(1.0, float(np.abs(view).max()))
    np.testing.assert_allclose(cam.view_matrix(), view, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(cam.projection_matrix(aspect), proj, rtol=1e-12, atol=1e-12)
    vp = cam.view_projection(size)
    np.testing.assert_allclose(vp, proj @ view, rtol=1e-10, atol=1e-10 * scale)
    # The target lands shift_x of the width right of the image centre.
    x, y, _ = cam.project([target], size)[0]
    assert (x, y) == pytest.approx(((0.5 + shift_x) * size[0], size[1] / 2), abs=1e-6)


@pytest.mark.parametrize("eye", [(1.0, 9.0, 2.0), (1.0, -3.0, 2.0)])
def test_view_along_the_up_axis_uses_the_fallback_up(eye):
    target = (1.0, 0.0, 2.0)  # straight below or above: no side vector from +Y
    view = look_at(eye, target)
    np.testing.assert_allclose(view, _hand_view(eye, target), atol=1e-12)
    np.testing.assert_allclose(view[:3, :3] @ view[:3, :3].T, np.eye(3), atol=1e-12)


@pytest.mark.parametrize("frame_aspect", [1.6, 0.5])
def test_frame_fits_the_sphere_in_the_off_centre_region(frame_aspect):
    size, shift_x = (1280, 720), 0.1
    cam = Camera(yaw=20.0, pitch=15.0, shift_x=shift_x, frame_aspect=frame_aspect)
    center, radius = np.array([4.0, -1.0, 2.0]), 2.5
    cam.frame(center, radius)
    half = math.radians(cam.fov) / 2.0
    if frame_aspect < 1.0:
        half = math.atan(frame_aspect * math.tan(half))
    assert cam.distance == pytest.approx(1.02 * radius / math.sin(half))
    # The region: frame_aspect * height wide (at most the image), centred shift_x right.
    width = min(frame_aspect * size[1], size[0])
    x0 = (0.5 + shift_x) * size[0] - width / 2
    view = cam.view_matrix()
    for axis in (view[0, :3], view[1, :3]):
        for sign in (-1, 1):
            x, y, _ = cam.project([center + sign * radius * axis], size)[0]
            assert x0 <= x <= x0 + width and 0 <= y <= size[1]


@pytest.mark.parametrize("projection", ["perspective", ORTHOGRAPHIC])
@pytest.mark.parametrize("seed", range(6))
def test_fit_distance_is_the_least_distance_that_shows_every_point(projection, seed):
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.uniform(-3, 4)
    cam = Camera(
        target=rng.uniform(-1, 1, 3) * scale,
        yaw=rng.uniform(-180, 180),
        pitch=rng.uniform(-80, 80),
        projection=projection,
        shift_x=rng.uniform(-0.1, 0.1),
        frame_aspect=rng.uniform(0.4, 1.3),
        extent=10.0 * scale,
    )
    points = (rng.normal(size=(40, 3)) + rng.uniform(-2, 2, 3)) * scale
    size = (900, 500)
    width = cam.frame_aspect * size[1]  # the framing region, centred shift_x right
    x0 = (0.5 + cam.shift_x) * size[0] - width / 2

    def inside(distance):
        cam.distance = distance
        x, y, _ = cam.project(points, size).T
        depth = (points - cam.eye) @ cam.forward
        return (
            (x0 <= x).all() & (x <= x0 + width).all() & (y >= 0).all() & (y <= size[1]).all()
        ) and (depth > 0.04 * distance).all()

    fit = cam.fit_distance(points)
    assert inside(fit * (1 + 1e-9)) and inside(fit * 3.0)
    assert not inside(fit * 0.97)
    # The same from the points' support (what a big scene's boxes give without corners).
    supported = cam.fit_distance(support=lambda d: (points @ d.T).max(axis=0))
    assert supported == pytest.approx(fit, rel=1e-12)
