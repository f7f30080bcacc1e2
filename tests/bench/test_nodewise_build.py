"""The node-by-node build of bench/propagation.py builds the tree that add_many builds.

bench/nodewise_build.py times `SceneGraph.add` node by node against three.js's build; its
timing only means something if it builds the same tree, so its last node's world matrix is
checked against add_many's on random forests, and its target line is checked to judge
the ratio it is given.
"""

from __future__ import annotations

import numpy as np
from bench_modules import load_bench
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.scene import SceneGraph

nodewise = load_bench("nodewise_build")
treegen = load_bench("treegen")


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_node_by_node_matches_add_many(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    parents = np.array([-1] + [int(rng.integers(-1, i)) for i in range(1, n)], dtype=np.int64)
    tree = treegen.make_tree("random", parents, seed=seed % 1000)
    _, last_world = nodewise.build_node_by_node(tree)
    g = SceneGraph()
    g.add_many(
        None, tree.parents, positions=tree.positions, rotations=tree.rotations, scales=tree.scales
    )
    g.update()
    np.testing.assert_allclose(last_world, g.world_matrices()[n - 1], rtol=1e-12, atol=1e-12)


def test_target_judges_the_1m_ratio_only() -> None:
    builds = [
        {"tree": "small", "n": 1000, "ours_add": 50.0, "three": 1.0},
        {"tree": "big", "n": 1_000_000, "ours_add": 9.0, "three": 10.0},
        {"tree": "big", "n": 1_000_000, "ours_add": 11.0, "three": 10.0},
        {"tree": "big", "n": 1_000_000, "ours_add": 11.0},
    ]
    lines = nodewise.nodewise_targets(builds)
    assert [line.split()[1] for line in lines] == ["PASS", "FAIL", "n/a"]
    assert lines[0].endswith(": 0.9") and lines[1].endswith(": 1.1")
