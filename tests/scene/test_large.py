"""Sizes that break naive designs: a 100,000-deep chain and a 1,000,000-node tree."""

import numpy as np

from viewer.scene import SceneGraph


def test_chain_100k_deep_builds_updates_and_reads_without_recursion():
    n = 100_000
    g = SceneGraph()
    parents = np.arange(-1, n - 1, dtype=np.int64)
    ids = g.add_many(None, parents, positions=np.tile([0.001, 0.0, 0.0], (n, 1)))
    assert g.update().executed.size == n
    np.testing.assert_allclose(g.node(ids[-1]).world_position, [0.001 * n, 0, 0], rtol=1e-9)
    g.node(ids[0]).local_position = (1.0, 0.0, 0.0)
    # A mid-frame read at the bottom pulls the whole chain up to date without recursion.
    np.testing.assert_allclose(g.node(ids[-1]).world_position, [1 + 0.001 * (n - 1), 0, 0])
    report = g.update()
    assert report.world_updated.size == n and report.local_updated.tolist() == [0]
    g.node(ids[n // 2]).set_parent(None)  # re-layout of a deep structure
    assert g.update().executed.size == n - n // 2
    assert g.depths()[ids[-1]] == n - n // 2 - 1
    g.remove(g.node(ids[1]))
    assert len(g) == n // 2 + 1


def test_one_nodes_by_one_add_on_a_chain_is_linear():
    g = SceneGraph()
    node = None
    for k in range(20_000):
        node = g.add(f"n{k}", node)
    g.update()
    assert g.depths()[node.id] == 19_999


def test_million_node_tree_builds_and_updates():
    n = 1_000_000
    g = SceneGraph()
    parents = np.concatenate([[-1], (np.arange(1, n) - 1) // 8]).astype(np.int64)
    rng = np.random.default_rng(1)
    g.add_many(None, parents, positions=rng.uniform(-1, 1, (n, 3)))
    first = g.update()
    assert first.executed.size == n
    leaf = n - 1
    g.set_locals(np.array([leaf]), positions=np.array([[5.0, 5.0, 5.0]]))
    report = g.update()
    assert report.executed.tolist() == [leaf]
    # The leaf's world is its parent's world times its new local, nothing else moved.
    parent = parents[leaf]
    expected = g.world_matrices()[parent] @ g.node(leaf).local_matrix
    np.testing.assert_allclose(g.world_matrices()[leaf], expected, atol=1e-12)
    assert g.update().empty
