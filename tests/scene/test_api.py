"""The per-node API: setters, getters, world-space setters, helpers and their errors."""

import numpy as np
import pytest
from oracle import rotation_from_euler

from viewer.scene import HierarchyError, SceneGraph
from viewer.scene.math import quat_from_axis_angle, quat_to_euler


@pytest.fixture
def arm():
    g = SceneGraph()
    base = g.add("Base", position=(1, 2, 3), euler=(0, 90, 0), scale=(2, 2, 2))
    g.add("Tip", base, position=(1, 0, 0), euler=(0, 0, 30))
    g.update()
    return g


def test_local_matrix_is_t_r_s_with_column_vectors(arm):
    m = arm["Base"].local_matrix
    np.testing.assert_allclose(m[:3, 3], [1, 2, 3])
    np.testing.assert_allclose(m[:3, :3], rotation_from_euler((0, 90, 0)) * 2, atol=1e-12)
    np.testing.assert_allclose(m[3], [0, 0, 0, 1])
    point = arm["Tip"].transform_point((0, 0, 0))
    np.testing.assert_allclose(point, arm["Base"].world_matrix @ [1, 0, 0, 1] @ np.eye(4)[:, :3])


def test_returned_arrays_are_read_only_copies(arm):
    m = arm["Tip"].world_matrix
    with pytest.raises(ValueError):
        m[0, 0] = 5
    arm["Base"].local_position = (9, 9, 9)
    assert m[0, 3] != arm["Tip"].world_matrix[0, 3]  # the earlier read did not move
    with pytest.raises(ValueError):
        arm.world_matrices()[0, 0, 0] = 1


def test_euler_round_trip_and_order(arm):
    tip = arm["Tip"]
    tip.local_euler = (10, 20, 30)
    np.testing.assert_allclose(tip.local_euler, (10, 20, 30), atol=1e-9)
    np.testing.assert_allclose(
        tip.local_matrix[:3, :3], rotation_from_euler((10, 20, 30)), atol=1e-12
    )
    np.testing.assert_allclose(
        quat_to_euler(quat_from_axis_angle((0, 1, 0), 90)), (0, 90, 0), atol=1e-9
    )


def test_world_setters_land_where_asked(arm):
    tip = arm["Tip"]
    tip.world_position = (5, -1, 2)
    np.testing.assert_allclose(tip.world_position, (5, -1, 2), atol=1e-12)
    q = quat_from_axis_angle((1, 1, 0), 40)
    tip.world_rotation = q
    got = tip.world_rotation
    assert min(np.abs(got - q).max(), np.abs(got + q).max()) < 1e-12
    tip.lossy_scale = (3, 3, 3)
    np.testing.assert_allclose(tip.lossy_scale, (3, 3, 3), atol=1e-12)
    np.testing.assert_allclose(tip.local_scale, (1.5, 1.5, 1.5))


def test_helpers(arm):
    tip = arm["Tip"]
    p = tip.transform_point((1, 2, 3))
    np.testing.assert_allclose(tip.inverse_transform_point(p), (1, 2, 3), atol=1e-12)
    d = tip.transform_direction((1, 0, 0))
    assert np.isclose(np.linalg.norm(d), 1.0)  # rotated, not scaled
    tip.look_at((10, 10, 10))
    forward = -tip.world_matrix[:3, 2] / np.linalg.norm(tip.world_matrix[:3, 2])
    target = np.array([10, 10, 10]) - tip.world_position
    np.testing.assert_allclose(forward, target / np.linalg.norm(target), atol=1e-9)
    before = tip.local_position
    tip.translate((1, 0, 0))
    np.testing.assert_allclose(tip.local_position, before + [1, 0, 0])
    tip.local_rotation = (0, 0, 0, 1)
    tip.rotate((0, 0, 1), 90)
    np.testing.assert_allclose(tip.local_euler, (0, 0, 90), atol=1e-9)


def test_equal_values_are_suppressed_and_counted(arm):
    base = arm["Base"]
    base.local_position = base.local_position
    base.local_scale = (2, 2, 2)
    arm.set_locals(np.array([base.id]), positions=np.array([[1.0, 2.0, 3.0]]))
    report = arm.update()
    assert report.empty and report.suppressed == 3
    base.local_position = (1, 2, 4)
    assert arm.update().suppressed == 0


def test_world_versions_count_changes(arm):
    v = arm.world_versions().copy()
    arm["Tip"].touch()
    arm.update()
    assert (arm.world_versions() - v).tolist() == [0, 1]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("local_position", (1, float("nan"), 0), "finite"),
        ("local_position", (1,), "expected 3 numbers"),
        ("local_scale", (1, float("inf"), 1), "finite"),
        ("local_rotation", (0, 0, 0, 0), "non-zero length"),
        ("local_euler", "abc", "expected 3 numbers"),
        ("world_position", (0,), "expected 3 numbers"),
    ],
)
def test_bad_values_name_node_and_field_and_change_nothing(arm, field, value, message):
    tip = arm["Tip"]
    before = (tip.local_position, tip.local_rotation, tip.local_scale)
    with pytest.raises(ValueError, match=message) as err:
        setattr(tip, field, value)
    assert "'Tip'" in str(err.value) and field in str(err.value)
    after = (tip.local_position, tip.local_rotation, tip.local_scale)
    assert all(np.array_equal(a, b) for a, b in zip(before, after))
    assert arm.update().empty


def test_bulk_edit_errors_name_the_row_and_change_nothing(arm):
    ids = np.array([0, 1])
    with pytest.raises(ValueError, match="'Tip'.*positions"):
        arm.set_locals(ids, positions=np.array([[0, 0, 0], [np.nan, 0, 0]]))
    with pytest.raises(ValueError, match="shape"):
        arm.set_locals(ids, positions=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="'Base'.*non-zero"):
        arm.set_locals(ids, rotations=np.array([[0, 0, 0, 0], [0, 0, 0, 1.0]]))
    with pytest.raises(KeyError):
        arm.set_locals(np.array([7]), positions=np.zeros((1, 3)))
    assert arm.update().empty
    np.testing.assert_array_equal(arm["Base"].local_position, (1, 2, 3))


def test_names_are_unique_and_lookup_errors_are_clear(arm):
    with pytest.raises(HierarchyError, match="duplicate node name 'Tip'"):
        arm.add("Tip")
    with pytest.raises(HierarchyError, match="duplicate"):
        arm.add_many(["X", "X"], [-1, -1])
    with pytest.raises(KeyError, match="no node named 'Nope'"):
        arm["Nope"]
    with pytest.raises(ValueError, match="rotation or euler"):
        arm.add("Both", rotation=(0, 0, 0, 1), euler=(0, 0, 0))
    assert len(arm) == 2 and [n.name for n in arm] == ["Base", "Tip"]


def test_add_many_checks_parents(arm):
    with pytest.raises(HierarchyError, match="parent id 5"):
        arm.add_many(["A", "B"], [-1, 5])
    ids = arm.add_many(["A", "B"], [1, 2])
    assert arm.node(ids[1]).parent.name == "A" and arm["A"].parent.name == "Tip"
