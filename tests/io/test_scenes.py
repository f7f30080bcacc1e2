"""The scenes in scenes/ and the built-in default scene."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scene_helpers import SCENE_FILES, SCENES

from viewer.content.motion import apply_motions
from viewer.content.scene import BUILTIN_MESHES
from viewer.io import default_scene, load_scene

EXPECTED = {"chain5", "tree10", "three_objects", "collision", "solar_system", "robot_arm"}


def structure(scene):
    return [(n.name, n.parent.name if n.parent else None) for n in scene.graph]


def test_the_expected_scenes_exist():
    assert {p.stem for p in SCENE_FILES} >= EXPECTED


@pytest.mark.parametrize("path", SCENE_FILES, ids=[p.stem for p in SCENE_FILES])
def test_every_scene_loads_and_is_drawable(path):
    scene = load_scene(path)
    assert len(scene.graph) > 0
    assert scene.title and scene.title != "untitled"
    assert scene.source == path
    for node in scene.graph:
        look = scene.look(node.id)
        assert look.mesh in BUILTIN_MESHES or look.mesh in scene.mesh_data
        assert all(s > 0 for s in look.size)
        assert all(0 <= c <= 1 for c in look.color)
    for event in scene.events:
        assert event.node in scene.graph


# Scenes without a [camera] position are framed by the viewer itself (tests/render).
CAMERA_SCENES = [p for p in SCENE_FILES if load_scene(p).camera.position is not None]


@pytest.mark.parametrize("path", CAMERA_SCENES, ids=[p.stem for p in CAMERA_SCENES])
def test_scene_camera_sees_every_node(path):
    scene = load_scene(path)
    cam = scene.camera
    eye = np.array(cam.position)
    forward = np.array(cam.target) - eye
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 1.0, 0.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    for t in (0.0, 1.7, 5.3):  # the camera must keep seeing them as they move
        apply_motions(scene, t)
        for node in scene.graph:
            p = node.world_matrix[:3, 3] - eye
            x, y, depth = p @ right, p @ up, p @ forward
            if cam.projection == "orthographic":
                assert abs(y) <= cam.height / 2, node.name
                assert abs(x) <= cam.height / 2 * 16 / 9, node.name
            else:
                half = math.tan(math.radians(cam.fov) / 2)
                assert depth > 0, node.name
                assert abs(y) / depth <= half, node.name
                assert abs(x) / depth <= half * 16 / 9, node.name


def test_chain5_is_example_a():
    scene = load_scene(SCENES / "chain5.toml")
    assert structure(scene) == [
        ("Obj1", None),
        ("Obj2", "Obj1"),
        ("Obj3", "Obj2"),
        ("Obj4", "Obj3"),
        ("Obj5", "Obj4"),
    ]
    assert [(e.frame, e.node, e.touch) for e in scene.events] == [
        (30, "Obj3", True),
        (90, "Obj4", True),
    ]


TREE10 = {
    "Obj1": ["Obj2", "Obj3", "Obj4"],
    "Obj2": ["Obj5"],
    "Obj3": ["Obj6"],
    "Obj4": ["Obj7"],
    "Obj5": ["Obj8", "Obj9"],
    "Obj6": ["Obj10"],
}


@pytest.mark.parametrize("make", [lambda: load_scene(SCENES / "tree10.toml"), default_scene])
def test_tree10_is_example_b(make):
    scene = make()
    g = scene.graph
    assert len(g) == 10
    assert g["Obj1"].parent is None
    for parent in (f"Obj{i}" for i in range(1, 11)):
        assert [c.name for c in g[parent].children] == TREE10.get(parent, [])


def test_default_scene_is_tree10_with_gentle_motion():
    tree = load_scene(SCENES / "tree10.toml")
    scene = default_scene()
    assert structure(scene) == structure(tree)
    for a, b in zip(tree.graph, scene.graph, strict=True):
        np.testing.assert_array_equal(a.world_matrix, b.world_matrix)
        assert tree.look(a.id) == scene.look(b.id)
    moving = np.concatenate([m.ids for m in scene.motions])
    assert 1 <= len(moving) <= 4
    assert scene.graph["Obj1"].id not in moving  # the whole tree does not move every frame
    assert all(abs(m.speed).max() <= 45 for m in scene.motions)


def test_default_scene_is_fresh_each_time():
    a, b = default_scene(), default_scene()
    assert a.graph is not b.graph
    a.graph["Obj2"].local_position = (9.0, 9.0, 9.0)
    assert tuple(b.graph["Obj2"].local_position) == (-4.0, -2.5, 0.0)


@pytest.mark.parametrize(
    ("name", "kinds"),
    [
        ("three_objects", {"pulse", "spin", "oscillate"}),
        ("solar_system", {"spin", "orbit"}),
        ("robot_arm", {"spin", "swing", "oscillate"}),
        ("collision", {"oscillate", "spin"}),
    ],
)
def test_moving_scenes_have_their_motions(name, kinds):
    scene = load_scene(SCENES / f"{name}.toml")
    assert {m.kind for m in scene.motions} == kinds
    before = [n.local_matrix for n in scene.graph]
    apply_motions(scene, 0.75)
    after = [n.local_matrix for n in scene.graph]
    moved = sum(not np.allclose(a, b) for a, b in zip(before, after, strict=True))
    assert moved == len(set(np.concatenate([m.ids for m in scene.motions]).tolist()))


def test_robot_arm_parts():
    scene = load_scene(SCENES / "robot_arm.toml")
    g = scene.graph
    for name in ("Base", "Shoulder", "Elbow", "Wrist", "FingerLeft", "FingerRight"):
        assert name in g
    assert g["FingerLeft"].parent.name == "Wrist"
    assert g["Wrist"].parent.name == "Elbow"
    assert g["Elbow"].parent.name == "Shoulder"


def test_collision_scene_matches_section_6():
    scene = load_scene(SCENES / "collision.toml")
    g = scene.graph
    disk, rect = g["Disk"], g["Rect"]
    assert scene.look(disk.id).mesh == "disk" and scene.look(disk.id).size[:2] == (2.0, 2.0)
    assert scene.look(rect.id).mesh == "rect" and scene.look(rect.id).size[:2] == (6.0, 2.0)
    np.testing.assert_allclose(rect.world_matrix[:3, 3], (0, 5, 0))
    assert rect.parent is not None  # a child node: its axes come from its world matrix
    assert scene.camera.projection == "orthographic"
    assert (scene.collision.disk, scene.collision.rect) == ("Disk", "Rect")
