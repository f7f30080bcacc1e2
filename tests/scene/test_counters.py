"""``FrameReport.products`` counts every world product computed for the frame, whoever
triggered it: ``update()``, a mid-frame read, ``world_matrices()``, or an edit that had
to read a world matrix. One test per path that computes world matrices."""

from __future__ import annotations

import pytest

from viewer.io.loader import load_scene
from viewer.scene import SceneGraph
from viewer.scene.math import quat_from_axis_angle


def chain(n: int = 4) -> tuple[SceneGraph, list]:
    """Root -> N1 -> ... -> N{n-1}, each one step along x; brought up to date."""
    g = SceneGraph()
    nodes = [g.add("N0")]
    for k in range(1, n):
        nodes.append(g.add(f"N{k}", nodes[-1], position=(1.0, 0.0, 0.0)))
    g.update()
    return g, nodes


def test_update_alone_counts_its_products():
    g, nodes = chain()
    nodes[1].local_position = (2.0, 0.0, 0.0)
    assert g.update().products == 3  # N1, N2, N3 (the root N0 is clean)


def test_a_mid_frame_world_matrix_read_counts():
    g, nodes = chain()
    nodes[1].local_position = (2.0, 0.0, 0.0)
    assert nodes[2].world_matrix[0, 3] == 3.0  # computes N1 and N2 now
    assert g.update().products == 3  # N3 at update(): 2 + 1


def test_a_mid_frame_world_position_read_counts():
    g, nodes = chain()
    nodes[0].touch()
    assert nodes[3].world_position[0] == 3.0  # the whole path: N1..N3 are products
    report = g.update()
    assert report.products == 3
    assert report.world_updated.tolist() == [n.id for n in nodes]


def test_world_matrices_counts():
    g, nodes = chain()
    g.touch(nodes[0])
    g.world_matrices()
    assert g.update().products == 3


def test_a_read_of_a_clean_node_counts_nothing():
    g, nodes = chain()
    nodes[3].local_position = (5.0, 0.0, 0.0)
    assert nodes[2].world_matrix[0, 3] == 2.0  # clean: no product
    assert g.update().products == 1


@pytest.mark.parametrize("edit", ["set_parent_keep_world", "world_position", "world_rotation"])
def test_edits_that_read_worlds_count_them(edit):
    g, nodes = chain()
    other = g.add("Other", nodes[0], position=(0.0, 1.0, 0.0))
    g.update()
    nodes[0].local_position = (0.0, 0.0, 1.0)  # everything below N0 is dirty now
    if edit == "set_parent_keep_world":
        nodes[3].set_parent(other, keep_world=True)  # reads Other's and N3's worlds
        # Other, then N1, N2, N3 at their old place; at update(): N3 under Other.
        expected = 1 + 3 + 1
    elif edit == "world_position":
        nodes[3].world_position = (0.0, 0.0, 0.0)  # reads N2's world: N1, N2
        expected = 2 + 2  # at update(): N3 and Other
    else:
        nodes[3].world_rotation = quat_from_axis_angle([0.0, 1.0, 0.0], 30.0)
        expected = 2 + 2
    assert g.update().products == expected


def test_the_tree10_touch_counts_four_products():
    """The issue's case: pause, touch Obj2, step: Obj2, Obj5, Obj8, Obj9 are recomputed,
    whether the frame reads the matrices before update() (as the renderer may) or not."""
    for read_first in (False, True):
        scene = load_scene("scenes/tree10.toml")
        g = scene.graph
        g.update()
        g.touch(g["Obj2"])
        if read_first:
            g.world_matrices()
        report = g.update()
        assert report.products == 4
        assert [report.name(i) for i in report.world_updated] == ["Obj2", "Obj5", "Obj8", "Obj9"]
