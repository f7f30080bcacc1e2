"""The glTF load and save at size (issue 36), each shortcut against its oracle.

- `file_order_is_preorder`: the walk from the roots (random forests, in pre-order, nearly
  so, or not at all).
- A load: world matrices from the spec (each node's TRS or matrix, parent times local,
  tests/oracle.py) on random hierarchies, and the same graph as the old path (node dicts,
  the walk) gives, bit for bit.
- `UniqueNames.claim_all`: `claim` called name by name; `json_memory_bound`: the counts
  ``bytes.count`` gives; `peek.names_of`: `name_of` per id; the drawn sizes of
  `check_world_reach`: the loop over every look.
- `return_free_heap`: freed heap pages between live ones go back to the system.
- A large JSON text read again for a save: the same bytes as a kept one, and one line
  when the file changed or is gone.
"""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import local_matrix
from scene_helpers import glb_bytes

from viewer import heap
from viewer.content.scene import Look, Scene
from viewer.io import SceneError, load_scene
from viewer.io import ranges as R
from viewer.io._build import UniqueNames
from viewer.io.gltf_read import data as gltf_data
from viewer.io.gltf_read import source as gltf_source
from viewer.io.gltf_read.nodes import file_order_is_preorder
from viewer.io.gltf_write.export import save_gltf
from viewer.io.limits import json_memory_bound
from viewer.scene import SceneGraph

_SLOW = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


def _walk(kids: list[list[int]], roots: list[int]) -> list[int]:
    order, stack = [], roots[::-1]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(kids[i][::-1])
    return order


@st.composite
def forests(draw):
    """(children lists, roots): a random forest numbered in its pre-order, then perhaps
    disturbed: two nodes swapped, a child list or the roots shuffled, a root left out."""
    n = draw(st.integers(1, 40))
    rng = random.Random(draw(st.integers(0, 2**32)))
    shape = rng.choice(["chain", "wide", "random"])
    parent = [-1] + [
        i - 1 if shape == "chain" else rng.randrange(-1, i) if shape == "random" else 0
        for i in range(1, n)
    ]
    kids: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        if parent[i] >= 0:
            kids[parent[i]].append(i)
    for k in kids:
        rng.shuffle(k)
    roots = [i for i in range(n) if parent[i] < 0]
    rng.shuffle(roots)
    order = _walk(kids, roots)
    label = {old: new for new, old in enumerate(order)}  # numbered in pre-order
    kids = [sorted((label[c] for c in kids[old]), key=lambda c: c) for old in order]
    roots = sorted(label[r] for r in roots)
    if rng.random() < 0.5:
        change = rng.choice(["swap", "children", "roots", "drop root"])
        if change == "swap" and n > 1:
            a, b = rng.sample(range(n), 2)
            swap = {a: b, b: a}
            kids = [[swap.get(c, c) for c in kids[swap.get(i, i)]] for i in range(n)]
            roots = [swap.get(r, r) for r in roots]
        elif change == "children":
            rng.shuffle(kids[rng.randrange(n)])
        elif change == "roots":
            rng.shuffle(roots)
        elif len(roots) > 1:
            roots.remove(rng.choice(roots))
    return kids, roots


@settings(max_examples=500, deadline=None)
@given(forests())
def test_the_preorder_check_is_the_walk(forest):
    kids, roots = forest
    n = len(kids)
    parent = np.full(n, -1, np.int64)
    for i, k in enumerate(kids):
        parent[k] = i
    start = np.concatenate([[0], np.cumsum([len(k) for k in kids])]).astype(np.int64)
    flat = np.array([c for k in kids for c in k], dtype=np.int64)
    expected = _walk(kids, roots) == list(range(n))
    assert file_order_is_preorder(parent, start, flat, roots) == expected


# ------------------------------------------------------------------ loads against the spec
def _quaternion(rng: random.Random) -> list[float]:
    q = [rng.uniform(-1, 1) for _ in range(4)]
    return q if math.hypot(*q) > 0.1 else [0.0, 0.0, 0.0, 1.0]


def _trs_matrix(rng: random.Random) -> list[float]:
    t = [rng.uniform(-5, 5) for _ in range(3)]
    s = [rng.choice([1.0, 2.0, 0.5]) * rng.choice([1, -1]) for _ in range(3)]
    m = local_matrix(t, _quaternion(rng), s)
    return m.T.reshape(-1).tolist()  # column-major


@st.composite
def hierarchies(draw):
    """(document, spec locals by node, parents by node): random forests, in pre-order or
    shuffled, each node with TRS fields, a matrix or nothing, names missing or alike."""
    n = draw(st.integers(1, 30))
    rng = random.Random(draw(st.integers(0, 2**32)))
    parent = [rng.randrange(-1, i) if i and rng.random() < 0.85 else -1 for i in range(n)]
    kids: list[list[int]] = [[] for _ in range(n)]
    for i, p in enumerate(parent):
        if p >= 0:
            kids[p].append(i)
    order = _walk(kids, [i for i in range(n) if parent[i] < 0])
    if rng.random() < 0.5:
        rng.shuffle(order)  # else the file order is the pre-order
    index = {old: new for new, old in enumerate(order)}
    nodes, spec_local, spec_parent = [], [], []
    for old in order:
        node: dict = {}
        if rng.random() < 0.8:
            node["name"] = rng.choice(["a", "b", "", "a~2", f"n{old}"])
        if kids[old]:
            node["children"] = [index[c] for c in kids[old]]
        if rng.random() < 0.2:
            node["matrix"] = _trs_matrix(rng)
            local = np.array(node["matrix"]).reshape(4, 4).T
        else:
            t, q, s = [0.0] * 3, [0.0, 0.0, 0.0, 1.0], [1.0] * 3
            if rng.random() < 0.7:
                t = node["translation"] = [rng.uniform(-5, 5) for _ in range(3)]
            if rng.random() < 0.7:
                q = node["rotation"] = _quaternion(rng)
            if rng.random() < 0.4:
                s = node["scale"] = [rng.choice([1.0, 3.0, 0.25, -2.0]) for _ in range(3)]
            local = local_matrix(t, q, s)
        nodes.append(node)
        spec_local.append(local)
        spec_parent.append(-1 if parent[old] < 0 else index[parent[old]])
    doc = {"asset": {"version": "2.0"}, "nodes": nodes}
    if rng.random() < 0.5:
        doc["scenes"] = [{"nodes": [index[r] for r in range(n) if parent[r] < 0]}]
    return doc, spec_local, spec_parent, rng.random() < 0.5


def _load(path, fast: bool, monkeypatch):
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(gltf_data, "fast_parse", lambda text: None)
        return load_scene(path)


@settings(max_examples=150, deadline=None, suppress_health_check=_SLOW)
@given(hierarchies())
def test_loaded_world_matrices_follow_the_spec(tmp_path, monkeypatch, case):
    doc, spec_local, spec_parent, binary = case
    path = tmp_path / ("x.glb" if binary else "x.gltf")
    text = json.dumps(doc)
    path.write_bytes(glb_bytes(text) if binary else text.encode())
    scene = _load(path, True, monkeypatch)
    graph = scene.graph
    (include,) = scene.includes
    ids = np.asarray(include.ids)[np.asarray(include.source.rows)]  # by glTF node
    world = graph.world_matrices()
    for i in range(len(spec_local)):
        expected, j = spec_local[i], spec_parent[i]
        while j >= 0:
            expected, j = spec_local[j] @ expected, spec_parent[j]
        np.testing.assert_allclose(world[ids[i]], expected, rtol=1e-9, atol=1e-9)
    old = _load(path, False, monkeypatch).graph  # the old path: node dicts and the walk
    assert old.peek.names_of(old.alive_ids()) == graph.peek.names_of(graph.alive_ids())
    assert np.array_equal(old.parents(), graph.parents())
    for a, b in zip(old.local_values(), graph.local_values(), strict=True):
        assert np.array_equal(a, b)


# ------------------------------------------------------------------ the bulk helpers
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "a~2", "a~3", "b~2", "c"]), max_size=12),
       st.lists(st.sampled_from(["a", "a~2", "x"]), max_size=3))  # fmt: skip
def test_claim_all_is_claim_name_by_name(names, taken):
    one, many = UniqueNames(taken), UniqueNames(taken)
    assert many.claim_all(names) == [one.claim(name) for name in names]
    assert many.taken == one.taken
    assert many.claim("a") == one.claim("a")  # where each search stopped is the same too


def test_claim_all_takes_distinct_names_as_they_are():
    used = UniqueNames()
    assert used.claim_all(["x", "y"]) == ["x", "y"] and used.claim("x") == "x~2"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.integers(1, 64))
def test_the_json_memory_bound_counts_what_bytes_count_counts(text, block):
    costs = {b"{": 72, b":": 104, b"[": 64, b",": 40, b'"': 28}
    expected = len(text) + sum(cost * text.count(c) for c, cost in costs.items()) + 4096
    with pytest.MonkeyPatch.context() as m:
        m.setattr("viewer.io.limits._COUNT_BLOCK", block)  # several blocks, a partial last
        assert json_memory_bound(text) == json_memory_bound(memoryview(text)) == expected


def test_names_of_is_name_of_per_id():
    g = SceneGraph()
    a = g.add("a")
    b = g.add("b", a)
    g.add("c", b)
    g.remove("c")
    ids = np.array([2, 0, 1, 1])
    assert g.peek.names_of(ids) == [g.name_of(i) for i in ids.tolist()] == ["c", "a", "b", "b"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 4)), max_size=20),
       st.integers(1, 12))  # fmt: skip
def test_drawn_sizes_are_those_of_each_look(pairs, n):
    mesh_data = {"m": (np.array([[0.0, 3.0, -1.0]]), None, None)}
    shared = [Look(mesh="none"), Look(mesh="cube", size=(1.0, 2.0, 0.5)),
              Look(mesh="m", size=(0.5, 0.5, 0.5)), Look(mesh="cube")]  # fmt: skip
    scene = Scene(graph=SceneGraph())
    scene.mesh_data.update(mesh_data)
    for node, pick in pairs:
        scene.looks[node] = shared[pick] if pick < 4 else Look(mesh="sphere", size=(2.0,) * 3)
    expected = np.zeros(n)
    for i, look in scene.looks.items():  # the loop over every look, as it was
        if i < n and look.mesh != "none":
            extent = 6.0 if look.mesh == "m" else 1.0
            expected[i] = extent * max(look.size) * math.sqrt(3.0)
    radius: dict[str, float] = {}
    assert np.array_equal(R._drawn_sizes(scene, n, radius), expected)
    assert radius == ({"m": 6.0} if any(look.mesh == "m" for look in scene.looks.values()) else {})


# ------------------------------------------------------------------ the JSON read again
@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_a_json_read_again_saves_what_a_kept_one_saves(tmp_path, monkeypatch, suffix):
    from viewer.io.generate import generate_scene

    src = tmp_path / f"src{suffix}"
    save_gltf(generate_scene("chain:3000"), src)  # its JSON is most of the file
    kept = load_scene(src)
    assert not isinstance(kept.includes[0].source.json_text, gltf_source.JsonOnDisk)
    monkeypatch.setattr(gltf_source, "REREAD_BYTES", 0)
    reread = load_scene(src)
    source = reread.includes[0].source
    assert isinstance(source.json_text, gltf_source.JsonOnDisk)
    assert not any(isinstance(b, memoryview) for b in source.buffers)  # no view of the file
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    save_gltf(kept, tmp_path / "a" / f"out{suffix}")
    save_gltf(reread, tmp_path / "b" / f"out{suffix}")
    for a in (tmp_path / "a").iterdir():
        assert a.read_bytes() == (tmp_path / "b" / a.name).read_bytes(), a.name


@pytest.mark.parametrize("name", ["features.gltf", "rig.gltf"])
def test_a_rich_file_read_again_saves_what_a_kept_one_saves(tmp_path, monkeypatch, name):
    """Materials, textures, images, skins, animations, cameras, instancing and extras
    (tests/io/gltf_features.py, tests/gltf_rig.py) come from the JSON read again."""
    from gltf_features import write_features
    from gltf_rig import write_rig

    src = (write_features if name.startswith("features") else write_rig)(tmp_path, name)
    kept = load_scene(src)
    monkeypatch.setattr(gltf_source, "REREAD_BYTES", 0)
    reread = load_scene(src)
    assert isinstance(reread.includes[0].source.json_text, gltf_source.JsonOnDisk)
    for folder, scene in (("a", kept), ("b", reread)):
        (tmp_path / folder).mkdir()
        save_gltf(scene, tmp_path / folder / "out.glb")
    assert (tmp_path / "a" / "out.glb").read_bytes() == (tmp_path / "b" / "out.glb").read_bytes()


def test_a_glb_whose_binary_chunk_is_larger_keeps_its_json(tmp_path, monkeypatch):
    """The binary chunk is kept as a view of the file's bytes: the JSON, a view of the
    same bytes, costs nothing more, and is kept."""
    from viewer.io.generate import generate_scene

    src = tmp_path / "src.glb"
    save_gltf(generate_scene("random:200"), src)  # a mesh per colour: a large chunk
    monkeypatch.setattr(gltf_source, "REREAD_BYTES", 0)
    source = load_scene(src).includes[0].source
    assert isinstance(source.json_text, memoryview)
    assert len(source.buffers[0]) > len(source.json_text)


@pytest.mark.parametrize("change", ["edit", "remove"])
def test_a_json_changed_on_disk_is_refused_in_one_line(tmp_path, monkeypatch, change):
    from viewer.io.generate import generate_scene

    src = tmp_path / "src.glb"
    save_gltf(generate_scene("chain:3000"), src)  # its JSON is most of the file
    monkeypatch.setattr(gltf_source, "REREAD_BYTES", 0)
    scene = load_scene(src)
    if change == "edit":
        data = bytearray(src.read_bytes())
        data[data.index(b"Obj1")] = ord("X")  # same length, other text
        src.write_bytes(bytes(data))
    else:
        src.unlink()
    with pytest.raises(SceneError) as err:
        save_gltf(scene, tmp_path / "out.glb")
    message = str(err.value)
    assert "\n" not in message and str(src) in message
    assert ("changed since it was loaded" if change == "edit" else "cannot read") in message
    assert not (tmp_path / "out.glb").exists()


# ------------------------------------------------------------------ the mesh rows in bulk
@settings(max_examples=60, deadline=None, suppress_health_check=_SLOW)
@given(st.lists(st.tuples(st.sampled_from([None, 0, 1, 2]), st.sampled_from(["", "weights",
                                                                            "extras"])),
                min_size=1, max_size=12), st.booleans())  # fmt: skip
def test_nodes_sharing_meshes_get_what_the_loop_gives(tmp_path, monkeypatch, picks, morphed):
    """Plain nodes drawing a mesh a plain node drew before them get its look in bulk; a
    mesh with morph targets sends every row through the loop (each its own copy): the
    looks, the morphed copies and their weights are those of the old path, in order."""
    from gltf_looks import Doc, quad

    from viewer.io.gltf_read.scene import read_gltf

    d = Doc()
    targets = [{"POSITION": np.full((4, 3), 0.5)}] if morphed else ()
    meshes = [d.mesh(quad()), d.mesh(quad(), targets=targets, weights=[0.25] if morphed else None),
              d.mesh(quad(1.0))]  # fmt: skip
    for k, (mesh, extra) in enumerate(picks):
        fields = {} if mesh is None else {"mesh": meshes[mesh]}
        if extra == "weights" and mesh == 1 and morphed:
            fields["weights"] = [0.75]
        elif extra == "extras":
            fields["extras"] = {"k": k}
        d.node(f"n{k}", **fields)
    path = d.write(tmp_path / "m.gltf")
    models = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(gltf_data, "fast_parse", lambda text: None)
            models.append(read_gltf(path))
    new, old = models
    assert [None if x is None else (x.mesh, x.color) for x in new.looks] == [
        None if x is None else (x.mesh, x.color) for x in old.looks]  # fmt: skip
    assert [id(x) for x in new.looks].count(id(new.looks[0])) == [
        id(x) for x in old.looks].count(id(old.looks[0]))  # the same sharing  # fmt: skip
    g_new, g_old = new.geometry, old.geometry
    assert [(k, v.tolist()) for k, v in g_new.weights.items()] == [
        (k, v.tolist()) for k, v in g_old.weights.items()]  # fmt: skip
    assert [(x.node, x.mesh) for x in g_new.morphed] == [(x.node, x.mesh) for x in g_old.morphed]


# ------------------------------------------------------------------ the heap given back
def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(heap._LIBC is None, reason="glibc only")
def test_free_heap_pages_go_back_to_the_system():
    """Blocks freed between blocks that stay (as a large load leaves them) are held by
    glibc until `return_free_heap`."""
    kept, freed = [], []
    for _ in range(2000):
        freed.append(bytearray(60_000))  # in the heap (under the mmap threshold)
        kept.append(bytearray(100))
    for block in freed:
        block[::4096] = b"\1" * len(block[::4096])  # touched: resident
    before = _rss_mb()
    freed.clear()
    held = _rss_mb()
    heap.return_free_heap()
    assert held > before - 40  # glibc held on to most of the 114 MB freed
    assert _rss_mb() < held - 60
    assert len(kept) == 2000
