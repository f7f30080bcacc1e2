"""Framing at any scale: on load and on F the whole scene lies between the overlay's
panels, fills that room, and the grid and clip planes follow the scene's size.

The scenes are built here at 1e-3 (millimetres), 1 and 1e4 (kilometres) times one layout,
and the expected extent of every mesh is computed here too: the built-in meshes fit the
unit box centred on the node's origin, scaled by the look's size and placed by the node's
world matrix (docs/viewer.md, "Meshes and sizes").
"""

from __future__ import annotations

import numpy as np
import pytest
from app_driver import SIZE

from viewer.content.scene import CameraSpec, Look, Scene
from viewer.overlay.model import panel_widths
from viewer.render.camera import ORTHOGRAPHIC
from viewer.scene import SceneGraph

SCALES = (1e-3, 1.0, 1e4)
#: A framed scene spans at least this share of the room's width or height.
FILLS = 0.5


def layout(s: float, camera: CameraSpec | None = None) -> Scene:
    """Twelve nodes under a root, some scaled or turned, some pivots, `s` units apart."""
    rng = np.random.default_rng(7)
    g = SceneGraph()
    root = g.add("root", position=(0.5 * s, 2.0 * s, -s))
    looks = {root.id: Look("sphere", (s, s, s))}
    meshes = ("cube", "sphere", "cone", "none")
    for k in range(12):
        node = g.add(
            f"n{k}",
            parent=root,
            position=rng.uniform(-4.0, 4.0, 3) * s,
            euler=rng.uniform(-90.0, 90.0, 3),
            scale=(1.0, 1.0 + k % 3, 1.0),
        )
        looks[node.id] = Look(meshes[k % 4], tuple(rng.uniform(0.3, 1.5, 3) * s))
    return Scene(graph=g, title=f"layout x{s:g}", looks=looks, camera=camera or CameraSpec())


def extent_points(scene: Scene) -> np.ndarray:
    """The 8 corners of every drawn node's box, in world space (pivots draw nothing and
    are not framed)."""
    world = scene.graph.world_matrices()
    unit = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    pts = []
    for node_id, look in scene.looks.items():
        if look.mesh != "none":
            m = world[node_id]
            pts.append((unit * look.size) @ m[:3, :3].T + m[:3, 3])
    return np.vstack(pts)


def assert_framed(app, scene: Scene) -> np.ndarray:
    """All of `scene` projects between the panels, inside the image and the clip planes,
    and fills the room; returns the projected points."""
    left, right = panel_widths(SIZE[0])
    x1 = SIZE[0] - right
    p = app.camera.project(extent_points(scene), SIZE)
    assert p[:, 0].min() >= left and p[:, 0].max() <= x1, (p[:, 0].min(), p[:, 0].max())
    assert p[:, 1].min() >= 0 and p[:, 1].max() <= SIZE[1], (p[:, 1].min(), p[:, 1].max())
    assert (np.abs(p[:, 2]) < 1.0).all(), "part of the scene is clipped by near or far"
    spread = max(np.ptp(p[:, 0]) / (x1 - left), np.ptp(p[:, 1]) / SIZE[1])
    assert spread >= FILLS, f"the scene is a speck: it spans {spread:.0%} of the room"
    return p


@pytest.mark.parametrize("s", SCALES)
def test_load_frames_the_scene_between_the_panels_at_any_scale(drive, s):
    scene = layout(s)
    d = drive(scene, still=True)
    d.frame()
    assert_framed(d.app, scene)


def test_the_picture_is_the_same_at_every_scale(drive):
    shots, steps = [], []
    for s in SCALES:
        scene = layout(s)
        d = drive(scene, still=True)
        d.frame()
        shots.append(d.app.camera.project(extent_points(scene), SIZE)[:, :2])
        steps.append(d.app.renderer.backdrop.step / s)  # grid spacing in scene units
    for other in shots[1:]:
        np.testing.assert_allclose(other, shots[0], atol=0.05)
    np.testing.assert_allclose(steps, steps[0], rtol=1e-9)


@pytest.mark.parametrize("s", SCALES)
def test_f_frames_the_scene_again_after_moving_the_camera(drive, s):
    scene = layout(s)
    d = drive(scene, still=True)
    d.frame()
    cam = d.app.camera
    cam.orbit(120, -40)
    cam.zoom(25)
    cam.pan(250, 80, SIZE[1])
    d.frame()
    left = panel_widths(SIZE[0])[0]
    assert (d.app.camera.project(extent_points(scene), SIZE)[:, 0] < left).any()
    d.press("F")
    d.frame()
    assert_framed(d.app, scene)


@pytest.mark.parametrize("s", (1e-3, 1e4))
@pytest.mark.parametrize("projection", ["perspective", ORTHOGRAPHIC])
def test_a_camera_too_close_in_the_file_steps_back_along_its_direction(drive, s, projection):
    position, target = np.array([1.0, 3.0, 2.5]) * s, np.array([0.5, 2.0, -1.0]) * s
    spec = CameraSpec(
        position=tuple(position), target=tuple(target), projection=projection, height=2.0 * s
    )
    scene = layout(s, spec)
    d = drive(scene, still=True)
    d.frame()
    cam = d.app.camera
    np.testing.assert_allclose(cam.target, target)
    direction = (position - target) / np.linalg.norm(position - target)
    np.testing.assert_allclose((cam.eye - cam.target) / cam.distance, direction, atol=1e-9)
    assert cam.distance > np.linalg.norm(position - target)
    left, right = panel_widths(SIZE[0])
    p = cam.project(extent_points(scene), SIZE)
    assert left <= p[:, 0].min() and p[:, 0].max() <= SIZE[0] - right
    assert p[:, 1].min() >= 0 and p[:, 1].max() <= SIZE[1]
    assert (np.abs(p[:, 2]) < 1.0).all()


def _model_with_camera_and_lamp(path):
    """A 1 x 1 x 1 box at the origin, a camera node 100 units away, a lamp (an empty node)
    50 units the other way and an empty group far up: as a Blender export carries them."""
    import json

    from gltf_rig import FLOAT, USHORT, _Blob

    from viewer.content import meshes

    box = meshes.cube()
    blob = _Blob()
    attrs = {"POSITION": blob.add(box.positions, FLOAT, "VEC3"),
             "NORMAL": blob.add(box.normals, FLOAT, "VEC3")}  # fmt: skip
    idx = blob.add(box.indices.astype(np.uint16), USHORT, "SCALAR")
    doc = {
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0, 1, 2, 3]}],
        "nodes": [
            {"name": "Box", "mesh": 0},
            {"name": "Camera", "camera": 0, "translation": [100.0, 3.0, 0.0]},
            {"name": "Lamp", "translation": [-50.0, 20.0, 4.0]},
            {"name": "Empty", "translation": [0.0, 80.0, 0.0]},
        ],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1}}],
        "meshes": [{"primitives": [{"attributes": attrs, "indices": idx}]}],
        "accessors": blob.accessors,
        "bufferViews": blob.views,
        "buffers": [{"byteLength": len(blob.data), "uri": "box.bin"}],
    }
    (path.parent / "box.bin").write_bytes(bytes(blob.data))
    path.write_text(json.dumps(doc))
    return path


def test_framing_counts_the_meshes_not_cameras_lamps_or_empty_nodes(drive, tmp_path):
    from viewer.io import load_scene

    scene = load_scene(_model_with_camera_and_lamp(tmp_path / "m.gltf"))
    d = drive(scene, still=True)
    d.frame()
    center, radius = d.app.bounds.sphere()
    np.testing.assert_allclose(center, 0.0, atol=1e-6)
    assert radius == pytest.approx(np.sqrt(3.0) / 2.0)  # the box's own sphere
    first = (d.app.camera.target.copy(), d.app.camera.distance)
    box = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    p = d.app.camera.project(box, SIZE)
    left, right = panel_widths(SIZE[0])
    spread = max(np.ptp(p[:, 0]) / (SIZE[0] - left - right), np.ptp(p[:, 1]) / SIZE[1])
    assert spread >= FILLS, f"the box is a speck: {spread:.0%} of the room"
    d.app.camera.orbit(50, 10)
    d.app.camera.zoom(-10)
    d.press("F")
    d.frame()
    np.testing.assert_allclose(d.app.camera.target, first[0], atol=1e-9)
    assert d.app.camera.distance == pytest.approx(first[1])
