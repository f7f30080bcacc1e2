"""`SceneGraph.rename` (a structural change the next report says, so a mirror hears of
it) and `SceneGraph.on_update` (what `viewer.publish` listens with)."""

from __future__ import annotations

import pytest

from viewer.scene.errors import HierarchyError
from viewer.scene.graph import SceneGraph


def _graph() -> SceneGraph:
    graph = SceneGraph()
    graph.add("A")
    graph.add("B", "A")
    graph.update()
    return graph


def test_rename_moves_the_lookup_and_is_reported_as_structure():
    graph = _graph()
    b = graph["B"]
    graph.rename("B", "Bee")
    assert b.name == "Bee" and "B" not in graph and graph["Bee"] == b
    report = graph.update()
    assert report.structure_changed and report.empty
    assert not graph.update().structure_changed
    graph.rename(b, "Bee")  # the same name: no change
    assert not graph.update().structure_changed
    with pytest.raises(HierarchyError, match="duplicate"):
        graph.rename("Bee", "A")
    with pytest.raises(ValueError, match="non-empty"):
        graph.rename("Bee", "")
    assert [n.name for n in graph] == ["A", "Bee"]


def test_undoing_a_rename_is_structural_news_too():
    graph = _graph()
    before = graph.snapshot()
    graph.rename("B", "Bee")
    graph.update()
    graph.restore(before)
    assert graph.update().structure_changed and "B" in graph


def test_on_update_listeners_get_each_report_until_stopped():
    graph = _graph()
    seen = []
    stop = graph.on_update(seen.append)
    graph.touch("A")
    report = graph.update()
    assert seen == [report]
    stop()
    stop()  # twice is harmless
    graph.update()
    assert seen == [report]
