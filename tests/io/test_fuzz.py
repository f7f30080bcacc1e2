"""Whatever the input, the loaders raise SceneError or return a scene: never anything else."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scene_helpers import SCENE_FILES, build_gltf, data_uri

from viewer.io import SceneError, load_scene

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def load_or_scene_error(path):
    try:
        return load_scene(path)
    except SceneError as err:
        message = str(err)
        assert message and "\n" not in message
        assert err.file == str(path)
        return None


# ------------------------------------------------------------------ a tiny TOML writer
def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a valid TOML basic string for the text hypothesis makes here
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + " }"


NODE_KEYS = ["name", "parent", "position", "rotation", "quaternion", "scale", "mesh", "size",
             "color", "motion", "bogus"]  # fmt: skip
NAMES = st.sampled_from(["A", "B", "C", "D", ""])
scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet="abcAB#0123456789./ ", max_size=8),
    NAMES,
    st.sampled_from(["cube", "none", "disk", "x.glb", "#4c72b0", "#fff", "spin"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(
            st.sampled_from(
                [
                    "spin",
                    "orbit",
                    "swing",
                    "oscillate",
                    "pulse",
                    "axis",
                    "speed",
                    "amplitude",
                    "period",
                    "phase",
                    "node",
                    "x",
                ]
            ),  # fmt: skip
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)
nodes = st.lists(st.dictionaries(st.sampled_from(NODE_KEYS), values, max_size=6), max_size=5)
events = st.lists(
    st.dictionaries(st.sampled_from(["frame", "touch", "set", "zzz"]), values, max_size=3),
    max_size=3,
)


def render(doc_nodes, doc_events, camera) -> str:
    out = []
    if camera:
        out.append("[camera]")
        out += [f"{k} = {toml_value(v)}" for k, v in camera.items()]
    for table, key in ((doc_nodes, "node"), (doc_events, "event")):
        for item in table:
            out.append(f"[[{key}]]")
            out += [f"{k} = {toml_value(v)}" for k, v in item.items()]
    return "\n".join(out) + "\n"


@FUZZ
@given(
    doc_nodes=nodes,
    doc_events=events,
    camera=st.dictionaries(
        st.sampled_from(["position", "target", "fov", "projection", "height"]), values, max_size=3
    ),  # fmt: skip
)
def test_structured_nonsense(tmp_path_factory, doc_nodes, doc_events, camera):
    path = tmp_path_factory.mktemp("fuzz") / "s.toml"
    path.write_text(render(doc_nodes, doc_events, camera), encoding="utf-8")
    load_or_scene_error(path)


SOURCES = [p.read_text() for p in SCENE_FILES]
TOKENS = ["[", "]", "[[node]]", "{", "}", "=", ",", '"', "'", "\n", "#", "nan", "-inf",
          "1e999", "true", "parent", '"Obj1"', "mesh", "motion", "0", "-", ".", "\\", "\x00",
          "é"]  # fmt: skip


@FUZZ
@given(
    source=st.sampled_from(SOURCES),
    edits=st.lists(
        st.tuples(st.floats(0, 1), st.integers(0, 30), st.sampled_from(TOKENS)), max_size=6
    ),
)
def test_mutated_scene_files(tmp_path_factory, source, edits):
    text = source
    for where, cut, token in edits:
        i = int(where * len(text))
        text = text[:i] + token + text[i + cut :]
    path = tmp_path_factory.mktemp("fuzz") / "m.toml"
    path.write_text(text, encoding="utf-8")
    load_or_scene_error(path)


@FUZZ
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".toml", ".gltf", ".glb"]))
def test_random_bytes(tmp_path_factory, data, suffix):
    path = tmp_path_factory.mktemp("fuzz") / f"r{suffix}"
    path.write_bytes(data)
    load_or_scene_error(path)


def _gltf_doc() -> dict:
    gltf, blob = build_gltf()
    gltf.buffers[0].uri = data_uri(blob)
    return json.loads(gltf.gltf_to_json())


GLTF_DOC = _gltf_doc()
JSON_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**40), 2**40),
        st.floats(allow_nan=False),
        st.text(max_size=6),
    ),  # fmt: skip
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),  # fmt: skip
    max_leaves=8,
)


def _paths(doc, prefix=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield (*prefix, k)
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for k, v in enumerate(doc):
            yield (*prefix, k)
            yield from _paths(v, (*prefix, k))


GLTF_PATHS = [p for p in _paths(GLTF_DOC) if p[:2] != ("buffers", 0) or len(p) < 3]


@FUZZ
@given(
    changes=st.lists(st.tuples(st.sampled_from(GLTF_PATHS), JSON_VALUES), min_size=1, max_size=3)
)
def test_mutated_gltf(tmp_path_factory, changes):
    doc = json.loads(json.dumps(GLTF_DOC))
    for path, value in changes:
        target = doc
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    file = tmp_path_factory.mktemp("fuzz") / "g.gltf"
    file.write_text(json.dumps(doc))
    load_or_scene_error(file)


@pytest.mark.parametrize("path", SCENE_FILES[:1])
def test_truncations_of_a_scene(tmp_path, path):
    text = path.read_text()
    for n in range(0, len(text), 7):
        cut = tmp_path / f"t{n}.toml"
        cut.write_text(text[:n])
        load_or_scene_error(cut)
