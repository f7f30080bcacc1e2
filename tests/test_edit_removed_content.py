"""A node the user deletes in the window (the panel's Delete) may be one the scene's own
content drives: a motion, a glTF animation channel or morph weights, a ``--touch``, the
collision demo's disk, rectangle or pivot. The viewer keeps running: that content skips
the removed node (and drives it again once an undo brings it back)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gltf_rig import write_rig

from viewer.io.loader import load_scene
from viewer.session.commands import Delete
from viewer.session.session import Session

SCENES = Path(__file__).resolve().parent.parent / "scenes"


def moving_ids(scene) -> list[int]:
    return sorted({int(i) for m in scene.motions for i in m.ids})


@pytest.mark.parametrize("name", ["solar_system", "robot_arm", "three_objects"])
def test_deleting_a_node_a_motion_drives_keeps_the_scene_running_and_undo_restores_it(name):
    session = Session(load_scene(SCENES / f"{name}.toml"), fixed_step=1 / 60)
    session.advance(1 / 60)
    graph = session.graph
    node = graph.node(moving_ids(session.scene)[-1])
    assert session.editing.run(Delete(node.id))
    for _ in range(5):
        session.advance(1 / 60)  # the motions go on for the nodes left
    session.editing.undo()
    session.advance(1 / 60)
    before = graph.local_values()[0][node.id].copy(), graph.local_values()[1][node.id].copy()
    for _ in range(10):
        session.advance(1 / 60)
    after = graph.local_values()[0][node.id], graph.local_values()[1][node.id]
    assert any(not np.array_equal(a, b) for a, b in zip(before, after, strict=True))


@pytest.mark.parametrize("which", ["disk", "rect", "pivot"])
def test_deleting_a_node_of_the_collision_demo_keeps_it_running_and_undo_restores_it(which):
    session = Session(load_scene(SCENES / "collision.toml"), fixed_step=1 / 60)
    session.advance(1 / 60)
    demo = session.collision
    node = getattr(demo, which)
    assert session.editing.run(Delete(node.id))
    session.editing.held.press("left")
    session.editing.held.press("turn")
    for _ in range(3):
        session.advance(1 / 60)
    session.switch_collision_mode()  # M
    session.switch_collision_mode()
    session.editing.held.release("left")
    session.editing.held.release("turn")
    session.advance(1 / 60)
    session.editing.undo()
    session.advance(1 / 60)
    assert session.collision_reading is not None  # the demo tests again


def test_a_touch_asked_for_a_removed_node_is_skipped():
    session = Session(load_scene(SCENES / "tree10.toml"), touches={3: ["Obj3"]})
    session.advance(1 / 60)
    session.editing.run(Delete(session.graph["Obj3"].id))
    for _ in range(3):
        session.advance(1 / 60)
    assert session.frame == 4


def test_deleting_animated_nodes_keeps_the_clip_playing_for_the_rest(tmp_path):
    scene = load_scene(write_rig(tmp_path, weights_channel=True))
    session = Session(scene, fixed_step=1 / 60)
    session.pick_animation(0)
    session.advance(1 / 60)
    graph = session.graph
    for name in ("Bone2", "Skin"):  # a rotation channel's node; the weights' node
        assert session.editing.run(Delete(graph[name].id))
    bone1 = graph["Bone1"]
    before = bone1.local_rotation.copy()
    for _ in range(10):
        session.advance(1 / 60)
    assert not np.array_equal(bone1.local_rotation, before)


def test_set_locals_skip_removed_leaves_out_removed_rows_only():
    from viewer.scene import SceneGraph

    g = SceneGraph()
    a, b, c = (g.add(name) for name in "abc")
    g.remove(b)
    values = np.array([[1.0, 0, 0], [2.0, 0, 0], [3.0, 0, 0]])
    with pytest.raises(Exception, match="removed"):
        g.set_locals([a.id, b.id, c.id], positions=values)
    g.set_locals([a.id, b.id, c.id], positions=values, skip_removed=True)
    assert a.local_position[0] == 1.0 and c.local_position[0] == 3.0
    with pytest.raises(KeyError, match="no node with id 7"):  # unknown: still an error
        g.set_locals([b.id, 7], positions=values[:2], skip_removed=True)
