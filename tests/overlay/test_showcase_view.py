"""The docs' materials file (tests/gltf_looks.py `showcase`) through its own camera with
`--no-overlay`: the morphed block stands at its default weight 0.5, each instanced
stud where its EXT_mesh_gpu_instancing TRANSLATION puts it, the masked leaf is cut out,
the glass is see-through and the lamp glows. Expected places are the
file's points projected by the glTF camera model (node looks down its -Z, +Y up,
perspective yfov and the window's aspect), not by sgview's code."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_looks.py

from gltf_looks import BLOCK_AT, STUDS, STUDS_AT, showcase  # noqa: E402

from viewer.cli.main import main  # noqa: E402

W, H = 640, 360


def _pixel(doc: dict, point) -> tuple[int, int]:
    """Where the world `point` lands in a W x H picture of the camera node "Front"."""
    node = next(n for n in doc["nodes"] if n["name"] == "Front")
    x, y, z, w = node["rotation"]
    rot = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])  # fmt: skip
    c = rot.T @ (np.asarray(point, float) - node["translation"])
    half = math.tan(doc["cameras"][node["camera"]]["perspective"]["yfov"] / 2) * -c[2]
    ndc_x, ndc_y = c[0] / (half * W / H), c[1] / half
    return int((ndc_x + 1) / 2 * W), int((1 - ndc_y) / 2 * H)


@pytest.fixture(scope="module")
def view(tmp_path_factory, egl):
    import json

    from PIL import Image

    tmp = tmp_path_factory.mktemp("showcase")
    model, out = showcase(tmp / "showcase.gltf"), tmp / "front.png"
    assert main([str(model), "--headless", "--frames", "2", "--size", f"{W}x{H}",
                 "--camera", "Front", "--no-overlay", "--screenshot", str(out)]) == 0  # fmt: skip
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    doc = json.loads(model.read_text())
    return lambda point: img[_pixel(doc, point)[::-1]]


def _violet(px) -> bool:
    return bool(px[0] > px[1] + 50 and px[2] > px[1] + 50)


def _cyan(px) -> bool:
    return bool(px[1] > px[0] + 80 and px[2] > px[0] + 80)


def test_the_block_is_morphed_halfway(view):
    # Seen from above, the top face (y = 0.9) spans x in [-0.4, 0.4] at weight 0,
    # [0, 0.6] at 0.5 and [0.4, 0.8] at 1 (z in [-0.4, 0.4], [-0.3, 0.3], [-0.2, 0.2]); a
    # ray that misses it to the right or behind goes on down to the floor.
    at = np.asarray(BLOCK_AT)
    assert _violet(view(at + [0.3, 0.88, 0.0]))
    assert _violet(view(at + [0.52, 0.88, 0.0]))  # floor at weight 0
    assert not _violet(view(at + [0.7, 0.9, 0.0]))  # top face at weight 1
    assert not _violet(view(at + [-0.3, 0.9, -0.32]))  # top face at weight 0
    assert _violet(view(at + [0.0, 0.3, 0.4]))  # the front face


def test_each_instance_stands_where_its_translation_puts_it(view):
    at = np.asarray(STUDS_AT)
    for move, size in STUDS:
        assert _cyan(view(at + move)), move
        assert not _cyan(view(at + move + [0.0, size + 0.08, 0.0])), move  # above it
    (a, ra), (b, rb) = STUDS[:2]
    gap = at + [(a[0] + ra + b[0] - rb) / 2, 0.12, 0.0]
    assert not _cyan(view(gap))


def test_the_leaf_is_cut_out_the_glass_is_see_through_and_the_lamp_glows(view):
    leaf = np.asarray([-3.4, 1.0, 0.0])  # turned 30 degrees about +Y
    cos, sin = math.cos(math.radians(30)), math.sin(math.radians(30))
    corner = view(leaf + [-1.0 * cos, 1.0, 1.0 * sin])  # local (-1, 1): alpha 0
    assert corner.max() > 30 and corner[1] < corner[0] + 20  # the sky, not green nor black
    px = view(leaf + [-0.3 * cos, -0.25, 0.3 * sin])  # inside the leaf's outline
    assert px[1] > px[0] + 60 and px[1] > px[2] + 60
    # the gold sphere shows through the pale blue pane; the pane tints the floor
    px = view([-1.1, 0.8, 1.0])
    assert px[0] > px[2] + 15
    tinted, bare = view([-0.5, 0.2, 1.6]), view([0.3, 0.2, 1.6])
    assert tinted[2] - tinted[0] > bare[2] - bare[0] + 5
    # the lamp: base colour 0.05, emissive (1, 0.35, 0.08) x 3
    px = view([3.3, 0.7, 0.7])
    assert px[0] > 240 and px[0] > px[2] + 60
