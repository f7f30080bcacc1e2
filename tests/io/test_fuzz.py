"""Whatever the input, the loaders raise SceneError or return a scene: never anything else.

Random and mutated TOML, mutated glTF JSON, GLB bytes and external buffers, and scenes
that include a mutated model; and one generator per class of hostile input of issue 12:
extreme but finite numbers (`test_extreme_numbers`, `test_extreme_chains`: what an
accepted scene computes later must stay finite and inside the world bound), TOML shapes
that cost the parser far more than their size (`test_pathological_toml_shapes`, against
the documented memory per byte), and long or hostile strings in every field
(`test_messages_stay_short_whatever_the_file_quotes`). Output paths and untrusted names
have their generators in tests/test_output_paths.py and tests/test_untrusted_names.py.
Each case runs under `bounded_load` (tests/io/bounded.py): a bound on its peak
allocations, small node and buffer caps, no numpy warning, a one-line printable message
of at most 400 characters, and a generous hang guard. 150 examples per test in CI;
SGVIEW_FUZZ_EXAMPLES=4000 runs a longer campaign. A case that once failed goes into
fuzz_corpus/ (see test_corpus.py).
"""

from __future__ import annotations

import json
import math
import os
import struct

import pytest
from bounded import FUZZ_LIMITS, assert_stays_finite, bounded_load, memory_traced
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scene_helpers import SCENE_FILES, build_gltf, data_uri, write_gltf

from viewer.io import SceneError

FUZZ = settings(
    max_examples=int(os.environ.get("SGVIEW_FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module", autouse=True)
def _traced():
    with memory_traced():
        yield


def load_or_scene_error(path, also=()):
    return bounded_load(path, also=also, **FUZZ_LIMITS)


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


def mutated(doc: dict, changes) -> dict:
    """A deep copy of `doc` with each (path, value) of `changes` set where its path leads
    somewhere (a change an earlier one made unreachable is skipped)."""
    doc = json.loads(json.dumps(doc))
    for path, value in changes:
        target = doc
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    return doc


GLTF_PATHS = [p for p in _paths(GLTF_DOC) if p[:2] != ("buffers", 0) or len(p) < 3]


@FUZZ
@given(
    changes=st.lists(st.tuples(st.sampled_from(GLTF_PATHS), JSON_VALUES), min_size=1, max_size=3)
)
def test_mutated_gltf(tmp_path_factory, changes):
    doc = mutated(GLTF_DOC, changes)
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


# ------------------------------------------------------------------ byte-level mutation
#: Values that make length and offset fields interesting: zero, one past, huge, negative.
INTERESTING_U32 = [0, 1, 3, 4, 12, 20, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFC]


def mutate(data: bytes, edits) -> bytes:
    """Apply byte edits: overwrite, insert, delete, or a little-endian u32 at a 4-aligned
    offset (where GLB keeps its lengths and chunk types)."""
    out = bytearray(data)
    for op, where, value in edits:
        i = int(where * len(out))
        if op == "set" and out:
            out[min(i, len(out) - 1)] = value % 256
        elif op == "insert":
            out[i:i] = bytes([value % 256]) * (1 + value % 7)
        elif op == "delete":
            del out[i : i + 1 + value % 64]
        elif op == "u32":
            j = min(i - i % 4, max(0, len(out) - 4))
            out[j : j + 4] = struct.pack("<I", INTERESTING_U32[value % len(INTERESTING_U32)])
    return bytes(out)


byte_edits = st.lists(
    st.tuples(
        st.sampled_from(["set", "insert", "delete", "u32", "u32"]),
        st.floats(0, 1),
        st.integers(0, 255),
    ),
    min_size=1,
    max_size=6,
)


def _model_bytes(form: str, tmp_path_factory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("model")
    write_gltf(folder, form)
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return {form: _model_bytes(form, tmp_path_factory) for form in ("glb", "bin", "data")}


@FUZZ
@given(edits=byte_edits)
def test_mutated_glb_bytes(tmp_path_factory, models, edits):
    path = tmp_path_factory.mktemp("fuzz") / "m.glb"
    path.write_bytes(mutate(models["glb"]["model.glb"], edits))
    load_or_scene_error(path)


@FUZZ
@given(edits=byte_edits, target=st.sampled_from(["model.gltf", "model.bin"]))
def test_mutated_gltf_and_bin_bytes(tmp_path_factory, models, edits, target):
    folder = tmp_path_factory.mktemp("fuzz")
    for name, data in models["bin"].items():
        (folder / name).write_bytes(mutate(data, edits) if name == target else data)
    load_or_scene_error(folder / "model.gltf")


@FUZZ
@given(
    edits=byte_edits,
    form=st.sampled_from(["glb", "data"]),
    hosts=st.integers(0, 4),
    includes=st.integers(0, 3),
)
def test_scene_including_a_mutated_model(tmp_path_factory, models, edits, form, hosts, includes):
    folder = tmp_path_factory.mktemp("fuzz")
    name = "model.glb" if form == "glb" else "model.gltf"
    (folder / name).write_bytes(mutate(models[form][name], edits))
    text = "".join(f'[[node]]\nname = "H{k}"\nmesh = "{name}"\n' for k in range(hosts))
    text += "".join(
        f'[[include]]\nfile = "{name}"\n' + (f'parent = "H{k}"\n' if k < hosts else "")
        for k in range(includes)
    )
    path = folder / "s.toml"
    path.write_text(text, encoding="utf-8")
    load_or_scene_error(path, also=[folder / name])


# ------------------------------------------------------------------ class 1: extreme numbers
#: Finite numbers at the edges of the documented ranges (docs/scene-format.md), mostly
#: inside them so that many scenes load and their later computations get checked, and
#: beyond them; both signs.
EDGES = st.sampled_from(
    [1e-6, 1e-3, 0.5, 0.99, 1.0, 360.0, 1e6, 1e9, 1e12, 123.456]
).flatmap(lambda x: st.sampled_from([x, -x]))  # fmt: skip
BEYOND = st.sampled_from(
    [0.0, 5e-324, 1e-310, 1e-12, 1e-7, 0.999, 1.1e6, 2e9, 1e13, 1e200, 1e300, 1.7e308]
).flatmap(lambda x: st.sampled_from([x, -x]))  # fmt: skip
EXTREME = st.one_of(EDGES, EDGES, EDGES, BEYOND, st.floats(allow_nan=False, allow_infinity=False))
VEC3 = st.lists(EXTREME, min_size=3, max_size=3)
MOTION_PARAMS = {
    "spin": ("speed", "phase", "axis"),
    "orbit": ("speed", "phase", "axis"),
    "swing": ("amplitude", "period", "phase", "axis"),
    "oscillate": ("amplitude", "period", "phase", "axis"),
    "pulse": ("amplitude", "period", "phase"),
}
MOTIONS = st.sampled_from(sorted(MOTION_PARAMS)).flatmap(
    lambda kind: st.fixed_dictionaries(
        {key: VEC3 if key == "axis" else EXTREME for key in MOTION_PARAMS[kind][:-1]},
        optional={MOTION_PARAMS[kind][-1]: VEC3 if kind != "pulse" else EXTREME},
    ).map(lambda params: {kind: params})
)
EXTREME_NODE = st.fixed_dictionaries(
    {},
    optional={
        "position": VEC3,
        "rotation": VEC3,
        "quaternion": st.lists(EXTREME, min_size=4, max_size=4),
        "scale": st.one_of(EXTREME, VEC3),
        "size": st.one_of(EXTREME, VEC3),
        "motion": MOTIONS,
    },
)
EXTREME_CAMERA = st.fixed_dictionaries(
    {}, optional={"position": VEC3, "target": VEC3, "height": EXTREME}
)
#: Times a viewer can ask the motions for: the start, ordinary, and the bound either side.
TIMES = (0.0, 1 / 60, 12345.678, 1e12, -1e12)


@FUZZ
@given(
    doc_nodes=st.lists(EXTREME_NODE, min_size=1, max_size=6),
    nested=st.booleans(),
    camera=st.none() | EXTREME_CAMERA,
    events=st.lists(
        st.fixed_dictionaries({}, optional={"position": VEC3, "scale": VEC3}), max_size=2
    ),
)
def test_extreme_numbers(tmp_path_factory, doc_nodes, nested, camera, events):
    """Class 1: whatever finite numbers a file holds, the load ends in a one-line error
    or in a scene whose motions (at any allowed time), world matrices, bounds, grid and
    camera all stay finite."""
    for k, node in enumerate(doc_nodes):
        node["name"] = f"N{k}"
        if node.get("quaternion") is not None and "rotation" in node:
            del node["rotation"]
        if nested and k:
            node["parent"] = f"N{k - 1}"
    doc_events = [
        {"frame": 1, "set": {"node": "N0", **values}} for values in events if values
    ]  # fmt: skip
    path = tmp_path_factory.mktemp("fuzz") / "x.toml"
    path.write_text(render(doc_nodes, doc_events, camera or {}), encoding="utf-8")
    result = load_or_scene_error(path)
    if not isinstance(result, SceneError):
        assert_stays_finite(result, TIMES)


IN_RANGE = st.sampled_from([1e-6, 1e-3, 0.5, 1.0, 10.0, 1e3, 1e6])


@FUZZ
@given(
    chain=st.lists(
        st.tuples(
            st.sampled_from([1e-6, 0.5, 1.0, 1e3, 1e6]),
            st.sampled_from([0.0, 1.0, 1e3, 1e6, 1e9]),
            IN_RANGE,
        ),
        min_size=1,
        max_size=12,
    ),
    pulse=st.sampled_from([None, 0.5, 0.99]),
)
def test_extreme_chains(tmp_path_factory, chain, pulse):
    """Class 1 through nesting: every value in range, but their products along a chain
    must either stay inside the world bound or be refused by name."""
    lines = []
    for k, (scale, offset, size) in enumerate(chain):
        lines += [
            "[[node]]",
            f'name = "N{k}"',
            f"scale = {scale!r}",
            f"position = [{offset!r}, 0, 0]",
            f"size = {size!r}",
        ]
        if k:
            lines.append(f'parent = "N{k - 1}"')
        if pulse is not None and k % 2:
            lines.append(f"motion = {{ pulse = {{ amplitude = {pulse}, period = 1 }} }}")
    path = tmp_path_factory.mktemp("fuzz") / "chain.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load_or_scene_error(path)
    if isinstance(result, SceneError):
        assert "over 1e12" in str(result), str(result)
    else:
        assert_stays_finite(result, TIMES)


# ------------------------------------------------------------------ class 5: TOML shapes
#: docs/scene-format.md: loading costs at most 90 bytes per byte of TOML, plus 8 MB.
TOML_BYTES_PER_BYTE, TOML_FIXED_MB = 90, 8
KEY_PART = st.sampled_from(["a", "node", '"q.q"', "'l'", "motion", "0", "x-y"])
PATHOLOGICAL = st.one_of(
    st.integers(1, 5000).flatmap(
        lambda n: KEY_PART.map(lambda part: " . ".join([part] * n) + " = 1\n")
    ),  # a dotted key of n parts
    st.integers(1, 5000).map(lambda n: "[" + ".".join(["t"] * n) + "]\n"),  # a header
    st.integers(1, 3000).map(lambda n: "x = " + "[" * n + "]" * n + "\n"),  # nesting
    st.integers(1, 3000).map(lambda n: "x = " + "{a=" * n + "1" + "}" * n + "\n"),
    st.integers(1, 3000).map(lambda n: "x = [" + "{}," * n + "]\n"),  # many containers
    st.sampled_from(  # decoys: dots and brackets inside strings and comments
        [
            's = "' + "a." * 3000 + '"\n',
            "# " + "a." * 3000 + "[" * 3000 + "\n",
            "m = '''\n" + "a." * 3000 + "\n'''\n",
            'm = """x""""\n',
            "s = '" + "[" * 3000 + "'\n",
        ]
    ),  # fmt: skip
)


@FUZZ
@given(pieces=st.lists(PATHOLOGICAL, min_size=1, max_size=4), nodes=st.integers(0, 3))
def test_pathological_toml_shapes(tmp_path_factory, pieces, nodes):
    """Class 5: text whose parse would cost far more than its size (long dotted keys, deep
    nesting, many containers, and decoys that only look like them) loads or is refused in
    one line, within the documented memory per byte."""
    text = "".join(f'[[node]]\nname = "N{k}"\n' for k in range(nodes)) + "".join(pieces)
    path = tmp_path_factory.mktemp("fuzz") / "p.toml"
    path.write_text(text, encoding="utf-8")
    bound = TOML_BYTES_PER_BYTE * len(text.encode()) / 2**20 + TOML_FIXED_MB
    bounded_load(path, megabytes=bound, **FUZZ_LIMITS)


# ------------------------------------------------------------------ class 7: message size
LONG = st.sampled_from(["x" * 5000, "a\x1b[2J" * 800, "é" * 3000, "\n" * 100 + "y"])


@FUZZ
@given(
    cycle=st.integers(0, 1000),
    long_text=LONG,
    where=st.sampled_from(["name", "parent", "mesh", "key", "color", "title", "touch"]),
)
def test_messages_stay_short_whatever_the_file_quotes(tmp_path_factory, cycle, long_text, where):
    """Class 7: a huge cycle or a 5,000-character string in any field gives one short,
    printable line (bounded_load checks length and characters)."""
    text = toml_value(long_text)
    lines = []
    if where == "title":
        lines.append(f"[scene]\ntitle = {text}\n[camera]\nfov = 500")
    node = {
        "name": f'name = {text}\nmesh = "nope"',
        "parent": f"parent = {text}",
        "mesh": f"mesh = {toml_value(long_text + '.glb')}",
        "key": f"{toml_value(long_text)} = 1",
        "color": f"color = {text}",
        "title": "",
        "touch": "",
    }[where]
    lines.append(f'[[node]]\nname = "A"\n{node}' if where != "name" else f"[[node]]\n{node}")
    if where == "touch":
        lines.append(f"[[event]]\nframe = 1\ntouch = {text}")
    for k in range(cycle):
        lines.append(f'[[node]]\nname = "C{k}"\nparent = "C{(k + 1) % cycle}"')
    path = tmp_path_factory.mktemp("fuzz") / "long.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load_or_scene_error(path)
    assert isinstance(result, SceneError), "every case here has an error"
