"""Nodes that draw nothing stay quiet (no name, no line to them), and `--no-overlay`
draws the model and nothing else: no grid, axes, lines or joint markers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_rig.py

from app_driver import SIZE  # noqa: E402
from gltf_rig import write_rig  # noqa: E402
from test_framing import _model_with_camera_and_lamp  # noqa: E402

from viewer.io import load_scene  # noqa: E402
from viewer.render.quiet import quiet_nodes  # noqa: E402


def test_quiet_nodes_are_those_whose_subtree_draws_nothing():
    #      0
    #    1   2        3 (a root of its own)
    #   4 5   6
    parents = np.array([-1, 0, 0, -1, 1, 1, 2])
    alive = np.arange(7)
    quiet = quiet_nodes(parents, alive, drawn=np.array([4]))
    assert quiet.tolist() == [False, False, True, True, False, True, True]
    # nothing drawn at all: every node speaks (they are all there is to see)
    assert not quiet_nodes(parents, alive, drawn=np.array([], np.int64)).any()


def test_cameras_lamps_and_empties_get_no_name_and_no_line(drive, tmp_path):
    scene = load_scene(_model_with_camera_and_lamp(tmp_path / "m.gltf"))
    d = drive(scene, still=True)
    d.frame()
    g = d.app.session.graph
    ids = np.array([g[n].id for n in ("Box", "Camera", "Lamp", "Empty")])
    assert d.app.renderer.speaks(ids).tolist() == [True, False, False, False]
    assert d.app.overlay is not None
    d.app.overlay.show_names = True
    d.frame()
    assert [name for name, _ in d.app.overlay.names_drawn] == ["Box"]


def _background_only(img: np.ndarray, empty: np.ndarray, mask: np.ndarray) -> bool:
    return bool(np.abs(img[mask].astype(int) - empty[mask].astype(int)).max() <= 2)


def test_no_overlay_draws_the_model_and_nothing_else(drive, tmp_path):
    path = write_rig(tmp_path, color=[1.0, 0.0, 0.0, 1.0])
    bare = drive(load_scene(path), still=True, overlay=False)
    img = bare.frame(2)
    r, view = bare.app.renderer, bare.app.settings
    assert not (view.show_grid or view.show_axes or view.show_links or view.show_joints)
    # the joints lie inside the cylinder: without the markers they show its red (lit by
    # the room environment: a red with the white of its dielectric reflection, no marker's
    # grey)
    g = bare.app.session.graph
    for name in ("Bone0", "Bone1", "Bone2"):
        x, y, _ = bare.app.camera.project(g[name].world_position, SIZE)[0]
        px = img[int(y), int(x)].astype(int)
        assert px[0] > 90 and px[0] - max(px[1], px[2]) > 100, (name, px)
    # away from the model: the plain backdrop (nothing else is drawn)
    skins, r.skins = r.skins, None  # the same picture without the model: the backdrop
    empty = bare.frame(1)
    r.skins = skins
    red = (img[..., 0].astype(int) - img[..., 1]) > 40
    near_model = np.zeros_like(red)
    for dy in range(-6, 7):
        for dx in range(-6, 7):
            near_model |= np.roll(np.roll(red, dy, 0), dx, 1)
    assert red.sum() > 500  # the model is there
    assert _background_only(img, empty, ~near_model)
    # with the overlay the joint markers and the grid are there
    full = drive(load_scene(path), still=True)
    assert full.app.settings.show_joints and full.app.settings.show_grid


def test_quiet_nodes_can_be_named_and_linked_on_request(drive, tmp_path):
    scene = load_scene(_model_with_camera_and_lamp(tmp_path / "m.gltf"))
    d = drive(scene, still=True)
    d.app.overlay.show_names = True
    d.frame()
    assert [name for name, _ in d.app.overlay.names_drawn] == ["Box"]
    d.app.camera.distance *= 200.0  # far enough back to see the nodes 100 units away
    d.frame()
    assert [name for name, _ in d.app.overlay.names_drawn] == ["Box"]
    d.app.settings.show_quiet = True  # the panel's View checkbox
    d.frame()
    named = {name for name, _ in d.app.overlay.names_drawn}
    assert len(named) > 1 and "Box" in named, named
    ids = np.array([d.app.session.graph[n].id for n in ("Camera", "Lamp", "Empty")])
    assert d.app.renderer.speaks(ids, d.app.settings.show_quiet).all()
