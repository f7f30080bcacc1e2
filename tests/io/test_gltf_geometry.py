"""The glTF loader's geometry and honesty: primitive modes, sparse and quantized accessors,
Draco and meshopt compression (files compressed in code with the same packages'
encoders), morph weights sampling, KHR_animation_pointer, the extension policy and the
validator's valid-file fixes. Expected values come from the glTF specification."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gltf_geometry import QUAD, QUAD_INDICES, Doc, mode_mesh, morph_quad  # noqa: E402

from viewer.io import SceneError, load_scene  # noqa: E402


def _mesh(scene):
    (key,) = scene.mesh_data
    return key, scene.mesh_data[key]


# -- primitive modes (glTF 3.7.2.1) -------------------------------------------------------
FIVE = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [-1, 1, 0]]


@pytest.mark.parametrize(
    ("mode", "triangles", "lines", "points"),
    [
        (4, None, None, None),  # TRIANGLES needs a multiple of 3: see below
        # TRIANGLE_STRIP: p_i = {v_i, v_(i + (1 + i % 2)), v_(i + (2 - i % 2))}
        (5, [0, 1, 2, 1, 3, 2, 2, 3, 4], None, None),
        # TRIANGLE_FAN: p_i = {v_(i + 1), v_(i + 2), v_0}
        (6, [1, 2, 0, 2, 3, 0, 3, 4, 0], None, None),
        (1, [], [0, 1, 2, 3], None),  # LINES: pairs, the odd vertex out
        (3, [], [0, 1, 1, 2, 2, 3, 3, 4], None),  # LINE_STRIP
        (2, [], [0, 1, 1, 2, 2, 3, 3, 4, 4, 0], None),  # LINE_LOOP: closed
        (0, [], None, [0, 1, 2, 3, 4]),  # POINTS
    ],
)
def test_every_mode_gives_the_spec_primitives(tmp_path, mode, triangles, lines, points):
    if mode == 4:
        with pytest.raises(SceneError, match="multiple of 3"):
            load_scene(mode_mesh(tmp_path / "m.gltf", 4, FIVE))
        return
    scene = load_scene(mode_mesh(tmp_path / "m.gltf", mode, FIVE))
    key, (pos, _nrm, idx) = _mesh(scene)
    np.testing.assert_array_equal(pos, np.asarray(FIVE, np.float32))
    assert idx.tolist() == triangles
    got_lines = scene.geometry.lines.get(key)
    assert (None if got_lines is None else got_lines.tolist()) == lines
    got_points = scene.geometry.points.get(key)
    assert (None if got_points is None else got_points.tolist()) == points


def test_a_mode_outside_0_to_6_is_refused(tmp_path):
    with pytest.raises(SceneError, match="mode must be 0..6"):
        load_scene(mode_mesh(tmp_path / "m.gltf", 7, FIVE))


# -- accessors --------------------------------------------------------------------------
def _positions_file(path, make_accessor, extensions=()):
    doc = Doc()
    pos = make_accessor(doc)
    doc.add("meshes", {"primitives": [{"attributes": {"POSITION": pos},
                                       "indices": doc.accessor(QUAD_INDICES)}]})  # fmt: skip
    doc.add("nodes", {"mesh": 0})
    if extensions:
        doc.doc["extensionsUsed"] = list(extensions)
        doc.doc["extensionsRequired"] = list(extensions)
    return doc.write(path)


def _sparse(doc, base_view, indices, values):
    acc = {
        "componentType": 5126, "type": "VEC3", "count": 4,
        "sparse": {"count": len(indices),
                   "indices": {"bufferView": doc.view(np.asarray(indices, np.uint16).tobytes()),
                               "componentType": 5123},
                   "values": {"bufferView": doc.view(np.asarray(values, np.float32).tobytes())}},
    }  # fmt: skip
    if base_view:
        acc["bufferView"] = doc.view(QUAD.tobytes())
    return doc.add("accessors", acc)


def test_a_sparse_accessor_without_a_view_is_zeros_with_its_values(tmp_path):
    """glTF 3.6.2.3: no bufferView means zeros; the sparse elements replace some."""
    path = _positions_file(tmp_path / "s.gltf",
                           lambda d: _sparse(d, False, [1, 2], [[5, 0, 0], [5, 5, 0]]))  # fmt: skip
    _key, (pos, _n, _i) = _mesh(load_scene(path))
    np.testing.assert_array_equal(pos, [[0, 0, 0], [5, 0, 0], [5, 5, 0], [0, 0, 0]])


def test_a_sparse_accessor_replaces_elements_of_its_view(tmp_path):
    path = _positions_file(tmp_path / "s.gltf", lambda d: _sparse(d, True, [3], [[0, 7, 0]]))
    _key, (pos, _n, _i) = _mesh(load_scene(path))
    np.testing.assert_array_equal(pos, [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 7, 0]])


def test_sparse_indices_must_increase_and_stay_in_range(tmp_path):
    path = _positions_file(tmp_path / "s.gltf",
                           lambda d: _sparse(d, False, [2, 1], [[1, 0, 0], [1, 0, 0]]))  # fmt: skip
    with pytest.raises(SceneError, match="indices must increase strictly"):
        load_scene(path)


def test_quantized_positions_and_normals(tmp_path):
    """KHR_mesh_quantization: int16 positions as their values; normalized int8 normals
    scaled by 127 (the glTF rule: max(c / 127, -1))."""
    doc = Doc()
    ipos = (QUAD * 300).astype(np.int16)
    nrm = np.tile(np.array([0, 0, 127], np.int8), (4, 1))
    nrm = np.hstack([nrm, np.zeros((4, 1), np.int8)])[:, :3].copy()  # VEC3 of bytes
    prim = {"attributes": {"POSITION": doc.accessor(ipos),
                           "NORMAL": doc.accessor(nrm, normalized=True)},
            "indices": doc.accessor(QUAD_INDICES)}  # fmt: skip
    doc.add("meshes", {"primitives": [prim]})
    doc.add("nodes", {"mesh": 0, "scale": [1 / 300] * 3})
    doc.doc["extensionsUsed"] = doc.doc["extensionsRequired"] = ["KHR_mesh_quantization"]
    _key, (pos, normals, _i) = _mesh(load_scene(doc.write(tmp_path / "q.gltf")))
    np.testing.assert_array_equal(pos, QUAD * 300)
    np.testing.assert_allclose(normals, [[0, 0, 1]] * 4)


# -- compression --------------------------------------------------------------------------
def _grid(n=6):
    """An n x n grid of vertices on a bumpy surface, and its triangles."""
    u, v = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    pos = np.stack([u, v, 0.1 * np.sin(3 * u) * np.cos(2 * v)], -1).reshape(-1, 3)
    quads = [(i * n + j, i * n + j + 1, (i + 1) * n + j + 1, (i + 1) * n + j)
             for i in range(n - 1) for j in range(n - 1)]  # fmt: skip
    idx = np.array([[a, b, c, a, c, d] for a, b, c, d in quads], np.uint32).reshape(-1)
    return pos.astype(np.float32), idx


def _plain(path, pos, idx):
    doc = Doc()
    prim = {"attributes": {"POSITION": doc.accessor(pos)}, "indices": doc.accessor(idx)}
    doc.add("meshes", {"primitives": [prim]})
    doc.add("nodes", {"mesh": 0})
    return doc.write(path)


def test_a_draco_file_decodes_to_the_positions_of_the_plain_one(tmp_path):
    draco = pytest.importorskip("DracoPy")
    pos, idx = _grid()
    blob = draco.encode(pos, idx.reshape(-1, 3), quantization_bits=14, preserve_order=True)
    decoded = draco.decode(blob)
    (uid,) = [a["unique_id"] for a in decoded.attributes if a["attribute_type"] == 0]
    doc = Doc()
    view = doc.view(blob)
    n, k = len(decoded.points), decoded.faces.size
    pos_acc = doc.add("accessors", {"componentType": 5126, "count": n, "type": "VEC3"})
    idx_acc = doc.add("accessors", {"componentType": 5125, "count": k, "type": "SCALAR"})
    doc.add("meshes", {"primitives": [{
        "attributes": {"POSITION": pos_acc}, "indices": idx_acc,
        "extensions": {"KHR_draco_mesh_compression": {"bufferView": view,
                                                      "attributes": {"POSITION": uid}}},
    }]})  # fmt: skip
    doc.add("nodes", {"mesh": 0})
    doc.doc["extensionsUsed"] = doc.doc["extensionsRequired"] = ["KHR_draco_mesh_compression"]
    _k, (got_pos, _n, got_idx) = _mesh(load_scene(doc.write(tmp_path / "d.gltf")))
    _k, (want_pos, _n, want_idx) = _mesh(load_scene(_plain(tmp_path / "p.gltf", pos, idx)))
    # Draco quantizes positions to 14 bits of the box: within 1/2^14 of the plain ones
    np.testing.assert_allclose(got_pos[got_idx], want_pos[want_idx], atol=2e-4)


def test_a_meshopt_file_decodes_to_the_positions_of_the_plain_one(tmp_path):
    meshopt = pytest.importorskip("meshoptimizer")
    pos, idx = _grid()
    vert4 = np.hstack([pos, np.zeros((len(pos), 1), np.float32)])  # 16-byte vertices
    vbuf = meshopt.encode_vertex_buffer(vert4, len(vert4), 16)
    ibuf = meshopt.encode_index_buffer(idx, len(idx), len(pos))
    doc = Doc()
    views = []
    for raw, count, stride, mode in ((vbuf, len(pos), 16, "ATTRIBUTES"),
                                     (ibuf, len(idx), 4, "TRIANGLES")):  # fmt: skip
        compressed = doc.view(bytes(raw))
        views.append(doc.add("bufferViews", {
            "buffer": 0, "byteLength": count * stride,
            "extensions": {"EXT_meshopt_compression": {
                "buffer": 0, "byteOffset": doc.doc["bufferViews"][compressed]["byteOffset"],
                "byteLength": len(raw), "byteStride": stride, "count": count, "mode": mode}},
        }))  # fmt: skip
    doc.doc["bufferViews"][views[0]]["byteStride"] = 16
    pos_acc = doc.add("accessors", {"bufferView": views[0], "componentType": 5126,
                                    "count": len(pos), "type": "VEC3"})  # fmt: skip
    idx_acc = doc.add("accessors", {"bufferView": views[1], "componentType": 5125,
                                    "count": len(idx), "type": "SCALAR"})  # fmt: skip
    doc.add("meshes", {"primitives": [{"attributes": {"POSITION": pos_acc}, "indices": idx_acc}]})
    doc.add("nodes", {"mesh": 0})
    doc.doc["extensionsUsed"] = doc.doc["extensionsRequired"] = ["EXT_meshopt_compression"]
    _k, (got_pos, _n, got_idx) = _mesh(load_scene(doc.write(tmp_path / "m.gltf")))
    np.testing.assert_array_equal(got_pos, pos)  # meshopt's vertex codec is lossless
    # its triangle codec may rotate a triangle's corners (same triangle, same winding)
    assert _rotated(got_idx) == _rotated(idx)


def _rotated(idx):
    """Each triangle's corners rotated to start at its smallest index."""
    out = []
    for tri in np.asarray(idx).reshape(-1, 3).tolist():
        k = tri.index(min(tri))
        out.append(tuple(tri[k:] + tri[:k]))
    return out


def draco_node(stream: bytes, vertices: int) -> Doc:
    """One node whose mesh is a KHR_draco_mesh_compression primitive: ``stream`` as its
    Draco data, its POSITION accessor declaring ``vertices``."""
    doc = Doc()
    view = doc.view(stream)
    acc = doc.add("accessors", {"componentType": 5126, "count": vertices, "type": "VEC3"})
    doc.add(
        "meshes",
        {
            "primitives": [
                {
                    "attributes": {"POSITION": acc},
                    "extensions": {
                        "KHR_draco_mesh_compression": {
                            "bufferView": view,
                            "attributes": {"POSITION": 0},
                        }
                    },
                }
            ]
        },
    )
    doc.add("nodes", {"mesh": 0})
    return doc


def test_a_broken_draco_stream_is_one_line(tmp_path):
    pytest.importorskip("DracoPy")
    doc = draco_node(b"not draco at all", vertices=3)
    with pytest.raises(SceneError, match="the Draco data does not decode") as err:
        load_scene(doc.write(tmp_path / "d.gltf"))
    assert "\n" not in str(err.value)


# -- extensions ---------------------------------------------------------------------------
def _with_extensions(tmp_path, used, required=()):
    path = mode_mesh(tmp_path / "e.gltf", 4, QUAD[[0, 1, 2]])
    doc = json.loads(path.read_text())
    doc["extensionsUsed"] = list(used)
    if required:
        doc["extensionsRequired"] = list(required)
    path.write_text(json.dumps(doc))
    return path


def test_a_required_extension_sgview_cannot_honour_is_refused_by_name(tmp_path):
    path = _with_extensions(tmp_path, ["MSFT_texture_dds"], ["MSFT_texture_dds"])
    with pytest.raises(SceneError) as err:
        load_scene(path)
    message = str(err.value)
    assert "requires the extension 'MSFT_texture_dds'" in message and "\n" not in message


def test_an_unsupported_optional_extension_is_one_note_each(tmp_path):
    path = _with_extensions(
        tmp_path,
        ["EXT_lights_ies", "EXT_lights_ies", "EXT_foo", "KHR_mesh_quantization"],
    )
    notes = load_scene(path).animation.notes
    assert len(notes) == 2, notes
    assert "'EXT_lights_ies' is not supported" in notes[0] and "'EXT_foo'" in notes[1]


def test_the_docs_table_names_every_honoured_extension():
    from viewer.io.gltf_read.extensions import SUPPORTED

    text = (Path(__file__).resolve().parents[2] / "docs" / "viewer.md").read_text()
    start, end = text.index("## glTF features and extensions"), text.index("## The renderer")
    rows = [line for line in text[start:end].splitlines() if line.startswith("|")]
    for name in SUPPORTED:
        row = next((r for r in rows if f"`{name}`" in r.split("|")[1]), None)
        assert row is not None and row.split("|")[2].strip() == "supported", name


def test_supported_required_extensions_load(tmp_path):
    required = ["KHR_mesh_quantization", "EXT_mesh_gpu_instancing", "KHR_draco_mesh_compression"]
    scene = load_scene(_with_extensions(tmp_path, required, required))
    assert scene.animation is None or not scene.animation.notes


# -- morph weights and pointer channels -------------------------------------------------
def test_weights_channels_sample_as_the_spec_says(tmp_path):
    """STEP holds the earlier key; CUBICSPLINE is the Hermite spline with tangents scaled
    by the key interval (glTF Appendix C)."""
    step = load_scene(morph_quad(tmp_path / "s.gltf",
                                 channel=("STEP", [0.0, 1.0], [[0.2], [0.8]])))  # fmt: skip
    clip = step.animation.clips[0]
    assert clip.weights(0.99)[0].tolist() == pytest.approx([0.2])
    assert clip.weights(1.0)[0].tolist() == pytest.approx([0.8])
    # keys at 0 and 2 (dt = 2): (in, value, out) = (0, 0, 1) and (-1, 1, 0)
    cubic = load_scene(morph_quad(tmp_path / "c.gltf", channel=(
        "CUBICSPLINE", [0.0, 2.0], [[0.0], [0.0], [1.0], [-1.0], [1.0], [0.0]])))  # fmt: skip
    s = 0.25  # t = 0.5
    want = (-2 * s**3 + 3 * s**2) * 1.0 + 2.0 * (s**3 - 2 * s**2 + s) * 1.0
    want += 2.0 * (s**3 - s**2) * -1.0
    assert cubic.animation.clips[0].weights(0.5)[0][0] == pytest.approx(want)


def test_pointer_channels_on_node_transforms_play_and_others_are_noted(tmp_path):
    doc = Doc()
    t = doc.accessor(np.array([0.0, 1.0], np.float32))
    v = doc.accessor(np.array([[0, 0, 0], [4, 0, 0]], np.float32))
    c = doc.accessor(np.array([[1, 0, 0, 1], [0, 1, 0, 1]], np.float32))
    doc.add("nodes", {"name": "Mover"})

    def pointer(text, sampler):
        return {
            "sampler": sampler,
            "target": {
                "path": "pointer",
                "extensions": {"KHR_animation_pointer": {"pointer": text}},
            },
        }

    doc.add("animations", {
        "samplers": [{"input": t, "output": v}, {"input": t, "output": c}],
        "channels": [pointer("/nodes/0/translation", 0),
                     pointer("/materials/0/pbrMetallicRoughness/baseColorFactor", 1),
                     pointer("/materials/1/pbrMetallicRoughness/baseColorFactor", 1)],
    })  # fmt: skip
    doc.doc["extensionsUsed"] = ["KHR_animation_pointer"]
    scene = load_scene(doc.write(tmp_path / "p.gltf"))
    player = scene.animation
    (channel,) = player.clips[0].channels
    assert channel.path == "translation"
    np.testing.assert_allclose(channel.at(0.5), [2, 0, 0])
    assert len(player.notes) == 1 and "2 animation channel(s) skipped" in player.notes[0]


# -- the validator's valid files ---------------------------------------------------------
def test_indices_written_as_whole_floats_are_indices(tmp_path):
    path = mode_mesh(tmp_path / "f.gltf", 4, QUAD[[0, 1, 2]])
    doc = json.loads(path.read_text())
    doc["nodes"].append({"name": "Parent", "children": [0.0]})
    doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 0.0
    doc["accessors"][0]["componentType"] = 5126.0
    doc["scenes"] = [{"name": "Whole", "nodes": [1.0]}]
    doc["scene"] = 0.0
    path.write_text(json.dumps(doc))
    scene = load_scene(path)
    assert scene.graph.parents()[scene.graph["Shape"].id] == scene.graph["Parent"].id
    assert scene.title == "Whole"
    with pytest.raises(SceneError, match="got the number 0.5"):
        doc["nodes"][1]["children"] = [0.5]
        path.write_text(json.dumps(doc))
        load_scene(path)


def test_an_unused_buffer_with_a_network_uri_is_not_read(tmp_path):
    path = mode_mesh(tmp_path / "u.gltf", 4, QUAD[[0, 1, 2]])
    doc = json.loads(path.read_text())
    doc["buffers"].append({"uri": "https://example.com/never.bin", "byteLength": 4})
    path.write_text(json.dumps(doc))
    assert len(load_scene(path).mesh_data) == 1
    doc["bufferViews"][0]["buffer"] = 1  # now it is read: refused, naming it
    path.write_text(json.dumps(doc))
    with pytest.raises(SceneError, match="refused"):
        load_scene(path)


def test_a_buffer_without_data_leaves_its_mesh_out_with_a_note(tmp_path):
    path = mode_mesh(tmp_path / "b.gltf", 4, QUAD[[0, 1, 2]])
    doc = json.loads(path.read_text())
    del doc["buffers"][0]["uri"]
    path.write_text(json.dumps(doc))
    scene = load_scene(path)
    assert not scene.mesh_data and len(scene.graph) == 1
    assert "mesh 0 is not drawn" in scene.animation.notes[0]


def test_repeated_key_times_are_refused(tmp_path):
    """glTF 3.11: a sampler's input increases strictly (issue 36 turned the jump a repeated
    time used to make into a refusal naming the key; tests/hostile/test_invalid_gltf.py
    generates the class)."""
    with pytest.raises(SceneError, match="increase strictly: key 2 is 1.0 after 1.0"):
        load_scene(morph_quad(tmp_path / "s.gltf",
                              channel=("LINEAR", [0.0, 1.0, 1.0, 2.0],
                                       [[0.0], [0.5], [0.9], [1.0]])))  # fmt: skip


def test_morphed_copies_count_against_the_data_budget(tmp_path):
    """Each morphed node draws its own copy of its mesh: a file of many nodes sharing one
    morphed mesh is refused like one with that much vertex data, not drawn out of memory."""
    path = morph_quad(tmp_path / "m.gltf")
    doc = json.loads(path.read_text())
    doc["nodes"] = [{"mesh": 0} for _ in range(3000)]  # 3000 x 4 vertices x 48 bytes
    path.write_text(json.dumps(doc))
    with pytest.raises(SceneError, match="morphed copy of mesh 0"):
        load_scene(path, max_buffer_bytes=200_000)
    assert len(load_scene(path).geometry.morphed) == 3000


@pytest.mark.parametrize("how", ["delta", "weight", "instance"])
def test_morphs_and_instances_count_in_the_world_reach(tmp_path, how):
    """A morph or an instance that can carry the mesh beyond the world box is refused
    like a position that far (viewer/io/ranges.py), not drawn as overflowed floats."""
    from gltf_geometry import instanced_quads

    if how == "instance":  # 5e8 away from a node scaled 1e4: 5e12
        path = instanced_quads(tmp_path / "i.gltf", [[0, 0, 0], [5e8, 0, 0]])
        doc = json.loads(path.read_text())
        doc["nodes"][0]["scale"] = [1e4] * 3
        path.write_text(json.dumps(doc))
        load_scene(instanced_quads(tmp_path / "ok.gltf", [[0, 0, 0], [5e8, 0, 0]]))
    else:
        delta, weights = ((3e12, 0, 0), [1.0]) if how == "delta" else ((1, 0, 0), [5e12])
        path = morph_quad(tmp_path / "m.gltf", delta=delta, weights=weights)
    with pytest.raises(SceneError, match="can reach"):
        load_scene(path)


def test_instances_near_the_world_edge_are_judged_by_their_exact_reach(tmp_path):
    """An instance 5e8 away on a node scaled 1800 reaches 9e11 and passes (its cheap
    bound, 4.3e12, alone would refuse it: the exact reach decides); scaled 2200 it reaches
    1.1e12 and is refused with that exact reach."""
    from gltf_geometry import instanced_quads

    for scale, name in ((1800, "ok"), (2200, "far")):
        path = instanced_quads(tmp_path / f"{name}.gltf", [[0, 0, 0], [5e8, 0, 0]])
        doc = json.loads(path.read_text())
        doc["nodes"][0]["scale"] = [scale] * 3
        path.write_text(json.dumps(doc))
        if name == "ok":
            load_scene(path)
            continue
        with pytest.raises(SceneError, match=r"can reach 1\.1e\+12"):
            load_scene(path)


def test_a_draco_primitive_is_charged_before_it_is_decoded(tmp_path):
    """A small stream whose accessors declare 100 million vertices is refused by the data
    budget before the decoder allocates anything."""
    pytest.importorskip("DracoPy")
    doc = draco_node(b"not even draco", vertices=100_000_000)
    with pytest.raises(SceneError, match="over the limit"):
        load_scene(doc.write(tmp_path / "d.gltf"))


def test_mesh_parts_count_indices_after_mode_conversion(tmp_path):
    """One part per primitive, each at its place in the mesh's one index buffer: all
    triangles (a 4-vertex strip is 2 triangles, 6 indices), then all line segments (a
    3-vertex loop is 3 segments, 6 indices), then all points; each with its material."""
    doc = Doc()
    pos = doc.accessor(QUAD)
    mats = [doc.add("materials", {"pbrMetallicRoughness": {"baseColorFactor": [k / 4, 0, 0, 1]}})
            for k in range(4)]  # fmt: skip
    prims = [
        {"attributes": {"POSITION": pos}, "mode": 2, "material": mats[0],
         "indices": doc.accessor(np.array([0, 1, 2], np.uint16))},  # LINE_LOOP
        {"attributes": {"POSITION": pos}, "mode": 5, "material": mats[1],
         "indices": doc.accessor(np.array([0, 1, 3, 2], np.uint16))},  # TRIANGLE_STRIP
        {"attributes": {"POSITION": pos}, "mode": 0, "material": mats[2]},  # POINTS
        {"attributes": {"POSITION": pos}, "material": mats[3],
         "indices": doc.accessor(QUAD_INDICES)},  # TRIANGLES
    ]  # fmt: skip
    doc.add("meshes", {"primitives": prims})
    doc.add("nodes", {"name": "Mixed", "mesh": 0})
    scene = load_scene(doc.write(tmp_path / "p.gltf"))
    (surface,) = scene.surfaces.values()
    got = [(p.mode, p.first, p.count, p.material.base_color[0] * 4) for p in surface.parts]
    assert got == [(1, 12, 6, 0), (4, 0, 6, 1), (0, 18, 4, 2), (4, 6, 6, 3)]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 20_000), st.floats(0.0, 10.0), st.integers(0, 2**31))
def test_theinstance_reach_is_the_whole_array_expression(count, radius, seed):
    """The chunked instance reach equals the plain expression it replaces: the largest
    |translation| + radius * largest absolute row sum of the 3x3 part, over every
    instance (random matrices, chunk edges crossed); the cheap bound is never below it."""
    from viewer.io.ranges import instance_reach

    m = np.random.default_rng(seed).normal(scale=1e3, size=(count, 4, 4))
    spread = np.linalg.norm(m[:, :3, 3], axis=1)
    size = np.abs(m[:, :3, :3]).sum(axis=2).max(axis=1, initial=0.0)
    want = float((spread + radius * size).max(initial=0.0))
    assert instance_reach(m, radius) == pytest.approx(want, rel=1e-12, abs=0.0)
    assert instance_reach(m.reshape(count, 16), radius) == pytest.approx(want, rel=1e-12)
    assert instance_reach(m, radius, exact=False) >= want  # the first check's bound
