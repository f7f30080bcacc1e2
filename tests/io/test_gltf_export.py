"""`--save OUT.glb` / `.gltf`: valid glTF 2.0 that loads back identically and that another
reader (pygltflib) parses."""

from __future__ import annotations

import json

import numpy as np
import pygltflib
import pytest
from gltf_rig import write_rig
from scene_helpers import SCENE_FILES, srgb_decoded

from viewer.cli.main import main
from viewer.content import meshes as builders
from viewer.io import generate_scene, load_scene
from viewer.io.gltf_write.export import build_gltf, save_gltf

SUFFIXES = [".glb", ".gltf"]


def _hierarchy(scene):
    return [(n.name, n.parent.name if n.parent else None) for n in scene.graph]


def assert_round_trip(scene, again):
    assert _hierarchy(again) == _hierarchy(scene)
    for a, b in zip(scene.graph, again.graph, strict=True):
        np.testing.assert_allclose(b.world_matrix, a.world_matrix, rtol=0, atol=1e-6,
                                   err_msg=a.name)  # fmt: skip
        look, back = scene.look(a.id), again.look(b.id)
        if look.mesh == "none":
            assert back.mesh == "none"
            continue
        pos, _nrm, idx = again.mesh_data[back.mesh]
        if look.mesh in builders.BUILDERS:
            made = builders.builtin(look.mesh)
            expected = made.positions.astype(np.float64) * np.asarray(look.size)
            np.testing.assert_allclose(pos, expected.astype(np.float32), rtol=0, atol=1e-6)
            np.testing.assert_array_equal(idx, made.indices)
            if not (made.vcolors[:, 3] > 0).any():  # glTF's factor is linear, the look sRGB
                np.testing.assert_allclose(back.color, srgb_decoded(look.color), atol=1e-6)
        else:
            np.testing.assert_allclose(pos, scene.mesh_data[look.mesh][0], atol=0)


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("path", SCENE_FILES, ids=[p.stem for p in SCENE_FILES])
def test_every_bundled_scene_round_trips(path, tmp_path, suffix):
    scene = load_scene(path)
    out = tmp_path / f"out{suffix}"
    save_gltf(scene, out)
    assert_round_trip(scene, load_scene(out))
    parsed = pygltflib.GLTF2.load(str(out))  # another reader
    assert [n.name for n in parsed.nodes] == [n.name for n in scene.graph]
    assert parsed.asset.version == "2.0"
    for acc in parsed.accessors:
        view = parsed.bufferViews[acc.bufferView]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc.type]
        assert acc.count * width * 4 <= view.byteLength
    position = [parsed.accessors[p.attributes.POSITION] for m in parsed.meshes
                for p in m.primitives]  # fmt: skip
    assert all(a.min is not None and a.max is not None for a in position)


@pytest.mark.parametrize("spec", ["chain:30", "random:200"])
def test_generated_scenes_round_trip(spec, tmp_path):
    scene = generate_scene(spec)
    out = tmp_path / "gen.glb"
    save_gltf(scene, out)
    assert_round_trip(scene, load_scene(out))


def test_gltf_content_round_trips_as_geometry(tmp_path):
    scene = load_scene(write_rig(tmp_path, skin=False))
    out = tmp_path / "again.glb"
    save_gltf(scene, out)
    assert_round_trip(scene, load_scene(out))


def test_moved_nodes_are_written_as_they_are_now(tmp_path):
    scene = load_scene(SCENE_FILES[0])
    node = next(iter(scene.graph))
    node.local_position = (1.5, -2.0, 0.25)
    out = tmp_path / "moved.gltf"
    save_gltf(scene, out)
    again = load_scene(out)
    np.testing.assert_allclose(again.graph[node.name].local_position, (1.5, -2.0, 0.25))


def test_an_exported_file_exports_to_the_same_nodes_and_geometry(tmp_path):
    scene = load_scene(SCENE_FILES[0])
    save_gltf(scene, tmp_path / "a.glb")
    first, again = build_gltf(scene), build_gltf(load_scene(tmp_path / "a.glb"))
    assert first.doc["nodes"] == again.doc["nodes"]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_cli_save_writes_gltf_not_toml(tmp_path, capsys, suffix):
    out = tmp_path / f"tree{suffix}"
    assert main(["tree10", "--save", str(out)]) == 0
    head = out.read_bytes()[:4]
    assert head == b"glTF" if suffix == ".glb" else json.loads(out.read_text())["asset"]
    assert len(load_scene(out).graph) == 10
    assert "saved" in capsys.readouterr().out


def test_cli_save_to_a_directory_is_one_line(tmp_path, capsys):
    (tmp_path / "d.glb").mkdir()
    assert main(["tree10", "--save", str(tmp_path / "d.glb")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
