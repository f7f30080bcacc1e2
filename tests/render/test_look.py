"""The picture of glTF materials: exposure, tone mapping and sRGB output checked against
an independent numpy oracle of the published formulas (Khronos PBR Neutral, three.js's
ACES filmic fit, IEC 61966-2-1's sRGB encoding), and KHR_materials_unlit shown to the bit.

Light that reaches the tone mapping exactly as the file says: an emissive quad with the
environment off and one file light of intensity 0 (a file with lights gets no default
light), so the shaded colour is the emissive radiance and nothing else.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_looks.py

from gltf_looks import Doc, quad  # noqa: E402

from viewer.io import load_scene  # noqa: E402
from viewer.render.camera import Camera  # noqa: E402
from viewer.render.frame_view import FrameViews, ViewSettings  # noqa: E402
from viewer.render.lights import Lighting  # noqa: E402
from viewer.render.renderer import Renderer  # noqa: E402

SIZE = (160, 160)
NEAREST = {"magFilter": 9728, "minFilter": 9728}


# -- the oracle: the formulas as published -------------------------------------------------
def neutral(c: np.ndarray) -> np.ndarray:
    """Khronos PBR Neutral (KhronosGroup/ToneMapping, PBR_Neutral), per colour [n, 3]."""
    start, desaturation = 0.8 - 0.04, 0.15
    c = np.array(c, dtype=np.float64)
    x = c.min(axis=1, keepdims=True)
    c -= np.where(x < 0.08, x - 6.25 * x * x, 0.04)
    peak = c.max(axis=1, keepdims=True)
    d = 1.0 - start
    new_peak = 1.0 - d * d / (peak + d - start)
    g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0)
    rolled = (1.0 - g) * c * new_peak / np.maximum(peak, start) + g * new_peak  # (used past start)
    return np.where(peak < start, c, rolled)


def aces(c: np.ndarray) -> np.ndarray:
    """Stephen Hill's ACES fit with three.js's exposure scale (1 / 0.6)."""
    to_aces = np.array([[0.59719, 0.35458, 0.04823], [0.07600, 0.90834, 0.01566],
                        [0.02840, 0.13383, 0.83777]])  # fmt: skip
    from_aces = np.array([[1.60475, -0.53108, -0.07367], [-0.10208, 1.10813, -0.00605],
                          [-0.00327, -0.07276, 1.07602]])  # fmt: skip
    v = (np.asarray(c) / 0.6) @ to_aces.T
    v = (v * (v + 0.0245786) - 0.000090537) / (v * (0.983729 * v + 0.4329510) + 0.238081)
    return np.clip(v @ from_aces.T, 0.0, 1.0)


def srgb_encode(c: np.ndarray) -> np.ndarray:
    c = np.clip(c, 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1.0 / 2.4) - 0.055)


def srgb_decode(v: np.ndarray) -> np.ndarray:
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def expected(colours, look: Lighting) -> np.ndarray:
    c = np.asarray(colours, dtype=np.float64) * look.exposure
    mapped = {"neutral": neutral, "aces": aces, "none": lambda x: x}[look.tone_mapping](c)
    return np.round(255.0 * srgb_encode(mapped))


# -- the pictures -----------------------------------------------------------------------------
def _render(gl_ctx, target, path: Path, look: Lighting):
    scene = load_scene(path)
    scene.graph.update()
    r = Renderer(gl_ctx, scene, look)
    cam = Camera()
    cam.look_from((0.0, 0.0, 6.0), (0.0, 0.0, 0.0))
    cam.extent = 10.0
    plain = ViewSettings(show_grid=False, show_axes=False, show_links=False)
    r.draw(FrameViews().extract(r.graph, plain, target.fbo, SIZE), cam)
    img = target.read().astype(int)
    r.release()

    def at(x, y, z=0.0):
        px, py, _ = cam.project([(x, y, z)], SIZE)[0]
        return img[int(py), int(px)]

    return at


def _emissive_row(tmp_path, colours) -> Path:
    """One small emissive quad per colour in a row along x (strength lifts past 1)."""
    d = Doc()
    for k, c in enumerate(colours):
        top = max(max(c), 1e-6)
        material = {
            "pbrMetallicRoughness": {"baseColorFactor": [0, 0, 0, 1], "metallicFactor": 0.0},
            "emissiveFactor": [v / max(top, 1.0) for v in c],
            "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": max(top, 1.0)}},
        }
        d.node(f"Q{k}", mesh=d.mesh(quad(0.4), material), translation=[k * 0.5 - 2.0, 0, 0])
    d.doc["extensions"] = {"KHR_lights_punctual": {"lights": [
        {"type": "directional", "intensity": 0.0}]}}  # fmt: skip
    d.node("Off", extensions={"KHR_lights_punctual": {"light": 0}})
    return d.write(tmp_path / "row.gltf")


#: Below the Neutral curve's knee, at it, past it, colours with a small minimum (the
#: offset's quadratic part) and a saturated bright one (the desaturation).
COLOURS = [(0.02, 0.05, 0.01), (0.2, 0.3, 0.5), (0.7, 0.72, 0.74), (0.9, 0.5, 0.2),
           (1.6, 1.2, 0.9), (4.0, 0.5, 0.05), (8.0, 8.0, 8.0), (0.06, 0.9, 0.3),
           (0.0, 0.0, 0.0)]  # fmt: skip


@pytest.mark.parametrize(
    "look",
    [
        Lighting("neutral", 1.0, "none"),
        Lighting("neutral", 2.5, "none"),
        Lighting("aces", 1.0, "none"),
        Lighting("none", 0.5, "none"),
    ],
    ids=["neutral", "neutral-exposure", "aces", "none"],
)
def test_emitted_light_is_tone_mapped_and_encoded_as_the_formulas_say(gl_ctx, target, tmp_path,
                                                                       look):  # fmt: skip
    at = _render(gl_ctx, target, _emissive_row(tmp_path, COLOURS), look)
    want = expected(COLOURS, look)
    got = np.array([at(k * 0.5 - 2.0, 0.0) for k in range(len(COLOURS))])
    assert np.abs(got - want).max() <= 1, (got, want)


def test_the_neutral_curve_leaves_dim_colours_alone_and_rolls_bright_ones_off():
    # the oracle itself: what the specification promises
    dim = np.array([[0.3, 0.5, 0.7]])
    assert np.allclose(neutral(dim), dim - 0.04)
    bright = neutral(np.array([[100.0, 1.0, 1.0]]))
    assert bright.max() <= 1.0 and bright.min() > 0.8  # towards white, below it


def _unlit_grid(tmp_path, look_colour) -> Path:
    """A quad textured with all 256 grey levels (16 x 16 texels, sRGB, nearest), unlit,
    its factor `look_colour`."""
    d = Doc()
    levels = np.arange(256, dtype=np.uint8).reshape(16, 16)
    pixels = np.stack([levels, levels[::-1], levels.T], axis=-1)
    tex = d.image(pixels, NEAREST)
    material = {
        "pbrMetallicRoughness": {
            "baseColorFactor": look_colour,
            "baseColorTexture": {"index": tex},
        },
        "extensions": {"KHR_materials_unlit": {}},
    }
    d.node("Q", mesh=d.mesh(quad(4.0), material))
    return d.write(tmp_path / "unlit.gltf")


@pytest.mark.parametrize(
    "look", [Lighting(), Lighting("aces", 3.0, "room"), Lighting("none", 0.2, "none")]
)
def test_unlit_shows_every_texture_level_to_the_bit(gl_ctx, target, tmp_path, look):
    # KHR_materials_unlit: the base colour is the colour shown, whatever the exposure, tone
    # mapping and environment: each sRGB texel comes back as the same byte.
    at = _render(gl_ctx, target, _unlit_grid(tmp_path, [1, 1, 1, 1]), look)
    levels = np.arange(256).reshape(16, 16)
    want = np.stack([levels, levels[::-1], levels.T], axis=-1)
    for row in range(16):
        for col in range(16):
            # quad(4.0) spans -2..2; glTF v = 0 is the image's top row, at +y
            x, y = -2.0 + (col + 0.5) / 4.0, 2.0 - (row + 0.5) / 4.0
            assert tuple(at(x, y)) == tuple(want[row, col]), (row, col, at(x, y))


def test_unlit_factors_and_vertex_colours_to_the_bit(gl_ctx, target, tmp_path):
    # linear factor x linear vertex colour, encoded: exact for values that are sRGB bytes
    rng = np.random.default_rng(7)
    for _ in range(3):
        byte = rng.integers(0, 256, 3)
        factor = [*srgb_decode(byte / 255.0).tolist(), 1.0]
        d = Doc()
        pos, nrm, uv, idx = quad(4.0)
        colors = np.ones((len(pos), 4), np.float32)
        material = {"pbrMetallicRoughness": {"baseColorFactor": factor},
                    "extensions": {"KHR_materials_unlit": {}}}  # fmt: skip
        d.node("Q", mesh=d.mesh((pos, nrm, uv, idx), material, colors=colors))
        at = _render(gl_ctx, target, d.write(tmp_path / "f.gltf"), Lighting("aces", 2.0))
        assert tuple(at(0.3, -0.2)) == tuple(byte), (at(0.3, -0.2), byte)


def test_white_models_read_white_as_in_the_reference_viewers(gl_ctx, target, tmp_path):
    # issue 35: under the default look a white matte sphere and the specification's default
    # material (white, metallic 1, roughness 1) are near white where they face the eye,
    # not mid grey as under the former key light and ambient
    from gltf_looks import sphere

    for name, material in (("matte", {"pbrMetallicRoughness": {
            "baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0.0, "roughnessFactor": 1.0}}),
                           ("default", None)):  # fmt: skip
        d = Doc()
        d.node("S", mesh=d.mesh(sphere(), material))
        at = _render(gl_ctx, target, d.write(tmp_path / f"{name}.gltf"), Lighting())
        centre = at(0.0, 0.0, 1.0)
        assert centre.min() >= 215 and centre.max() - centre.min() <= 6, (name, centre)
        dim = _render(gl_ctx, target, d.write(tmp_path / f"{name}2.gltf"), Lighting(exposure=0.25))
        assert dim(0.0, 0.0, 1.0).max() < centre.min() - 60  # exposure scales the light
