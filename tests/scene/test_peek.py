"""`SceneGraph.peek`: a read-only look that changes nothing, checked against the pulling
reads on random graphs and edit sequences (the pulling reads are the oracle for what the
values and flags are; the core's full state is the oracle for "changes nothing")."""

from __future__ import annotations

import numpy as np
import pytest
from core_state import core_state
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.scene import SceneGraph
from viewer.scene.flags import EXEC, LOCAL, WORLD


def read_everything(g: SceneGraph, selected: int) -> None:
    p = g.peek
    p.alive_ids(), p.depths(), p.parents(), p.flags().pending, p.world_matrices()
    p.world_versions(), p.world_matrix(selected), p.local_matrix(selected), p.marked
    p.edition, p.name_of(selected), len(p), p.frame, p.capacity_ids


def random_graph(data, n: int) -> SceneGraph:
    g = SceneGraph()
    for i in range(n):
        parent = data.draw(st.integers(-1, i - 1)) if i else -1
        g.add(f"N{i}", None if parent < 0 else g.node(parent),
              position=(i * 0.5, 0.25 * i, -0.1 * i), euler=(5.0 * i, 0.0, 3.0))  # fmt: skip
    return g


EDITS = st.sampled_from(["touch", "move", "turn", "reparent", "add", "read"])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_peek_changes_nothing_and_agrees_with_the_pulling_reads(data):
    n = data.draw(st.integers(2, 14))
    g = random_graph(data, n)
    g.update()
    for _ in range(data.draw(st.integers(1, 3))):  # frames
        for edit in data.draw(st.lists(EDITS, max_size=6)):
            ids = g.alive_ids()
            i = int(ids[data.draw(st.integers(0, len(ids) - 1))])
            node = g.node(i)
            if edit == "touch":
                g.touch(node.name)
            elif edit == "move":
                node.local_position = node.local_position + (1.0, 0.0, 0.5)
            elif edit == "turn":
                node.local_euler = (0.0, 10.0, 0.0)
            elif edit == "reparent" and node.parent is not None:
                g.set_parent(node, None, keep_world=True)
            elif edit == "add":
                g.add(f"A{g.capacity_ids}", parent=node.name)
            elif edit == "read":
                _ = node.world_matrix  # a mid-frame pull: flags cleared, versions bumped
        before = core_state(g)
        selected = int(g.peek.alive_ids()[-1])
        read_everything(g, selected)
        assert core_state(g) == before  # byte-identical: nothing recomputed, flushed, bumped

        # What the peek says, against the pulling reads (which flush and recompute).
        peek = g.peek
        flags, ids = peek.flags(), peek.alive_ids()
        stored = peek.world_matrices().copy()
        stale = flags.world.copy()
        versions = peek.world_versions().copy()
        for j in ids.tolist():
            assert peek.world_matrix(j)[1] == bool(stale[j]), g.name_of(j)
        for j in ids.tolist():
            assert flags.of(j) == tuple(g.node(j).dirty), g.name_of(j)
        np.testing.assert_array_equal(ids, g.alive_ids())
        np.testing.assert_array_equal(peek.depths()[ids], g.depths()[ids])
        for j in ids.tolist():
            np.testing.assert_allclose(peek.local_matrix(j), g.node(j).local_matrix, atol=1e-12)
        current = g.world_matrices()
        fresh = ~stale[ids]
        # A world matrix not marked stale is the current one, bit for bit.
        np.testing.assert_array_equal(stored[ids[fresh]], current[ids[fresh]])
        np.testing.assert_array_equal(versions[ids[fresh]], g.world_versions()[ids[fresh]])
        g.update()
        assert not g.peek.marked and g.peek.flags().pending.size == 0


def test_a_touch_is_pending_in_the_peek_and_the_queue_stays_queued():
    g = SceneGraph()
    g.add("Obj1")
    g.add("Obj2", "Obj1")
    g.add("Obj5", "Obj2")
    g.add("Obj3", "Obj1")
    g.update()
    assert not g.peek.marked
    g["Obj3"].local_position = (1.0, 0.0, 0.0)  # queued: its subtree is marked later
    queued = list(g._store.pending)
    marks = g.peek.flags()
    assert g._store.pending == queued == [g["Obj3"].id]  # the peek did not flush it
    assert marks.of(g["Obj3"].id) == (True, True, True)
    matrix, stale = g.peek.world_matrix(g["Obj3"].id)
    assert stale and matrix[0, 3] == 0.0  # the stored (old) value, marked stale
    g.touch("Obj2")
    marks = g.peek.flags()
    assert [g.name_of(i) for i in marks.pending] == ["Obj2", "Obj5", "Obj3"]
    assert marks.of(g["Obj5"].id) == (False, True, True)
    version = int(g.peek.world_versions()[g["Obj5"].id])
    report = g.update()
    assert sorted(report.world_updated.tolist()) == sorted(marks.pending.tolist())
    assert int(g.peek.world_versions()[g["Obj5"].id]) == version + 1
    matrix, stale = g.peek.world_matrix(g["Obj3"].id)
    assert not stale
    np.testing.assert_array_equal(matrix, g["Obj3"].world_matrix)


def test_peek_flags_match_the_flag_bits():
    g = SceneGraph()
    g.add("A")
    g.add("B", "A")
    marks = g.peek.flags()  # new nodes: everything to do
    bits = g._store.flags[:2]
    assert marks.local.tolist() == [bool(b & LOCAL) for b in bits]
    assert marks.world.tolist() == [bool(b & WORLD) for b in bits]
    assert marks.execute.tolist() == [bool(b & EXEC) for b in bits]
    with pytest.raises(KeyError, match="no live node with id 7"):
        g.peek.world_matrix(7)


def test_names_are_accepted_wherever_a_node_is_expected():
    g = SceneGraph()
    g.add("Obj1")
    g.add("Obj2", parent="Obj1")
    g.add("Obj3", parent="Obj1")
    g.update()
    g.touch("Obj2")
    assert g["Obj2"].dirty == (True, True, True)
    g.update()
    g.set_parent("Obj3", "Obj2")
    assert g["Obj3"].parent.name == "Obj2"
    g["Obj3"].set_parent("Obj1")
    assert g["Obj3"].parent.name == "Obj1"
    copy = g["Obj3"].clone(parent="Obj2")
    assert copy.parent.name == "Obj2"
    g.update()
    g.touch("Obj3")
    assert g.update("Obj3").world_updated.tolist() == [g["Obj3"].id]
    g.detach_children("Obj2")
    g.remove("Obj3_copy")
    assert "Obj3_copy" not in g
    g.remove("Obj2", keep_children=True)
    assert [n.name for n in g] == ["Obj1", "Obj3"]
    assert g.node("Obj3") == g["Obj3"] == g.node(g["Obj3"].id)


@pytest.mark.parametrize(
    "call",
    [
        lambda g: g.touch("obj2"),
        lambda g: g.add("X", parent="obj2"),
        lambda g: g.set_parent("Obj3", "obj2"),
        lambda g: g.remove("obj2"),
        lambda g: g.update("obj2"),
        lambda g: g["obj2"],
        lambda g: g["Obj3"].set_parent("obj2"),
        lambda g: g.node("obj2"),
    ],
)
def test_an_unknown_name_says_which_name_was_meant(call):
    g = SceneGraph()
    g.add("Obj2")
    g.add("Obj3")
    g.update()
    with pytest.raises(KeyError, match=r"no node named 'obj2'; did you mean 'Obj2'\?"):
        call(g)
    with pytest.raises(KeyError, match=r"^\"no node named 'Qwerty'\"$"):
        g.touch("Qwerty")
    assert g.update().empty and len(g) == 2  # nothing changed by the refusals
    with pytest.raises(TypeError, match="expected a Node, a node name or None"):
        g.touch(3)


def test_an_unknown_name_is_quoted_safely_and_a_huge_one_gets_no_guess():
    g = SceneGraph()
    g.add("Obj2")
    with pytest.raises(KeyError) as caught:
        g.touch("Obj\x1b[2J")  # no raw escape reaches a terminal
    assert caught.value.args[0] == "no node named 'Obj\\x1b[2J'; did you mean 'Obj2'?"
    with pytest.raises(KeyError) as caught:
        g.touch("Obj2" * 100_000)
    assert "did you mean" not in caught.value.args[0] and len(caught.value.args[0]) < 300


def test_the_edition_changes_with_every_edit_frame_and_pull():
    g = SceneGraph()
    g.add("A")
    g.add("B", "A")
    g.update()
    before = g.peek.edition
    g.peek.flags(), g.peek.world_matrix(1), g.peek.alive_ids()
    assert g.peek.edition == before  # reading through the peek is no change
    editions = [before]
    g.touch("A")  # an edit
    editions.append(g.peek.edition)
    _ = g["B"].world_matrix  # a mid-frame pull: flags change, values are recomputed
    editions.append(g.peek.edition)
    g.update()  # a frame
    editions.append(g.peek.edition)
    g.add("C")  # a new node
    editions.append(g.peek.edition)
    assert len(set(editions)) == len(editions)
