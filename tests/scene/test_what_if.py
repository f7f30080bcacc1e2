"""What-if evaluation (viewer/scene/what_if.py) against the naive oracle on random
hierarchies with random overrides, and proof that it leaves the graph as it was."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import local_matrix, rel_error
from oracle import world_matrix as oracle_product

from viewer.scene import HierarchyError, SceneGraph
from viewer.scene.what_if import worlds_with

TOL = 1e-9


def _random_graph(rng: np.random.Generator, n: int) -> SceneGraph:
    g = SceneGraph(capacity=2)
    nodes = []
    for k in range(n):
        parent = nodes[int(rng.integers(len(nodes)))] if nodes and rng.random() < 0.85 else None
        nodes.append(
            g.add(
                f"n{k}",
                parent,
                position=rng.normal(size=3) * 3,
                rotation=rng.normal(size=4),
                scale=rng.uniform(0.5, 2, 3) * rng.choice([-1.0, 1.0], 3),
            )  # fmt: skip
        )
    return g


def _oracle_worlds(g: SceneGraph, pos, rot, scl) -> dict[int, np.ndarray]:
    parents = g.parents()
    out = {}
    for i in g.alive_ids().tolist():
        path, j = [], i
        while j >= 0:
            path.append(local_matrix(pos[j], rot[j], scl[j]))
            j = int(parents[j])
        out[i] = oracle_product(path[::-1])
    return out


def _prepared(seed: int, n: int, removed: int, dirty: bool) -> SceneGraph:
    """A random graph after a first update, some removals and maybe a pending edit (the
    same every time for the same arguments)."""
    rng = np.random.default_rng(seed)
    g = _random_graph(rng, n)
    g.update()
    for _ in range(min(removed, len(g) - 1)):  # some alone, some with their subtree
        node = g.node(int(rng.choice(g.alive_ids())))
        try:
            g.remove(node, keep_children=len(g) <= 2 or rng.random() < 0.7)
        except HierarchyError:  # a child's world pose needs shear: refused, take it all
            g.remove(node)
        if len(g) <= 1:
            break
    if len(g) == 0:  # a whole tree went: a new root (its id is past the removed ones)
        g.add("again", position=(1.0, 2.0, 3.0))
    if dirty:  # pending changes must stay pending
        g.set_locals(g.alive_ids()[:1], positions=[[0.5, -1.0, 2.0]])
    return g


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    removed=st.integers(0, 5),
    dirty=st.booleans(),
    which=st.sets(st.sampled_from(["positions", "rotations", "scales"])),
)
def test_worlds_with_overrides_match_the_oracle_and_touch_nothing(seed, n, removed, dirty, which):
    g = _prepared(seed, n, removed, dirty)
    twin = _prepared(seed, n, removed, dirty)  # the same graph, never asked what if
    rng = np.random.default_rng(seed + 1)
    alive = g.alive_ids()
    pos, rot, scl = (np.array(v) for v in g.local_values())
    overrides = {}
    for field in sorted(which):
        ids = rng.choice(alive, size=int(rng.integers(1, len(alive) + 1)), replace=False)
        if field == "positions":
            values = rng.normal(size=(len(ids), 3)) * 4
            pos[ids] = values
        elif field == "rotations":
            values = rng.normal(size=(len(ids), 4))  # any length: normalised
            rot[ids] = values
        else:
            values = rng.uniform(0.3, 3, (len(ids), 3)) * rng.choice([-1.0, 1.0], (len(ids), 3))
            scl[ids] = values
        overrides[field] = (ids, values)
    versions = np.array(g.world_versions())

    got = worlds_with(g, **overrides)

    expected = _oracle_worlds(g, pos, rot, scl)
    for i, m in expected.items():
        assert rel_error(got[i], m) < TOL, (i, got[i], m)
    for i in set(range(g.capacity_ids)) - set(expected):
        assert (got[i] == np.eye(4)).all()  # removed ids: identity
    np.testing.assert_array_equal(g.world_versions(), versions)
    assert g.frame == twin.frame
    report, twins = g.update(), twin.update()  # the same frame as if never asked
    for field in ("local_updated", "world_updated", "cause"):
        np.testing.assert_array_equal(getattr(report, field), getattr(twins, field))
    assert report.products == twins.products
    np.testing.assert_array_equal(g.world_matrices(), twin.world_matrices())


def test_no_override_gives_the_graphs_own_world_matrices():
    g = _random_graph(np.random.default_rng(3), 25)
    g.update()
    np.testing.assert_allclose(worlds_with(g), g.world_matrices(), rtol=0, atol=1e-12)
