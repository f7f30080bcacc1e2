"""Generated scenes: chain:N, balanced:N, random:N."""

from __future__ import annotations

import math

import numpy as np
import pytest

from viewer.io import SceneError, generate_scene
from viewer.scene.graph import SceneGraph


def parents_by_name(scene):
    g = scene.graph
    return [(n.name, n.parent.name if n.parent else None) for n in g]


def parent_index(scene) -> np.ndarray:
    """Parent of ObjK as an index K-1 (-1 for the root), in name order."""
    n = len(scene.graph)
    out = np.full(n, -2)
    for node in scene.graph:
        k = int(node.name[3:]) - 1
        out[k] = -1 if node.parent is None else int(node.parent.name[3:]) - 1
    return out


def test_chain():
    scene = generate_scene("chain:50")
    np.testing.assert_array_equal(parent_index(scene), np.arange(-1, 49))


def test_balanced_has_branching_8():
    scene = generate_scene("balanced:100")
    k = np.arange(100)
    expected = (k - 1) // 8
    expected[0] = -1
    np.testing.assert_array_equal(parent_index(scene), expected)
    assert len(scene.graph["Obj1"].children) == 8


def test_random_is_a_tree_drawn_from_earlier_nodes_and_repeatable():
    scene = generate_scene("random:300")
    parents = parent_index(scene)
    assert parents[0] == -1
    assert np.all(parents[1:] >= 0)
    assert np.all(parents[1:] < np.arange(1, 300))
    assert parents_by_name(scene) == parents_by_name(generate_scene("random:300"))


@pytest.mark.parametrize("spec", ["chain:1", "balanced:1", "random:1", "chain:2"])
def test_tiny(spec):
    scene = generate_scene(spec)
    assert len(scene.graph) == int(spec.split(":")[1])


@pytest.mark.parametrize("spec", ["chain:300", "balanced:600", "random:500"])
def test_looks_motion_and_camera(spec):
    scene = generate_scene(spec)
    g = scene.graph
    assert len(scene.looks) == len(g)
    assert {look.mesh for look in scene.looks.values()} == {"cube"}
    assert len({look.color for look in scene.looks.values()}) > 1  # coloured by depth
    moving = np.concatenate([m.ids for m in scene.motions])
    assert 1 <= len(moving) <= 5
    assert 0 not in moving  # not the root: the viewer shows partial updates
    cam = scene.camera
    eye = np.array(cam.position)
    forward = np.array(cam.target) - eye
    forward /= np.linalg.norm(forward)
    half = math.radians(cam.fov) / 2
    for node in g:
        p = node.world_matrix[:3, 3] - eye
        cos = p @ forward / np.linalg.norm(p)
        assert math.acos(min(1.0, cos)) <= half, node.name


def test_built_with_one_add_many(monkeypatch):
    calls = {"add_many": 0, "add": 0}
    real = SceneGraph.add_many

    def add_many(self, *args, **kwargs):
        calls["add_many"] += 1
        return real(self, *args, **kwargs)

    def add(self, *args, **kwargs):
        calls["add"] += 1
        raise AssertionError("generate_scene must not add nodes one by one")

    monkeypatch.setattr(SceneGraph, "add_many", add_many)
    monkeypatch.setattr(SceneGraph, "add", add)
    generate_scene("balanced:5000")
    assert calls == {"add_many": 1, "add": 0}


@pytest.mark.parametrize(
    "spec",
    ["", "chain", "chain:", "chain:x", "chain:0", "chain:-5", "tree:10", "balanced:1e5",
     "balanced:99999999999", ":10", None, 42],
)  # fmt: skip
def test_bad_specs(spec):
    with pytest.raises(SceneError):
        generate_scene(spec)


def test_a_large_generated_scene_has_every_node():
    """(Its speed is measured in bench/, not asserted here: a loaded machine must not fail
    a test.)"""
    scene = generate_scene("balanced:100000")
    assert len(scene.graph) == 100_000
    assert (scene.graph.parents()[1:] >= 0).all()
