"""Pins the conventions of docs/conventions.md, including the pyrr conversion."""

import numpy as np
import pyrr

from viewer.scene import SceneGraph
from viewer.scene.math import from_pyrr, quat_from_axis_angle


def test_column_vectors_translation_in_last_column():
    g = SceneGraph()
    n = g.add("N", position=(1, 2, 3))
    m = n.world_matrix
    np.testing.assert_array_equal(m[:3, 3], [1, 2, 3])
    np.testing.assert_array_equal(m @ [0, 0, 0, 1], [1, 2, 3, 1])


def test_euler_is_rz_ry_rx_about_parent_axes():
    g = SceneGraph()
    n = g.add("N", euler=(90, 90, 0))
    # Rotate X first: +Y goes to +Z; then Y: +Z goes to +X.
    np.testing.assert_allclose(n.transform_direction((0, 1, 0)), [1, 0, 0], atol=1e-12)


def test_quaternion_is_x_y_z_w():
    q = quat_from_axis_angle((0, 0, 1), 90)
    np.testing.assert_allclose(q, [0, 0, np.sqrt(0.5), np.sqrt(0.5)])


def test_pyrr_is_row_vector_and_the_conversion_is_a_transpose():
    g = SceneGraph()
    n = g.add("N", position=(1, 2, 3), euler=(0, 0, 90))
    ours = n.world_matrix
    # pyrr's from_z_rotation(a) is our rotation by -a; row vectors compose left to right.
    rotate = np.asarray(pyrr.Matrix44.from_z_rotation(-np.pi / 2))
    theirs = rotate @ np.asarray(pyrr.Matrix44.from_translation([1, 2, 3]))
    np.testing.assert_allclose(from_pyrr(theirs), ours, atol=1e-12)
    point = np.array([1.0, 0.0, 0.0, 1.0])
    np.testing.assert_allclose(point @ theirs, ours @ point, atol=1e-12)
