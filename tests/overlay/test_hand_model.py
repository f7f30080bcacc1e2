"""A real-sized glTF model opened with default settings: the hand that
docs/make_hand_glb.py builds (29 nodes, about 10 cm, a box mesh per phalanx, a "Curl"
animation) loads, comes in framed between the panels, and its drawn names are readable:
no two overlap, the phalanges' names are among them (a mesh that does not start at its
node's origin must not push its name off screen), and the selected node's name shows."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from app_driver import SIZE

from viewer.io import load_scene
from viewer.overlay.model import panel_widths

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _script():
    spec = importlib.util.spec_from_file_location("make_hand_glb", DOCS / "make_hand_glb.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def hand_file(tmp_path_factory):
    return _script().write_hand(tmp_path_factory.mktemp("hand") / "hand.glb")


def mesh_points(scene, doc) -> np.ndarray:
    """Every node's origin and the corners of every phalanx's and the palm's box (from the
    file's accessor bounds), in world space."""
    g = scene.graph
    world = g.world_matrices()
    points = [world[np.asarray(g.alive_ids())][:, :3, 3]]
    for node in doc["nodes"]:
        if "mesh" not in node:
            continue
        prim = doc["meshes"][node["mesh"]]["primitives"][0]
        acc = doc["accessors"][prim["attributes"]["POSITION"]]
        lo, hi = np.array(acc["min"]), np.array(acc["max"])
        corners = np.array([[(lo, hi)[b >> k & 1][k] for k in range(3)] for b in range(8)])
        m = world[g[node["name"]].id]
        points.append(corners @ m[:3, :3].T + m[:3, 3])
    return np.vstack(points)


def boxes_overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_readable(overlay) -> None:
    boxes = overlay.name_boxes
    assert len(boxes) == len(overlay.names_drawn)
    for i in range(len(boxes)):
        for j in range(i):
            assert not boxes_overlap(boxes[i], boxes[j]), (
                overlay.names_drawn[i][0],
                overlay.names_drawn[j][0],
            )


def test_the_script_makes_a_hand_sized_model():
    doc, blob = _script().hand_document()
    assert 25 <= len(doc["nodes"]) <= 35
    assert len(doc["meshes"]) == 1 + 4 * 3 + 3  # the palm and one per phalanx
    assert [a["name"] for a in doc["animations"]] == ["Curl"]
    assert len(blob) == doc["buffers"][0]["byteLength"]


def test_it_loads_and_comes_in_framed_with_readable_names(drive, hand_file):
    scene = load_scene(hand_file)
    doc, _ = _script().hand_document()
    assert len(scene.graph) == len(doc["nodes"])
    extent = np.ptp(mesh_points(scene, doc), axis=0)
    assert 0.08 < extent.max() < 0.2  # metres: about a hand
    d = drive(scene)
    for frames in (1, 29):  # open, then half closed by the curl
        d.frame(frames)
        left, right = panel_widths(SIZE[0])
        p = d.app.camera.project(mesh_points(scene, doc), SIZE)
        assert p[:, 0].min() >= left and p[:, 0].max() <= SIZE[0] - right
        assert p[:, 1].min() >= 0 and p[:, 1].max() <= SIZE[1]
        assert (np.abs(p[:, 2]) < 1.0).all()
        spread = max(np.ptp(p[:, 0]) / (SIZE[0] - left - right), np.ptp(p[:, 1]) / SIZE[1])
        assert spread > 0.5, f"a speck: {spread:.0%} of the room"
        assert_readable(d.app.overlay)
        drawn = {name for name, _ in d.app.overlay.names_drawn}
        assert len(drawn) >= 8
        assert any(name.endswith(("_Proximal", "_Middle", "_Distal")) for name in drawn)


def test_the_selected_phalanx_keeps_its_name(drive, hand_file):
    scene = load_scene(hand_file)
    d = drive(scene, still=True)
    d.app.session.select(scene.graph["Index_Proximal"].id)
    d.frame(2)
    drawn = [name for name, _ in d.app.overlay.names_drawn]
    assert drawn[0] == "Index_Proximal"
    assert_readable(d.app.overlay)


def test_a_phalanx_name_sits_beside_its_mesh(drive, hand_file):
    """The label's sphere is the drawn box's, not a unit box round the node's origin."""
    scene = load_scene(hand_file)
    d = drive(scene, still=True)
    d.frame()
    g = scene.graph
    node = g["Middle_Proximal"]
    centres, radii = d.app.bounds.label_spheres(np.array([node.id]))
    length, width = 0.027, 0.0115  # docs/make_hand_glb.py FINGERS
    tip = node.world_matrix[:3, :3] @ np.array([0.0, length, 0.0]) + node.world_position
    np.testing.assert_allclose(centres[0], 0.5 * (node.world_position + tip), atol=1e-6)
    assert radii[0] == pytest.approx(0.5 * np.linalg.norm([width, length, 0.85 * width]))
