"""The viewer's mirror of a program equals the program, frame by frame, through the wire
format: random edit sequences (values, touches, add, remove, re-parent, reorder, rename)
on random hierarchies, with some frames merged as when the viewer falls behind. The
program's own graph is the oracle: its log, its tree and its world matrices."""

from __future__ import annotations

import numpy as np
from attach_helpers import (
    assert_mirrors,
    random_edit,
    random_graph,
    scripted_step,
    tree10,
    wire,
)
from hypothesis import given
from hypothesis import strategies as st

from viewer.attach.backlog import Backlog, frame_of
from viewer.attach.mirror import Mirror, display_names
from viewer.attach.protocol import Structure
from viewer.scene.graph import SceneGraph


def _same(mirror: Mirror, graph: SceneGraph) -> None:
    assert_mirrors(mirror.graph, graph)


@given(st.data())
def test_mirror_follows_random_edits_frame_by_frame(data):
    graph = random_graph(data)
    graph.update()
    mirror, backlog = Mirror("program"), Backlog()
    known, last, serial = np.zeros(0, dtype=np.int64), 0, [0]
    first = True
    folded: list = []
    for _ in range(data.draw(st.integers(1, 8), label="frames")):
        for _ in range(data.draw(st.integers(0, 4), label="edits")):
            random_edit(graph, data, serial)
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
        # The program's worlds are parent x local everywhere: nothing is stale.
        assert shown.stale.size == 0 and shown.flagged.size == 0
        assert not any("Stale" in line for line in shown.log_lines())


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
    assert mirror.stale_count == 0


def test_display_names_make_shared_and_empty_names_unique():
    ids = np.array([5, 6, 7, 8], dtype=np.int64)
    names = display_names(Structure(ids, np.array([-1, 5, 5, 5]), ["Mesh", "Mesh", "", "Mesh#6"]))
    assert names == ["Mesh", "Mesh#6", "node#7", "Mesh#6#8"]
    assert len(set(names)) == len(names)
