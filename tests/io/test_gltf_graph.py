"""glTF node graphs are validated as a whole, whatever the file declares as roots.

A node that is its own child, a cycle, or a node with two parents is refused with one line
naming the file and a node (issue 12, class 4), with or without a ``scenes`` array; the
fuzz test generates such graphs and compares with a plain-Python oracle of tree-ness.
"""

from __future__ import annotations

import json

import pytest
from bounded import bounded_load, memory_traced
from hypothesis import given, settings
from hypothesis import strategies as st
from scene_helpers import load_error

from viewer.io import SceneError, load_scene


def write(tmp_path, nodes, scenes=None, name="g.gltf"):
    doc = {"asset": {"version": "2.0"}, "nodes": nodes}
    if scenes is not None:
        doc["scenes"] = scenes
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


CASES = {
    "own child": ([{"children": [0]}], "node 0: the node is its own child"),
    "own child below a root": (
        [{"children": [1]}, {"children": [1]}],
        "node 1: the node is its own child",
    ),
    "two-node cycle": ([{"children": [1]}, {"children": [0]}], "a cycle of 2 nodes"),
    "cycle beside a tree": (
        [{"children": [1]}, {}, {"children": [3]}, {"children": [4]}, {"children": [2]}],
        "a cycle of 3 nodes",
    ),
    "two parents": (
        [{"children": [2]}, {"children": [2]}, {}],
        "node 2: it is a child of both node 0 and node 1",
    ),
    "listed twice": ([{"children": [1, 1]}, {}], "node 0 lists it twice"),
}


@pytest.mark.parametrize("scenes", [None, [{"nodes": [0]}]], ids=["no scenes", "scene"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_graphs_are_refused_with_or_without_scenes(tmp_path, case, scenes):
    nodes, expected = CASES[case]
    if scenes is not None and case in ("two-node cycle",):
        scenes = [{"nodes": []}]  # node 0 has a parent: the scene cannot name it
    message = load_error(write(tmp_path, nodes, scenes))
    assert expected in message and len(message) < 300, message


def test_a_scene_root_that_is_a_child_is_refused(tmp_path):
    path = write(tmp_path, [{"children": [1]}, {}], [{"nodes": [1]}])
    with pytest.raises(SceneError, match="node 1 is listed as a root, but node 0 lists it"):
        load_scene(path)


def test_nodes_outside_the_scene_are_checked_but_not_imported(tmp_path):
    path = write(tmp_path, [{"name": "In"}, {"name": "Out", "children": [2]}, {}], [{"nodes": [0]}])
    assert [n.name for n in load_scene(path).graph] == ["In"]


def test_a_200k_node_cycle_gives_a_short_line(tmp_path):
    n = 200_000
    nodes = [{"children": [(i + 1) % n]} for i in range(n)]
    path = write(tmp_path, nodes)
    with memory_traced():
        err = bounded_load(path, seconds=30.0, megabytes=400, max_nodes=n)
    assert isinstance(err, SceneError) and "a cycle of 200,000 nodes" in str(err)
    assert len(str(err)) < 300


def _is_forest(children: list[list[int]]) -> bool:
    """The oracle: every node has at most one parent and following parents ends."""
    parent: dict[int, int] = {}
    for i, kids in enumerate(children):
        for c in kids:
            if c in parent or c == i:
                return False
            parent[c] = i
    for start in range(len(children)):
        seen, i = set(), start
        while i in parent:
            if i in seen:
                return False
            seen.add(i)
            i = parent[i]
    return True


graphs = st.integers(1, 8).flatmap(
    lambda n: st.lists(st.lists(st.integers(0, n - 1), max_size=3), min_size=n, max_size=n)
)


@settings(max_examples=300, deadline=None)
@given(children=graphs, with_scene=st.booleans())
def test_random_graphs_match_the_oracle(tmp_path_factory, children, with_scene):
    nodes = [{"name": f"N{i}", "children": kids} for i, kids in enumerate(children)]
    has_parent = {c for kids in children for c in kids}
    roots = [i for i in range(len(children)) if i not in has_parent]
    scenes = [{"nodes": roots}] if with_scene else None
    path = write(tmp_path_factory.mktemp("graph"), nodes, scenes)
    result = bounded_load(path, seconds=5.0)
    if _is_forest(children):
        assert not isinstance(result, SceneError), str(result)
        assert len(result.graph) == len(children)
        for i, kids in enumerate(children):
            for c in kids:
                assert result.graph[f"N{c}"].parent.name == f"N{i}"
    else:
        assert isinstance(result, SceneError)
