"""`savable_reason` checks the nodes a rule at a time; the oracle here goes node by node,
each node's rules in the documented order (name, position, scale, size), and the first
node breaking any rule must be the one named, with the same field and reason."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from viewer.content.scene import Look, Scene
from viewer.io.ranges import out_of_range
from viewer.io.savable import name_reason, savable_reason
from viewer.scene.graph import SceneGraph

NAMES = st.lists(st.sampled_from(["a", "B", " ", "\t", "\ud800", "é"]), min_size=1,
                 max_size=3).map("".join)  # fmt: skip
COORD = st.sampled_from([0.0, 1.0, -3.5, 1e9, -1.5e9, 1e300])
SCALE = st.sampled_from([1.0, 0.5, 1e-7, 1e-6, 1e6, 2e6])
SIZE = st.sampled_from([(1.0, 1.0, 1.0), (0.5, 0.5, 0.5), (1e-7, 1.0, 1.0), (2e9, 1.0, 1.0)])
NODES = st.lists(st.tuples(NAMES, st.integers(-1, 6), st.tuples(COORD, COORD, COORD), SCALE,
                           st.integers(0, 3)), min_size=1, max_size=10)  # fmt: skip


def _reference(scene: Scene):
    graph = scene.graph
    for i in graph.alive_ids().tolist():
        node = graph.node(i)
        name = node.name
        if name_reason(name) is not None:
            return name, "name", name_reason(name)
        for field, values in (("position", node.local_position), ("scale", node.local_scale)):
            if out_of_range(field, values) is not None:
                return name, field, out_of_range(field, values)
        look = scene.looks.get(i)
        if look is not None and out_of_range("size", look.size) is not None:
            return name, "size", out_of_range("size", look.size)
    return None


@given(NODES, st.lists(SIZE, min_size=4, max_size=4))
def test_the_first_node_breaking_a_rule_is_named(nodes, sizes):
    graph = SceneGraph()
    looks = [Look(size=s) for s in sizes]  # shared between nodes, as loaded scenes share
    scene = Scene(graph=graph, title="t")
    made = []
    for name, parent, position, scale, look in nodes:
        if name in graph:
            continue
        up = made[parent] if 0 <= parent < len(made) else None
        made.append(graph.add(name, up, position=position, scale=(scale,) * 3))
        scene.looks[made[-1].id] = looks[look]
    expected = _reference(scene)
    got = savable_reason(scene)
    if expected is not None:
        assert got == expected
    else:
        assert got is None or got[1] not in ("name", "position", "scale", "size")
