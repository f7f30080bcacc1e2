"""The whole TOML loader (plain reader, column checks, one-pass order, bulk build) against
an independent oracle: tomllib's reading of the same text, `parse_node` on each table, a
pre-order found by walking the names, and the graph built one node at a time (with
`add_many` of one node: `add` keeps a quaternion's bits where `add_many` normalises it
again, which can move its last bit, and the loader has always used `add_many`). On
random valid hierarchies (parents before or after their children, names with quotes,
backslashes, tabs and other scripts, each field present or absent, looks, Euler or
quaternion rotations, motions) the two give the same graph: names, parents, order, local
values bit for bit, world matrices, looks and motions; where the oracle refuses a table,
the loader refuses it with the same message."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.io import SceneError, toml_scene
from viewer.io import _fields as F
from viewer.io.limits import Limits
from viewer.io.toml_sections import parse_node
from viewer.scene import SceneGraph

NAME_CHARS = st.characters(codec="utf-8", exclude_categories=("Cs",))
names = st.one_of(
    st.text(NAME_CHARS, min_size=1, max_size=6),
    st.sampled_from(['a"b', "a\\b", "tab\there", "Ñé", "🙂", " x ", "Obj1", "[[node]]"]),
)
floats = st.one_of(
    st.floats(-1e3, 1e3), st.sampled_from([0.0, -0.0, 1e-300, 5e-324, 0.1, 1e8]),
    st.integers(-100, 100),
)  # fmt: skip
sizes = st.one_of(st.floats(0.25, 4), st.sampled_from([1, 2, 0.5]))


def _string(text: str) -> str:
    """A TOML basic string (written here, not by the saver under test)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _number(draw, x) -> str:
    if isinstance(x, int) or x == 0:
        return str(int(x))
    return draw(st.sampled_from([repr(x), repr(x), f"{x:.17e}"]))


def _triple(texts: list[str]) -> str:
    return "[" + ", ".join(texts) + "]"


@st.composite
def scenes(draw) -> str:
    """A scene file of random nodes in random file order; parents named before or after."""
    n = draw(st.integers(0, 14))
    node_names = draw(st.lists(names, min_size=n, max_size=n, unique=True))
    parents = [None] + [draw(st.one_of(st.none(), st.integers(0, i - 1))) for i in range(1, n)]
    blocks = []
    for i in range(n):
        lines = ["[[node]]", f"name = {_string(node_names[i])}"]
        if parents[i] is not None:
            lines.append(f"parent = {_string(node_names[parents[i]])}")
        if draw(st.booleans()):
            lines.append(f"position = {_triple([_number(draw, draw(floats)) for _ in 'xyz'])}")
        turn = draw(st.sampled_from(["none", "euler", "euler", "quaternion"]))
        if turn == "euler":
            lines.append(f"rotation = {_triple([_number(draw, draw(floats)) for _ in 'xyz'])}")
        elif turn == "quaternion":
            lines.append(draw(st.sampled_from(["quaternion = [0, 0.6, 0, 0.8]",
                                               "quaternion = [0, 0, 0, 1]"])))  # fmt: skip
        for key in ("scale", "size"):  # (a world reach within the loader's 1e12)
            if draw(st.booleans()):
                three = [_number(draw, draw(sizes)) for _ in range(draw(st.sampled_from([1, 3])))]
                lines.append(f"{key} = {three[0] if len(three) == 1 else _triple(three)}")
        if draw(st.booleans()):
            lines.append(f"mesh = {_string(draw(st.sampled_from(['cube', 'sphere', 'none'])))}")
        if draw(st.booleans()):
            lines.append(f"color = {_string(draw(st.sampled_from(['#4c72b0', '#abc'])))}")
        if draw(st.integers(0, 5)) == 0:
            lines.append("motion = { spin = { speed = 30 } }")
        blocks.append("\n".join(lines))
    order = draw(st.permutations(range(n)))
    return "\n\n".join(blocks[i] for i in order) + "\n"


def _reference(text: str):
    """(graph, looks by id, motions as (name, kind) pairs), or the error's message."""
    tables = tomllib.loads(text).get("node", [])
    locator = F.Locator(text)
    try:
        specs = [parse_node(t, i, "f.toml", locator, Path(".")) for i, t in enumerate(tables)]
    except SceneError as exc:
        return str(exc)
    children: dict[str | None, list] = {}
    for spec in specs:
        children.setdefault(spec.parent, []).append(spec)
    graph, looks, motions = SceneGraph(), {}, set()
    stack = children.get(None, [])[::-1]
    while stack:  # pre-order: roots, then each node's children, in file order
        spec = stack.pop()
        parent = -1 if spec.parent is None else graph.node(spec.parent).id
        (i,) = graph.add_many([spec.name], np.array([parent]), positions=[spec.position],
                              rotations=[spec.rotation], scales=[spec.scale])  # fmt: skip
        looks[int(i)] = (spec.look.mesh, tuple(spec.look.size), tuple(spec.look.color))
        motions |= {(spec.name, kind) for kind, _ in spec.motions}
        stack.extend(children.get(spec.name, [])[::-1])
    return graph, looks, motions


def _contents(graph: SceneGraph, looks: dict, motions: set) -> tuple:
    ids = graph.alive_ids().tolist()
    parents = graph.parents()
    return (
        [graph.name_of(i) for i in ids],
        [None if parents[i] < 0 else graph.name_of(int(parents[i])) for i in ids],
        [a[ids].view(np.int64).tolist() for a in graph.local_values()],
        graph.world_matrices()[ids].view(np.int64).tolist(),
        [looks[i] for i in ids],
        motions,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenes())
def test_the_loader_builds_the_graph_the_oracle_builds(text):
    expected = _reference(text)
    try:
        scene = toml_scene.parse_scene_text(text, "f.toml", limits=Limits.make(100, 1, 1))
    except SceneError as exc:
        assert str(exc) == expected
        return
    assert not isinstance(expected, str), expected
    # as a file is read: its bytes given with the text (then not encoded again)
    as_file = toml_scene.parse_scene_text(
        text, "f.toml", limits=Limits.make(100, 1, 1), encoded=text.encode("utf-8")
    )
    for loaded in (scene, as_file):
        graph = loaded.graph
        looks = {i: (k.mesh, tuple(k.size), tuple(k.color)) for i, k in loaded.looks.items()}
        motions = {(graph.name_of(i), m.kind) for m in loaded.motions for i in m.ids.tolist()}
        assert _contents(graph, looks, motions) == _contents(*expected)


def test_a_large_plain_file_builds_no_node_specs(monkeypatch):
    """A file --save writes (every node plain) goes from the text to the graph in
    columns: no per-node spec object is made."""
    from viewer.io import generate_scene, toml_nodes
    from viewer.io.save import scene_to_toml

    text = scene_to_toml(generate_scene("chain:2000"))
    text = "\n".join(line for line in text.splitlines() if not line.startswith("motion"))
    made = []
    monkeypatch.setattr(toml_nodes, "NodeSpec", lambda *a: made.append(a))
    monkeypatch.setattr(toml_nodes, "parse_node", lambda *a: made.append(a))
    scene = toml_scene.parse_scene_text(text, "f.toml")
    assert len(scene.graph) == 2000 and not made
