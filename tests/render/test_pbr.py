"""glTF materials, transparency and culling as the glTF 2.0 specification defines them,
on files built in code, checked at known pixels.

Expected values come from the specification: the metallic-roughness BRDF (appendix B:
F0 = mix(0.04, base colour, metallic), no diffuse for metals), alpha modes (3.9.4),
double-sided and mirrored faces (3.9.5, 3.7.4), KHR_materials_emissive_strength,
KHR_materials_unlit and KHR_texture_transform (their own texts), linear colours written
sRGB-encoded.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_looks.py

from gltf_looks import Doc, quad, sphere  # noqa: E402
from render_helpers import draw, light  # noqa: E402
from test_materials import srgb  # noqa: E402

from viewer.io import load_scene  # noqa: E402
from viewer.palette import GLOW_LOCAL  # noqa: E402
from viewer.render.camera import Camera  # noqa: E402
from viewer.render.frame_view import ViewSettings  # noqa: E402
from viewer.render.lights import Lighting  # noqa: E402
from viewer.render.renderer import Renderer  # noqa: E402

SIZE = (160, 160)
RED = [1.0, 0.0, 0.0, 1.0]


def _shot(gl_ctx, target, path, *, unlit=False, highlight=None, eye=(0.0, 0.0, 6.0),
          look=None):  # fmt: skip
    """The picture of `path` seen from `eye` looking at the origin (`look`: a
    `lights.Lighting`, default the default one); returns (image, at) where at(x, y, z) is the
    pixel of a world point."""
    scene = load_scene(path)
    scene.graph.update()
    r = Renderer(gl_ctx, scene, look)
    view = ViewSettings(unlit=unlit, show_grid=False, show_axes=False, show_links=False)
    if highlight is not None:
        light(r, dict.fromkeys(range(len(scene.graph)), highlight), view)
    cam = Camera()
    cam.look_from(eye, (0.0, 0.0, 0.0))
    cam.extent = 10.0
    draw(r, target.fbo, cam, SIZE, view)
    img = target.read().astype(int)
    r.release()

    def at(x, y, z=0.0):
        px, py, _ = cam.project([(x, y, z)], SIZE)[0]
        return img[int(py), int(px)]

    return img, at


def _near(got, want, tol=4) -> bool:
    return bool(np.all(np.abs(np.asarray(got, int) - np.asarray(want, int)) <= tol))


def _one(tmp_path, material, geometry=None, name="q.gltf", **node):
    d = Doc()
    d.node("Q", mesh=d.mesh(geometry or quad(), material), **node)
    return d.write(tmp_path / name)


# -- the BRDF -----------------------------------------------------------------------------
def test_a_metal_reflects_in_its_own_colour_a_dielectric_in_white(gl_ctx, target, tmp_path):
    # F0 = base colour for metals, 0.04 (colourless) for dielectrics, and metals have no
    # diffuse term. On a red sphere the green and blue channels come from the colourless
    # part of the reflection only: for a metal Schlick's rise towards white at grazing
    # angles (F90 = 1, the table's bias), for a dielectric that plus F0 = 0.04 at every
    # angle, so the dielectric's green and blue are clearly above the metal's. Facing the
    # eye (n.v = 1) the metal's bias is 0: pure red. Without tone mapping: the Neutral
    # one rolls a reflected lamp panel of the room off towards white, as it should.
    points = [(0.0, 0.0, 1.0), (-0.5, 0.3, 0.81), (-0.3, 0.2, 0.93)]  # off the highlight
    seen = {}
    for metallic in (0.0, 1.0):
        pbr = {"baseColorFactor": RED, "metallicFactor": metallic, "roughnessFactor": 0.4}
        path = _one(tmp_path, {"pbrMetallicRoughness": pbr}, sphere(), f"s{metallic}.gltf")
        _, at = _shot(gl_ctx, target, path, eye=(0.0, 0.0, 4.0), look=Lighting(tone_mapping="none"))
        seen[metallic] = [at(*p) for p in points]
    for p, (r, g, b), metal in zip(points, seen[0.0], seen[1.0], strict=True):
        assert r > 90 and metal[0] > 90, (p, r, metal)
        assert max(metal[1:]) <= 30 and min(g, b) >= max(metal[1:]) + 15, (p, g, b, metal)
    assert max(seen[1.0][0][1:]) <= 2, seen[1.0][0]  # head-on: no F90 term


def test_a_smooth_metal_mirrors_the_environment_a_rough_one_does_not(gl_ctx, target, tmp_path):
    # A mirror-like white metal shows the room's edges and lamp panels as sharp steps in
    # its reflection; a rough one blurs them into a gradient.
    steps = {}
    for roughness in (0.0, 1.0):
        pbr = {"baseColorFactor": [1, 1, 1, 1], "metallicFactor": 1.0,
               "roughnessFactor": roughness}  # fmt: skip
        path = _one(tmp_path, {"pbrMetallicRoughness": pbr}, sphere(), f"r{roughness}.gltf")
        img = _shot(gl_ctx, target, path, eye=(0.0, 0.0, 4.0))[0]
        # the sphere spans about 48 pixels each side of the centre: its inner rows
        column = img[SIZE[1] // 2 - 36 : SIZE[1] // 2 + 36, SIZE[0] // 2 + 8].sum(axis=1)
        steps[roughness] = np.abs(np.diff(column)).max()
    assert steps[0.0] > 3 * steps[1.0], steps


def test_an_emissive_quad_glows_in_the_dark(gl_ctx, target, tmp_path):
    dark = {"baseColorFactor": [0, 0, 0, 1], "metallicFactor": 0.0}
    plain = _shot(gl_ctx, target, _one(tmp_path, {"pbrMetallicRoughness": dark}, name="a.gltf"))
    lit = {"pbrMetallicRoughness": dark, "emissiveFactor": [0.0, 1.0, 0.0]}
    glowing = _shot(gl_ctx, target, _one(tmp_path, lit, name="b.gltf"))
    strong = {
        "pbrMetallicRoughness": dark,
        "emissiveFactor": [0.0, 0.25, 0.0],
        "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}},
    }
    boosted = _shot(gl_ctx, target, _one(tmp_path, strong, name="c.gltf"))
    assert plain[1](0, 0)[1] < 40  # a black dielectric: only a faint reflection
    g = glowing[1](0, 0)
    assert g[1] > 220 and g[0] < 60 and g[2] < 60, g
    assert _near(boosted[1](0, 0), g, 2)  # 0.25 x 4 = 1


def test_unlit_shows_the_base_colour_as_is(gl_ctx, target, tmp_path):
    grey = {"pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.25, 0.125, 1.0]},
            "extensions": {"KHR_materials_unlit": {}}}  # fmt: skip
    for eye in ((0.0, 0.0, 6.0), (4.0, 1.0, 4.0)):  # whatever the light and the view
        _, at = _shot(gl_ctx, target, _one(tmp_path, grey), eye=eye)
        assert _near(at(0, 0), (srgb(0.5), srgb(0.25), srgb(0.125)), 2), at(0, 0)


def test_the_glow_reads_on_top_of_every_material(gl_ctx, target, tmp_path):
    glow = np.array([round(255 * c) for c in GLOW_LOCAL])
    materials = {
        "metal": {"pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.9, 0.9, 1],
                                           "roughnessFactor": 0.1}},
        "emissive": {"emissiveFactor": [0.0, 1.0, 1.0]},
        "blend": {"pbrMetallicRoughness": {"baseColorFactor": [0, 0, 1, 0.2]},
                  "alphaMode": "BLEND"},
        "unlit": {"extensions": {"KHR_materials_unlit": {}}},
    }  # fmt: skip
    for name, material in materials.items():
        _, at = _shot(gl_ctx, target, _one(tmp_path, material, name=f"{name}.gltf"),
                      highlight=-1.0)  # fmt: skip
        got = at(0, 0)
        # full strength: the glow colour with a little shading
        assert np.all(np.abs(got - glow) <= 0.22 * 255), (name, got)


# -- alpha ----------------------------------------------------------------------------------
def _halves(alpha_left: int, alpha_right: int) -> np.ndarray:
    """A 2 x 2 white texture whose left column has alpha `alpha_left`."""
    px = np.full((2, 2, 4), 255, np.uint8)
    px[:, 0, 3], px[:, 1, 3] = alpha_left, alpha_right
    return px


def test_mask_cuts_out_and_opaque_ignores_alpha(gl_ctx, target, tmp_path):
    nearest = {"magFilter": 9728, "minFilter": 9728}
    results = {}
    for mode in ("MASK", "OPAQUE"):
        d = Doc()
        tex = d.image(_halves(40, 200), nearest)
        material = {"pbrMetallicRoughness": {"baseColorTexture": {"index": tex},
                                             "baseColorFactor": [0, 1, 0, 1]},
                    "alphaMode": mode, "alphaCutoff": 0.5}  # fmt: skip
        d.node("Q", mesh=d.mesh(quad(), material))
        results[mode] = _shot(gl_ctx, target, d.write(tmp_path / f"{mode}.gltf"), unlit=True)
    empty = Doc()
    empty.node("nothing")
    background, _ = _shot(gl_ctx, target, empty.write(tmp_path / "e.gltf"), unlit=True)
    _, at = results["MASK"]
    left, right = at(-0.5, 0.0), at(0.5, 0.0)
    assert _near(right, (0, 255, 0)), right
    ox, oy = _pixel_of(-0.5, 0.0)
    assert _near(left, background[oy, ox]), (left, background[oy, ox])  # cut out
    _, at_opaque = results["OPAQUE"]
    assert _near(at_opaque(-0.5, 0.0), (0, 255, 0))  # OPAQUE: alpha is ignored


def _pixel_of(x, y):
    """(column, row) of world point (x, y, 0) in `_shot`'s default view."""
    c = Camera()
    c.look_from((0.0, 0.0, 6.0), (0.0, 0.0, 0.0))
    c.extent = 10.0
    px, py, _ = c.project([(x, y, 0.0)], SIZE)[0]
    return int(px), int(py)


def _blend_scene(tmp_path, order, name):
    """A red opaque quad at z = 0, a green BLEND quad (alpha 0.5) at z = 1 and a blue one
    at z = 2, written to the file in `order`."""
    d = Doc()
    d.node("Red", mesh=d.mesh(quad(4.0), {"pbrMetallicRoughness": {"baseColorFactor": RED}}))
    layers = {"green": ([0, 1, 0, 0.5], 1.0), "blue": ([0, 0, 1, 0.5], 2.0)}
    for key in order:
        color, z = layers[key]
        material = {"pbrMetallicRoughness": {"baseColorFactor": color}, "alphaMode": "BLEND"}
        d.node(key, mesh=d.mesh(quad(2.0), material), translation=[0, 0, z])
    return d.write(tmp_path / name)


@pytest.mark.parametrize("order", [("green", "blue"), ("blue", "green")])
def test_blend_mixes_back_to_front_whatever_the_file_order(gl_ctx, target, tmp_path, order):
    _, at = _shot(gl_ctx, target, _blend_scene(tmp_path, order, "b.gltf"), unlit=True)
    # blue over (green over red): 0.5 blue + 0.25 green + 0.25 red, in display values
    assert _near(at(0, 0, 2.0), (64, 64, 128), 3), at(0, 0, 2.0)


def test_a_blend_quad_over_red_is_mixed(gl_ctx, target, tmp_path):
    _, at = _shot(gl_ctx, target, _blend_scene(tmp_path, ("blue",), "b.gltf"), unlit=True)
    assert _near(at(0, 0, 2.0), (128, 0, 128), 3), at(0, 0, 2.0)  # half blue, half red
    assert _near(at(1.8, 1.8, 0.0), (255, 0, 0), 3)  # beside it: the red quad alone


# -- faces ----------------------------------------------------------------------------------
@pytest.mark.parametrize("double", [False, True])
def test_back_faces_are_culled_unless_double_sided(gl_ctx, target, tmp_path, double):
    material = {"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]},
                "doubleSided": double}  # fmt: skip
    path = _one(tmp_path, material)
    _, front = _shot(gl_ctx, target, path, unlit=True)
    _, back = _shot(gl_ctx, target, path, unlit=True, eye=(0.0, 0.0, -6.0))
    assert _near(front(0, 0), (0, 255, 0))
    assert _near(back(0, 0), (0, 255, 0)) == double, back(0, 0)


def test_a_mirrored_node_keeps_its_front_faces(gl_ctx, target, tmp_path):
    # scale -1 along X reverses the winding; glTF says the front face flips with it, so
    # the quad still shows from +Z and is culled from -Z
    material = {"pbrMetallicRoughness": {"baseColorFactor": [0, 1, 0, 1]}}
    path = _one(tmp_path, material, scale=[-1.0, 1.0, 1.0])
    _, front = _shot(gl_ctx, target, path, unlit=True)
    _, back = _shot(gl_ctx, target, path, unlit=True, eye=(0.0, 0.0, -6.0))
    assert _near(front(0, 0), (0, 255, 0)) and not _near(back(0, 0), (0, 255, 0))


# -- textures -------------------------------------------------------------------------------
def _four() -> np.ndarray:
    """2 x 2: red, green on the top row; blue, white below."""
    return np.array([[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [255, 255, 255]]], np.uint8)


def test_texture_transform_offset_rotation_scale(gl_ctx, target, tmp_path):
    nearest = {"magFilter": 9728, "minFilter": 9728}
    d = Doc()
    tex = d.image(_four(), nearest)
    # offset (0.5, 0): u' = u + 0.5, so the quad's left half shows the texture's right
    # column, its right half wraps around to the left column
    info = {"index": tex, "extensions": {"KHR_texture_transform": {"offset": [0.5, 0.0]}}}
    d.node("Q", mesh=d.mesh(quad(), {"pbrMetallicRoughness": {"baseColorTexture": info}}))
    _, at = _shot(gl_ctx, target, d.write(tmp_path / "t.gltf"), unlit=True)
    assert _near(at(-0.5, 0.5), (0, 255, 0)) and _near(at(0.5, 0.5), (255, 0, 0))
    assert _near(at(-0.5, -0.5), (255, 255, 255)) and _near(at(0.5, -0.5), (0, 0, 255))
    # rotation pi/2 with scale 1: (u, v) -> (v, -u), counter-clockwise in UV space (v
    # down; KhronosGroup/glTF issue 1563: the extension's GLSL listing has it transposed);
    # the quad's point (u, v) = (0.25, 0.25) reads (0.25, -0.25) = (0.25, 0.75): blue
    d = Doc()
    tex = d.image(_four(), nearest)
    ext = {"KHR_texture_transform": {"rotation": np.pi / 2}}
    info = {"index": tex, "extensions": ext}
    d.node("Q", mesh=d.mesh(quad(), {"pbrMetallicRoughness": {"baseColorTexture": info}}))
    _, at = _shot(gl_ctx, target, d.write(tmp_path / "r.gltf"), unlit=True)
    assert _near(at(-0.5, 0.5), (0, 0, 255)), at(-0.5, 0.5)  # uv (0.25, 0.25)
    assert _near(at(0.5, 0.5), (255, 0, 0)), at(0.5, 0.5)  # uv (0.75, 0.25) -> (0.25, 0.25)


def test_a_texture_reads_its_texcoord_set(gl_ctx, target, tmp_path):
    nearest = {"magFilter": 9728, "minFilter": 9728}
    d = Doc()
    tex = d.image(_four(), nearest)
    geometry = quad()
    uv1 = 1.0 - geometry[2]  # both axes flipped
    info = {"index": tex, "texCoord": 1}
    d.node("Q", mesh=d.mesh(geometry, {"pbrMetallicRoughness": {"baseColorTexture": info}},
                            uv1=uv1))  # fmt: skip
    _, at = _shot(gl_ctx, target, d.write(tmp_path / "t.gltf"), unlit=True)
    assert _near(at(-0.5, 0.5), (255, 255, 255)) and _near(at(0.5, -0.5), (255, 0, 0))


def test_base_colour_textures_are_srgb(gl_ctx, target, tmp_path):
    # a texel of 188 (sRGB for 0.5) times a factor of 0.5 is 0.25 linear: written 137
    d = Doc()
    tex = d.image(np.full((2, 2, 3), 188, np.uint8))
    pbr = {"baseColorTexture": {"index": tex}, "baseColorFactor": [0.5, 0.5, 0.5, 1.0]}
    d.node("Q", mesh=d.mesh(quad(), {"pbrMetallicRoughness": pbr}))
    _, at = _shot(gl_ctx, target, d.write(tmp_path / "t.gltf"), unlit=True)
    assert _near(at(0, 0), [srgb(0.25)] * 3, 2), at(0, 0)


# -- normal and occlusion textures ------------------------------------------------------------
def _lit_quad(tmp_path, name, extra: dict) -> Path:
    """A white rough dielectric quad facing +Z, lit by a directional light shining down
    -Z (head-on), with `extra` material fields."""
    d = Doc()
    material = {
        "pbrMetallicRoughness": {
            "baseColorFactor": [0.6, 0.6, 0.6, 1],
            "metallicFactor": 0.0,
            "roughnessFactor": 1.0,
        }
    }
    for key, value in extra.items():
        if key in ("normal", "occlusion"):
            pixel, field = value
            tex = d.image(np.full((2, 2, 3), pixel, np.uint8))
            material[f"{key}Texture"] = {"index": tex, **field}
    d.node("Q", mesh=d.mesh(quad(), material))
    d.doc["extensions"] = {"KHR_lights_punctual": {"lights": [
        {"type": "directional", "intensity": 2.0}]}}  # fmt: skip
    d.node("Sun", extensions={"KHR_lights_punctual": {"light": 0}})
    return d.write(tmp_path / name)


def test_a_normal_texture_tilts_the_shading_normal(gl_ctx, target, tmp_path):
    # the file's head-on light alone (the room around would light the tilted side too)
    def centre(name, extra):
        path = _lit_quad(tmp_path, name, extra)
        return int(_shot(gl_ctx, target, path, look=Lighting(environment="none"))[1](0, 0).sum())

    plain = centre("a.gltf", {})
    flat = centre("b.gltf", {"normal": ((128, 128, 255), {})})  # (0, 0, 1): unchanged
    # (1, 0, 1)/sqrt 2 in tangent space: 45 degrees off the light, N.L = 0.71
    tilted = centre("c.gltf", {"normal": ((255, 128, 255), {})})
    unscaled = centre("d.gltf", {"normal": ((255, 128, 255), {"scale": 0.0})})
    assert abs(flat - plain) <= 6 and abs(unscaled - plain) <= 6, (plain, flat, unscaled)
    assert tilted < plain - 30, (plain, tilted)


def test_occlusion_darkens_the_environment_by_its_strength(gl_ctx, target, tmp_path):
    def centre(name, extra):
        return int(_shot(gl_ctx, target, _lit_quad(tmp_path, name, extra))[1](0, 0).sum())

    plain = centre("a.gltf", {})
    occluded = centre("b.gltf", {"occlusion": ((0, 0, 0), {})})
    none = centre("c.gltf", {"occlusion": ((0, 0, 0), {"strength": 0.0})})
    assert abs(none - plain) <= 3 and occluded < plain - 15, (plain, occluded, none)


def test_many_blended_instances_are_drawn_per_part(gl_ctx, target, tmp_path):
    # more (instance, part) pairs than are sorted one by one: each part is drawn for all
    # its instances at once, still blended over the opaque scene
    d = Doc()
    d.node("Red", mesh=d.mesh(quad(4.0), {"pbrMetallicRoughness": {"baseColorFactor": RED}}))
    blue = {"pbrMetallicRoughness": {"baseColorFactor": [0, 0, 1, 0.5]}, "alphaMode": "BLEND"}
    mesh = d.mesh(quad(0.5), blue)
    for k in range(600):  # a 30 x 20 sheet of small quads, 1 unit in front of the red
        d.node(f"b{k}", mesh=mesh, translation=[(k % 30 - 14.5) * 0.5, (k // 30 - 9.5) * 0.5, 1])
    _, at = _shot(gl_ctx, target, d.write(tmp_path / "many.gltf"), unlit=True)
    assert _near(at(0.25, 0.25, 1.0), (128, 0, 128), 3), at(0.25, 0.25, 1.0)


def test_material_values_out_of_range_are_clamped_and_non_numbers_refused(tmp_path):
    from viewer.io import SceneError

    d = Doc()
    tex = d.image(np.full((2, 2, 3), 128, np.uint8))
    material = {"pbrMetallicRoughness": {"metallicFactor": 1.5, "roughnessFactor": -0.5},
                "normalTexture": {"index": tex, "scale": -2.0},  # valid: any number
                "occlusionTexture": {"index": tex, "strength": 3.0}}  # fmt: skip
    d.node("Q", mesh=d.mesh(quad(), material))
    scene = load_scene(d.write(tmp_path / "q.gltf"))
    m = next(iter(scene.surfaces.values())).parts[0].material
    assert (m.metallic, m.roughness) == (1.0, 0.0)
    assert m.normal_texture.scale == -2.0 and m.occlusion_texture.scale == 1.0
    d.doc["materials"][0]["pbrMetallicRoughness"]["metallicFactor"] = "shiny"
    with pytest.raises(SceneError, match="metallicFactor must be a finite number") as err:
        load_scene(d.write(tmp_path / "bad.gltf"))
    assert "\n" not in str(err.value) and "material 0" in str(err.value)


def test_a_texture_on_texcoord_2_is_left_out_with_one_note(tmp_path, capsys):
    from viewer.cli.main import main

    d = Doc()
    tex = d.image(_four())
    for k in range(2):  # two materials doing it: still one note
        info = {"index": tex, "texCoord": 2 + k}
        d.node(f"Q{k}", mesh=d.mesh(quad(), {"pbrMetallicRoughness": {"baseColorTexture": info}}))
    path = d.write(tmp_path / "t.gltf")
    m = next(iter(load_scene(path).surfaces.values())).parts[0].material
    assert m.base_color_texture is None
    assert main([str(path), "--headless", "--frames", "1", "--size", "32x32",
                 "--no-overlay"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TEXCOORD_2 or beyond" in err, err
