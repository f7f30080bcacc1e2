"""Placing a node among siblings (docs/semantics.md section 4, `before=` / `after=`):
the stated cases, the refusals (nothing changed), what a reorder marks and reports."""

from __future__ import annotations

import numpy as np
import pytest
from example_graphs import tree10

from viewer.scene import HierarchyError


def names(nodes) -> list[str]:
    return [n.name for n in nodes]


def test_reorder_under_the_same_parent_keeps_every_value_and_marks_the_moved_subtree():
    g = tree10()
    g.update()
    obj1, obj2, obj4 = g["Obj1"], g["Obj2"], g["Obj4"]
    locals_before = [a.copy() for a in g.local_values()]
    worlds = g.world_matrices().copy()
    g.set_parent(obj2, obj1, keep_world=True, after=obj4)
    assert names(obj1.children) == ["Obj3", "Obj4", "Obj2"]
    report = g.update()
    assert report.log_lines() == [
        "*Update Local : Obj2*", "=Update World : Obj2=",
        "=Update World : Obj5=", "=Update World : Obj8=", "=Update World : Obj9=",
    ]  # fmt: skip
    assert names(g)[:6] == ["Obj1", "Obj3", "Obj6", "Obj10", "Obj4", "Obj7"]
    for a, b in zip(g.local_values(), locals_before, strict=True):
        np.testing.assert_array_equal(a, b)  # bit for bit, whatever keep_world says
    np.testing.assert_array_equal(g.world_matrices(), worlds)


def test_a_place_it_already_has_is_no_change_and_counts_as_suppressed():
    g = tree10()
    g.update()
    obj1, obj2, obj3 = g["Obj1"], g["Obj2"], g["Obj3"]
    obj3.set_parent(obj1, after=obj2)
    obj3.set_parent(obj1, before=obj3)
    obj2.set_parent(obj1, before=obj3)
    obj1.set_parent(None, before=obj1)
    report = g.update()
    assert report.empty and report.suppressed == 4
    assert names(obj1.children) == ["Obj2", "Obj3", "Obj4"]


def test_roots_are_placed_among_the_roots():
    g = tree10()
    extra = g.add("Extra")
    g.update()
    g["Obj5"].set_parent(None, before=g["Obj1"])
    assert [g.name_of(int(i)) for i in g.alive_ids()][:4] == ["Obj5", "Obj8", "Obj9", "Obj1"]
    extra.set_parent(None, after=g["Obj5"])
    assert [n.name for n in g if n.parent is None] == ["Obj5", "Extra", "Obj1"]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda g: g["Obj5"].set_parent(g["Obj1"], before=g["Obj8"]), "not a child of 'Obj1'"),
        (lambda g: g["Obj5"].set_parent(None, after=g["Obj2"]), "not a root"),
        (lambda g: g["Obj5"].set_parent(g["Obj3"], before=g["Obj5"]), "not a child of 'Obj3'"),
        (lambda g: g["Obj2"].set_parent(g["Obj5"], before=g["Obj8"]), "cycle"),
        (lambda g: g["Obj2"].set_parent(g["Obj1"], before="Nope"), "no node named 'Nope'"),
    ],
)
def test_refused_places_change_nothing(call, words):
    g = tree10()
    g.update()
    before = g.snapshot()
    with pytest.raises((HierarchyError, KeyError), match=words):
        call(g)
    assert g.snapshot().same_as(before)
    assert g.update().empty


def test_before_and_after_together_are_refused():
    g = tree10()
    with pytest.raises(ValueError, match="not both"):
        g["Obj4"].set_parent(g["Obj1"], before=g["Obj2"], after=g["Obj3"])
