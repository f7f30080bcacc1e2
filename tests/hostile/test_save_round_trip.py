"""What save writes, load reads (issue 26): over generated graphs built through the API
(names with unpaired surrogates, blanks and odd characters; positions and scales from
ordinary to 1e300; chains whose product leaves the world box), `save_scene` either
refuses in one line naming the node and the field, or writes a file that `load_scene`
reads back as the same graph. The oracle is the loader itself."""

from __future__ import annotations

import numpy as np
from hypothesis import event, given
from hypothesis import strategies as st

from viewer.content.scene import Look, Scene
from viewer.io import SceneError, load_scene, save_scene
from viewer.scene.errors import HierarchyError
from viewer.scene.graph import SceneGraph
from viewer.text import MAX_MESSAGE

#: Characters that make names hard: surrogates (lone halves), quotes, escapes, spaces.
NAME_CHARS = st.sampled_from(["a", "B", "é", " ", '"', "\\", "\ud800", "\udfff", "/", "\t",
                              "\u0000", "😀", "#"])  # fmt: skip
NAMES = st.lists(NAME_CHARS, min_size=1, max_size=6).map("".join)
COORD = st.one_of(st.floats(-100, 100), st.sampled_from([0.0, 1e8, -1e9, 1.5e9, 1e300, -1e300]))
SCALE = st.one_of(st.floats(0.1, 10), st.sampled_from([1e-7, 1e-6, 1e6, 1e7, 1e300]))
NODES = st.lists(
    st.tuples(NAMES, st.integers(-1, 10), st.tuples(COORD, COORD, COORD), SCALE),
    min_size=1,
    max_size=8,
)


def _build(nodes) -> Scene:
    graph = SceneGraph()
    made = []
    for name, parent, position, scale in nodes:
        up = made[parent] if 0 <= parent < len(made) else None
        try:
            made.append(graph.add(name, up, position=position, scale=(scale,) * 3))
        except (ValueError, HierarchyError):  # the API's own refusals (a duplicate, ...)
            continue
    return Scene(graph=graph, title="generated", looks={n.id: Look() for n in graph})


@given(NODES)
def test_save_refuses_in_one_line_or_writes_what_load_reads(tmp_path_factory, nodes):
    scene = _build(nodes)
    path = tmp_path_factory.mktemp("rt") / "saved.toml"
    try:
        save_scene(scene, path)
    except SceneError as err:
        line = str(err)
        assert "\n" not in line and len(line) <= MAX_MESSAGE and line.isprintable()
        assert err.file == str(path) and "not saved" in line
        assert not path.exists()
        event("refused")
        return
    event("saved and loaded")
    back = load_scene(path)  # must not raise: what save wrote, load reads
    assert [n.name for n in back.graph] == [n.name for n in scene.graph]
    assert [n.parent.name if n.parent else None for n in back.graph] == [
        n.parent.name if n.parent else None for n in scene.graph
    ]
    for a, b in zip(scene.graph, back.graph, strict=True):
        wa, wb = np.asarray(a.world_matrix), np.asarray(b.world_matrix)
        size = max(1.0, float(np.abs(wa).max()))
        assert np.allclose(wa, wb, rtol=1e-9, atol=1e-9 * size), a.name


def test_the_issue_cases_are_refused_by_name(tmp_path):
    g = SceneGraph()
    g.add("x\ud800")
    g.add("x\udfff")  # differs only in the unpaired surrogate: saved, both would read "x\ufffd"
    err = _save_error(Scene(graph=g), tmp_path)
    assert "unpaired surrogate" in err and "field 'name'" in err
    g = SceneGraph()
    g.add("Far", position=(1e300, 0, 0))
    err = _save_error(Scene(graph=g), tmp_path)
    assert "node 'Far', field 'position'" in err and "1e9" in err
    g = SceneGraph()
    a = g.add("A", scale=(1e5,) * 3)
    b = g.add("B", a, scale=(1e5,) * 3)
    g.add("C", b, scale=(1e5,) * 3)
    assert "node 'C'" in _save_error(Scene(graph=g), tmp_path)


def _save_error(scene, tmp_path) -> str:
    try:
        save_scene(scene, tmp_path / "s.toml")
    except SceneError as err:
        return str(err)
    raise AssertionError("saved")
