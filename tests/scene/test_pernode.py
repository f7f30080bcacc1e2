"""The per-node fast path: setters that defer marking, reads that reuse what they handed
out. Same rules as the bulk path: values checked first, equal values suppressed, reads
current mid-frame, a removed node refused."""

from __future__ import annotations

import numpy as np
import pytest

from viewer.scene import HierarchyError, SceneGraph


def tree():
    g = SceneGraph()
    a = g.add("A")
    b = g.add("B", a, position=(1.0, 0.0, 0.0))
    c = g.add("C", b, position=(1.0, 0.0, 0.0))
    g.update()
    return g, a, b, c


@pytest.mark.parametrize(
    "value", [(1, 2, 3), [1.0, 2.0, 3.0], np.array([1.0, 2.0, 3.0]), np.array([1, 2, 3])]
)
def test_setters_take_tuples_lists_and_arrays(value):
    g, a, b, c = tree()
    c.local_position = value
    c.local_scale = value
    np.testing.assert_array_equal(c.local_position, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(c.local_scale, [1.0, 2.0, 3.0])
    assert c.local_position.dtype == np.float64 and not c.local_position.flags.writeable


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ((1.0, float("nan"), 0.0), "expected finite numbers"),
        ((1.0,), "expected 3 numbers"),
        ("abc", "expected 3 numbers"),
        ((1.0, "x", 2.0), "expected 3 numbers"),
        (np.ones((3, 1)), "expected 3 numbers"),
        ((10**400, 0, 0), None),
    ],
)
def test_bad_values_are_refused_and_change_nothing(value, message):
    g, a, b, c = tree()
    with pytest.raises((ValueError, OverflowError), match=message):
        c.local_position = value
    np.testing.assert_array_equal(c.local_position, [1.0, 0.0, 0.0])
    report = g.update()
    assert report.world_updated.size == 0


def test_a_zero_quaternion_is_refused():
    g, a, b, c = tree()
    with pytest.raises(ValueError, match="non-zero length"):
        c.local_rotation = (0.0, 0.0, 0.0, 0.0)
    assert g.update().empty


def test_setting_a_removed_node_raises():
    g, a, b, c = tree()
    g.remove(b)
    with pytest.raises(HierarchyError, match="removed"):
        c.local_position = (0.0, 0.0, 0.0)
    with pytest.raises(HierarchyError, match="removed"):
        c.local_euler = (0.0, 0.0, 0.0)


def test_equal_values_are_suppressed_and_counted():
    g, a, b, c = tree()
    b.local_position = (1.0, 0.0, 0.0)
    b.local_rotation = (0.0, 0.0, 0.0, 1.0)
    b.local_scale = [1, 1, 1]
    report = g.update()
    assert report.empty and report.suppressed == 3


def test_deferred_marking_gives_the_same_frame_as_the_bulk_path():
    g, a, b, c = tree()
    b.local_position = (2.0, 0.0, 0.0)
    c.local_euler = (0.0, 90.0, 0.0)
    b.local_position = (3.0, 0.0, 0.0)  # twice in one frame: queued once
    report = g.update()
    assert [report.name(i) for i in report.world_updated] == ["B", "C"]
    assert [report.name(i) for i in report.local_updated] == ["B", "C"]
    assert report.cause.tolist() == [b.id, c.id]
    np.testing.assert_allclose(c.world_position, [4.0, 0.0, 0.0], atol=1e-12)


def test_a_kept_handle_rereads_after_any_change():
    g, a, b, c = tree()
    first = c.world_matrix
    assert c.world_matrix is first  # nothing changed: the same read-only array
    with pytest.raises(ValueError):
        first.flags.writeable = True
    edits = [
        lambda: setattr(a, "local_position", (0.0, 5.0, 0.0)),
        lambda: a.touch(),
        lambda: g.set_locals([b.id], scales=[[2.0, 2.0, 2.0]]),
        lambda: c.set_parent(a),
        lambda: setattr(a, "local_euler", (0.0, 0.0, 90.0)),
    ]
    for edit in edits:
        before = c.world_matrix
        edit()
        after = c.world_matrix
        fresh = g.node(c.id).world_matrix
        np.testing.assert_array_equal(after, fresh)
        assert g.node(c.id).world_position.tolist() == after[:3, 3].tolist()
        assert after is not before
    g.remove(a)
    with pytest.raises(HierarchyError):
        _ = c.world_matrix
