"""glTF 2.0 import: files built here with pygltflib, in the three storage forms."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scene_helpers import (
    CUBE_INDICES,
    CUBE_POSITIONS,
    build_gltf,
    data_uri,
    expected_worlds,
    glb_bytes,
)

from viewer.io import SceneError, load_scene, save_scene

FORMS = ["data", "bin", "glb"]


def world(scene, name):
    return scene.graph[name].world_matrix


@pytest.mark.parametrize("form", FORMS)
def test_hierarchy_names_and_transforms(make_gltf, form):
    scene = load_scene(make_gltf(form))
    g = scene.graph
    assert [n.name for n in g] == ["Body", "Arm", "Hand", "Light"]
    assert g["Arm"].parent.name == "Body"
    assert g["Hand"].parent.name == "Arm"
    assert g["Body"].parent is None and g["Light"].parent is None
    for name, expected in expected_worlds().items():
        np.testing.assert_allclose(world(scene, name), expected, atol=1e-6, err_msg=name)
    assert scene.title == "Model"


@pytest.mark.parametrize("form", FORMS)
def test_mesh_data(make_gltf, form):
    scene = load_scene(make_gltf(form))
    hand = scene.graph["Hand"]
    look = scene.look(hand.id)
    assert look.mesh in scene.mesh_data
    assert look.color == pytest.approx((0.9, 0.2, 0.1))
    positions, normals, indices = scene.mesh_data[look.mesh]
    np.testing.assert_array_equal(positions, CUBE_POSITIONS)
    np.testing.assert_array_equal(indices, CUBE_INDICES)
    assert normals.shape == positions.shape
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-6)
    # nodes without a mesh draw nothing
    assert scene.look(scene.graph["Body"].id).mesh == "none"


def test_normals_are_computed_when_missing(make_gltf):
    scene = load_scene(make_gltf("glb", normals=False))
    positions, normals, indices = next(iter(scene.mesh_data.values()))
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-6)
    # each cube corner's normal points away from the centre
    assert np.all(np.sum(normals * positions, axis=1) > 0)


def test_native_scene_places_gltf_under_a_node(make_gltf, write_scene):
    make_gltf("glb", name="robot.glb")
    path = write_scene(
        """
[[node]]
name = "Holder"
position = [10, 0, 0]
mesh = "robot.glb"
"""
    )
    scene = load_scene(path)
    g = scene.graph
    assert [n.name for n in g] == ["Holder", "Holder/Body", "Holder/Arm", "Holder/Hand",
                                   "Holder/Light"]  # fmt: skip
    assert g["Holder/Body"].parent.name == "Holder"
    shift = np.eye(4)
    shift[0, 3] = 10
    for name, expected in expected_worlds().items():
        np.testing.assert_allclose(world(scene, "Holder/" + name), shift @ expected, atol=1e-6)
    assert len(scene.includes) == 1


def test_include_table_and_name_clash(make_gltf, write_scene):
    make_gltf("bin", name="parts.gltf")
    path = write_scene(
        """
[[node]]
name = "Body"

[[include]]
file = "parts.gltf"
"""
    )
    scene = load_scene(path)
    names = [n.name for n in scene.graph]
    assert names == ["Body", "Body~2", "Arm", "Hand", "Light"]


@pytest.mark.parametrize("form", FORMS)
def test_save_round_trip_keeps_the_include(make_gltf, tmp_path, form):
    name = "thing.glb" if form == "glb" else "thing.gltf"
    make_gltf(form, name=name, folder=tmp_path / "sub")
    path = tmp_path / "sub" / "scene.toml"
    path.write_text(f'[[node]]\nname = "Holder"\nposition = [0, 1, 0]\nmesh = "{name}"\n')
    scene = load_scene(path)
    out = tmp_path / "saved.toml"  # the model is below the new file's folder: still reachable
    save_scene(scene, out)
    assert f'mesh = "sub/{name}"' in out.read_text()
    again = load_scene(out)
    assert [n.name for n in again.graph] == [n.name for n in scene.graph]
    for a, b in zip(scene.graph, again.graph, strict=True):
        np.testing.assert_allclose(a.world_matrix, b.world_matrix, atol=1e-12)


def test_saving_outside_the_models_folder_is_refused(make_gltf, write_scene, tmp_path):
    make_gltf("glb", name="thing.glb")
    scene = load_scene(write_scene('[[node]]\nname = "Holder"\nmesh = "thing.glb"\n'))
    out = tmp_path / "sub" / "saved.toml"
    out.parent.mkdir()
    with pytest.raises(SceneError, match="outside") as err:
        save_scene(scene, out)
    assert err.value.file == str(out) and not out.exists()


def test_saving_a_gltf_scene_writes_an_include(make_gltf, tmp_path):
    scene = load_scene(make_gltf("glb"))
    out = tmp_path / "from_glb.toml"
    save_scene(scene, out)
    again = load_scene(out)
    assert [n.name for n in again.graph] == ["Body", "Arm", "Hand", "Light"]
    for a, b in zip(scene.graph, again.graph, strict=True):
        np.testing.assert_allclose(a.world_matrix, b.world_matrix, atol=1e-12)


# ------------------------------------------------------------------ refusals
def _gltf_with_buffer_uri(tmp_path, uri: str):
    gltf, blob = build_gltf()
    gltf.buffers[0].uri = uri
    path = tmp_path / "inner" / "model.gltf"
    path.parent.mkdir(exist_ok=True)
    path.write_text(gltf.gltf_to_json())
    return path, blob


@pytest.mark.parametrize(
    "uri",
    ["../model.bin", "sub/../../model.bin", "/etc/passwd", "file:///etc/passwd",
     "http://example.com/model.bin", "..%2Fmodel.bin", "..\\model.bin", "C:/model.bin"],
)  # fmt: skip
def test_uri_leaving_the_folder_is_refused(tmp_path, uri):
    path, blob = _gltf_with_buffer_uri(tmp_path, uri)
    (tmp_path / "model.bin").write_bytes(blob)  # present, but outside the folder
    with pytest.raises(SceneError) as info:
        load_scene(path)
    assert "own folder" in str(info.value)
    assert info.value.file == str(path)


def test_symlink_leaving_the_folder_is_refused(tmp_path):
    path, blob = _gltf_with_buffer_uri(tmp_path, "link.bin")
    (tmp_path / "model.bin").write_bytes(blob)
    (path.parent / "link.bin").symlink_to(tmp_path / "model.bin")
    with pytest.raises(SceneError, match="own folder"):
        load_scene(path)


def test_image_uri_leaving_the_folder_is_refused(tmp_path):
    gltf, blob = build_gltf()
    gltf.buffers[0].uri = data_uri(blob)
    import pygltflib

    gltf.images = [pygltflib.Image(uri="../secret.png")]
    path = tmp_path / "m.gltf"
    path.write_text(gltf.gltf_to_json())
    with pytest.raises(SceneError, match="own folder"):
        load_scene(path)


def test_missing_bin_file(tmp_path):
    path, _ = _gltf_with_buffer_uri(tmp_path, "absent.bin")
    with pytest.raises(SceneError, match="missing file 'absent.bin'"):
        load_scene(path)


def test_missing_gltf_named_by_a_scene(write_scene):
    path = write_scene('[[node]]\nname = "A"\nmesh = "nowhere.glb"\n')
    with pytest.raises(SceneError) as info:
        load_scene(path)
    err = info.value
    assert (err.node, err.field, err.line) == ("A", "mesh", 3)
    assert "missing glTF file 'nowhere.glb'" in str(err)


def _mutated(tmp_path, change) -> str:
    gltf, blob = build_gltf()
    gltf.buffers[0].uri = data_uri(blob)
    doc = json.loads(gltf.gltf_to_json())
    change(doc)
    path = tmp_path / "bad.gltf"
    path.write_text(json.dumps(doc))
    return path


BAD_DOCS = {
    "child out of range": lambda d: d["nodes"][0]["children"].append(99),
    "child cycle": lambda d: d["nodes"][2].setdefault("children", []).append(0),
    "two parents": lambda d: d["nodes"][3].setdefault("children", []).append(2),
    "short translation": lambda d: d["nodes"][0].update(translation=[1, 2]),
    "string scale": lambda d: d["nodes"][0].update(scale="big"),
    "shear matrix": lambda d: d["nodes"][1].update(
        matrix=[1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    ),
    "zero quaternion": lambda d: d["nodes"][2].update(rotation=[0, 0, 0, 0]),
    "mesh out of range": lambda d: d["nodes"][2].update(mesh=7),
    "accessor past view": lambda d: d["accessors"][0].update(count=1000),
    "view past buffer": lambda d: d["bufferViews"][0].update(byteLength=10_000),
    "index past vertices": lambda d: d["accessors"][-1].update(byteOffset=2),
    "bad component type": lambda d: d["accessors"][0].update(componentType=5130),
    "bad base64": lambda d: d["buffers"][0].update(uri="data:application/octet-stream;base64,@@"),
    "version 1": lambda d: d["asset"].update(version="1.0"),
    "nodes not a list": lambda d: d.update(nodes={"a": 1}),
    "scene out of range": lambda d: d.update(scene=5),
    "buffer too short": lambda d: d["buffers"][0].update(byteLength=10**6),
}


def test_a_primitive_without_positions_draws_nothing(tmp_path):
    """glTF 3.7.2.1: without POSITION a client skips the primitive; the nodes still load."""
    path = _mutated(
        tmp_path, lambda d: d["meshes"][0]["primitives"][0]["attributes"].pop("POSITION")
    )
    scene = load_scene(path)
    assert len(scene.graph) > 0 and not scene.mesh_data


@pytest.mark.parametrize("case", sorted(BAD_DOCS))
def test_malformed_gltf_gives_scene_error(tmp_path, case):
    path = _mutated(tmp_path, BAD_DOCS[case])
    with pytest.raises(SceneError) as info:
        load_scene(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": ")
    assert "\n" not in message


NO_BIN_CHUNK = json.dumps(
    {
        "asset": {"version": "2.0"},
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": 12}],
        "buffers": [{"byteLength": 12}],
    }
)


@pytest.mark.parametrize(
    "content",
    [b"", b"glTF", b"glTF\x02\x00\x00\x00\xff\xff\xff\xff", b"not a glb at all",
     glb_bytes("{"), glb_bytes("[]"), glb_bytes('{"asset": {"version": "2.0"}, "nodes": [1]}'),
     glb_bytes(NO_BIN_CHUNK)],
)  # fmt: skip
def test_malformed_glb_gives_scene_error(tmp_path, content):
    path = tmp_path / "bad.glb"
    path.write_bytes(content)
    with pytest.raises(SceneError):
        load_scene(path)


def test_glb_without_mesh_loads(tmp_path):
    path = tmp_path / "empty.glb"
    path.write_bytes(glb_bytes('{"asset": {"version": "2.0"}, "nodes": [{"name": "Only"}]}'))
    scene = load_scene(path)
    assert [n.name for n in scene.graph] == ["Only"]


def test_mirror_matrix_and_zero_scale(tmp_path):
    import pygltflib

    from viewer.scene.math import trs_matrix

    mirror = np.diag([-1.0, 2.0, 3.0, 1.0])
    mirror[:3, 3] = (4.0, 5.0, 6.0)
    gltf = pygltflib.GLTF2(
        scenes=[pygltflib.Scene(nodes=[0, 1])],
        nodes=[
            pygltflib.Node(name="Mirror", matrix=mirror.T.reshape(-1).tolist()),
            pygltflib.Node(name="Flat", scale=[1.0, 0.0, 1.0]),
        ],
    )
    path = tmp_path / "m.gltf"
    path.write_text(gltf.gltf_to_json())
    scene = load_scene(path)
    np.testing.assert_allclose(scene.graph["Mirror"].world_matrix, mirror, atol=1e-12)
    flat = scene.graph["Flat"]
    np.testing.assert_allclose(
        flat.world_matrix, trs_matrix(np.zeros(3), np.array([0, 0, 0, 1.0]), [1, 0, 1])
    )


def test_loading_changes_nothing_on_disk(make_gltf, write_scene, tmp_path):
    make_gltf("bin", name="m.gltf")
    path = write_scene('[[node]]\nname = "H"\nmesh = "m.gltf"\n')
    before = {p: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    load_scene(path)
    load_scene(path)
    assert {p: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before
