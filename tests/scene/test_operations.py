"""The operations users reach for (issue 13, part 3), one by one; the state machine in
test_property.py runs them in random sequences against the oracle as well."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import local_matrix, rel_error, rotation_about_axis, rotation_from_euler

from viewer.scene import HierarchyError, SceneGraph
from viewer.scene.math import quat_from_axis_angle


@pytest.fixture
def g():
    """Obj1 ─┬─ Obj2 ─┬─ Obj4
    │        └─ Obj5
    └─ Obj3          (and a second root, Lone)"""
    g = SceneGraph()
    o1 = g.add("Obj1", position=(0, 1, 0))
    o2 = g.add("Obj2", o1, position=(1, 0, 0), scale=(2, 2, 2))
    g.add("Obj3", o1, euler=(0, 90, 0))
    g.add("Obj4", o2, position=(0, 0, 1))
    g.add("Obj5", o2, rotation=quat_from_axis_angle((1, 0, 0), 30))
    g.add("Lone")
    g.update()
    return g


def names(nodes) -> list[str]:
    return [n.name for n in nodes]


def test_traverse_descendants_ancestors(g):
    assert names(g["Obj1"].traverse()) == ["Obj1", "Obj2", "Obj4", "Obj5", "Obj3"]
    assert names(g["Obj2"].descendants()) == ["Obj4", "Obj5"]
    assert names(g["Obj5"].ancestors()) == ["Obj2", "Obj1"]
    assert g["Lone"].ancestors() == [] and g["Lone"].descendants() == []


@pytest.mark.parametrize(
    ("path", "found"),
    [
        ("Obj1/Obj2/Obj5", "Obj5"),
        ("/Obj1/Obj2", "Obj2"),
        ("Obj2/Obj4", "Obj4"),  # need not start at a root
        ("/Obj2/Obj4", None),  # ... unless it says so
        ("Obj1/Obj4", None),  # Obj4 is not a child of Obj1
        ("Obj1//Obj2", None),
        ("Nobody", None),
        ("", None),
    ],
)
def test_find(g, path, found):
    node = g.find(path)
    assert (node.name if node else None) == found


def test_clone_copies_values_and_names_with_a_suffix(g):
    copy = g["Obj2"].clone()
    assert names(copy.traverse()) == ["Obj2_copy", "Obj4_copy", "Obj5_copy"]
    assert copy.parent == g["Obj1"]
    assert names(g["Obj1"].children) == ["Obj2", "Obj3", "Obj2_copy"]
    again = g["Obj2"].clone(parent=None, name="Twin")
    assert names(again.traverse()) == ["Twin", "Obj4_copy2", "Obj5_copy2"]
    assert again.parent is None
    report = g.update()
    assert report.name(report.world_updated[0]) == "Obj2_copy"
    for a, b in zip(g["Obj2"].traverse(), copy.traverse(), strict=True):
        np.testing.assert_array_equal(a.world_matrix, b.world_matrix)
    with pytest.raises(HierarchyError, match="inside it"):
        g["Obj1"].clone(parent=g["Obj4"])
    with pytest.raises(HierarchyError, match="duplicate"):
        g["Obj3"].clone(name="Obj1")


def test_moves_on_local_and_world_axes_against_the_oracle(g):
    n = g["Obj3"]  # turned 90 degrees about y: its x axis is the parent's -z
    n.translate_on_axis((1, 0, 0), 2.0)
    np.testing.assert_allclose(n.local_position, [0, 0, -2], atol=1e-12)
    before = n.local_matrix[:3, :3]
    n.rotate_on_axis((0, 0, 1), 30)
    assert rel_error(n.local_matrix[:3, :3], before @ rotation_about_axis((0, 0, 1), 30)) < 1e-12
    w = n.world_matrix
    n.rotate_on_world_axis((1, 1, 0), 40)
    turned = rotation_about_axis((1, 1, 0), 40) @ w[:3, :3]
    assert rel_error(n.world_matrix[:3, :3], turned) < 1e-12
    np.testing.assert_allclose(n.world_position, w[:3, 3], atol=1e-12)


def test_world_euler_and_angles(g):
    n = g["Obj4"]
    n.world_euler = (10, 20, 30)
    w = n.world_matrix[:3, :3] / 2.0  # Obj2 scales by 2
    assert rel_error(w, rotation_from_euler((10, 20, 30))) < 1e-12
    np.testing.assert_allclose(n.world_euler, [10, 20, 30], atol=1e-9)
    flat = g.add("Flat", position=(1, 2), scale=(3, 4))
    np.testing.assert_array_equal(flat.local_position, [1, 2, 0])
    np.testing.assert_array_equal(flat.local_scale, [3, 4, 1])
    flat.local_scale = 2.5
    np.testing.assert_array_equal(flat.local_scale, [2.5, 2.5, 2.5])
    flat.angle = 30
    assert abs(flat.angle - 30) < 1e-12
    child = g.add("FlatChild", flat)
    child.world_angle = 75
    assert abs(child.world_angle - 75) < 1e-9 and abs(child.angle - 45) < 1e-9


def test_local_matrix_setter_decomposes_and_refuses_what_trs_cannot_hold(g):
    n = g["Obj5"]
    m = local_matrix((1, 2, 3), quat_from_axis_angle((0, 1, 1), 50), (1, 2, -3))
    n.local_matrix = m
    assert rel_error(n.local_matrix, m) < 1e-12
    g.update()
    before = (n.local_position, n.local_rotation, n.local_scale)
    sheared = np.eye(4)
    sheared[0, 1] = 0.5
    projective = np.eye(4)
    projective[3, 2] = 0.1
    for bad, message in ((sheared, "shear"), (projective, "last row"), (np.eye(3), "16")):
        with pytest.raises(ValueError, match=message):
            n.local_matrix = bad
    after = (n.local_position, n.local_rotation, n.local_scale)
    assert all(np.array_equal(a, b) for a, b in zip(before, after))
    assert g.update().empty


def test_remove_keeping_children(g):
    kids = {name: g[name].world_matrix for name in ("Obj4", "Obj5")}
    g.remove(g["Obj2"], keep_children=True)
    assert names(g["Obj1"].children) == ["Obj3", "Obj4", "Obj5"]
    for name, w in kids.items():
        assert rel_error(g[name].world_matrix, w) < 1e-12
    g.remove(g["Obj1"], keep_children=True)
    assert names(g) == ["Lone", "Obj3", "Obj4", "Obj5"]  # roots now, after the others
    assert rel_error(g["Obj4"].world_matrix, kids["Obj4"]) < 1e-12
    singular = g.add("Flat", scale=(1, 0, 1))
    middle = g.add("Middle", singular)
    g.add("Child", middle)
    with pytest.raises(HierarchyError, match="singular"):
        g.remove(middle, keep_children=True)  # Child cannot keep its world under Flat
    assert "Middle" in g and g["Child"].parent == middle


def test_dirty_shows_the_three_flags_through_a_frame(g):
    parent, child = g["Obj2"], g["Obj4"]
    assert tuple(parent.dirty) == (False, False, False)
    parent.local_position = (5, 0, 0)
    assert tuple(parent.dirty) == (True, True, True)
    assert tuple(child.dirty) == (False, True, True)
    assert tuple(g["Obj3"].dirty) == (False, False, False)
    _ = child.world_matrix  # a mid-frame read computes both; the renderer still waits
    assert tuple(parent.dirty) == (False, False, True)
    assert tuple(child.dirty) == (False, False, True)
    g.update()
    assert tuple(child.dirty) == (False, False, False)


def test_update_of_one_subtree_leaves_the_rest_dirty():
    g = SceneGraph()
    a = g.add("A")
    b = g.add("B", a, position=(1, 0, 0))
    c = g.add("C", b, position=(1, 0, 0))
    d = g.add("D", a, position=(0, 1, 0))
    g.update()
    a.local_position = (0, 0, 5)
    report = g.update(root=b)
    assert [report.name(i) for i in report.world_updated] == ["B", "C"]
    assert report.cause.tolist() == [a.id, a.id]
    assert report.local_updated.size == 0 and report.products == 2  # B, C (A is a root)
    assert c.world_position.tolist() == [2.0, 0.0, 5.0]
    assert tuple(c.dirty) == (False, False, False)
    assert tuple(a.dirty) == (False, False, True)  # computed for B, not yet handed on
    assert tuple(d.dirty) == (False, True, True)
    later = g.update()
    assert [later.name(i) for i in later.world_updated] == ["A", "D"]
    assert [later.name(i) for i in later.local_updated] == ["A"]
    assert later.products == 1 and later.frame == report.frame + 1
    assert g.update(root=c).empty
