"""The viewer's mirror of a program equals the program, frame by frame, through the wire
format: random edit sequences (values, touches, add, remove, re-parent, reorder, rename)
on random hierarchies, with some frames merged as when the viewer falls behind. The
program's own graph is the oracle: its log, its tree and its world matrices."""

from __future__ import annotations

import numpy as np
from attach_helpers import scripted_step, tree10, tree_of, wire, worlds_by_name
from hypothesis import given
from hypothesis import strategies as st

from viewer.attach.backlog import Backlog, frame_of
from viewer.attach.mirror import Mirror, display_names
from viewer.attach.protocol import Structure
from viewer.scene.errors import HierarchyError
from viewer.scene.graph import SceneGraph


def _random_graph(data) -> SceneGraph:
    graph = SceneGraph()
    count = data.draw(st.integers(1, 12), label="nodes")
    for k in range(count):
        parent = data.draw(st.integers(-1, k - 1), label="parent")
        graph.add(f"N{k}", None if parent < 0 else f"N{parent}",
                  position=(k * 0.5, 1.0, -0.25 * k), euler=(10.0 * k, 5.0, 0.0))  # fmt: skip
    return graph


def _edit(graph: SceneGraph, data, serial: list[int]) -> None:
    """One random edit of any kind the protocol carries."""
    alive = [graph.name_of(i) for i in graph.alive_ids().tolist()]
    kinds = ["touch", "move", "add", "remove", "reparent", "reorder", "rename", "nothing"]
    kind = data.draw(st.sampled_from(kinds))
    pick = st.sampled_from(alive) if alive else st.none()
    node = data.draw(pick)
    serial[0] += 1
    try:
        if kind == "add" or node is None:
            graph.add(f"A{serial[0]}", node)
        elif kind == "touch":
            graph.touch(node)
        elif kind == "move":
            value = data.draw(st.floats(-50, 50, allow_nan=False))
            graph[node].local_position = (value, -value, 0.5)
            graph[node].local_scale = (1.0, 1.0 + abs(value) / 100, 1.0)
        elif kind == "remove":
            graph.remove(node, keep_children=data.draw(st.booleans()))
        elif kind == "reparent":
            target = data.draw(st.sampled_from([None, *alive]))
            graph.set_parent(node, target, keep_world=data.draw(st.booleans()))
        elif kind == "reorder":
            parent = graph[node].parent
            roots = [n.name for n in graph if n.parent is None]
            siblings = [n.name for n in parent.children] if parent else roots
            other = data.draw(st.sampled_from(siblings))
            if other != node:
                graph.set_parent(node, parent, before=other)
        elif kind == "rename":
            graph.rename(node, f"R{serial[0]}")
    except HierarchyError:
        pass  # a cycle or a shear the core refuses: no edit, as in a real program


def _same(mirror: Mirror, graph: SceneGraph) -> None:
    assert tree_of(mirror.graph) == tree_of(graph)
    mine, theirs = worlds_by_name(mirror.graph), worlds_by_name(graph)
    for name, world in theirs.items():
        np.testing.assert_allclose(mine[name], world, rtol=0, atol=1e-9, err_msg=name)


@given(st.data())
def test_mirror_follows_random_edits_frame_by_frame(data):
    graph = _random_graph(data)
    graph.update()
    mirror, backlog = Mirror("program"), Backlog()
    known, last, serial = np.zeros(0, dtype=np.int64), 0, [0]
    first = True
    folded: list = []
    for _ in range(data.draw(st.integers(1, 8), label="frames")):
        for _ in range(data.draw(st.integers(0, 4), label="edits")):
            _edit(graph, data, serial)
        report = graph.update()
        behind = data.draw(st.booleans(), label="viewer behind")
        if first or behind:  # a snapshot, or a frame folded while the viewer is behind
            backlog.fold(graph, report)
            folded.append(report)
            if behind and not first:
                continue
            frame = backlog.take(graph, everything=first)
        elif backlog.frames:
            backlog.fold(graph, report)
            folded.append(report)
            frame = backlog.take(graph)
        else:
            folded = [report]
            frame = frame_of(graph, report)
        first = False
        decoded, known = wire(frame, known, last)
        last = decoded.frame
        shown = mirror.apply(decoded)
        _check_merged(shown, folded, graph, mirror)
        folded = []
        _same(mirror, graph)


def _check_merged(shown, reports, graph, mirror) -> None:
    """The shown report against the oracle: every node recomputed in any merged frame,
    in pre-order, with the latest cause (itself when that cause was removed)."""
    alive = set(graph.alive_ids().tolist())
    cause, local = {}, set()
    for report in reports:
        cause.update(zip(report.world_updated.tolist(), report.cause.tolist(), strict=True))
        local.update(report.local_updated.tolist())
    order = [i for i in graph.alive_ids().tolist() if i in cause]
    want_world = [graph.name_of(i) for i in order]
    want_cause = [graph.name_of(cause[i] if cause[i] in alive else i) for i in order]
    assert [mirror.graph.name_of(i) for i in shown.world_updated.tolist()] == want_world
    assert [mirror.graph.name_of(i) for i in shown.cause.tolist()] == want_cause
    want_local = [graph.name_of(i) for i in graph.alive_ids().tolist() if i in local]
    assert [mirror.graph.name_of(i) for i in shown.local_updated.tolist()] == want_local
    assert shown.frame == reports[-1].frame
    if len(reports) == 1:
        assert shown.log_lines() == reports[0].log_lines()


def test_scripted_tree10_log_equals_the_programs():
    graph, mirror = tree10(), Mirror("tree10")
    known, last = np.zeros(0, dtype=np.int64), 0
    backlog = Backlog()
    for k in range(12):
        scripted_step(graph, k)
        report = graph.update()
        if k == 0:
            backlog.fold(graph, report)
            frame = backlog.take(graph, everything=True)
        else:
            frame = frame_of(graph, report)
        decoded, known = wire(frame, known, last)
        last = decoded.frame
        assert mirror.apply(decoded).log_lines() == report.log_lines()
    _same(mirror, graph)
    assert mirror.mismatches == 0


def test_display_names_make_shared_and_empty_names_unique():
    ids = np.array([5, 6, 7, 8], dtype=np.int64)
    names = display_names(Structure(ids, np.array([-1, 5, 5, 5]), ["Mesh", "Mesh", "", "Mesh#6"]))
    assert names == ["Mesh", "Mesh#6", "node#7", "Mesh#6#8"]
    assert len(set(names)) == len(names)
