"""The column-wise node reader (viewer/io/gltf_read/node_table.py) against the old way.

The oracle is the old reader itself (``json.loads`` and a pass over node dicts), run on
the same file with the fast path switched off: on generated hierarchies, valid or not,
written with varied JSON spellings (escaped keys, repeated keys, integers for floats,
long decimals, exponents, null fields, other node fields, lone surrogates, NaN, numbers
beyond float range), both give the same model (names, parents, exact TRS values, rows,
meshes, cameras, notes) or the same one-line error. A plain file is shown to take the
fast path, so the comparison cannot pass by always falling back.
"""

from __future__ import annotations

import json
import random
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scene_helpers import glb_bytes

from viewer.io import SceneError
from viewer.io.gltf_read import data as gltf_data
from viewer.io.gltf_read import node_table
from viewer.io.gltf_read.data import GltfFile
from viewer.io.gltf_read.scene import read_gltf
from viewer.io.limits import json_memory_bound

_ASSET = {"version": "2.0"}
#: Two meshes whose positions are zeros (an accessor without a view) and a camera.
_REST = {
    "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3",
                   "min": [0, 0, 0], "max": [0, 0, 0]}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]},
               {"primitives": [{"attributes": {"POSITION": 0}}], "weights": []}],
    "cameras": [{"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.1}}],
}  # fmt: skip


def _number(rng: random.Random, value: float) -> str:
    """`value` spelt one of the ways JSON allows (or, rarely, one it does not)."""
    pick = rng.random()
    if pick < 0.01:
        return rng.choice(["1e400", "-1e999", "NaN", "Infinity", "true", "null", "9" * 400,
                           "1.0", "0", "-0", "4.9e-324", "2.2250738585072011e-308"])  # fmt: skip
    if pick < 0.5:
        return repr(float(value))
    if pick < 0.6 and float(value).is_integer() and abs(value) < 1e20:
        return str(int(value))
    if pick < 0.7:
        return f"{value:.25e}"
    if pick < 0.8:
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 30)))
        sign, lead = rng.choice(["", "-"]), rng.choice(["0", "1", "9"])
        return f"{sign}{lead}.{digits}e{rng.randint(-330, 310)}"
    return f"{value!r}"


def _key(rng: random.Random, key: str) -> str:
    if rng.random() < 0.02:  # an escaped letter: the same key
        return f'"{key[0]}\\u{ord(key[1]):04x}{key[2:]}"'
    return json.dumps(key)


def _value(rng: random.Random, key: str, value: object) -> str:
    if isinstance(value, list) and value and all(type(v) in (int, float) for v in value):
        return "[" + ",".join(_number(rng, v) for v in value) + "]"
    return json.dumps(value)


def _node_text(rng: random.Random, node: dict) -> str:
    items = list(node.items())
    if items and rng.random() < 0.02:  # a key given twice: JSON keeps the last
        key, value = rng.choice(items)
        items.insert(0, (key, rng.choice([value, None, [1, 2], "x"])))
    space = rng.choice(["", " ", "\n\t"])
    return "{" + ",".join(f"{space}{_key(rng, k)}:{space}{_value(rng, k, v)}"
                          for k, v in items) + "}"  # fmt: skip


@st.composite
def documents(draw):
    """A glTF document's text with a random hierarchy and random node fields, mostly
    valid, sometimes not (a child out of range or given twice, a cycle, bad values)."""
    n = draw(st.integers(1, 14))
    rng = random.Random(draw(st.integers(0, 2**32)))
    parents = [rng.randrange(-1, i) if i and rng.random() < 0.8 else -1 for i in range(n)]
    perm = list(range(n))
    rng.shuffle(perm)  # node indices not in pre-order
    nodes: list[dict] = [{} for _ in range(n)]
    for i, p in enumerate(parents):
        if p >= 0:
            nodes[perm[p]].setdefault("children", []).append(perm[i])
    floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
    for node in nodes:
        if rng.random() < 0.7:
            node["name"] = rng.choice(["a", "", "Obj\u00e9", "n\u0000", "dup", "b"])
            if rng.random() < 0.02:
                node["name"] = rng.choice(["\ud800x", 7])
        for field, width in (("translation", 3), ("rotation", 4), ("scale", 3)):
            if rng.random() < 0.5:
                values = [draw(floats) for _ in range(width)]
                if field == "rotation" and rng.random() < 0.03:
                    values = [0.0] * 4
                if rng.random() < 0.02:
                    values = values[:-1]
                node[field] = values
        if rng.random() < 0.5:
            node["mesh"] = rng.choice([0, 0, 1, 1, 2, None])
            if rng.random() < 0.03:
                node["mesh"] = rng.choice([-1, True, 1.0])
        for extra, value in (("camera", 0), ("extras", {"k": [1, {"x": None}]}),
                             ("matrix", [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 1, 2, 3, 1]),
                             ("weights", [0.5]), ("skin", 5), ("unknown", 1)):  # fmt: skip
            if rng.random() < 0.02:
                node[extra] = value
    pick = rng.random()
    if pick < 0.05:  # a child out of range, of its own, or listed twice
        victim = rng.randrange(n)
        nodes[victim].setdefault("children", []).append(rng.choice([n, victim, -1, 0]))
    elif pick < 0.1 and n > 1:  # a cycle or a second parent
        nodes[rng.randrange(n)].setdefault("children", []).append(perm[0])
    scenes = rng.random()
    doc_head = {"asset": _ASSET, **_REST}
    if scenes < 0.3:
        doc_head["scenes"] = [{"nodes": [perm[i] for i in range(n) if parents[i] < 0]}]
    text = "{" + ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in doc_head.items())
    text += ',"nodes":[' + ",".join(_node_text(rng, node) for node in nodes) + "]}"
    return text, rng.random() < 0.3


def _read(path, fast: bool, monkeypatch):
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(gltf_data, "fast_parse", lambda text: None)
        m.setattr(node_table, "_CHUNK", 4)  # several chunks, some with other fields
        try:
            return read_gltf(path)
        except SceneError as exc:
            return str(exc)


def _summary(model) -> object:
    if isinstance(model, str):
        return model
    looks = [None if look is None else (look.mesh, look.color) for look in model.looks]
    return (model.names, model.parents.tolist(), model.rows.tolist(), looks, model.notes,
            [(c.node, c.name) for c in model.cameras], model.title)  # fmt: skip


def _assert_same(path, monkeypatch) -> None:
    old, new = _read(path, False, monkeypatch), _read(path, True, monkeypatch)
    assert _summary(new) == _summary(old)
    if not isinstance(old, str):
        for a, b in ((old.positions, new.positions), (old.rotations, new.rotations),
                     (old.scales, new.scales)):  # fmt: skip
            assert np.array_equal(a, b) and a.dtype == b.dtype


_SLOW = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@pytest.mark.filterwarnings("error")  # bad numbers give one line, never a numpy warning
@settings(max_examples=300, deadline=None, suppress_health_check=_SLOW)
@given(documents())
def test_the_fast_path_reads_what_the_old_way_reads(tmp_path, monkeypatch, case):
    text, binary = case
    raw = text.encode("utf-8", "surrogatepass")
    if binary:
        path = tmp_path / "x.glb"
        path.write_bytes(glb_bytes(raw.decode("utf-8", "surrogatepass")))
    else:
        path = tmp_path / "x.gltf"
        path.write_bytes(raw)
    _assert_same(path, monkeypatch)


@pytest.mark.parametrize(
    "node_text",
    ['{"n\\u0061me":"a","translation":[1,2,3]}', '{"mesh":0,"mesh":1}',
     '{"translation":[1e400,0,0]}', '{"translation":[NaN,0,0]}', '{"name":"\\ud800"}',
     '{"name":"\xff"}', '{"translation":[9007199254740993,0,1e-320]}', '{"mesh":1.0}',
     '{"mesh":true}', '{"mesh":-1}', '{"mesh":99999999999999999999}', '{"children":[1.0]}',
     '{"children":[1,1]}', '{"rotation":[0,0,0,0]}', '{"scale":[1,1]}', '{"name":7}',
     '{"translation":[' + "9" * 400 + ',0,0]}', '{"translation":[' + "9" * 5000 + ',0,0]}',
     '{"camera":0,"translation":[0.1,0.2,0.3]}', '{"matrix":[1,0,0,0,0,1,0,0,0,0,1,0,4,5,6,1]}',
     '{"translation":null,"children":null,"mesh":null,"name":null}', "[]", "7"],
)  # fmt: skip
def test_spellings_read_the_same_both_ways(tmp_path, monkeypatch, node_text):
    text = json.dumps({"asset": _ASSET, **_REST})[:-1]
    text += ',"nodes":[' + node_text + ',{"name":"b"}]}'
    path = tmp_path / "x.gltf"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    _assert_same(path, monkeypatch)


def test_a_plain_file_takes_the_fast_path(tmp_path):
    nodes = [{"name": f"n{i}", "translation": [i, 0.5, 0], "mesh": i % 2,
              **({"children": [i + 1]} if i < 99 else {})} for i in range(100)]  # fmt: skip
    nodes[5]["camera"] = 0  # a node with another field keeps its object
    path = tmp_path / "x.gltf"
    path.write_text(json.dumps({"asset": _ASSET, **_REST, "nodes": nodes}))
    gltf = GltfFile(path, path.name)
    gltf.open()
    assert gltf.node_table is not None and gltf.node_table.others.tolist() == [5]
    assert gltf.doc["nodes"][5] == nodes[5]
    model = read_gltf(path)
    assert model.names[:2] == ["n0", "n1"] and model.cameras[0].node == 5


@pytest.mark.parametrize(
    "node",
    ["{}", '{"extras":0}', '{"a":[]}', '{"children":[]}', '{"mesh":0,"x":{}}',
     '{"translation":[0,0,0]}', '{"name":"x","y":1}'],
)  # fmt: skip
def test_the_fast_path_holds_no_more_than_the_caps_allow_for(node):
    """The JSON caps bound the parsed JSON by `json_memory_bound` of its text (a check
    before parsing): the fast path stays within it, but for one chunk's records and text
    (a constant: at most 256 bytes a node of a chunk)."""
    n = 100_000
    text = ('{"asset":{"version":"2.0"},"nodes":[' + ",".join([node] * n) + "]}").encode()
    tracemalloc.start()
    try:
        table = node_table.fast_parse(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert table is not None and len(table[1]) == n
    allowed = json_memory_bound(text) + 256 * node_table._CHUNK
    assert peak <= allowed, (peak / n, allowed / n)
