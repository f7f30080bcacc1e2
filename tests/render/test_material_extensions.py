"""The ratified KHR_materials_* extensions, KHR_materials_pbrSpecularGlossiness and
KHR_materials_variants, on files built in code.

Expectations come from the extensions' own texts: ior and specular set F0 =
((ior - 1) / (ior + 1))^2 x specular colour and F0, F90 x specular (so ior 1 or specular 0
take the dielectric's reflection away), a clearcoat adds a second, smoother lobe on top, a
sheen brightens the grazing angles, transmission shows what lies behind through the
surface (Beer's law: after `d` through the volume, attenuationColor ^ (d /
attenuationDistance) of it), iridescence colours the reflection, variants switch the
material of the primitives they map; specular-glossiness converts as glTF-Transform's
metalRough writes it down. Bad values are one-line errors naming the file, the material
and the field.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_looks.py

from gltf_looks import Doc, quad, sphere  # noqa: E402
from render_helpers import draw  # noqa: E402

from viewer.io import SceneError, load_scene  # noqa: E402
from viewer.materials import variant_names, with_variant  # noqa: E402
from viewer.render.camera import Camera  # noqa: E402
from viewer.render.frame_view import ViewSettings  # noqa: E402
from viewer.render.lights import Lighting  # noqa: E402
from viewer.render.renderer import Renderer  # noqa: E402

SIZE = (120, 120)
BLACK = {"baseColorFactor": [0.0, 0.0, 0.0, 1.0], "metallicFactor": 0.0, "roughnessFactor": 0.5}
FLAT = Lighting(tone_mapping="none")


def _linear(c: float) -> float:
    c /= 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _material(ext: dict, pbr: dict | None = None, **more) -> dict:
    return {"pbrMetallicRoughness": dict(pbr or BLACK), "extensions": ext, **more}


def _shot(gl_ctx, target, path, *, eye=(0.0, 0.0, 4.0), look=FLAT, scene=None):
    """The picture of `path` (or of `scene`) seen from `eye` towards the origin; returns
    (image as int array, the renderer's shader features)."""
    scene = scene or load_scene(path)
    scene.graph.update()
    r = Renderer(gl_ctx, scene, look)
    view = ViewSettings(show_grid=False, show_axes=False, show_links=False)
    cam = Camera()
    cam.look_from(eye, (0.0, 0.0, 0.0))
    cam.extent = 10.0
    draw(r, target.fbo, cam, SIZE, view)
    img = target.read().astype(int)
    features = r.features
    r.release()
    return img, features


def _ring(img, lo: float, hi: float) -> np.ndarray:
    """The RGB pixels between `lo` and `hi` times the radius of the unit sphere at the
    origin as `_shot`'s default camera sees it (its projected equator)."""
    cam = Camera()
    cam.look_from((0.0, 0.0, 4.0), (0.0, 0.0, 0.0))
    cam.extent = 10.0
    (cx, cy, _), (ex, _ey, _) = cam.project([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0)], SIZE)
    radius = abs(ex - cx)
    ys, xs = np.mgrid[: SIZE[1], : SIZE[0]]
    d = np.hypot(xs + 0.5 - cx, ys + 0.5 - cy) / radius
    return img[(d >= lo) & (d < hi)][:, :3]


def _sphere_file(tmp_path, material, name) -> Path:
    d = Doc()
    d.node("S", mesh=d.mesh(sphere(), material))
    return d.write(tmp_path / name)


def _centre(img) -> np.ndarray:
    h, w = img.shape[:2]
    return img[h // 2 - 2 : h // 2 + 3, w // 2 - 2 : w // 2 + 3, :3].reshape(-1, 3).mean(0)


# -- ior and specular ---------------------------------------------------------------------
def test_ior_1_and_specular_0_take_the_dielectric_reflection_away(gl_ctx, target, tmp_path):
    # A black dielectric shows nothing but its reflection: F0 = 0.04 head-on at ior 1.5.
    # ior 1 makes F0 = 0 (head-on: nothing); specular 0 makes F0 = F90 = 0 (nothing at all).
    plain_file = _sphere_file(tmp_path, {"pbrMetallicRoughness": BLACK}, "plain.gltf")
    ior_file = _sphere_file(tmp_path, _material({"KHR_materials_ior": {"ior": 1.0}}), "i.gltf")
    spec = _material({"KHR_materials_specular": {"specularFactor": 0.0}})
    plain, none = _shot(gl_ctx, target, plain_file)
    ior1, f_ior = _shot(gl_ctx, target, ior_file)
    spec0, _ = _shot(gl_ctx, target, _sphere_file(tmp_path, spec, "s.gltf"))
    assert none == () and f_ior == ("SPECULAR",)
    assert _centre(plain).min() > 25, _centre(plain)  # 0.04 of the room, sRGB-encoded
    assert _centre(ior1).max() <= 3, _centre(ior1)
    assert _ring(spec0, 0.0, 0.97).max() <= 3  # nothing anywhere, grazing angles included
    assert _ring(plain, 0.9, 0.97).max() > 60


def test_specular_colour_tints_the_reflection(gl_ctx, target, tmp_path):
    ext = {"KHR_materials_specular": {"specularColorFactor": [1.0, 0.0, 0.0]}}
    img, _ = _shot(gl_ctx, target, _sphere_file(tmp_path, _material(ext), "tint.gltf"))
    r, g, b = _centre(img)
    assert r > 25 and g <= 3 and b <= 3, (r, g, b)


# -- clearcoat ---------------------------------------------------------------------------
def test_a_clearcoat_adds_a_sharp_highlight_over_a_rough_base(gl_ctx, target, tmp_path):
    base = {"baseColorFactor": [0.6, 0.1, 0.1, 1.0], "metallicFactor": 0.0, "roughnessFactor": 1.0}
    plain, _ = _shot(gl_ctx, target, _sphere_file(tmp_path, {"pbrMetallicRoughness": base},
                                                  "p.gltf"))  # fmt: skip
    coat = {"KHR_materials_clearcoat": {"clearcoatFactor": 1.0, "clearcoatRoughnessFactor": 0.0}}
    coated, features = _shot(
        gl_ctx, target, _sphere_file(tmp_path, _material(coat, base), "c.gltf")
    )
    assert features == ("CLEARCOAT",)
    # the coat reflects the room's lamp panels sharply: the brightest pixels get brighter,
    # and its colourless reflection lifts green and blue where the base has little
    assert coated[..., :3].sum(-1).max() > plain[..., :3].sum(-1).max() + 60
    assert coated[..., 1].mean() > plain[..., 1].mean() + 2


# -- sheen -------------------------------------------------------------------------------
def test_sheen_brightens_the_grazing_angles(gl_ctx, target, tmp_path):
    ext = {"KHR_materials_sheen": {"sheenColorFactor": [1.0, 1.0, 1.0],
                                   "sheenRoughnessFactor": 0.5}}  # fmt: skip
    plain, _ = _shot(gl_ctx, target, _sphere_file(tmp_path, {"pbrMetallicRoughness": BLACK},
                                                  "p.gltf"))  # fmt: skip
    sheen, features = _shot(gl_ctx, target, _sphere_file(tmp_path, _material(ext), "s.gltf"))
    assert features == ("SHEEN",)
    # near the silhouette (grazing) the sheen adds more than it does facing the eye
    rim = _ring(sheen, 0.85, 0.97).mean() - _ring(plain, 0.85, 0.97).mean()
    middle = _ring(sheen, 0.0, 0.3).mean() - _ring(plain, 0.0, 0.3).mean()
    assert rim > 10 and rim > middle + 5, (rim, middle)


# -- transmission and volume -------------------------------------------------------------
def _glass_scene(tmp_path, name, ext, base=(1.0, 1.0, 1.0, 1.0), behind=(0.1, 0.8, 0.1, 1.0)):
    d = Doc()
    back = {"pbrMetallicRoughness": {"baseColorFactor": list(behind), "metallicFactor": 0.0},
            "extensions": {"KHR_materials_unlit": {}}}  # fmt: skip
    d.node("Back", mesh=d.mesh(quad(6.0, -2.0), back))
    glass = {"pbrMetallicRoughness": {"baseColorFactor": list(base), "metallicFactor": 0.0,
                                      "roughnessFactor": 0.0}, "extensions": ext}  # fmt: skip
    d.node("Glass", mesh=d.mesh(quad(2.0, 0.0), glass))
    return d.write(tmp_path / name)


def test_transmission_shows_what_lies_behind(gl_ctx, target, tmp_path):
    ext = {"KHR_materials_transmission": {"transmissionFactor": 1.0}}
    img, features = _shot(gl_ctx, target, _glass_scene(tmp_path, "t.gltf", ext))
    opaque, _ = _shot(gl_ctx, target, _glass_scene(tmp_path, "o.gltf", {}))
    assert features == ("TRANSMISSION",)
    r, g, b = _centre(img)
    assert g > 150 and g > r + 80 and g > b + 80, (r, g, b)  # the green quad, through it
    r0, g0, b0 = _centre(opaque)
    assert min(r0, g0, b0) > 100, (r0, g0, b0)  # the white quad itself without the extension


def test_volume_attenuation_tints_by_beers_law(gl_ctx, target, tmp_path):
    # Head-on through a 1-unit-thick volume whose attenuationColor (1, 0.25, 0.25) is
    # reached after 1 unit: a white background comes through as (1, 0.25, 0.25) x what
    # passes the surface (1 - F, colourless).
    ext = {"KHR_materials_transmission": {"transmissionFactor": 1.0},
           "KHR_materials_volume": {"thicknessFactor": 1.0, "attenuationDistance": 1.0,
                                    "attenuationColor": [1.0, 0.25, 0.25]}}  # fmt: skip
    path = _glass_scene(tmp_path, "v.gltf", ext, behind=(1.0, 1.0, 1.0, 1.0))
    img, _ = _shot(gl_ctx, target, path)
    r, g, b = (_linear(c) for c in _centre(img))
    assert r > 0.5 and abs(g / r - 0.25) < 0.06 and abs(b / r - 0.25) < 0.06, (r, g, b)


def test_transmission_is_tinted_by_the_base_colour(gl_ctx, target, tmp_path):
    ext = {"KHR_materials_transmission": {"transmissionFactor": 1.0}}
    path = _glass_scene(tmp_path, "b.gltf", ext, base=(1.0, 0.5, 0.5, 1.0), behind=(1, 1, 1, 1))
    r, g, b = (_linear(c) for c in _centre(_shot(gl_ctx, target, path)[0]))
    assert abs(g / r - 0.5) < 0.08 and abs(b / r - 0.5) < 0.08, (r, g, b)


def test_light_brighter_than_the_display_comes_through_tinted_glass(gl_ctx, target, tmp_path):
    # The picture behind the glass is linear light before tone mapping (as three.js's
    # half-float transmission target): a card emitting 3 (shown clipped to white) seen
    # through glass that passes a quarter comes through as 3 x 0.25 x (1 - F), about 0.72,
    # not a quarter of the clipped 1.
    d = Doc()
    strength = {"emissiveStrength": 3.0}
    back = {"pbrMetallicRoughness": {"baseColorFactor": [0.0, 0.0, 0.0, 1.0],
                                     "metallicFactor": 0.0},
            "emissiveFactor": [1.0, 1.0, 1.0],
            "extensions": {"KHR_materials_emissive_strength": strength}}  # fmt: skip
    d.node("Back", mesh=d.mesh(quad(6.0, -2.0), back))
    glass = {"pbrMetallicRoughness": {"baseColorFactor": [0.25, 0.25, 0.25, 1.0],
                                      "metallicFactor": 0.0, "roughnessFactor": 0.0},
             "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1.0}}}  # fmt: skip
    d.node("Glass", mesh=d.mesh(quad(2.0, 0.0), glass))
    img, _ = _shot(
        gl_ctx, target, d.write(tmp_path / "hdr.gltf"), look=Lighting("none", 1.0, "none")
    )
    assert img[5, 5, :3].min() == 255  # the card itself, clipped
    r, g, b = (_linear(c) for c in _centre(img))
    assert 0.6 < g < 0.8 and abs(r - g) < 0.02 and abs(b - g) < 0.02, (r, g, b)


def test_dispersion_bends_no_channel_below_ior_1(gl_ctx, target, tmp_path):
    """KHR_materials_dispersion's Cauchy curve is clamped at ior 1: a dispersion so strong
    that the red channel's ior would fall below 1 (1.5 - 0.5 x 0.025 x 1000) lets red
    through unbent, as glass of no thickness (thin-walled, straight through) lets it,
    while green still refracts at 1.5. Behind: a card whose red and blue vary across it."""

    def glass(name: str, thickness: float) -> Path:
        d = Doc()
        ramp = np.indices((64, 64))[::-1].transpose(1, 2, 0) * 4
        pixels = np.stack([ramp[..., 0], ramp[..., 1] * 0 + 128, ramp[..., 1]], -1)
        back = {"pbrMetallicRoughness": {"baseColorTexture": {"index": d.image(pixels)}},
                "extensions": {"KHR_materials_unlit": {}}}  # fmt: skip
        d.node("Back", mesh=d.mesh(quad(6.0, -2.0), back))
        ext = {"KHR_materials_transmission": {"transmissionFactor": 1.0},
               "KHR_materials_volume": {"thicknessFactor": thickness},
               "KHR_materials_dispersion": {"dispersion": 1000.0}}  # fmt: skip
        clear = {"metallicFactor": 0.0, "roughnessFactor": 0.0}
        d.node("Glass", mesh=d.mesh(sphere(), _material(ext, clear)))
        return d.write(tmp_path / name)

    thick, features = _shot(gl_ctx, target, glass("thick.gltf", 1.0))
    thin, _ = _shot(gl_ctx, target, glass("thin.gltf", 0.0))
    assert "DISPERSION" in features
    ball = lambda img: _ring(img, 0.0, 0.9)  # noqa: E731
    assert np.abs(ball(thick) - ball(thin))[:, 0].max() <= 3  # red: straight through
    assert np.abs(ball(thick) - ball(thin))[:, 2].max() > 30  # blue: bent by the volume


# -- iridescence and anisotropy ---------------------------------------------------------
def test_iridescence_colours_the_reflection(gl_ctx, target, tmp_path):
    ext = {"KHR_materials_iridescence": {"iridescenceFactor": 1.0,
                                         "iridescenceThicknessMaximum": 400.0}}  # fmt: skip
    plain, _ = _shot(gl_ctx, target, _sphere_file(tmp_path, {"pbrMetallicRoughness": BLACK},
                                                  "p.gltf"))  # fmt: skip
    irid, features = _shot(gl_ctx, target, _sphere_file(tmp_path, _material(ext), "i.gltf"))
    assert features == ("IRIDESCENCE",)
    spread = lambda img: np.ptp(_ring(img, 0.0, 0.97), axis=-1).max()  # noqa: E731
    assert spread(plain) <= 6 and spread(irid) > 30, (spread(plain), spread(irid))


def test_a_film_of_no_thickness_reflects_as_the_surface_below(gl_ctx, target, tmp_path):
    # A thin film 0 nm thick is no film: the surface reflects by its own Fresnel, as
    # without the extension (not by a film whose ior has gone to the air's).
    film = {"KHR_materials_iridescence": {"iridescenceFactor": 1.0,
                                          "iridescenceThicknessMaximum": 0.0}}  # fmt: skip
    plain, _ = _shot(gl_ctx, target, _sphere_file(tmp_path, {"pbrMetallicRoughness": BLACK},
                                                  "p.gltf"))  # fmt: skip
    none, features = _shot(gl_ctx, target, _sphere_file(tmp_path, _material(film), "0.gltf"))
    assert features == ("IRIDESCENCE",)
    assert np.abs(none - plain)[..., :3].max() <= 2, np.abs(none - plain)[..., :3].max()


@pytest.mark.parametrize("slot", ["iridescenceTexture", "iridescenceThicknessTexture"])
def test_iridescence_textures_are_sampled(gl_ctx, target, tmp_path, slot):
    """The film's strength is iridescenceTexture's R times the factor; its thickness goes
    from iridescenceThicknessMinimum (G = 0) to the maximum (G = 1). So a texture of 0
    draws as a factor of 0 (R) or a maximum equal to the minimum (G), one of 1 as no
    texture at all."""
    film = {"iridescenceFactor": 1.0, "iridescenceThicknessMinimum": 100.0,
            "iridescenceThicknessMaximum": 400.0}  # fmt: skip
    pictures = []
    for value in (0, 255):
        d = Doc()
        index = d.image(np.full((2, 2, 3), (value, value, 0), np.uint8))
        ext = {"KHR_materials_iridescence": {**film, slot: {"index": index}}}
        d.node("S", mesh=d.mesh(sphere(), _material(ext)))
        pictures.append(_shot(gl_ctx, target, d.write(tmp_path / f"{value}.gltf"))[0])
    zero = {"iridescenceFactor": 0.0} if slot == "iridescenceTexture" else {
        "iridescenceThicknessMaximum": 100.0}  # fmt: skip
    expected = []
    for k, values in enumerate((film | zero, film)):
        ext = {"KHR_materials_iridescence": values}
        expected.append(
            _shot(gl_ctx, target, _sphere_file(tmp_path, _material(ext), f"{k}.gltf"))[0]
        )
    differ = lambda a, b: np.abs(a - b)[..., :3].max()  # noqa: E731
    assert differ(pictures[0], expected[0]) <= 2 and differ(pictures[1], expected[1]) <= 2
    assert differ(expected[0], expected[1]) > 30  # the texture's two values look apart


METAL = {"baseColorFactor": [1, 1, 1, 1], "metallicFactor": 1.0, "roughnessFactor": 0.4}
SHEEN_ON_BLACK = (BLACK, "KHR_materials_sheen", {"sheenColorFactor": [1.0, 1.0, 1.0],
                                                 "sheenRoughnessFactor": 0.8})  # fmt: skip
SPECULAR_ON_BLACK = (BLACK, "KHR_materials_specular", {"specularFactor": 1.0})
ANISOTROPIC = (METAL, "KHR_materials_anisotropy", {"anisotropyStrength": 1.0})


@pytest.mark.parametrize(
    ("material", "slot", "pixel", "same_as"),
    [
        # anisotropyTexture: B scales the strength, RG (from [0, 1] to [-1, 1]) is the
        # direction in the tangent frame before anisotropyRotation turns it (128 is 1/255)
        (ANISOTROPIC, "anisotropyTexture", (255, 128, 0, 255), {"anisotropyStrength": 0.0}),
        (
            ANISOTROPIC,
            "anisotropyTexture",
            (128, 255, 255, 255),
            {"anisotropyRotation": math.atan2(1.0, 1.0 / 255.0)},
        ),
        # specularTexture: A scales the specular factor
        (SPECULAR_ON_BLACK, "specularTexture", (255, 255, 255, 0), {"specularFactor": 0.0}),
        # sheenRoughnessTexture: A scales the sheen roughness
        (
            SHEEN_ON_BLACK,
            "sheenRoughnessTexture",
            (255, 255, 255, 0),
            {"sheenRoughnessFactor": 0.0},
        ),
    ],
)
def test_a_texture_draws_as_the_factors_it_stands_for(gl_ctx, target, tmp_path, material,
                                                      slot, pixel, same_as):  # fmt: skip
    """A one-colour texture draws as the factors the extension's text makes of it, and
    those look unlike the material without the texture (so it is sampled)."""
    pbr, name, factors = material
    d = Doc()
    index = d.image(np.full((2, 2, 4), pixel, np.uint8))
    ext = {name: {**factors, slot: {"index": index}}}
    d.node("S", mesh=d.mesh(sphere(), _material(ext, pbr)))
    textured, _ = _shot(gl_ctx, target, d.write(tmp_path / "t.gltf"))
    expected, _ = _shot(
        gl_ctx, target, _sphere_file(tmp_path, _material({name: factors | same_as}, pbr), "e.gltf")
    )
    untextured, _ = _shot(
        gl_ctx, target, _sphere_file(tmp_path, _material({name: factors}, pbr), "u.gltf")
    )
    differ = lambda a, b: np.abs(a - b)[..., :3].max()  # noqa: E731
    assert differ(textured, expected) <= 3, differ(textured, expected)
    assert differ(expected, untextured) > 20, differ(expected, untextured)


def test_anisotropy_changes_with_its_rotation(gl_ctx, target, tmp_path):
    metal = {"baseColorFactor": [1, 1, 1, 1], "metallicFactor": 1.0, "roughnessFactor": 0.4}
    pics = []
    for k, rotation in enumerate((0.0, 1.5707963)):
        ext = {"KHR_materials_anisotropy": {"anisotropyStrength": 1.0,
                                            "anisotropyRotation": rotation}}  # fmt: skip
        path = _sphere_file(tmp_path, _material(ext, metal), f"a{k}.gltf")
        pics.append(_shot(gl_ctx, target, path)[0])
    plain, _ = _shot(gl_ctx, target, _sphere_file(tmp_path, {"pbrMetallicRoughness": metal},
                                                  "p.gltf"))  # fmt: skip
    diff = lambda a, b: np.abs(a[..., :3] - b[..., :3]).mean()  # noqa: E731
    assert diff(pics[0], plain) > 2 and diff(pics[0], pics[1]) > 2


# -- specular-glossiness ----------------------------------------------------------------
def test_specular_glossiness_converts_as_metal_rough_writes_it(tmp_path):
    d = Doc()
    sg = np.zeros((2, 2, 4), np.uint8)
    sg[..., :3] = (40, 80, 120)
    sg[..., 3] = [[0, 100], [200, 255]]
    tex = d.image(sg)
    material = {"extensions": {"KHR_materials_pbrSpecularGlossiness": {
        "diffuseFactor": [0.8, 0.4, 0.2, 0.9], "specularFactor": [0.3, 0.2, 0.1],
        "glossinessFactor": 0.6}}}  # fmt: skip
    d.node("Q", mesh=d.mesh(quad(), material))
    m = next(iter(load_scene(d.write(tmp_path / "a.gltf")).surfaces.values())).parts[0].material
    assert m.base_color == (0.8, 0.4, 0.2, 0.9) and m.metallic == 0.0
    assert m.roughness == pytest.approx(0.4) and m.specular_color == (0.3, 0.2, 0.1)
    assert m.specular == 1.0 and m.ior == 1000.0
    ext = d.doc["materials"][0]["extensions"]["KHR_materials_pbrSpecularGlossiness"]
    ext["specularGlossinessTexture"] = {"index": tex}
    ext["diffuseTexture"] = {"index": tex}
    m = next(iter(load_scene(d.write(tmp_path / "b.gltf")).surfaces.values())).parts[0].material
    assert m.roughness == 1.0 and m.base_color_texture is not None
    rough = m.metallic_roughness_texture.image.pixels
    want = 255 - np.round(sg[..., 3] * 0.6)
    assert np.array_equal(rough[..., 1], want.astype(np.uint8))
    assert not rough[..., 2].any()  # metallic 0
    assert m.specular_color_texture.image.pixels[0, 0, :3].tolist() == [40, 80, 120]


# -- variants ----------------------------------------------------------------------------
def _variants_file(tmp_path) -> Path:
    d = Doc()
    green = {"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]},
             "extensions": {"KHR_materials_unlit": {}}}  # fmt: skip
    d.node("Q", mesh=d.mesh(quad(), green))
    for colour in ([0, 0, 1, 1], [1, 0, 0, 1]):
        d.doc["materials"].append({"pbrMetallicRoughness": {"baseColorFactor": colour},
                                   "extensions": {"KHR_materials_unlit": {}}})  # fmt: skip
    d.doc["extensions"] = {"KHR_materials_variants": {"variants": [{"name": "Blue"},
                                                                   {"name": "Red"}]}}  # fmt: skip
    mappings = [{"material": 1, "variants": [0]}, {"material": 2, "variants": [1]}]
    d.doc["meshes"][0]["primitives"][0]["extensions"] = {
        "KHR_materials_variants": {"mappings": mappings}
    }
    return d.write(tmp_path / "v.gltf")


def test_variants_switch_the_material_of_the_mapped_primitive(gl_ctx, target, tmp_path):
    scene = load_scene(_variants_file(tmp_path))
    assert variant_names(scene.surfaces) == ["Blue", "Red"]
    seen = {}
    for name in (None, "Blue", "Red", None):
        for key, surface in scene.surfaces.items():
            scene.surfaces[key] = with_variant(surface, name)
        seen[name] = tuple(_centre(_shot(gl_ctx, target, None, scene=scene)[0]).round())
    assert seen[None] == (0, 255, 0) and seen["Blue"] == (0, 0, 255) and seen["Red"] == (255, 0, 0)


def test_variant_on_the_command_line(tmp_path, capsys):
    from viewer.cli.main import main

    path = _variants_file(tmp_path)
    shot = tmp_path / "red.png"
    assert main([str(path), "--headless", "--size", "64x64", "--no-overlay", "--variant", "Red",
                 "--screenshot", str(shot)]) == 0  # fmt: skip
    from PIL import Image

    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert img[32, 32].tolist() == [255, 0, 0]
    capsys.readouterr()
    assert main([str(path), "--headless", "--variant", "Plum"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'Plum'" in err and "'Blue', 'Red'" in err, err


# -- bad values ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ext", "needle"),
    [
        ({"KHR_materials_clearcoat": {"clearcoatFactor": "thick"}}, "clearcoatFactor must be"),
        ({"KHR_materials_volume": {"attenuationDistance": 0}}, "attenuationDistance must be"),
        ({"KHR_materials_sheen": {"sheenColorFactor": [1, 1]}}, "sheenColorFactor must be 3"),
        ({"KHR_materials_ior": {"ior": None}}, "ior must be a finite number"),
        ({"KHR_materials_transmission": []}, "KHR_materials_transmission must be an object"),
        ({"KHR_materials_pbrSpecularGlossiness": {"glossinessFactor": True}}, "glossinessFactor"),
    ],
)
def test_bad_extension_values_are_one_line_errors(tmp_path, ext, needle):
    path = _sphere_file(tmp_path, _material(ext), "bad.gltf")
    with pytest.raises(SceneError, match=needle) as err:
        load_scene(path)
    message = str(err.value)
    assert "\n" not in message and "material 0" in message and "bad.gltf" in message, message


def test_a_mapping_to_an_unknown_variant_is_one_line(tmp_path):
    path = _variants_file(tmp_path)
    text = path.read_text().replace('"variants": [1]', '"variants": [7]')
    path.write_text(text)
    with pytest.raises(SceneError, match="7 is not a variant index") as err:
        load_scene(path)
    assert "\n" not in str(err.value) and "mesh 0" in str(err.value)


# -- the clearcoat's own normal -----------------------------------------------------------
def _coated_quad(tmp_path, name, coat_normal=None, base_normal=None) -> Path:
    """A black rough quad under a smooth coat, lit head-on by a directional light: only
    the coat's highlight shows, where its normal faces the light (and the eye)."""
    d = Doc()
    coat: dict = {"clearcoatFactor": 1.0, "clearcoatRoughnessFactor": 0.2}
    material = _material({"KHR_materials_clearcoat": coat},
                         {"baseColorFactor": [0, 0, 0, 1], "metallicFactor": 0.0,
                          "roughnessFactor": 1.0})  # fmt: skip
    if coat_normal is not None:
        coat["clearcoatNormalTexture"] = {"index": d.image(np.full((2, 2, 3), coat_normal,
                                                                   np.uint8))}  # fmt: skip
    if base_normal is not None:
        material["normalTexture"] = {"index": d.image(np.full((2, 2, 3), base_normal, np.uint8))}
    d.node("Q", mesh=d.mesh(quad(), material))
    d.doc["extensions"] = {"KHR_lights_punctual": {"lights": [
        {"type": "directional", "intensity": 2.0}]}}  # fmt: skip
    d.node("Sun", extensions={"KHR_lights_punctual": {"light": 0}})
    return d.write(tmp_path / name)


def test_the_clearcoat_has_its_own_normal(gl_ctx, target, tmp_path):
    # KHR_materials_clearcoat: the coat's normal is its clearcoatNormalTexture, else the
    # geometry's normal, never the base's normal texture.
    dark = Lighting(tone_mapping="none", environment="none")

    def centre(name, **normals):
        img, _ = _shot(gl_ctx, target, _coated_quad(tmp_path, name, **normals), look=dark)
        return _centre(img).sum()

    plain = centre("a.gltf")
    tilted_coat = centre("b.gltf", coat_normal=(255, 128, 255))  # 45 degrees off
    tilted_base = centre("c.gltf", base_normal=(255, 128, 255))
    assert plain > 300, plain  # the coat's highlight, head-on
    assert tilted_coat < plain / 4, (plain, tilted_coat)
    assert abs(tilted_base - plain) <= 12, (plain, tilted_base)


def test_one_program_per_feature_set_counting_the_variants_materials():
    from viewer.materials import Material, MeshPart, MeshSurface
    from viewer.render.material_uniforms import program_defines

    coat = Material(clearcoat=1.0, extensions=frozenset({"KHR_materials_clearcoat"}))
    glass = Material(transmission=1.0, extensions=frozenset({"KHR_materials_transmission"}))
    part = MeshPart(0, 3, Material(), variants=(("Glass", glass),))
    colours = np.ones((3, 4), np.float32)
    surfaces = [MeshSurface(colours, parts=(part,)),
                MeshSurface(colours, parts=(MeshPart(0, 3, coat),))]  # fmt: skip
    assert program_defines(surfaces) == ("CLEARCOAT", "TRANSMISSION")
    assert program_defines(surfaces[1:]) == ("CLEARCOAT",)
    assert program_defines([MeshSurface(colours)]) == ()
