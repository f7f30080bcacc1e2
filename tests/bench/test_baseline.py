"""The benchmark compares like with like: the baseline computes what the core computes.

bench/objtree.py is the object-per-node baseline of bench/propagation.py. If it computed
different matrices, or handed different nodes to the renderer, its timings would say nothing
about the core, so it is checked here against the core on a small random tree. The benchmark
script itself is run in its quick mode so that it cannot rot.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from bench_modules import load_bench

from viewer.scene import SceneGraph

ROOT = Path(__file__).resolve().parents[2]


objtree = load_bench("objtree")


def _random_tree(rng: np.random.Generator, n: int):
    parents = np.array([-1] + [int(rng.integers(0, i)) for i in range(1, n)], dtype=np.int64)
    parents[rng.random(n) < 0.1] = -1  # a few extra roots: a forest
    positions = rng.uniform(-2, 2, (n, 3))
    q = rng.normal(size=(n, 4))
    rotations = q / np.linalg.norm(q, axis=1, keepdims=True)
    scales = rng.uniform(0.5, 2.0, (n, 3))
    return parents, positions, rotations, scales


def _assert_same_worlds(g: SceneGraph, ids: np.ndarray, tree) -> None:
    ours = np.stack([g.node(int(i)).world_matrix for i in ids])
    np.testing.assert_allclose(tree.world_matrices(), ours, rtol=1e-9, atol=1e-12)


def _core(parents, positions, rotations, scales):
    """The same tree in the core: (graph, ids), nodes named Obj1, Obj2, ..."""
    g = SceneGraph()
    names = [f"Obj{i + 1}" for i in range(len(parents))]
    ids = g.add_many(names, parents, positions=positions, rotations=rotations, scales=scales)
    return g, np.asarray(ids)


def test_baseline_matches_core_on_a_random_tree():
    rng = np.random.default_rng(7)
    n = 60
    parents, positions, rotations, scales = _random_tree(rng, n)
    g, ids = _core(parents, positions, rotations, scales)
    tree = objtree.ObjTree(parents, positions, rotations, scales)
    g.update()
    tree.update_chain()
    _assert_same_worlds(g, ids, tree)

    for frame in range(8):
        changed = np.sort(rng.choice(n, size=int(rng.integers(1, 6)), replace=False))
        p = rng.uniform(-2, 2, (len(changed), 3))
        q = rng.normal(size=(len(changed), 4))
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        s = rng.uniform(0.5, 2.0, (len(changed), 3))
        if frame % 2:
            g.set_locals(ids[changed], positions=p, rotations=q, scales=s)
        else:  # the per-node setters, as the benchmark's informational column uses them
            for j, i in enumerate(changed):
                node = g.node(int(ids[i]))
                node.local_position, node.local_rotation, node.local_scale = p[j], q[j], s[j]
        for j, i in enumerate(changed):
            tree.nodes[i].set_position(p[j])
            tree.nodes[i].set_rotation(q[j])
            tree.nodes[i].set_scale(s[j])
        report = g.update()
        uploaded = tree.update_chain()
        # Same work: the changed nodes and all their descendants, each handed over once.
        index = {node: i for i, node in enumerate(tree.nodes)}
        assert sorted(ids[[index[node] for node in uploaded]].tolist()) == sorted(
            np.asarray(report.executed).tolist()
        )
        _assert_same_worlds(g, ids, tree)


def test_baseline_handles_a_chain_deeper_than_the_default_recursion_limit():
    n = 1000
    parents = np.arange(-1, n - 1)
    rng = np.random.default_rng(3)
    positions = rng.uniform(-1, 1, (n, 3))
    rotations = np.tile([0.0, 0.0, np.sin(0.01), np.cos(0.01)], (n, 1))
    scales = np.ones((n, 3))
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, objtree.ObjTree.recursion_needed(n)))
    try:
        tree = objtree.ObjTree(parents, positions, rotations, scales)
        tree.update_chain()
    finally:
        sys.setrecursionlimit(old)
    g, ids = _core(parents, positions, rotations, scales)
    g.update()
    np.testing.assert_allclose(
        tree.nodes[-1].world, g.node(int(ids[-1])).world_matrix, rtol=1e-9, atol=1e-9
    )


def test_propagation_quick_runs():
    res = subprocess.run(
        [sys.executable, "bench/propagation.py", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert "| tree | n | changed |" in res.stdout
    assert "chain 1,000" in res.stdout
    assert "MISMATCH" not in res.stdout, res.stdout
