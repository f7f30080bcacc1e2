"""Collision (viewer.collision) against docs/semantics.md section 6 and independent oracles.

The oracles here do not fold: a disk is tested with the distance from its centre to the
nearest point of the rectangle's four edges in world space, a sphere with the clamped
nearest point of the box, a ray with its intersections with the box's six faces. Random
cases within 1e-9 of touching are left out, since there the two computations may round
differently; touching itself is tested on values that are exact in floating point.
"""

import doctest
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from oracle import rotation_from_quaternion

import viewer.collision as col
from viewer.collision.ray import pick
from viewer.scene import SceneGraph

MARGIN = 1e-9  # cases closer than this to touching are left to the exact tests

coord = st.floats(-20.0, 20.0, allow_nan=False)
length = st.floats(0.0, 20.0, allow_nan=False)
radius = st.floats(0.0, 10.0, allow_nan=False)
angle = st.floats(-360.0, 360.0, allow_nan=False)
point2 = st.tuples(coord, coord)
point3 = st.tuples(coord, coord, coord)
quaternion = st.tuples(*[st.floats(-1.0, 1.0, allow_nan=False)] * 4).filter(
    lambda q: np.linalg.norm(q) > 0.1
)
# Multiples of 1/4: sums and squares stay exact, so ties with the boundary really happen.
quarter = st.integers(-40, 40).map(lambda k: k / 4.0)
quarter_size = st.integers(0, 40).map(lambda k: k / 4.0)


# -- oracles -----------------------------------------------------------------------------
def axes_at(degrees: float) -> tuple[np.ndarray, np.ndarray]:
    a = math.radians(degrees)
    return np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])


def rect_corners(center, ui, uj, width, height) -> np.ndarray:
    """The four corners, counter-clockwise."""
    c, ui, uj = np.asarray(center, float), np.asarray(ui), np.asarray(uj)
    signs = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    return np.array([c + sx * width / 2 * ui + sy * height / 2 * uj for sx, sy in signs])


def segment_distance(p, a, b) -> float:
    ab, ap = b - a, p - a
    denom = float(ab @ ab)
    u = 0.0 if denom == 0.0 else min(1.0, max(0.0, float(ap @ ab) / denom))
    return float(np.linalg.norm(p - (a + u * ab)))


def rect_distance(p, corners) -> float:
    """Distance from p to the nearest point of the (filled) rectangle, in world space."""
    p = np.asarray(p, float)
    edges = [(corners[k], corners[(k + 1) % 4]) for k in range(4)]
    cross = [(b - a)[0] * (p - a)[1] - (b - a)[1] * (p - a)[0] for a, b in edges]
    if all(c > 0 for c in cross):
        return 0.0
    return min(segment_distance(p, a, b) for a, b in edges)


def contract_aabb(center, r, w, h) -> bool:
    """docs/semantics.md section 6, transcribed line by line."""
    cx, cy = abs(center[0]), abs(center[1])
    if cx >= w / 2 + r or cy >= h / 2 + r:
        return False
    ax, ay = cx - w / 2, cy - h / 2
    return not (ax >= 0 and ay >= 0 and ax * ax + ay * ay >= r * r)


def box_distance(p, center, rotation, size) -> float:
    """Distance from p to the nearest point of the solid box, by clamping."""
    rel = np.asarray(p, float) - np.asarray(center, float)
    local = np.linalg.solve(rotation, rel)
    half = np.asarray(size, float) / 2
    nearest = np.asarray(center, float) + rotation @ np.clip(local, -half, half)
    return float(np.linalg.norm(np.asarray(p, float) - nearest))


def ray_box_oracle(origin, direction, world, lo, hi) -> float:
    """Entry parameter of a ray into the box world @ [lo, hi], from its six faces."""
    origin, direction = np.asarray(origin, float), np.asarray(direction, float)
    m3, shift = world[:3, :3], world[:3, 3]
    local_origin = np.linalg.solve(m3, origin - shift)
    if np.all(local_origin >= lo) and np.all(local_origin <= hi):
        return 0.0
    best = math.inf
    for k in range(3):
        i, j = [a for a in range(3) if a != k]
        for side in (lo, hi):
            corner = np.array(lo, dtype=float)
            corner[k] = side[k]
            e1, e2 = np.zeros(3), np.zeros(3)
            e1[i], e2[j] = hi[i] - lo[i], hi[j] - lo[j]
            p0 = m3 @ corner + shift
            system = np.column_stack([m3 @ e1, m3 @ e2, -direction])
            if abs(np.linalg.det(system)) < 1e-12:
                continue
            a, b, t = np.linalg.solve(system, origin - p0)
            if 0 <= a <= 1 and 0 <= b <= 1 and t >= 0:
                best = min(best, t)
    return best


# -- disk against rectangle ---------------------------------------------------------------
@given(point2, point2, angle, radius, length, length)
@example((5.0, 4.0), (0.0, 0.0), 0.0, 2.0, 8.0, 4.0)
@example((0.0, 3.5), (0.0, 5.0), 30.0, 1.0, 6.0, 2.0)
def test_disk_vs_obb_agrees_with_the_distance_oracle(c, t, deg, r, w, h):
    ui, uj = axes_at(deg)
    dist = rect_distance(c, rect_corners(t, ui, uj, w, h))
    assume(abs(dist - r) > MARGIN)
    assert col.disk_vs_obb(c, t, ui, uj, r, w, h) == (dist < r)


@given(st.tuples(quarter, quarter), quarter_size, quarter_size, quarter_size)
@example((5.0, 0.0), 1.0, 8.0, 4.0)
@example((7.0, -6.0), 5.0, 8.0, 4.0)
@example((1.0, 1.0), 0.0, 4.0, 4.0)
def test_disk_vs_aabb_is_the_contract_word_for_word(c, r, w, h):
    assert col.disk_vs_aabb(c, r, w, h) == contract_aabb(c, r, w, h)


@given(point2, point2, angle, radius, length, length)
def test_folding_into_the_first_quadrant_changes_nothing(c, t, deg, r, w, h):
    rel = np.subtract(c, t)
    expected = col.disk_vs_aabb(np.abs(rel), r, w, h)
    for sx in (1.0, -1.0):
        for sy in (1.0, -1.0):
            assert col.disk_vs_aabb(rel * (sx, sy), r, w, h) == expected
    # In the rotated frame: flipping an axis reflects the centre across it.
    ui, uj = axes_at(deg)
    expected = col.disk_vs_obb(c, t, ui, uj, r, w, h)
    s, tt = col.rect_coords(c, t, ui, uj)
    for sx in (1.0, -1.0):
        for sy in (1.0, -1.0):
            assert col.disk_vs_obb(c, t, sx * ui, sy * uj, r, w, h) == expected
            np.testing.assert_array_equal(
                col.rect_coords(c, t, sx * ui, sy * uj), (sx * s, sy * tt)
            )


@given(point2, point2, st.integers(-8, 8), radius, length, length)
def test_aabb_and_obb_agree_at_right_angles(c, t, quarter_turns, r, w, h):
    ui, uj = axes_at(90.0 * quarter_turns)
    swapped = quarter_turns % 2 == 1
    assert col.axis_aligned_size(ui, uj, w, h) == ((h, w) if swapped else (w, h))
    dist = rect_distance(c, rect_corners(t, ui, uj, w, h))
    assume(abs(dist - r) > MARGIN)
    size = col.axis_aligned_size(ui, uj, w, h)
    assert col.disk_vs_obb(c, t, ui, uj, r, w, h) == col.disk_vs_rect(c, r, t, *size)


@given(st.tuples(quarter, quarter), st.tuples(quarter, quarter), quarter_size, quarter_size)
def test_aabb_and_obb_agree_exactly_on_exact_right_angle_axes(c, t, w, h):
    # With axes of exact 0 and ±1 entries there is no rounding: ties included.
    turns = [((1, 0), (0, 1)), ((0, 1), (-1, 0)), ((-1, 0), (0, -1)), ((0, -1), (1, 0))]
    for k, (ui, uj) in enumerate(turns):
        size = (h, w) if k % 2 else (w, h)
        assert col.axis_aligned_size(ui, uj, w, h) == size
        for r in (0.0, 0.5, 1.0, 2.5):
            assert col.disk_vs_obb(c, t, ui, uj, r, w, h) == col.disk_vs_rect(c, r, t, *size)


def test_axis_aligned_size_is_none_between_right_angles():
    assert col.axis_aligned_size(*axes_at(1.0), 6.0, 2.0) is None
    assert col.axis_aligned_size(*axes_at(45.0), 6.0, 2.0) is None


@given(
    st.lists(st.tuples(point2, radius), min_size=1, max_size=12),
    point2,
    angle,
    length,
    length,
)
def test_batch_forms_equal_the_scalar_forms(disks, t, deg, w, h):
    centers = np.array([c for c, _ in disks])
    radii = np.array([r for _, r in disks])
    ui, uj = axes_at(deg)
    obb = col.disk_vs_obb_batch(centers, t, ui, uj, radii, w, h)
    aabb = col.disk_vs_aabb_batch(centers, radii, w, h, rect_centers=t)
    assert obb.dtype == bool and obb.shape == (len(disks),)
    assert obb.tolist() == [col.disk_vs_obb(c, t, ui, uj, r, w, h) for c, r in disks]
    assert aabb.tolist() == [col.disk_vs_aabb(c, r, w, h, rect_center=t) for c, r in disks]
    np.testing.assert_array_equal(col.disk_vs_rect_batch(centers, radii, t, w, h), aabb)
    # One rectangle per disk: the i-th rectangle is the shared one moved by i.
    n = len(disks)
    shift = np.arange(n, dtype=float)[:, None] * (1.0, -0.5)
    each_ui, each_uj = np.tile(ui, (n, 1)), np.tile(uj, (n, 1))
    widths, heights = np.full(n, w), np.full(n, h)
    got = col.disk_vs_obb_batch(centers, t + shift, each_ui, each_uj, radii, widths, heights)
    want = [col.disk_vs_obb(c, t + s, ui, uj, r, w, h) for (c, r), s in zip(disks, shift)]
    assert got.tolist() == want


def test_batch_of_no_disks_is_empty():
    out = col.disk_vs_obb_batch(np.zeros((0, 2)), (0, 0), (1, 0), (0, 1), np.zeros(0), 1.0, 1.0)
    assert out.shape == (0,) and out.dtype == bool


QUADRANTS = [(5.0, 4.0), (-5.0, 4.0), (-5.0, -4.0), (5.0, -4.0)]


@pytest.mark.parametrize("center", QUADRANTS)
def test_worked_example_is_root_five_from_the_corner_in_every_quadrant(center):
    w, h = 8.0, 4.0  # half-size (4, 2)
    ui, uj = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    assert rect_distance(center, rect_corners((0, 0), ui, uj, w, h)) == pytest.approx(
        math.sqrt(5.0), abs=1e-12
    )
    # The folded offset past the corner is (1, 2) exactly: squared distance 5 exactly.
    np.testing.assert_array_equal(np.abs(col.rect_coords(center, (0, 0), ui, uj)) - (4, 2), (1, 2))
    eps = 1e-9
    for test in (
        lambda r: col.disk_vs_aabb(center, r, w, h),
        lambda r: col.disk_vs_obb(center, (0, 0), ui, uj, r, w, h),
    ):
        assert test(math.sqrt(5.0) + eps)
        assert not test(math.sqrt(5.0) - eps)
        # √5 itself is not a double: the nearest one lies 1.1e-16 above it (a real overlap,
        # a hit), the one below lies short of the corner (no hit).
        assert test(math.sqrt(5.0))
        assert not test(float(np.nextafter(math.sqrt(5.0), 0.0)))


@pytest.mark.parametrize("sx", [1.0, -1.0])
@pytest.mark.parametrize("sy", [1.0, -1.0])
def test_touching_is_not_a_hit(sx, sy):
    w, h = 8.0, 4.0
    # Corner region, exactly at distance 5 (a 3-4-5 triangle beyond the corner (4, 2)).
    corner = (sx * 7.0, sy * 6.0)
    assert not col.disk_vs_aabb(corner, 5.0, w, h)
    assert col.disk_vs_aabb(corner, float(np.nextafter(5.0, 6.0)), w, h)
    # Sides, exactly at distance 1. The contract compares with w/2 + r, a sum at the scale
    # of 5, so the smallest radius past touching is one step of that scale above 1.
    for side in ((sx * 5.0, 0.0), (0.0, sy * 3.0)):
        assert not col.disk_vs_aabb(side, 1.0, w, h)
        assert col.disk_vs_aabb(side, 1.0 + 1e-15, w, h)
    # The same through the oriented form, axes at exact right angles.
    assert not col.disk_vs_obb(corner, (0, 0), (0, 1), (-1, 0), 5.0, h, w)
    assert not col.disk_vs_rect((corner[0] + 1.0, corner[1] - 2.0), 5.0, (1.0, -2.0), w, h)


def test_point_inside_is_a_hit_even_with_radius_zero():
    assert col.disk_vs_aabb((1.0, 1.0), 0.0, 4.0, 4.0)
    assert not col.disk_vs_aabb((2.0, 1.0), 0.0, 4.0, 4.0)  # on the edge: touching


def test_rect_axes_come_from_the_world_matrix_of_a_child_node():
    g = SceneGraph()
    parent = g.add("pivot", position=(1.0, 2.0, 0.0), euler=(0.0, 0.0, 30.0))
    rect = g.add("rect", parent, position=(0.0, 5.0, 0.0), euler=(0, 0, 15.0), scale=(6, 2, 1))
    world = rect.world_matrix
    ui, uj = col.rect_axes(world)
    np.testing.assert_allclose(ui, axes_at(45.0)[0], atol=1e-12)
    np.testing.assert_allclose(uj, axes_at(45.0)[1], atol=1e-12)
    center, ui2, uj2, w, h = col.rect_from_world(world)
    np.testing.assert_array_equal(center, world[:2, 3])
    np.testing.assert_array_equal(ui2, ui)
    assert (w, h) == pytest.approx((6.0, 2.0))
    # A stack of matrices gives a stack of axes.
    stacked_ui, stacked_uj = col.rect_axes(np.stack([world, np.eye(4)]))
    np.testing.assert_array_equal(stacked_ui, [ui, (1.0, 0.0)])
    np.testing.assert_array_equal(stacked_uj, [uj, (0.0, 1.0)])
    # A 2D homogeneous 3 x 3 matrix works the same way.
    m2 = np.array([[0.0, -3.0, 4.0], [3.0, 0.0, 5.0], [0.0, 0.0, 1.0]])
    center, ui, uj, w, h = col.rect_from_world(m2, 2.0, 1.0)
    assert center.tolist() == [4.0, 5.0] and ui.tolist() == [0, 1] and uj.tolist() == [-1, 0]
    assert (w, h) == (6.0, 3.0)


# -- sphere against box -------------------------------------------------------------------
sizes3 = st.tuples(length, length, length)


@given(point3, point3, quaternion, radius, sizes3)
def test_sphere_vs_obb_agrees_with_the_distance_oracle(c, t, q, r, size):
    rotation = rotation_from_quaternion(q)
    dist = box_distance(c, t, rotation, size)
    assume(abs(dist - r) > MARGIN)
    assert col.sphere_vs_obb(c, t, rotation, r, size) == (dist < r)
    aligned = box_distance(c, t, np.eye(3), size)
    if abs(aligned - r) > MARGIN:
        assert col.sphere_vs_box(c, r, t, size) == (aligned < r)


@given(point3, quaternion, radius, sizes3)
def test_folding_into_the_first_octant_changes_nothing(c, q, r, size):
    expected = col.sphere_vs_aabb(np.abs(c), r, size)
    rotation = rotation_from_quaternion(q)
    expected_obb = col.sphere_vs_obb(c, (0, 0, 0), rotation, r, size)
    for signs in np.array(np.meshgrid(*[[1.0, -1.0]] * 3)).reshape(3, -1).T:
        assert col.sphere_vs_aabb(np.multiply(c, signs), r, size) == expected
        assert col.sphere_vs_obb(c, (0, 0, 0), rotation * signs, r, size) == expected_obb


def _signed_permutations() -> list[np.ndarray]:
    out = []
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        for signs in np.array(np.meshgrid(*[[1.0, -1.0]] * 3)).reshape(3, -1).T:
            out.append(np.eye(3)[:, perm] * signs)
    return out


@given(st.tuples(quarter, quarter, quarter), st.tuples(quarter, quarter, quarter), quarter_size)
def test_aabb_and_obb_agree_at_right_angles_in_3d(c, t, r):
    size = np.array([2.0, 4.5, 7.0])
    for axes in _signed_permutations():
        aligned = np.abs(axes) @ size  # size along X, Y, Z
        assert col.sphere_vs_obb(c, t, axes, r, size) == col.sphere_vs_box(c, r, t, aligned)


@given(st.tuples(quarter, quarter), quarter_size, quarter_size, quarter_size, quarter_size)
def test_the_sphere_test_on_the_mid_plane_is_the_disk_test(c, r, w, h, depth):
    assume(depth > 0)
    assert col.sphere_vs_aabb((*c, 0.0), r, (w, h, depth)) == col.disk_vs_aabb(c, r, w, h)


@given(st.lists(st.tuples(point3, radius), min_size=1, max_size=12), point3, quaternion, sizes3)
def test_sphere_batch_forms_equal_the_scalar_forms(spheres, t, q, size):
    centers = np.array([c for c, _ in spheres])
    radii = np.array([r for _, r in spheres])
    axes = rotation_from_quaternion(q)
    obb = col.sphere_vs_obb_batch(centers, t, axes, radii, size)
    assert obb.dtype == bool and obb.shape == (len(spheres),)
    assert obb.tolist() == [col.sphere_vs_obb(c, t, axes, r, size) for c, r in spheres]
    aabb = col.sphere_vs_aabb_batch(centers, radii, size, box_centers=t)
    assert aabb.tolist() == [col.sphere_vs_aabb(c, r, size, box_center=t) for c, r in spheres]
    np.testing.assert_array_equal(col.sphere_vs_box_batch(centers, radii, t, size), aabb)
    n = len(spheres)
    each = col.sphere_vs_obb_batch(
        centers, np.tile(t, (n, 1)), np.tile(axes, (n, 1, 1)), radii, size
    )
    np.testing.assert_array_equal(each, obb)


def test_box_from_world_takes_axes_and_half_sizes_from_the_matrix():
    rotation = rotation_from_quaternion((0.2, -0.4, 0.1, 0.9))
    world = np.eye(4)
    world[:3, :3] = rotation * (2.0, 3.0, 0.5)
    world[:3, 3] = (1.0, -2.0, 3.0)
    center, axes, size = col.box_from_world(world, (1.0, 2.0, 4.0))
    np.testing.assert_array_equal(center, (1.0, -2.0, 3.0))
    np.testing.assert_allclose(axes, rotation, atol=1e-12)
    np.testing.assert_allclose(size, (2.0, 6.0, 2.0))
    np.testing.assert_array_equal(col.box_axes(world), axes)
    # A sphere just outside the +X face (half-size 1 there) and just inside it.
    face = np.array(center) + rotation[:, 0] * 1.5
    assert not col.sphere_vs_obb(face, center, axes, 0.49, size)
    assert col.sphere_vs_obb(face, center, axes, 0.51, size)
    np.testing.assert_allclose(col.box_coords(face, center, axes), (1.5, 0.0, 0.0), atol=1e-12)
    assert col.box_axes(np.stack([world, np.eye(4)])).shape == (2, 3, 3)


# -- ray against box ----------------------------------------------------------------------
def _random_boxes(rng, n):
    worlds = np.tile(np.eye(4), (n, 1, 1))
    for k in range(n):
        q = rng.normal(size=4)
        worlds[k, :3, :3] = rotation_from_quaternion(q) * rng.uniform(0.3, 3.0, size=3)
    worlds[:, :3, 3] = rng.uniform(-3.0, 3.0, size=(n, 3))
    lo = -rng.uniform(0.1, 1.0, size=(n, 3))
    hi = rng.uniform(0.1, 1.0, size=(n, 3))
    return worlds, lo, hi


@given(st.integers(0, 2**32 - 1))
def test_ray_vs_obb_agrees_with_the_face_oracle(seed):
    rng = np.random.default_rng(seed)
    worlds, lo, hi = _random_boxes(rng, 12)
    origin = rng.uniform(-10.0, 10.0, size=3)
    aim = worlds[rng.integers(12), :3, 3] + rng.normal(scale=1.5, size=3)
    direction = (aim - origin) / np.linalg.norm(aim - origin)
    got = col.ray_vs_obb_batch(origin, direction, worlds, lo, hi)
    delta = 1e-7
    for k in range(12):
        grown = ray_box_oracle(origin, direction, worlds[k], lo[k] - delta, hi[k] + delta)
        shrunk = ray_box_oracle(origin, direction, worlds[k], lo[k] + delta, hi[k] - delta)
        assert got[k] == col.ray_vs_obb(origin, direction, worlds[k], lo[k], hi[k])
        if math.isinf(grown):
            assert math.isinf(got[k])
        elif not math.isinf(shrunk):
            assert grown - 1e-9 <= got[k] <= shrunk + 1e-9
        # else: the ray grazes the box; either answer is right


@given(st.integers(0, 2**32 - 1))
def test_pick_is_the_nearest_of_ray_vs_obb(seed):
    rng = np.random.default_rng(seed)
    worlds, lo, hi = _random_boxes(rng, 8)
    lo, hi = lo - 0.5, hi + 0.5  # thick boxes: pick adds no padding
    origin = rng.uniform(-10.0, 10.0, size=3)
    direction = -origin / np.linalg.norm(origin)
    t = col.ray_vs_obb_batch(origin, direction, worlds, lo, hi)
    index, distance = pick(origin, direction, worlds, lo, hi)
    if np.isinf(t).all():
        assert (index, distance) == (-1, math.inf)
    else:
        assert (index, distance) == (int(np.argmin(t)), float(t.min()))


def test_ray_vs_aabb_entry_inside_parallel_and_behind():
    lo, hi = (-1.0, -1.0, -1.0), (1.0, 2.0, 3.0)
    assert col.ray_vs_aabb((0, 0, 10), (0, 0, -1), lo, hi) == 7.0
    assert col.ray_vs_aabb((0, 0, 10), (0, 0, -2), lo, hi) == 3.5  # a ray parameter
    assert col.ray_vs_aabb((0, 0, 0), (1, 0, 0), lo, hi) == 0.0  # starts inside
    assert col.ray_vs_aabb((0, 0, 10), (0, 0, 1), lo, hi) == math.inf  # box behind
    assert col.ray_vs_aabb((5, 0, 0), (0, 1, 0), lo, hi) == math.inf  # parallel, outside
    assert col.ray_vs_aabb((1, 0, 10), (0, 0, -1), lo, hi) == 7.0  # grazing a face hits
    out = col.ray_vs_aabb_batch(
        (0, 0, 10), (0, 0, -1), [lo, (-1, -1, 4), (2, 2, 2)], [hi, (1, 1, 5), (3, 3, 3)]
    )
    assert out.tolist() == [7.0, 5.0, math.inf]


def test_ray_vs_obb_turns_with_the_box_and_skips_singular_ones():
    bar = np.eye(4)
    bar[:2, :2] = [[0.0, -1.0], [1.0, 0.0]]  # 90 degrees about Z
    lo, hi = (-2.0, -0.1, -0.1), (2.0, 0.1, 0.1)
    assert col.ray_vs_obb((1.5, 0, 5), (0, 0, -1), bar, lo, hi) == math.inf
    assert col.ray_vs_obb((0, 1.5, 5), (0, 0, -1), bar, lo, hi) == pytest.approx(4.9)
    squashed = np.diag([1.0, 1.0, 0.0, 1.0])
    assert col.ray_vs_obb((0, 0, 5), (0, 0, -1), squashed) == math.inf
    assert col.ray_vs_obb_batch((0, 0, 5), (0, 0, -1), np.zeros((0, 4, 4))).shape == (0,)


# -- arguments, layering, examples ----------------------------------------------------------
BAD_CALLS = [
    (lambda: col.disk_vs_aabb((0, 0, 0), 1, 2, 2), r"center must have shape \(2,\)"),
    (lambda: col.disk_vs_aabb((0, 0), -1, 2, 2), r"radius must be >= 0"),
    (lambda: col.disk_vs_aabb((0, 0), 1, -2, 2), r"width must be >= 0"),
    (lambda: col.disk_vs_aabb((0, 0), 1, 2, -2), r"height must be >= 0"),
    (lambda: col.disk_vs_aabb((math.nan, 0), 1, 2, 2), r"center must be finite"),
    (lambda: col.disk_vs_rect((0, 0), 1, (0, math.inf), 2, 2), r"rect_center must be finite"),
    (lambda: col.disk_vs_obb((0, 0), (0, 0), (2, 0), (0, 1), 1, 2, 2), r"ui must have unit length"),
    (
        lambda: col.disk_vs_obb((0, 0), (0, 0), (1, 0), (0, 1), math.nan, 2, 2),
        r"radius must be fin",
    ),
    (lambda: col.disk_vs_aabb_batch(np.zeros((3, 2)), np.ones(2), 1, 1), r"radii must have shape"),
    (lambda: col.disk_vs_aabb_batch(np.zeros(2), 1, 1, 1), r"centers must have shape \(N, 2\)"),
    (lambda: col.disk_vs_aabb_batch(np.zeros((2, 2)), [1, -1], 1, 1), r"radii must be >= 0"),
    (lambda: col.disk_vs_obb_batch(np.zeros((2, 2)), 0, (1, 0), (0, 1), 1, 1, 1), r"rect_centers"),
    (lambda: col.rect_axes(np.zeros((4, 4))), r"zero length"),
    (lambda: col.rect_axes(np.eye(2)), r"world_matrix must have shape"),
    (
        lambda: col.rect_coords((0, 0), np.zeros((3, 2)), (1, 0), np.zeros((2, 2))),
        r"one point or N points",
    ),
    (lambda: col.sphere_vs_aabb((0, 0, 0), 1, (1, -1, 1)), r"size must be >= 0"),
    (lambda: col.sphere_vs_obb((0, 0, 0), (0, 0, 0), 2 * np.eye(3), 1, (1, 1, 1)), r"unit length"),
    (lambda: col.sphere_vs_obb_batch(np.zeros((2, 3)), 0, np.eye(3), 1, 1), r"box_centers"),
    (lambda: col.box_axes(np.diag([1.0, 0.0, 1.0, 1.0])), r"zero length"),
    (lambda: col.box_from_world(np.eye(3)), r"world_matrix must have shape \(4, 4\)"),
    (lambda: col.ray_vs_aabb((0, 0, 0), (0, 0, 0), (0, 0, 0), (1, 1, 1)), r"non-zero"),
    (lambda: col.ray_vs_aabb((0, 0, 0), (0, 0, 1), (1, 1, 1), (0, 0, 0)), r"lo <= hi"),
    (lambda: col.ray_vs_obb((0, 0, 0), (0, 0, 1), np.eye(3)), r"world_matrix must have shape"),
    (lambda: col.ray_vs_obb((math.nan, 0, 0), (0, 0, 1), np.eye(4)), r"origin must be finite"),
    (lambda: col.ray_vs_obb_batch((0, 0, 0), (0, 0, 1), np.eye(4)), r"world_matrices must have"),
]


@pytest.mark.parametrize("call, message", BAD_CALLS)
def test_bad_arguments_raise_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_non_numbers_raise_type_errors():
    with pytest.raises(TypeError, match="center must be a number or an array of numbers"):
        col.disk_vs_aabb(("a", 0), 1, 2, 2)


def test_collision_imports_no_gl():
    sources = Path(col.__file__).parent.glob("*.py")
    assert not [p.name for p in sources if "moderngl" in p.read_text() or "pyglet" in p.read_text()]
    code = (
        "import sys, viewer.collision; print(sorted(m for m in sys.modules if m.split('.')[0] "
        "in {'moderngl', 'moderngl_window', 'glcontext', 'imgui_bundle', 'pyglet'}))"
    )
    root = Path(__file__).parents[1]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip() == "[]"


def test_docstring_examples_run():
    for module in (col.planar, col.solid, col.ray):
        result = doctest.testmod(module)
        assert result.attempted > 0, f"{module.__name__} has no docstring examples to run"
        assert result.failed == 0
