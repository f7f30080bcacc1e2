"""The scene's shapes without GL (`SceneBounds`), checked against plain per-node oracles:
each node's kind, size and colour from its look, box corners from the matrix product, the
quiet nodes from a walk up the tree; and the bounds need no renderer."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.content.scene import Look, Scene
from viewer.render import scene_bounds
from viewer.render.node_bounds import CORNER_BITS, box_corners, box_extremes, box_support
from viewer.render.quiet import quiet_nodes
from viewer.render.scene_bounds import SceneBounds
from viewer.scene import SceneGraph

KINDS = ("cube", "sphere", "disk", "none", "no such mesh")


def _random_scene(data) -> Scene:
    g = SceneGraph()
    n = data.draw(st.integers(1, 25), "nodes")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31), "seed"))
    nodes = []
    for i in range(n):
        parent = int(rng.integers(-1, i)) if i else -1
        where = {"position": rng.uniform(-2, 2, 3), "scale": rng.uniform(0.5, 2, 3)}
        nodes.append(g.add(f"n{i}", parent=None if parent < 0 else nodes[parent], **where))
    shared = [Look(k, tuple(rng.uniform(0.1, 2, 3)), tuple(rng.uniform(0, 1, 3))) for k in KINDS]
    looks = {}
    for node in nodes:
        pick = int(rng.integers(0, 7))
        if pick < len(shared):  # many nodes share one Look object, as generated scenes do
            looks[node.id] = shared[pick]
        elif pick == len(shared):  # a look of its own
            looks[node.id] = Look("cube", tuple(rng.uniform(0.1, 2, 3)), (0.5, 0.5, 0.5))
    for node in nodes[: int(rng.integers(0, n))][::3]:
        gone = node.id not in set(np.asarray(g.alive_ids()).tolist())
        if not gone and node.id != nodes[0].id and data.draw(st.booleans(), "remove"):
            g.remove(node)  # its look stays in the dict: a removed id draws nothing
    g.update()
    return Scene(graph=g, looks=looks)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_each_node_s_shape_is_its_look(data):
    scene = _random_scene(data)
    # Extremes and supports reduce the boxes block by block: blocks of 1 to 7 boxes here,
    # so that the random scenes span several (a million boxes span 62 of the real size).
    block = data.draw(st.integers(1, 7), "block rows")
    with patch.object(scene_bounds, "BLOCK_ROWS", block):
        _check_shapes(scene)


def _check_shapes(scene: Scene) -> None:
    bounds = SceneBounds(scene)
    alive = set(np.asarray(scene.graph.alive_ids()).tolist())
    for node_id in range(int(scene.graph.capacity_ids)):
        look = scene.look(node_id)
        k = int(bounds.kind_of[node_id])
        if node_id not in alive or look.mesh not in bounds.kinds:
            assert k == -1, node_id
            continue
        assert bounds.kinds[k] == look.mesh
        np.testing.assert_array_equal(bounds.sizes[node_id], look.size)
        np.testing.assert_array_equal(bounds.colors[node_id], np.float32(look.color))
    points = bounds.bound_points()
    np.testing.assert_array_equal(bounds.extremes(), [points.min(axis=0), points.max(axis=0)])
    directions = np.random.default_rng(len(points)).normal(size=(5, 3))
    np.testing.assert_allclose(bounds.support(directions), (points @ directions.T).max(axis=0),
                               rtol=1e-12, atol=1e-12)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 30))
def test_box_extremes_and_support_are_those_of_the_corners(seed, n):
    """Without making the corners: the lowest and highest corner on each axis (exactly the
    same numbers) and the largest d . corner for any direction d, of any boxes (lo above
    hi on some axes too) under any affine placement."""
    rng = np.random.default_rng(seed)
    worlds = rng.normal(size=(n, 4, 4)) * 10.0 ** rng.uniform(-3, 3)
    worlds[:, 3] = (0.0, 0.0, 0.0, 1.0)
    lo, hi = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    corners = box_corners(worlds, lo, hi).reshape(-1, 3)
    directions = rng.normal(size=(4, 3))
    if n == 0:
        assert box_extremes(worlds, lo, hi).shape == (0, 3)
        assert (box_support(worlds, lo, hi, directions) == -np.inf).all()
        return
    np.testing.assert_array_equal(box_extremes(worlds, lo, hi),
                                  [corners.min(axis=0), corners.max(axis=0)])  # fmt: skip
    expected = (corners @ directions.T).max(axis=0)
    scale = np.abs(corners).max() * np.abs(directions).max()
    np.testing.assert_allclose(box_support(worlds, lo, hi, directions), expected,
                               rtol=1e-12, atol=1e-12 * scale)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 30))
def test_box_corners_are_the_placed_corners(seed, n):
    rng = np.random.default_rng(seed)
    worlds = rng.normal(size=(n, 4, 4))
    lo, hi = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    got = box_corners(worlds, lo, hi)
    for b in range(n):
        for k in range(8):
            local = np.array([(hi if k & bit else lo)[b, a] for a, bit in enumerate(CORNER_BITS)])
            expected = worlds[b, :3, :3] @ local + worlds[b, :3, 3]
            np.testing.assert_allclose(got[b, k], expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_quiet_nodes_are_those_with_nothing_drawn_at_or_below_them(data):
    n = data.draw(st.integers(1, 40))
    parents = np.array([-1] + [data.draw(st.integers(-1, i - 1)) for i in range(1, n)])
    alive = np.arange(n)
    drawn = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=n)), dtype=np.int64)
    quiet = quiet_nodes(parents, alive, drawn)
    if drawn.size == 0:
        assert not quiet.any()
        return
    for node in range(n):  # oracle: does any drawn node have `node` on its way to the root?
        speaks = False
        for d in set(drawn.tolist()):
            while d >= 0 and not speaks:
                speaks, d = d == node, int(parents[d])
        assert quiet[node] == (not speaks), node
