"""Every example of docs/semantics.md (the frame log and the parent rules), line for line."""

import numpy as np
import pytest
from example_graphs import LOG_A_OBJ3, LOG_A_OBJ4, LOG_B_OBJ2_OBJ5, LOG_B_OBJ5, chain5, tree10
from oracle import local_matrix

from viewer.scene import HierarchyError


def test_example_a_chain_touches():
    g = chain5()
    g.touch(g["Obj3"])
    assert g.update().log_lines() == LOG_A_OBJ3
    g.touch(g["Obj4"])
    assert g.update().log_lines() == LOG_A_OBJ4


def test_a_frame_without_change_prints_and_uploads_nothing():
    g = chain5()
    report = g.update()
    assert report.log_lines() == []
    assert report.executed.size == 0 and report.world_updated.size == 0
    assert report.empty


@pytest.mark.parametrize(
    ("touched", "expected"),
    [
        (
            ["Obj2"],
            [
                "*Update Local : Obj2*",
                "=Update World : Obj2=",
                "=Update World : Obj5=",
                "=Update World : Obj8=",
                "=Update World : Obj9=",
            ],
        ),
        (
            ["Obj3"],
            [
                "*Update Local : Obj3*",
                "=Update World : Obj3=",
                "=Update World : Obj6=",
                "=Update World : Obj10=",
            ],
        ),
        (["Obj4"], ["*Update Local : Obj4*", "=Update World : Obj4=", "=Update World : Obj7="]),
        (["Obj5"], LOG_B_OBJ5),
        (["Obj2", "Obj5"], LOG_B_OBJ2_OBJ5),
        (["Obj5", "Obj2"], LOG_B_OBJ2_OBJ5),
    ],
)
def test_example_b_tree_touches(touched, expected):
    g = tree10()
    for name in touched:
        g.touch(g[name])
    report = g.update()
    assert report.log_lines() == expected
    names = [report.name(i) for i in report.executed]
    assert names == [line[16:-1] for line in expected if line.startswith("=")]


def test_example_c_mid_frame_read_is_current_and_not_repeated():
    g = chain5()
    obj3, obj5 = g["Obj3"], g["Obj5"]
    before = obj5.world_matrix
    versions = g.world_versions().copy()
    obj3.local_position = (0.0, 3.0, 0.0)
    after = obj5.world_matrix
    expected = obj3.parent.world_matrix @ obj3.local_matrix
    expected = expected @ g["Obj4"].local_matrix @ obj5.local_matrix
    np.testing.assert_allclose(after, expected, atol=1e-12)
    assert not np.allclose(before, after)
    mid = g.world_versions().copy()
    assert (mid - versions).tolist() == [0, 0, 1, 1, 1]
    report = g.update()
    assert (g.world_versions() - mid).tolist() == [0, 0, 0, 0, 0]  # not recomputed again
    assert [report.name(i) for i in report.executed] == ["Obj3", "Obj4", "Obj5"]
    assert report.log_lines() == LOG_A_OBJ3


def test_mid_frame_read_of_local_only_clears_update_local():
    g = chain5()
    g["Obj4"].local_scale = (2, 2, 2)
    # the mid-frame read already sees the new scale: T·R·S with S = 2, R = 40° about Y
    expected = local_matrix((1.0, 0.5, 0.0), g["Obj4"].local_rotation, (2.0, 2.0, 2.0))
    np.testing.assert_allclose(g["Obj4"].local_matrix, expected, atol=1e-12)
    np.testing.assert_allclose(g["Obj4"].local_matrix[1, 1], 2.0)
    report = g.update()
    assert report.log_lines()[:2] == ["*Update Local : Obj4*", "=Update World : Obj4="]


def test_ancestors_and_siblings_are_never_recomputed():
    g = tree10()
    versions = g.world_versions().copy()
    g["Obj6"].local_position = (0, 1, 0)
    g.update()
    changed = {g.name_of(i) for i in np.flatnonzero(g.world_versions() != versions)}
    assert changed == {"Obj6", "Obj10"}


def test_provenance_names_the_nearest_changed_node():
    g = tree10()
    g.touch(g["Obj2"])
    g.touch(g["Obj5"])
    report = g.update()
    why = {report.name(i): report.name(c) for i, c in zip(report.world_updated, report.cause)}
    assert why == {"Obj2": "Obj2", "Obj5": "Obj5", "Obj8": "Obj5", "Obj9": "Obj5"}
    assert report.cause_of(g["Obj3"].id) is None


# ---------------------------------------------------------------- section 4: parents
def test_set_parent_none_detaches_and_detached_root_comes_after_existing_roots():
    g = tree10()
    extra = g.add("Extra")
    g.update()
    g["Obj5"].set_parent(None)
    report = g.update()
    assert g["Obj5"].parent is None
    assert [n.name for n in g][-4:] == ["Extra", "Obj5", "Obj8", "Obj9"]
    assert report.log_lines() == LOG_B_OBJ5
    assert extra.parent is None


@pytest.mark.parametrize("case", ["self", "child", "grandchild"])
def test_cycles_and_self_parenting_raise_naming_both_and_change_nothing(case):
    g = tree10()
    target = {"self": "Obj2", "child": "Obj5", "grandchild": "Obj9"}[case]
    worlds = g.world_matrices().copy()
    order = [n.name for n in g]
    with pytest.raises(HierarchyError) as err:
        g["Obj2"].set_parent(g[target])
    assert "Obj2" in str(err.value) and target in str(err.value)
    assert isinstance(err.value, ValueError)
    assert [n.name for n in g] == order
    assert g.update().empty
    np.testing.assert_array_equal(g.world_matrices(), worlds)


def test_foreign_and_removed_parents_are_refused():
    g, other = tree10(), tree10()
    with pytest.raises(HierarchyError, match="another SceneGraph"):
        g["Obj2"].set_parent(other["Obj3"])
    gone = g["Obj7"]
    g.remove(g["Obj4"])
    with pytest.raises(HierarchyError, match="Obj7.*removed"):
        g["Obj2"].set_parent(gone)
    with pytest.raises(HierarchyError, match="removed"):
        gone.local_position = (1, 2, 3)


def test_reparent_moves_as_last_child_and_marks_the_subtree():
    g = tree10()
    g["Obj5"].set_parent(g["Obj3"])
    assert [c.name for c in g["Obj3"].children] == ["Obj6", "Obj5"]
    assert [c.name for c in g["Obj2"].children] == []
    report = g.update()
    assert report.log_lines() == LOG_B_OBJ5
    assert [n.name for n in g] == [
        "Obj1",
        "Obj2",
        "Obj3",
        "Obj6",
        "Obj10",
        "Obj5",
        "Obj8",
        "Obj9",
        "Obj4",
        "Obj7",
    ]


def test_keep_world_false_keeps_locals_true_keeps_world():
    g = tree10()
    g["Obj3"].local_euler = (0, 0, 90)
    g["Obj3"].local_scale = (2, 2, 2)
    node = g["Obj8"]
    local_before, world_before = node.local_position, node.world_matrix
    node.set_parent(g["Obj3"], keep_world=False)
    np.testing.assert_array_equal(node.local_position, local_before)
    assert not np.allclose(node.world_matrix, world_before)
    g.update()
    world_before = node.world_matrix
    node.set_parent(g["Obj7"], keep_world=True)
    np.testing.assert_allclose(node.world_matrix, world_before, atol=1e-12)
    g.update()
    np.testing.assert_allclose(node.world_matrix, world_before, atol=1e-12)


def test_keep_world_under_a_singular_parent_is_an_error():
    g = tree10()
    g["Obj4"].local_scale = (0, 1, 1)
    with pytest.raises(HierarchyError, match="singular"):
        g["Obj8"].set_parent(g["Obj4"], keep_world=True)
    assert g["Obj8"].parent.name == "Obj5"


def test_remove_takes_the_subtree_and_detach_children_makes_roots():
    g = tree10()
    g.remove(g["Obj3"])
    assert len(g) == 7 and "Obj10" not in g and "Obj6" not in g
    g.update()
    local = g["Obj8"].local_position
    g["Obj5"].detach_children()
    assert g["Obj8"].parent is None and g["Obj9"].parent is None
    np.testing.assert_array_equal(g["Obj8"].local_position, local)
    report = g.update()
    assert [report.name(i) for i in report.executed] == ["Obj8", "Obj9"]
    assert [n.name for n in g][-2:] == ["Obj8", "Obj9"]
