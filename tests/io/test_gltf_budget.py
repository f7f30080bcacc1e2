"""Memory and time budgets of the glTF import (issue 12, classes 5 and 6).

- The JSON text of all the scene's glTF files is capped (`max_json_bytes`), and the memory
  its parsed form will take is estimated before the parser runs (`json_memory_bound`,
  checked here to be an upper bound on the worst shapes of JSON).
- Vertex and keyframe data count against one budget for the whole scene, however many
  glTF files it includes.
- Peak memory is measured (tracemalloc) for inputs just inside and just outside the caps.
- Node decoding is proportional: counted in work, not wall-clock (speed claims live in
  bench/gltf_load.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from bounded import bounded_load, json_parse_peak, memory_traced
from scene_helpers import write_gltf

from viewer.io import SceneError, load_scene
from viewer.io.limits import JSON_MEMORY_FACTOR, json_memory_bound

MB = 1024 * 1024

#: JSON shapes that cost the most memory per byte once parsed.
WORST_SHAPES = {
    "empty objects": "{},",
    "empty arrays": "[],",
    "nested arrays": "[[]],",
    "one-key objects": '{"a":0},',
    "one-item arrays": "[0],",
    "floats": "1.5,",
    "short strings": '"ab",',
    "glTF nodes": '{"name":"n1","translation":[1.5,2.5,3.5],"children":[7]},',
}


@pytest.mark.parametrize("shape", sorted(WORST_SHAPES))
def test_the_json_memory_estimate_is_an_upper_bound(shape):
    unit = WORST_SHAPES[shape]
    text = ("[" + unit * 20_000 + unit[:-1] + "]").encode()
    peak = json_parse_peak(text)
    assert peak <= json_memory_bound(text), (peak, json_memory_bound(text))
    assert json_memory_bound(text) <= 8 * peak  # and not uselessly loose


def _nodes_file(path, count: int, unit: dict | None = None) -> None:
    unit = {} if unit is None else unit
    doc = {"asset": {"version": "2.0"}, "nodes": [unit] * count}
    path.write_text(json.dumps(doc, separators=(",", ":")))


def test_json_over_its_cap_is_refused_before_parsing(tmp_path):
    path = tmp_path / "big.gltf"
    _nodes_file(path, 400_000)  # 1.2 MB of "{}," (about 30 MB once parsed)
    with memory_traced():
        err = bounded_load(path, megabytes=4, max_json_bytes=MB)
    assert isinstance(err, SceneError)
    assert "glTF JSON of the scene is 1,200,0" in str(err) and "--max-json-mb 1" in str(err)


def test_pathological_json_is_refused_by_its_estimate(tmp_path):
    """Under the text cap, but empty objects cost about 24 bytes per byte once parsed."""
    path = tmp_path / "objects.gltf"
    _nodes_file(path, 300_000)  # 0.9 MB
    with memory_traced():
        err = bounded_load(path, megabytes=4, max_json_bytes=MB)
    assert isinstance(err, SceneError)
    assert f"over {JSON_MEMORY_FACTOR} times its limit" in str(err), str(err)


def test_peak_memory_within_the_documented_bound_just_inside_the_caps(tmp_path):
    """A file of plain nodes just inside the caps: peak under JSON_MEMORY_FACTOR times the
    JSON cap (the parsed JSON) plus the graph and model arrays (the core's arrays take
    about 1.2 kB a node while they grow)."""
    path = tmp_path / "inside.gltf"
    unit = {"translation": [1.5, 2.5, 3.5]}
    count = 20_000
    _nodes_file(path, count, unit)
    text = path.read_bytes()
    cap = max(len(text), json_memory_bound(text) // JSON_MEMORY_FACTOR + 1)
    assert json_memory_bound(text) <= JSON_MEMORY_FACTOR * cap  # so it is accepted
    _nodes_file(tmp_path / "warm.gltf", 10, unit)
    load_scene(tmp_path / "warm.gltf")  # first use of the core: compiled code, caches
    with memory_traced():
        bound = (JSON_MEMORY_FACTOR * cap + 1500 * count) / MB
        scene = bounded_load(path, seconds=30, megabytes=bound, max_json_bytes=cap)
    assert not isinstance(scene, SceneError) and len(scene.graph) == count


def _zeros_model(path, count: int) -> None:
    """A small file with `count` zero positions (an accessor without a bufferView)."""
    doc = {
        "asset": {"version": "2.0"},
        "nodes": [{"name": path.stem, "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"componentType": 5126, "count": count, "type": "VEC3"}],
    }
    path.write_text(json.dumps(doc))


def test_the_data_budget_is_shared_by_all_glTF_files_of_a_scene(tmp_path, write_scene):
    """Two different models, each within the cap alone, not together."""
    for name in ("a", "b"):
        _zeros_model(tmp_path / f"{name}.gltf", 999)  # 11,988 bytes of positions each
    scene = write_scene('[[include]]\nfile = "a.gltf"\n[[include]]\nfile = "b.gltf"\n')
    assert load_scene(tmp_path / "a.gltf", max_buffer_bytes=20_000)
    with pytest.raises(SceneError, match="the glTF data of the scene is 23,976 bytes") as err:
        load_scene(scene, max_buffer_bytes=20_000)
    assert str(err.value).startswith(str(tmp_path / "b.gltf"))  # the second one overflows
    assert len(load_scene(scene, max_buffer_bytes=23_976).graph) == 2


def test_the_json_budget_is_shared_by_all_glTF_files_of_a_scene(tmp_path, write_scene):
    a = write_gltf(tmp_path, "glb", "a.glb")
    write_gltf(tmp_path, "glb", "b.glb")
    scene = write_scene('[[include]]\nfile = "a.glb"\n[[include]]\nfile = "b.glb"\n')
    json_size = len(json.dumps(json.loads(_glb_json(a.read_bytes()))))
    assert load_scene(a, max_json_bytes=json_size + 64)
    with pytest.raises(SceneError, match="glTF JSON of the scene is"):
        load_scene(scene, max_json_bytes=json_size + 64)


def _glb_json(data: bytes) -> bytes:
    length = int.from_bytes(data[12:16], "little")
    return data[20 : 20 + length]


def test_node_decoding_touches_each_node_a_bounded_number_of_times(tmp_path, monkeypatch):
    """Proportional work: dict reads per node do not grow with the file (a stand-in for
    time that does not flake on a loaded machine)."""
    reads = []

    class Counting(dict):
        def get(self, key, default=None):
            reads.append(key)
            return super().get(key, default)

    import viewer.io.gltf_read.container as data_module

    real = data_module.json.loads

    def loads(text, **kw):
        doc = real(text, **kw)
        doc["nodes"] = [Counting(node) for node in doc.get("nodes", [])]
        return doc

    monkeypatch.setattr(data_module.json, "loads", loads)
    per_node = []
    for count in (100, 10_000):
        reads.clear()
        path = tmp_path / f"n{count}.gltf"
        chain = [{"children": [i + 1]} for i in range(count - 1)] + [{}]
        doc = {"asset": {"version": "2.0"}, "nodes": chain}
        path.write_text(json.dumps(doc))
        assert len(load_scene(path).graph) == count
        per_node.append(len(reads) / count)
    assert per_node[1] <= per_node[0] + 1e-9 and per_node[1] < 12, per_node
    assert np.isclose(per_node[0], per_node[1], rtol=0.05)
