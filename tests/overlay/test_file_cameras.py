"""`--camera INDEX|NAME` looks through a camera of the glTF file (perspective or
orthographic, the window's aspect), the C key cycles through them and back to the orbit
camera, and KHR_lights_punctual lights light the model."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_looks.py

from app_driver import SIZE  # noqa: E402
from gltf_looks import Doc, quad  # noqa: E402

from viewer.cli.main import main  # noqa: E402
from viewer.io import load_scene  # noqa: E402

UNLIT = {"KHR_materials_unlit": {}}


def two_cameras(path: Path) -> Path:
    """A red quad at x = -3 and a blue one at x = +3, both 2 x 2 facing +Z; camera "Near"
    (perspective, 60 degrees) 4 units in front of the red one, camera "Flat"
    (orthographic, ymag 2) in front of the blue one, turned 90 degrees about Z (its up is
    world -X, its right world +Y) so that the quad's top edge (a green strip) shows on the
    picture's right."""
    d = Doc()
    for name, x, rgb in (("RedQuad", -3.0, [1, 0, 0, 1]), ("BlueQuad", 3.0, [0, 0, 1, 1])):
        d.node(name, mesh=d.mesh(quad(), {"pbrMetallicRoughness": {"baseColorFactor": rgb},
                                          "extensions": UNLIT}), translation=[x, 0, 0])  # fmt: skip
    strip = quad(1.0)
    strip[0][:, 1] = strip[0][:, 1] * 0.2 + 0.9  # y in [0.8, 1.0]
    strip[0][:, 2] = 0.01
    d.node("Strip", mesh=d.mesh(strip, {"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]},
                                        "extensions": UNLIT}), translation=[3, 0, 0])  # fmt: skip
    s = math.sqrt(0.5)
    d.node("NearCam", camera=0, translation=[-3.0, 0.0, 4.0])
    d.node("FlatCam", camera=1, translation=[3.0, 0.0, 4.0], rotation=[0.0, 0.0, s, s],
           scale=[3.0, 3.0, 3.0])  # the node's scale plays no part  # fmt: skip
    d.doc["cameras"] = [
        {"name": "Near", "type": "perspective",
         "perspective": {"yfov": math.radians(60), "znear": 0.1, "zfar": 100}},
        {"name": "Flat", "type": "orthographic",
         "orthographic": {"xmag": 2.0, "ymag": 2.0, "znear": 0.1, "zfar": 100}},
    ]  # fmt: skip
    return d.write(path)


def _shot(tmp_path, *extra) -> np.ndarray:
    from PIL import Image

    out = tmp_path / "shot.png"
    model = two_cameras(tmp_path / "cams.gltf")
    assert main([str(model), "--headless", "--frames", "2", "--size", f"{SIZE[0]}x{SIZE[1]}",
                 "--no-overlay", "--screenshot", str(out), *extra]) == 0  # fmt: skip
    return np.asarray(Image.open(out).convert("RGB")).astype(int)


def _is(px, rgb) -> bool:
    return bool(np.all(np.abs(px - np.asarray(rgb)) <= 6))


def test_camera_by_index_looks_through_the_perspective_camera(tmp_path):
    img = _shot(tmp_path, "--camera", "0")
    w, h = SIZE
    assert _is(img[h // 2, w // 2], (255, 0, 0))
    # 60 degrees at distance 4: half the height is 4 tan 30 = 2.31; the quad's edge
    # (y = 1) is at 1 / 2.31 of the half-height above the centre
    edge = h / 2 * (1 - 1 / (4 * math.tan(math.radians(30))))
    assert _is(img[int(edge) + 3, w // 2], (255, 0, 0))
    assert not _is(img[int(edge) - 3, w // 2], (255, 0, 0))
    # the aspect ratio is the window's: the quad is square on screen
    half_w = (img[h // 2] == img[h // 2, w // 2]).all(axis=1).sum() / 2
    half_h = (img[:, w // 2] == img[h // 2, w // 2]).all(axis=1).sum() / 2
    assert abs(half_w - half_h) <= 2, (half_w, half_h)


def test_camera_by_name_looks_through_the_orthographic_camera(tmp_path):
    img = _shot(tmp_path, "--camera", "Flat")
    w, h = SIZE
    assert _is(img[h // 2, w // 2], (0, 0, 255))
    # ymag 2: the view is 4 units high; the quad's side of 2 is half of it. Turned 90
    # degrees about the view axis, the quad's top strip lies at the right of the picture.
    rows = np.flatnonzero((np.abs(img[:, w // 2] - (0, 0, 255)) <= 6).all(axis=1))
    assert abs(len(rows) - h / 2) <= 3, len(rows)
    green = np.flatnonzero((np.abs(img[h // 2] - (0, 255, 0)) <= 6).all(axis=1))
    assert green.size and green.min() > w // 2 + h // 8, green


def test_an_unknown_camera_is_one_line_and_status_2(tmp_path, capsys):
    model = two_cameras(tmp_path / "cams.gltf")
    assert main([str(model), "--headless", "--frames", "1", "--camera", "Side"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such camera" in err and "1: 'Flat'" in err


def test_c_cycles_through_the_cameras_and_back_to_orbit(drive, tmp_path):
    scene = load_scene(two_cameras(tmp_path / "cams.gltf"))
    d = drive(scene, still=True, overlay=False)
    d.frame()
    orbit_eye = d.app.camera.eye.copy()
    seen = []
    for _ in range(3):
        d.press("C")
        img = d.frame()
        seen.append((d.app.view, img[SIZE[1] // 2, SIZE[0] // 2].astype(int)))
    assert seen[0][0] == 0 and _is(seen[0][1], (255, 0, 0))
    assert seen[1][0] == 1 and _is(seen[1][1], (0, 0, 255))
    assert seen[2][0] is None and d.app.camera.through is None
    np.testing.assert_allclose(d.app.camera.eye[:2], [3.0, 0.0], atol=1e-9)  # from Flat on
    assert not np.allclose(d.app.camera.eye, orbit_eye)
    # a camera move leaves the file camera for the orbit camera
    d.press("C")
    d.frame()
    d.app.camera.orbit(30, 0)
    d.frame()
    assert d.app.view is None and d.app.camera.through is None


def test_lights_of_the_file_light_the_model(tmp_path):
    """A grey quad lit by a red point light in front of it is red; the same quad with a
    blue directional light is blue (the file's lights replace the default one). Without
    the environment (--environment none), whose white room would light the grey too."""
    from PIL import Image

    colours = {}
    for kind in ("point", "directional"):
        d = Doc()
        d.node("Grey", mesh=d.mesh(quad(4.0), {"pbrMetallicRoughness": {
            "baseColorFactor": [0.8, 0.8, 0.8, 1], "metallicFactor": 0.0}}))  # fmt: skip
        light = {"type": kind, "color": [1, 0, 0] if kind == "point" else [0, 0, 1],
                 "intensity": 8.0 if kind == "point" else 3.0}  # fmt: skip
        d.doc["extensions"] = {"KHR_lights_punctual": {"lights": [light]}}
        d.doc["extensionsUsed"] = ["KHR_lights_punctual"]
        d.node("Lamp", translation=[0.0, 0.0, 1.0],
               extensions={"KHR_lights_punctual": {"light": 0}})  # fmt: skip
        d.node("Cam", camera=0, translation=[0.0, 0.0, 5.0])
        d.doc["cameras"] = [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.1}}]
        path = d.write(tmp_path / f"{kind}.gltf")
        out = tmp_path / f"{kind}.png"
        assert main([str(path), "--headless", "--frames", "2", "--size", "80x60",
                     "--no-overlay", "--camera", "0", "--environment", "none",
                     "--screenshot", str(out)]) == 0  # fmt: skip
        colours[kind] = np.asarray(Image.open(out).convert("RGB"))[30, 40].astype(int)
    red, blue = colours["point"], colours["directional"]
    assert red[0] > red[1] + 60 and red[0] > red[2] + 60, red
    assert blue[2] > blue[0] + 60 and blue[2] > blue[1] + 60, blue


@pytest.mark.parametrize("which", ["0", "Near"])
def test_an_index_and_a_name_pick_the_same_camera(tmp_path, which):
    assert _is(_shot(tmp_path, "--camera", which)[SIZE[1] // 2, SIZE[0] // 2], (255, 0, 0))


def test_a_spot_light_lights_its_cone_only(tmp_path):
    """A white spot 2 units in front of a grey quad, shining at it with a 10 degree outer
    cone: the centre (on the axis) is lit, a point 1.5 units off (37 degrees) not at all
    (without the environment, --environment none, whose room lights both alike)."""
    from PIL import Image

    d = Doc()
    d.node("Grey", mesh=d.mesh(quad(4.0), {"pbrMetallicRoughness": {
        "baseColorFactor": [0.8, 0.8, 0.8, 1], "metallicFactor": 0.0}}))  # fmt: skip
    spot = {"type": "spot", "intensity": 40.0,
            "spot": {"innerConeAngle": 0.1, "outerConeAngle": math.radians(10)}}  # fmt: skip
    d.doc["extensions"] = {"KHR_lights_punctual": {"lights": [spot]}}
    d.node("Spot", translation=[0.0, 0.0, 2.0], extensions={"KHR_lights_punctual": {"light": 0}})
    d.node("Cam", camera=0, translation=[0.0, 0.0, 5.0])
    d.doc["cameras"] = [{"type": "perspective", "perspective": {"yfov": 0.9, "znear": 0.1}}]
    out = tmp_path / "spot.png"
    assert main([str(d.write(tmp_path / "spot.gltf")), "--headless", "--frames", "2",
                 "--size", "100x100", "--no-overlay", "--camera", "0", "--environment", "none",
                 "--screenshot", str(out)]) == 0  # fmt: skip
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    # the view is 2 * 5 * tan(0.45) = 4.83 units high: 1.5 units is 31 pixels
    centre, off = img[50, 50].sum(), img[50, 50 + 31].sum()
    assert centre > off + 200, (centre, off)
