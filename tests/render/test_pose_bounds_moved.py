"""Framing an animated scene samples only what the clip moves: the clip's box equals the
box around every node at every sampled pose (the whole-graph oracle, `clip_worlds`), and
the what-if evaluation sees only the animated nodes' subtrees."""

from __future__ import annotations

import sys
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_rig.py

from gltf_rig import write_rig  # noqa: E402

from viewer.animation import AnimationPlayer  # noqa: E402
from viewer.animation.clip import Channel, Clip  # noqa: E402
from viewer.content.scene import Look, Scene  # noqa: E402
from viewer.io import load_scene  # noqa: E402
from viewer.render import pose_bounds, scene_bounds  # noqa: E402
from viewer.render.pose_bounds import clip_worlds, moved_ids  # noqa: E402
from viewer.render.scene_bounds import SceneBounds  # noqa: E402
from viewer.scene import SceneGraph  # noqa: E402


def _oracle_box(bounds: SceneBounds) -> np.ndarray:
    """[2, 3]: the box around `points_at` every sampled pose, over every node."""
    points = np.vstack([bounds.points_at(world) for world in clip_worlds(bounds.scene)])
    return np.array([points.min(axis=0), points.max(axis=0)])


def _box(corners: np.ndarray) -> np.ndarray:
    return np.array([corners.min(axis=0), corners.max(axis=0)])


def _animated_scene(rng, n: int, animated: list[int], drawn: bool, remove: int = 0) -> Scene:
    g = SceneGraph()
    nodes = []
    for i in range(n):
        parent = int(rng.integers(-1, i)) if i else -1
        where = {
            "position": rng.uniform(-2, 2, 3),
            "rotation": rng.normal(size=4),
            "scale": rng.uniform(0.5, 2, 3),
        }
        nodes.append(g.add(f"n{i}", parent=None if parent < 0 else nodes[parent], **where))
    for node in nodes[1 : 1 + remove]:
        if node.id in set(np.asarray(g.alive_ids()).tolist()) and node.id not in animated:
            g.remove(node)
    looks = {}
    if drawn:
        cube = Look("cube", (0.5, 1.0, 2.0), (0.5, 0.5, 0.5))
        looks = {node.id: cube for node in nodes[::2]}
    g.update()
    times = np.array([0.0, 1.0, 2.5])
    channels = []
    for k, node in enumerate(animated):
        path = ("translation", "rotation", "scale")[k % 3]
        width = 4 if path == "rotation" else 3
        values = rng.uniform(-5, 5, (3, width))
        channels.append(Channel(node, path, "LINEAR", times, values))
    return Scene(graph=g, looks=looks, animation=AnimationPlayer([Clip("c", tuple(channels))]))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_the_clip_box_is_the_box_over_every_node_at_every_pose(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31), "seed"))
    n = data.draw(st.integers(1, 30), "nodes")
    animated = sorted({int(i) for i in rng.integers(0, n, data.draw(st.integers(0, 4)))})
    drawn = data.draw(st.booleans(), "drawn")
    scene = _animated_scene(rng, n, animated, drawn, remove=data.draw(st.integers(0, 3)))
    block = data.draw(st.integers(1, 7), "block rows")
    with patch.object(scene_bounds, "BLOCK_ROWS", block):
        bounds = SceneBounds(scene)
        if not scene.animation.current.channels:
            assert len(bounds.clip_box()) == 0
            return
        np.testing.assert_allclose(_box(bounds.clip_box()), _oracle_box(bounds), atol=1e-9)


def test_the_clip_box_of_a_skinned_rig_is_the_box_over_every_pose(tmp_path):
    scene = load_scene(write_rig(tmp_path))
    scene.graph.update()
    bounds = SceneBounds(scene)
    np.testing.assert_allclose(_box(bounds.clip_box()), _oracle_box(bounds), atol=1e-9)


def test_moved_ids_are_the_animated_nodes_subtrees_in_pre_order():
    g = SceneGraph()
    a = g.add("a")
    b = g.add("b", parent=a)
    c = g.add("c", parent=b)
    d = g.add("d", parent=a)
    g.add("e")
    f = g.add("f", parent=d)
    clip = Clip("c", (Channel(b.id, "translation", "STEP", np.zeros(1), np.zeros((1, 3))),))
    assert moved_ids(g, clip).tolist() == [b.id, c.id]
    clip = Clip("c", (Channel(d.id, "weights", "STEP", np.zeros(1), np.zeros((1, 1))),))
    assert moved_ids(g, clip).tolist() == []  # weights move no node
    clip = Clip("c", (Channel(a.id, "scale", "STEP", np.zeros(1), np.ones((1, 3))),))
    order = np.asarray(g.alive_ids()).tolist()
    assert moved_ids(g, clip).tolist() == [i for i in order if i != g.node("e").id]
    assert f.id in moved_ids(g, clip).tolist()


@pytest.mark.parametrize("drawn", [False, True])
def test_framing_evaluates_only_the_animated_subtree(drawn):
    """One animated node among 20,000 empty ones: each sampled pose evaluates that node
    and its two children, never the other nodes."""
    g = SceneGraph()
    n = 20_000
    names = [f"n{i}" for i in range(n)]
    parents = np.full(n, -1, dtype=np.int64)
    parents[[n // 2 + 1, n // 2 + 2]] = n // 2
    g.add_many(names, parents)
    g.update()
    target = int(np.asarray(g.alive_ids())[n // 2])
    times, values = np.array([0.0, 1.0]), np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    clip = Clip("move", (Channel(target, "translation", "LINEAR", times, values),))
    looks = {target: Look("cube", (1.0, 1.0, 1.0), (1.0, 1.0, 1.0))} if drawn else {}
    scene = Scene(graph=g, looks=looks, animation=AnimationPlayer([clip]))
    seen: list[int] = []
    real = pose_bounds.worlds_with

    def counting(graph, **fields):
        seen.append(len(graph.alive_ids()))
        return real(graph, **fields)

    with patch.object(pose_bounds, "worlds_with", counting):
        bounds = SceneBounds(scene)
        box = _box(bounds.clip_box())
    assert seen == [3] * pose_bounds.POSE_SAMPLES
    np.testing.assert_allclose(box, _oracle_box(bounds), atol=1e-9)
