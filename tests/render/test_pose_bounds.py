"""The poses sampled for framing equal what the graph computes when the clip is applied."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_rig.py

from gltf_rig import write_rig  # noqa: E402

from viewer.animation import apply_animation  # noqa: E402
from viewer.io import load_scene  # noqa: E402
from viewer.render.pose_bounds import POSE_SAMPLES, clip_worlds, posed_worlds  # noqa: E402
from viewer.render.scene_bounds import SceneBounds, skinned_points  # noqa: E402
from viewer.scene import SceneGraph  # noqa: E402


@pytest.mark.parametrize("clip", ["Bend", "Wave"])
@pytest.mark.parametrize("t", [0.0, 0.35, 0.72, 1.2])
def test_posed_worlds_match_the_graph_after_applying_the_pose(tmp_path, clip, t):
    scene = load_scene(write_rig(tmp_path))
    player = scene.animation
    player.pick(clip)
    scene.graph.update()
    before = np.array(scene.graph.world_matrices())
    player.scrub(t)
    predicted = posed_worlds(scene.graph, player.current.pose(player.clip_time))
    np.testing.assert_array_equal(scene.graph.world_matrices(), before)  # left untouched
    apply_animation(scene, 0.0, running=False)  # applies the pose scrubbed to
    scene.graph.update()
    np.testing.assert_allclose(predicted, scene.graph.world_matrices(), atol=1e-9)
    if clip == "Bend":  # every time of Bend moves the rig away from its rest pose
        assert not np.allclose(predicted, before)


def test_posed_worlds_match_the_graph_on_a_random_tree_with_removed_nodes():
    rng = np.random.default_rng(7)
    g = SceneGraph()
    nodes = [g.add("n0")]
    for k in range(1, 60):
        parent = nodes[int(rng.integers(len(nodes)))] if rng.random() < 0.9 else None
        trs = {"position": rng.normal(size=3), "euler": rng.uniform(-180, 180, 3),
               "scale": rng.uniform(0.5, 2, 3)}  # fmt: skip
        nodes.append(g.add(f"n{k}", parent, **trs))
    g.remove(nodes[5])
    g.update()
    alive = np.asarray(g.alive_ids(), dtype=np.int64)
    ids = rng.choice(alive, 20, replace=False)
    pose = {"translation": (ids[:10], rng.normal(size=(10, 3))),
            "rotation": (ids[5:], rng.normal(size=(15, 4))),
            "scale": (ids[::2], rng.uniform(0.5, 2, (10, 3)))}  # fmt: skip
    predicted = posed_worlds(g, pose)
    g.set_locals(ids[:10], positions=pose["translation"][1])
    g.set_locals(ids[5:], rotations=pose["rotation"][1])
    g.set_locals(ids[::2], scales=pose["scale"][1])
    g.update()
    np.testing.assert_allclose(predicted[alive], g.world_matrices()[alive], atol=1e-9)


def test_clip_worlds_samples_the_current_clip_and_nothing_without_one(tmp_path):
    scene = load_scene(write_rig(tmp_path))
    scene.graph.update()
    worlds = clip_worlds(scene)
    assert len(worlds) == POSE_SAMPLES
    assert not np.allclose(worlds[0], worlds[POSE_SAMPLES // 2])
    scene.animation.pick(None)
    assert clip_worlds(scene) == []


def _inside(points: np.ndarray, box_points: np.ndarray) -> bool:
    lo, hi = box_points.min(axis=0) - 1e-9, box_points.max(axis=0) + 1e-9
    return bool(((points >= lo) & (points <= hi)).all())


def test_the_framing_takes_in_the_clip_poses_too(tmp_path):
    """No GL: the scene's bounds (what picking and framing use) need no renderer."""
    scene = load_scene(write_rig(tmp_path))
    scene.graph.update()
    bounds = SceneBounds(scene)
    framed = bounds.bound_points()
    rest = bounds.points_at(scene.graph.world_matrices())
    player = scene.animation
    outside_rest = 0
    for t in np.linspace(0.0, player.current.duration, POSE_SAMPLES):
        player.scrub(float(t))
        apply_animation(scene, 0.0, running=False)
        scene.graph.update()
        world = scene.graph.world_matrices()
        posed = skinned_points(scene.skinning, scene.mesh_data, world)  # what is drawn
        assert _inside(posed, framed)
        outside_rest += not _inside(posed, rest)
    assert outside_rest > 0  # the rest pose alone would not do
    player.pick(None)  # no clip: the current pose only
    world = scene.graph.world_matrices()
    np.testing.assert_array_equal(bounds.bound_points(), bounds.points_at(world))
