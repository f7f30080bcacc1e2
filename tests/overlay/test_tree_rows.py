"""`TreeRows` builds its subtree ends and row index with whole-array passes; here they
are held against the loop they replaced (a stack over the pre-order depths, a dict by id)
on random forests, with nodes removed and moved, and deep chains."""

from __future__ import annotations

import contextlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.overlay.model import TreeRows
from viewer.scene import HierarchyError, SceneGraph


def _reference_ends(depths: list[int]) -> list[int]:
    """Row just past each row's subtree, walking the depths with a stack."""
    ends = [len(depths)] * len(depths)
    stack: list[int] = []
    for r, d in enumerate(depths):
        while stack and depths[stack[-1]] >= d:
            ends[stack.pop()] = r
        stack.append(r)
    return ends


@st.composite
def forests(draw):
    n = draw(st.integers(0, 60))
    parents = [draw(st.integers(-1, i - 1)) for i in range(n)]
    g = SceneGraph()
    g.add_many([f"n{i}" for i in range(n)], parents)
    for i in draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=5)) if n else []:
        if g.peek.is_alive(i):
            g.remove(g.node(i), keep_children=draw(st.booleans()))
    alive = g.alive_ids().tolist()
    for _ in range(draw(st.integers(0, 4)) if alive else 0):
        node, parent = draw(st.sampled_from(alive)), draw(st.sampled_from([None, *alive]))
        with contextlib.suppress(HierarchyError):  # a cycle: refused, the tree stays
            g.set_parent(g.node(node), None if parent is None else g.node(parent))
    return g


def _check(g: SceneGraph) -> None:
    rows = TreeRows(g)
    ids = rows.ids.tolist()
    assert rows.ends.tolist() == _reference_ends(rows.depths.tolist())
    assert rows.has_children.tolist() == [e > r + 1 for r, e in enumerate(rows.ends.tolist())]
    for r, node_id in enumerate(ids):
        assert rows.row(node_id) == r
    gone = set(range(g.capacity_ids)) - set(ids)
    for node_id in [*gone, -1, g.capacity_ids, g.capacity_ids + 5]:
        assert rows.row(node_id) is None


@given(forests())
@settings(max_examples=150, deadline=None)
def test_tree_rows_match_the_stack_walk(g):
    _check(g)


def test_a_deep_chain_and_a_wide_root():
    chain = SceneGraph()
    chain.add_many([f"c{i}" for i in range(3000)], np.arange(-1, 2999))
    _check(chain)
    assert TreeRows(chain).ends.tolist() == [3000] * 3000
    wide = SceneGraph()
    wide.add_many([f"w{i}" for i in range(500)], [-1] + [0] * 499)
    _check(wide)
