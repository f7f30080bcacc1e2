"""`--save OUT.glb` writes what the scene showed: colours and sides.

sgview draws a bundled scene's built-in meshes in display values (a TOML ``"#rrggbb"`` is
``rr / 255``..., sRGB-encoded), while glTF's ``baseColorFactor`` and ``COLOR_0`` are linear
and a glTF viewer encodes its result to sRGB. So the file holds each colour decoded with
the sRGB formula (IEC 61966-2-1, the glTF specification's reference; the expected values
here come from that formula, tests/io/scene_helpers.py), and the saved file, opened again,
draws every node's colour within 1/255 of the TOML scene's. Flat built-in shapes (`disk`,
`rect`) are written double-sided: sgview draws them from both sides, glTF culls back
faces otherwise (Saturn's rings seen from above).
"""

from __future__ import annotations

import json

import numpy as np
import pygltflib
import pytest
from scene_helpers import SCENE_FILES, srgb_decoded, srgb_encoded

from viewer.content import meshes as builders
from viewer.io import load_scene
from viewer.io.gltf_write.export import build_gltf, save_gltf

SUFFIXES = [".glb", ".gltf"]
#: Built-in kinds with an open surface: their back faces show.
FLAT = {"disk", "rect"}
ONE_LEVEL = 1 / 255


def _materials_of_nodes(path):
    """{node name: (its mesh's material entry, the mesh's name)} of a written file."""
    doc = pygltflib.GLTF2.load(str(path))
    found = {}
    for node in doc.nodes:
        if node.mesh is None:
            continue
        mesh = doc.meshes[node.mesh]
        (prim,) = mesh.primitives
        found[node.name] = (json.loads(doc.materials[prim.material].to_json()), mesh.name)
    return found


def _shown_by_toml(scene, node_id) -> np.ndarray:
    """Per vertex, the display colour sgview draws a built-in mesh in (a painted vertex's
    own colour replacing the look's by its alpha)."""
    look = scene.look(node_id)
    made = builders.builtin(look.mesh)
    alpha = made.vcolors[:, 3:4].astype(np.float64)
    return (1 - alpha) * np.asarray(look.color) + alpha * made.vcolors[:, :3]


def _shown_by_gltf(scene, node_id) -> np.ndarray:
    """Per vertex, the display colour sgview's glTF pass draws: the sRGB encoding of the
    linear base colour factor times COLOR_0 (unlit; the lighting is the same for both)."""
    look = scene.look(node_id)
    surface = scene.surfaces[look.mesh]
    (part,) = surface.parts
    linear = np.asarray(part.material.base_color[:3]) * surface.vcolors[:, :3]
    return np.array([srgb_encoded(v) for v in linear])


def test_the_example_colour_is_written_linear(tmp_path):
    """The issue's own example: "#4c72b0" is 0.298 0.447 0.690 on screen and
    0.0723 0.1683 0.4342 in linear light."""
    scene = next(load_scene(p) for p in SCENE_FILES if p.stem == "tree10")
    blue = next(
        n for n in scene.graph if scene.look(n.id).color == (0x4C / 255, 0x72 / 255, 0xB0 / 255)
    )
    save_gltf(scene, tmp_path / "t.glb")
    material, _ = _materials_of_nodes(tmp_path / "t.glb")[blue.name]
    factor = material["pbrMetallicRoughness"]["baseColorFactor"]
    np.testing.assert_allclose(factor[:3], [0.0722719, 0.1682694, 0.4341536], atol=1e-7)
    assert factor[3] == 1.0


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("path", SCENE_FILES, ids=[p.stem for p in SCENE_FILES])
def test_every_bundled_scene_is_written_linear_and_flat_shapes_double_sided(path, tmp_path, suffix):
    scene = load_scene(path)
    out = tmp_path / f"out{suffix}"
    save_gltf(scene, out)
    written = _materials_of_nodes(out)
    drawn = 0
    for node in scene.graph:
        look = scene.look(node.id)
        if look.mesh == "none":
            assert node.name not in written
            continue
        material, kind = written[node.name]
        assert kind == look.mesh
        assert material.get("doubleSided", False) == (look.mesh in FLAT), node.name
        if not (builders.builtin(look.mesh).vcolors[:, 3] > 0).any():
            factor = material["pbrMetallicRoughness"]["baseColorFactor"]
            np.testing.assert_allclose(factor[:3], srgb_decoded(look.color), rtol=0, atol=1e-9)
            drawn += 1
    assert drawn > 0
    assert any(m.get("doubleSided") for m, _ in written.values()) == any(
        scene.look(n.id).mesh in FLAT for n in scene.graph
    )


@pytest.mark.parametrize("path", SCENE_FILES, ids=[p.stem for p in SCENE_FILES])
def test_a_saved_scene_opens_in_the_colours_it_showed(path, tmp_path):
    """TOML -> glTF -> sgview: every drawn node, every vertex, within 1/255 per channel;
    saved once more from the opened file, the colours are not converted twice."""
    scene = load_scene(path)
    save_gltf(scene, tmp_path / "a.glb")
    again = load_scene(tmp_path / "a.glb")
    for a, b in zip(scene.graph, again.graph, strict=True):
        if scene.look(a.id).mesh == "none":
            continue
        want, got = _shown_by_toml(scene, a.id), _shown_by_gltf(again, b.id)
        np.testing.assert_allclose(got, want, rtol=0, atol=ONE_LEVEL, err_msg=a.name)
    save_gltf(again, tmp_path / "b.glb")
    assert (
        build_gltf(load_scene(tmp_path / "b.glb")).doc["materials"]
        == (build_gltf(again).doc["materials"])
    )
    assert _materials_of_nodes(tmp_path / "b.glb") == _materials_of_nodes(tmp_path / "a.glb")


def test_painted_vertices_are_written_linear(tmp_path):
    """The axes gizmo's arms: COLOR_0 holds the linear value of each vertex's shown colour
    (a white factor), and the opened file draws them as the TOML scene did."""
    toml = tmp_path / "axes.toml"
    toml.write_text('[[node]]\nname = "gizmo"\nmesh = "axes"\ncolor = "#8c9bb5"\n')
    scene = load_scene(toml)
    save_gltf(scene, tmp_path / "axes.glb")
    again = load_scene(tmp_path / "axes.glb")
    (node,), (back,) = list(scene.graph), list(again.graph)
    material, _ = _materials_of_nodes(tmp_path / "axes.glb")["gizmo"]
    assert material["pbrMetallicRoughness"]["baseColorFactor"] == [1.0, 1.0, 1.0, 1.0]
    shown = _shown_by_toml(scene, node.id)
    colour0 = again.surfaces[again.look(back.id).mesh].vcolors[:, :3]
    expected = np.array([srgb_decoded(v) for v in shown])
    np.testing.assert_allclose(colour0, expected, rtol=0, atol=1e-6)
    np.testing.assert_allclose(_shown_by_gltf(again, back.id), shown, rtol=0, atol=ONE_LEVEL)
