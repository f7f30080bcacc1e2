"""Building node by node without the collector's full collections, and growth that keeps
every value (issue 47, item 5): `add`'s handles are out of the cyclic collector's sight
(they can be in no reference cycle), and growing the arrays keeps what was stored."""

from __future__ import annotations

import gc

import numpy as np

from viewer.scene import SceneGraph


def test_handles_from_add_are_not_tracked_and_still_work():
    g = SceneGraph()
    root = g.add("root", position=(1.0, 0.0, 0.0))
    child = g.add("child", root, position=(0.0, 2.0, 0.0), scale=(2.0, 2.0, 2.0))
    assert not gc.is_tracked(root) and not gc.is_tracked(child)
    assert child.parent == root and root.children == [child]
    g.update()
    np.testing.assert_allclose(child.world_position, [1.0, 2.0, 0.0])
    del root
    gc.collect()
    assert g["root"].children == [child]


def test_a_kept_build_starts_no_full_collection():
    """200,000 kept handles: the collector's full collection comes due after a quarter
    more tracked objects than the last one left; untracked handles never bring it."""
    gc.collect()
    full = gc.get_stats()[2]["collections"]
    g = SceneGraph()
    handles: list = []
    for i in range(200_000):
        p = (i - 1) // 8
        handles.append(g.add(f"n{i}", handles[p] if i else None, position=(0.0, 1.0, 0.0)))
    assert gc.get_stats()[2]["collections"] == full
    assert len(g) == 200_000


def test_growth_keeps_local_matrices_read_before_it():
    g = SceneGraph(capacity=2)
    a = g.add("a", position=(1.0, 2.0, 3.0), euler=(0.0, 0.0, 90.0))
    before = np.array(a.local_matrix)
    for i in range(100):  # grows the arrays several times
        g.add(f"b{i}", a, position=(float(i), 0.0, 0.0))
    np.testing.assert_array_equal(a.local_matrix, before)
    np.testing.assert_allclose(g["b99"].local_matrix[:3, 3], [99.0, 0.0, 0.0])
    g.update()
    np.testing.assert_allclose(g["b99"].world_position, before[:3, :3] @ [99, 0, 0] + [1, 2, 3])


def test_growth_before_any_local_matrix_read():
    g = SceneGraph(capacity=1)
    nodes = [g.add(f"n{i}", position=(float(i), 0.0, 0.0)) for i in range(50)]
    expected = np.eye(4)
    expected[0, 3] = 37.0
    np.testing.assert_array_equal(nodes[37].local_matrix, expected)
    for i in range(50, 200):  # grows again, now with a local matrix written
        nodes.append(g.add(f"n{i}", position=(float(i), 0.0, 0.0)))
    np.testing.assert_array_equal(nodes[37].local_matrix, expected)
    expected[0, 3] = 150.0
    np.testing.assert_array_equal(nodes[150].local_matrix, expected)
