"""The benchmark's trees and edits, generated once so every implementation gets the same ones.

A tree is a parent array with parents before children (`parents[i] < i`, -1 for the root),
plus start values for every node. All three implementations (ours, the object-per-node
baseline and three.js) are built from these arrays, and every case edits the same node ids,
so the timings compare the same work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

SEED = 20240607


@dataclass
class Tree:
    """One benchmark tree: its parent array, start values and the ids each case changes.

    parents : ndarray, [n] int64, -1 for the root, `parents[i] < i`
    positions, scales : ndarray, [n, 3]; rotations : ndarray, [n, 4] unit quaternions (x, y, z, w)
    cases : dict mapping a case name ("all", "1%", "leaf") to sorted int64 node ids
    """

    name: str
    parents: np.ndarray
    positions: np.ndarray
    rotations: np.ndarray
    scales: np.ndarray
    cases: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.parents)

    @property
    def depth(self) -> int:
        """Number of levels (a chain of n has n), computed without recursion."""
        levels, cur = 0, np.arange(self.n)
        while cur.size:  # climb every node one step per pass until all have left the root
            levels += 1
            cur = self.parents[cur]
            cur = cur[cur >= 0]
        return levels


def chain_parents(n: int) -> np.ndarray:
    """Obj1 -> Obj2 -> ... -> Objn."""
    return np.arange(-1, n - 1, dtype=np.int64)


def balanced_parents(n: int, branching: int = 8) -> np.ndarray:
    """A complete `branching`-ary tree in breadth-first order."""
    p = (np.arange(n, dtype=np.int64) - 1) // branching
    p[0] = -1
    return p


def random_parents(n: int, seed: int = SEED) -> np.ndarray:
    """Each node's parent drawn uniformly from the nodes before it (a random recursive tree)."""
    rng = np.random.default_rng(seed)
    p = np.empty(n, np.int64)
    p[0] = -1
    p[1:] = np.floor(rng.random(n - 1) * np.arange(1, n)).astype(np.int64)
    return p


def make_tree(name: str, parents: np.ndarray, seed: int = SEED) -> Tree:
    """Start values and the three edit cases for a parent array.

    Rotations are random unit quaternions and scales stay within 1 % of 1, so that even the
    1,000-deep chain keeps well-scaled world matrices. "leaf" is the last node, which is a
    leaf in every generated tree (no node comes after it to be its child).
    """
    n = len(parents)
    rng = np.random.default_rng(seed + n)
    positions = rng.uniform(-1.0, 1.0, (n, 3))
    q = rng.normal(size=(n, 4))
    rotations = q / np.linalg.norm(q, axis=1, keepdims=True)
    scales = rng.uniform(0.99, 1.01, (n, 3))
    k = max(1, n // 100)
    cases = {
        "all": np.arange(n, dtype=np.int64),
        "1%": np.sort(rng.choice(n, size=k, replace=False)).astype(np.int64),
        "leaf": np.array([n - 1], dtype=np.int64),
    }
    return Tree(name, parents, positions, rotations, scales, cases)


def standard_trees(quick: bool = False) -> list[tuple[str, Callable[[], Tree]]]:
    """(name, builder) pairs for the issue's trees; `quick` keeps the small ones only."""
    specs = [
        ("chain 5", lambda: chain_parents(5)),
        ("chain 1,000", lambda: chain_parents(1000)),
    ]
    if quick:
        specs += [
            ("balanced 8-ary 5k", lambda: balanced_parents(5000)),
            ("random 5k", lambda: random_parents(5000)),
        ]
    else:
        specs += [
            ("balanced 8-ary 100k", lambda: balanced_parents(100_000)),
            ("random 100k", lambda: random_parents(100_000)),
            ("balanced 8-ary 1M", lambda: balanced_parents(1_000_000)),
        ]
    return [(name, (lambda f=f, name=name: make_tree(name, f()))) for name, f in specs]


def offset_positions(tree: Tree, ids: np.ndarray, step: int) -> np.ndarray:
    """The positions for repeat number `step`: start values plus a per-step shift.

    Every repeat writes values different from the current ones, so no implementation can
    skip the work through a value-equality check. three.js's bench.mjs uses the same rule.
    """
    return tree.positions[ids] + step_offset(step)


def step_offset(step: int) -> float:
    """The shift added at repeat `step` (1-based); shared with bench.mjs."""
    return 1e-3 * step
