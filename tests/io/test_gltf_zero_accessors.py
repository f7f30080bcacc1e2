"""Accessors of zeros, sparse accessors and shared views cost what is drawn (issue 47).

A few hundred bytes can claim 256 MB of zeros (an accessor without a bufferView): such an
accessor is one constant row, never expanded; a primitive whose vertices are all at one
point draws nothing and costs nothing; what must be expanded (a sparse accessor's base,
an accessor read from a shared view) is charged its decoded size against
``--max-buffer-mb`` and refused in one line over it. Built in code, small and fast.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from bounded import bounded_load, memory_traced

from viewer.io import SceneError, load_scene
from viewer.io.gltf_read.data import GltfFile, constant_row
from viewer.io.limits import Budget, Limits, draw_reason

MB = 1024 * 1024
#: Vertices in 256 MB of float32 positions (a multiple of 3: whole triangles).
BIG = 256 * MB // 12 // 3 * 3


def _uri(data: bytes) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(data).decode()


def _mesh_doc(accessors: list, attributes: dict, *, mode: int = 4, data: bytes = b"") -> dict:
    doc: dict = {
        "asset": {"version": "2.0"},
        "nodes": [{"name": "drawn", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": attributes, "mode": mode}]}],
        "accessors": accessors,
    }
    if data:
        doc["buffers"] = [{"byteLength": len(data), "uri": _uri(data)}]
    return doc


def _write(tmp_path, doc: dict, name: str = "model.gltf"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def _zeros(count: int, kind: str = "VEC3") -> dict:
    return {"componentType": 5126, "count": count, "type": kind}


def test_a_256_mb_claim_of_zeros_loads_in_bounded_memory_and_draws_nothing(tmp_path):
    path = _write(tmp_path, _mesh_doc([_zeros(BIG)], {"POSITION": 0}))
    assert path.stat().st_size < 300
    with memory_traced():
        scene = bounded_load(path, seconds=30, megabytes=50)
    assert not isinstance(scene, SceneError)
    assert len(scene.graph) == 1
    assert not scene.mesh_data and not scene.looks  # nothing drawn, nothing kept
    assert draw_reason(scene, Limits()) is None


def test_zeros_are_still_charged_their_decoded_size(tmp_path):
    path = _write(tmp_path, _mesh_doc([_zeros(BIG + 3)], {"POSITION": 0}))
    with pytest.raises(SceneError, match=r"over the limit .*--max-buffer-mb 256\)$") as err:
        load_scene(path)
    assert "\n" not in str(err.value)


def test_an_accessor_of_zeros_is_one_read_only_row(tmp_path):
    path = _write(tmp_path, _mesh_doc([_zeros(1000)], {"POSITION": 0}))
    gltf = GltfFile(path, Budget())
    gltf.open()
    arr = gltf.accessor(0, "test", ("VEC3",), (5126,))
    assert arr.shape == (1000, 3) and not arr.flags.writeable and not arr.any()
    assert constant_row(arr) is not None and arr.strides[0] == 0
    floats = gltf.floats(0, "test", ("VEC3",))
    assert floats.dtype == np.float64 and floats.shape == (1000, 3)
    assert constant_row(floats) is not None and not floats.flags.writeable
    single = gltf.floats(0, "test", ("VEC3",), single=True)
    assert single.dtype == np.float32 and constant_row(single) is not None


def test_a_mesh_of_zeros_in_a_buffer_draws_nothing(tmp_path):
    """Not only a missing bufferView: every vertex at one point, from real bytes."""
    data = np.full((30, 3), 2.5, np.float32).tobytes()
    doc = _mesh_doc([{**_zeros(30), "bufferView": 0}], {"POSITION": 0}, data=data)
    doc["bufferViews"] = [{"buffer": 0, "byteLength": len(data)}]
    scene = load_scene(_write(tmp_path, doc))
    assert not scene.mesh_data and not scene.looks


@pytest.mark.parametrize("mode", [1, 2, 3, 5, 6])
def test_a_point_mesh_draws_nothing_in_any_mode_of_lines_or_triangles(tmp_path, mode):
    scene = load_scene(_write(tmp_path, _mesh_doc([_zeros(12)], {"POSITION": 0}, mode=mode)))
    assert not scene.mesh_data and not scene.looks


def test_points_at_one_place_still_show_as_one(tmp_path):
    scene = load_scene(_write(tmp_path, _mesh_doc([_zeros(4)], {"POSITION": 0}, mode=0)))
    (key,) = scene.mesh_data
    assert len(scene.mesh_data[key][0]) == 1 and len(scene.looks) == 1
    assert scene.geometry.points[key].tolist() == [0]


def test_an_undrawn_primitive_is_still_checked(tmp_path):
    """Its indices and attributes are checked as a drawn one's are (one line each)."""
    cases = {
        "NORMAL has 5 items, POSITION has 6": (
            {"POSITION": 0, "NORMAL": 1},
            [_zeros(6), _zeros(5)],
        ),
        "triangles need a multiple of 3": ({"POSITION": 0}, [_zeros(7)]),
        "TEXCOORD_0 has 2 items": (
            {"POSITION": 0, "TEXCOORD_0": 1},
            [_zeros(6), _zeros(2, "VEC2")],
        ),
    }
    for expected, (attributes, accessors) in cases.items():
        path = _write(tmp_path, _mesh_doc(accessors, attributes))
        with pytest.raises(SceneError, match=expected):
            load_scene(path)
    indices = np.array([0, 1, 9], np.uint16).tobytes()
    doc = _mesh_doc(
        [_zeros(3), {"componentType": 5123, "count": 3, "type": "SCALAR", "bufferView": 0}],
        {"POSITION": 0},
        data=indices,
    )
    doc["meshes"][0]["primitives"][0]["indices"] = 1
    doc["bufferViews"] = [{"buffer": 0, "byteLength": len(indices)}]
    with pytest.raises(SceneError, match="an index is 9, there are 3 vertices"):
        load_scene(_write(tmp_path, doc))


def _sparse_doc(count: int) -> dict:
    """POSITION: `count` zeros but one triangle, set through a sparse accessor."""
    indices = np.array([0, 1, 2], np.uint32).tobytes()
    values = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32).tobytes()
    sparse = {
        "count": 3,
        "indices": {"bufferView": 0, "componentType": 5125},
        "values": {"bufferView": 1},
    }
    doc = _mesh_doc([{**_zeros(count), "sparse": sparse}], {"POSITION": 0}, data=indices + values)
    doc["bufferViews"] = [
        {"buffer": 0, "byteLength": 12},
        {"buffer": 0, "byteOffset": 12, "byteLength": 36},
    ]
    return doc


def test_a_sparse_accessor_is_charged_its_decoded_size(tmp_path):
    """A sparse accessor is expanded (its listed elements differ): charged its whole
    size before anything is made, and refused in one line over the cap."""
    path = _write(tmp_path, _sparse_doc(1_000_000))
    with memory_traced():
        refused = bounded_load(path, megabytes=5, max_buffer_bytes=8 * MB)
    assert isinstance(refused, SceneError)
    assert "the glTF data of the scene is 12,000," in str(refused)
    assert "(--max-buffer-mb 8)" in str(refused)
    scene = load_scene(_write(tmp_path, _sparse_doc(30)))
    (key,) = scene.mesh_data
    positions = scene.mesh_data[key][0]
    np.testing.assert_array_equal(positions[1], [1, 0, 0])
    assert not positions[3:].any()


def test_accessors_sharing_one_view_are_each_charged(tmp_path):
    """Ten accessors read the same 1.2 MB view: 12 MB of data decoded, over an 8 MB cap
    though the file's bytes are far under it."""
    data = np.arange(300_000, dtype=np.float32).tobytes()  # 100,000 vertices
    n = 10
    doc: dict = {
        "asset": {"version": "2.0"},
        "nodes": [{"mesh": k} for k in range(n)],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]} for _ in range(n)],
        "buffers": [{"byteLength": len(data), "uri": _uri(data)}],
        "bufferViews": [{"buffer": 0, "byteLength": len(data)}],
        "accessors": [{**_zeros(99_999), "bufferView": 0}],
    }
    for k in range(1, n):
        doc["accessors"].append({**_zeros(99_999), "bufferView": 0})
        doc["meshes"][k]["primitives"][0]["attributes"]["POSITION"] = k
    path = _write(tmp_path, doc)
    with pytest.raises(SceneError, match=r"--max-buffer-mb 8\)"):
        load_scene(path, max_buffer_bytes=8 * MB)
    # 12 MB of data fit 16 MB, but what the meshes keep (112 bytes a vertex of positions
    # alone, limits.KEPT_FACTOR) needs 32
    assert len(load_scene(path, max_buffer_bytes=32 * MB).mesh_data) == n


def test_keyframe_values_of_zeros_stay_one_row_and_play(tmp_path):
    times = np.array([0.0, 1.0], np.float32).tobytes()
    doc: dict = {
        "asset": {"version": "2.0"},
        "nodes": [{"name": "moved", "translation": [1.0, 2.0, 3.0]}],
        "buffers": [{"byteLength": len(times), "uri": _uri(times)}],
        "bufferViews": [{"buffer": 0, "byteLength": len(times)}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR"},
            _zeros(2),
        ],
        "animations": [
            {
                "samplers": [{"input": 0, "output": 1}],
                "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
            }
        ],
    }
    scene = load_scene(_write(tmp_path, doc))
    (channel,) = scene.animation.current.channels
    assert constant_row(channel.values) is not None
    ids, values = scene.animation.current.pose(0.5)["translation"]
    np.testing.assert_array_equal(values, [[0.0, 0.0, 0.0]])
