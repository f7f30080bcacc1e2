"""The writers work over arrays of nodes (issue 36): each is compared here with a
per-node oracle on random hierarchies, and the TOML size cap is tried on both sides."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.content.scene import Look, Scene
from viewer.io import SceneError, load_scene, toml_precheck, toml_scene
from viewer.io import save as S
from viewer.io.gltf_write.export import build_gltf
from viewer.io.save import save_scene, scene_to_toml
from viewer.scene import SceneGraph

#: Numbers that meet each branch of `_num`: zeros of both signs, whole numbers on both
#: sides of 1e15, fractions, tiny and large magnitudes.
NUMBERS = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -3.0, 1e15 - 1, 1e15, -1e15, 2.5e15, 0.1, 1e-300]),
    st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False),
    st.integers(-(10**6), 10**6).map(float),
    # the whole range: subnormals, the largest exponents
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e300]),
)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4).flatmap(
    lambda w: st.lists(st.lists(NUMBERS, min_size=w, max_size=w), min_size=0, max_size=12)
), st.booleans())  # fmt: skip
def test_row_texts_are_the_per_value_texts(rows, collapse):
    width = len(rows[0]) if rows else 3
    values = np.array(rows, dtype=np.float64).reshape(len(rows), width)
    one_by_one = [S._vec_or_num(r) if collapse else S._vec(r) for r in values]
    assert S._vec_rows(values, collapse) == one_by_one


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(NUMBERS, min_size=3, max_size=3), min_size=1, max_size=12))
def test_written_numbers_read_back_exactly(rows):
    """Every number the writer formats reads back to the same float (-0.0 is written 0),
    through the loader's plain reader and through toml_rs."""
    import toml_rs

    from viewer.io.toml_plain import _values

    values = np.array(rows, dtype=np.float64)
    texts = S._vec_rows(values)
    back = _values(texts)
    want = np.where(values == 0.0, 0.0, values)  # both zeros are written "0"
    assert back.view(np.int64).tolist() == want.view(np.int64).tolist()
    parsed = toml_rs.loads("".join(f"v{i} = {t}\n" for i, t in enumerate(texts)))
    assert [[float(x) for x in parsed[f"v{i}"]] for i in range(len(texts))] == want.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=6), st.sampled_from(["Obj1", "a b", ""])), max_size=8))
def test_names_quoted_at_once_are_the_per_name_texts(names):
    assert S._quoted(names) == list(map(S._str, names))


def test_a_non_finite_number_is_refused_by_the_array_path_too():
    with pytest.raises(SceneError, match="cannot save a non-finite number"):
        S._vec_rows(np.array([[1.0, np.inf, 0.0]]))


@st.composite
def hierarchies(draw):
    """A graph of up to 30 nodes (parents before children, some nodes removed) with
    random local values, and looks shared between nodes as the loaders share them."""
    n = draw(st.integers(1, 30))
    parents = [-1] + [draw(st.integers(-1, i - 1)) for i in range(1, n)]
    g = SceneGraph()
    names = [f"n{i}" for i in range(n)]
    ids = g.add_many(names, np.array(parents))
    coordinate = st.one_of(
        st.sampled_from([0.0, -0.0, 1.0, -3.0, 0.1, 123456.0]),
        st.floats(-1e6, 1e6).filter(lambda x: x == 0 or abs(x) > 1e-6),
    )
    vec = st.lists(coordinate, min_size=3, max_size=3)
    removed = draw(st.lists(st.integers(1, n - 1), max_size=3)) if n > 1 else []
    for i in sorted(set(removed), reverse=True):
        if _alive(g, int(ids[i])):
            g.remove(g.node(int(ids[i])), keep_children=draw(st.booleans()))
    for node in g:  # the nodes left
        if draw(st.booleans()):
            node.local_position = draw(vec)
        if draw(st.booleans()):
            node.local_euler = draw(st.lists(st.floats(-180, 180), min_size=3, max_size=3))
        if draw(st.booleans()):
            node.local_scale = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=3,
                                       max_size=3))  # fmt: skip
    scene = Scene(graph=g, title="random")
    shared = [Look("cube", (0.5, 0.5, 0.5), (0.2, 0.4, 0.6)), Look("sphere"), Look("none")]
    for node in g:
        pick = draw(st.integers(-1, 2))
        if pick >= 0:
            scene.looks[node.id] = shared[pick]
    g.update()
    return scene


def _alive(graph, node_id) -> bool:
    try:
        graph.node(node_id)
    except Exception:
        return False
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hierarchies())
def test_gltf_node_entries_follow_the_spec(scene):
    """Every node entry, by glTF 2.0 and the module's rules, built node by node here."""
    graph = scene.graph
    doc = build_gltf(scene).doc
    ids = graph.alive_ids().tolist()
    row = {node_id: k for k, node_id in enumerate(ids)}
    parents = graph.parents()
    pos, rot, scl = graph.local_values()
    mesh_of = {}
    expected = []
    for node_id in ids:
        entry = {"name": graph.name_of(node_id)}
        for key, values, default in (("translation", pos, [0, 0, 0]),
                                     ("rotation", rot, [0, 0, 0, 1]),
                                     ("scale", scl, [1, 1, 1])):  # fmt: skip
            if values[node_id].tolist() != default:
                entry[key] = values[node_id].tolist()
        look = scene.look(node_id)
        if look.mesh != "none":
            key = (look.mesh, tuple(look.size), tuple(look.color))
            mesh_of.setdefault(key, len(mesh_of))
            entry["mesh"] = mesh_of[key]
        kids = [row[c] for c in ids if parents[c] == node_id]
        if kids:
            entry["children"] = kids
        expected.append(entry)
    got = doc.get("nodes", [])
    assert [list(e) for e in got] == [list(e) for e in expected]  # the same key order
    assert json.loads(json.dumps(got)) == expected
    assert doc["scenes"][0].get("nodes", []) == [row[i] for i in ids if parents[i] < 0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hierarchies())
def test_toml_round_trip_of_random_hierarchies(scene):
    text = scene_to_toml(scene)
    again = toml_scene.parse_scene_text(text)
    a, b = scene.graph, again.graph
    assert [(n.name, n.parent.name if n.parent else None) for n in a] == [
        (n.name, n.parent.name if n.parent else None) for n in b
    ]
    for na, nb in zip(a, b, strict=True):
        np.testing.assert_allclose(na.local_position, nb.local_position, rtol=0, atol=0)
        np.testing.assert_allclose(na.local_scale, nb.local_scale, rtol=0, atol=0)
        np.testing.assert_allclose(na.world_matrix, nb.world_matrix, atol=1e-9)
        assert scene.look(na.id) == again.look(nb.id)


# ---------------------------------------------------------------------------- size cap
def _saved_chain(tmp_path, n: int):
    from viewer.io import generate_scene

    path = tmp_path / "chain.toml"
    save_scene(generate_scene(f"chain:{n}"), path)
    return path


def test_a_file_over_the_cap_is_refused_in_one_line(tmp_path, monkeypatch):
    path = _saved_chain(tmp_path, 50)
    size = path.stat().st_size
    monkeypatch.setattr(toml_scene, "MAX_TOML_BYTES", size - 1)
    with pytest.raises(SceneError) as err:
        load_scene(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message
    assert f"the file is {size:,} bytes, over the limit of {size - 1:,}" in message
    monkeypatch.setattr(toml_scene, "MAX_TOML_BYTES", size)  # at the cap: read
    assert len(load_scene(path).graph) == 50


def test_a_large_file_as_save_writes_it_is_read(tmp_path, monkeypatch):
    """Over the any-shape size, a file written by --save (11+ bytes a value) loads."""
    path = _saved_chain(tmp_path, 400)
    monkeypatch.setattr(toml_precheck, "MAX_ANY_SHAPE_BYTES", path.stat().st_size // 4)
    assert len(load_scene(path).graph) == 400


@pytest.mark.parametrize("shape", ["{},", "[],", "1,"])
def test_a_large_dense_file_is_refused_in_one_line(tmp_path, monkeypatch, shape):
    path = tmp_path / "dense.toml"
    path.write_text("a = [" + shape * 20_000 + "]\n")
    monkeypatch.setattr(toml_precheck, "MAX_ANY_SHAPE_BYTES", 10_000)
    with pytest.raises(SceneError) as err:
        load_scene(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message
    assert "must average at least 8 bytes per value" in message


@pytest.mark.parametrize("pad", [0, -1])
def test_the_density_rule_at_its_boundary(monkeypatch, pad):
    monkeypatch.setattr(toml_precheck, "MAX_ANY_SHAPE_BYTES", 1000)
    k = 500  # 500 values ("a = 1" lines) in 8 bytes each, then one byte fewer
    text = "a = 1\n" * k
    text += "#" * (toml_precheck.MIN_BYTES_PER_VALUE * k - len(text) + pad)
    problem = toml_precheck.density_problem(text)
    assert (problem is None) == (pad == 0)
