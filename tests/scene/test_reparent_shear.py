"""Re-parenting with the world pose kept under a non-uniform scale (issue 24, item 7).

The rule (docs/semantics.md section 4): ``keep_world=True`` keeps the world matrix
exactly or refuses with a HierarchyError naming the nodes and the residual, changing
nothing; ``keep_world="lossy"`` keeps the position, takes the nearest rotation and scale
and returns the residual. Checked against the oracle's own products on random poses.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import local_matrix, local_shear, rotation_from_euler

from viewer.scene import HierarchyError, SceneGraph
from viewer.scene.math import matrix3_to_quat

angles = st.tuples(*[st.floats(-180, 180)] * 3)
scales = st.tuples(*[st.floats(0.2, 5.0)] * 3)
offsets = st.tuples(*[st.floats(-10, 10)] * 3)


def quat(euler) -> np.ndarray:
    return matrix3_to_quat(rotation_from_euler(euler))


def scene(parent_scale, parent_euler, child_euler, child_scale, child_pos):
    """A root Parent with the given pose and a root Child: re-parent Child under it."""
    g = SceneGraph()
    parent = g.add(
        "Parent", position=(1.0, 2.0, 3.0), rotation=quat(parent_euler), scale=parent_scale
    )
    child = g.add("Child", position=child_pos, rotation=quat(child_euler), scale=child_scale)
    g.update()
    return g, parent, child


def oracle_parent(parent_scale, parent_euler) -> np.ndarray:
    return local_matrix((1.0, 2.0, 3.0), quat(parent_euler), parent_scale)


def snapshot(g: SceneGraph) -> list:
    return [
        (
            n.name,
            n.parent and n.parent.name,
            *(v.tolist() for v in (n.local_position, n.local_rotation, n.local_scale)),
        )
        for n in g
    ]


@settings(max_examples=150, deadline=None)
@given(scales, angles, angles, scales, offsets)
def test_keep_world_is_exact_or_refused_and_lossy_reports_its_residual(ps, pe, ce, cs, cp):
    g, parent, child = scene(ps, pe, ce, cs, cp)
    before = local_matrix(cp, quat(ce), cs)  # the oracle's world matrix of the root Child
    shear = local_shear(oracle_parent(ps, pe), before)
    state = snapshot(g)
    try:
        assert child.set_parent(parent, keep_world=True) is None
    except HierarchyError as e:
        assert "'Child'" in str(e) and "'Parent'" in str(e) and "shear" in str(e)
        assert "\n" not in str(e)
        assert shear > 1e-12
        assert snapshot(g) == state  # refused: nothing changed
        residual = child.set_parent(parent, keep_world="lossy")
        assert residual > 1e-9
    else:
        assert shear < 1e-7
        residual = 0.0
    after = oracle_parent(ps, pe) @ local_matrix(
        child.local_position, child.local_rotation, child.local_scale
    )
    assert child.parent == parent
    np.testing.assert_allclose(after[:3, 3], before[:3, 3], rtol=1e-9, atol=1e-9)
    moved = np.abs(after[:3, :3] - before[:3, :3]).max() / np.abs(before[:3, :3]).max()
    assert moved == pytest.approx(residual, rel=1e-6, abs=1e-9)
    np.testing.assert_allclose(child.world_matrix, after, atol=1e-9)


def test_the_issue_case_is_refused_and_lossy_says_how_far_it_moved():
    g, parent, child = scene((2.0, 1.0, 1.0), (0, 0, 0), (0, 0, 45), (1, 1, 1), (0, 0, 0))
    with pytest.raises(HierarchyError, match=r"'Child' under 'Parent': it would need shear"):
        child.set_parent(parent, keep_world=True)
    assert child.parent is None
    before = child.world_matrix
    residual = g.set_parent(child, parent, keep_world="lossy")
    assert round(residual, 3) == 0.411  # the number docs/semantics.md quotes
    moved = np.abs(child.world_matrix - before).max()  # the world's largest entry is 1
    assert moved == pytest.approx(residual, rel=1e-9)
    np.testing.assert_allclose(child.world_euler, (0, 0, 45), atol=1e-9)


def test_uniform_scales_and_aligned_rotations_keep_the_world_exactly():
    for ps, ce in [((2, 2, 2), (10, 20, 30)), ((2, 1, 3), (0, 0, 90)), ((2, 1, 3), (180, 0, 90))]:
        g, parent, child = scene(ps, (0, 0, 0), ce, (1, 2, 1), (1, 1, 1))
        before = child.world_matrix
        child.set_parent(parent, keep_world=True)
        np.testing.assert_allclose(child.world_matrix, before, atol=1e-12)


def test_remove_keeping_children_is_refused_whole_when_one_child_needs_shear():
    g = SceneGraph()
    top = g.add("Top")
    mid = g.add("Mid", top, scale=(3.0, 1.0, 1.0))
    g.add("Plain", mid)
    g.add("Turned", mid, rotation=quat((0, 0, 30)))
    g.update()
    state = snapshot(g)
    with pytest.raises(
        HierarchyError, match=r"cannot remove 'Mid' keeping its children: .*'Turned'"
    ):
        g.remove(mid, keep_children=True)
    assert snapshot(g) == state


def test_keep_world_takes_only_the_three_modes():
    g, parent, child = scene((1, 1, 1), (0, 0, 0), (0, 0, 0), (1, 1, 1), (0, 0, 0))
    with pytest.raises(ValueError, match="keep_world must be False, True or 'lossy'"):
        child.set_parent(parent, keep_world="yes")
    assert child.parent is None
