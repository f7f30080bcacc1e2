"""Undo and redo (viewer/session/undo.py and edits.py, SceneGraph.snapshot/restore):
every edit undone puts back every public array exactly, on random graphs and random edit
sequences."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.scene import HierarchyError, SceneGraph
from viewer.session.commands import AddChild, Delete, Duplicate, Place, Reparent, SetField
from viewer.session.edits import Editing
from viewer.session.undo import EditHistory


def readout(g: SceneGraph) -> dict:
    """Everything the graph shows through its public read-outs, as plain values."""
    alive = g.alive_ids()  # pre-order: sibling order included
    pos, rot, scl = g.local_values()
    worlds = g.world_matrices()
    return {
        "order": alive.tolist(),
        "names": [g.name_of(int(i)) for i in alive],
        "parents": g.parents()[alive].tolist(),
        "pos": pos[alive].tobytes(),
        "rot": rot[alive].tobytes(),
        "scl": scl[alive].tobytes(),
        "world": worlds[alive].tobytes(),
    }


def random_graph(rng, n: int) -> SceneGraph:
    g = SceneGraph()
    for k in range(n):
        parent = None if k == 0 or rng.random() < 0.2 else g.node(int(rng.integers(0, k)))
        g.add(
            f"n{k}",
            parent,
            position=rng.normal(size=3),
            rotation=(lambda q: q / np.linalg.norm(q))(rng.normal(size=4)),
            scale=rng.uniform(0.5, 2.0, size=3),
        )
    g.update()
    return g


EDITS = (
    "move", "scale", "parent", "parent_world", "reorder", "remove", "remove_keep", "clone", "add",
)  # fmt: skip


def do(g: SceneGraph, history: EditHistory, rng, kind: str) -> bool:
    """One random edit through the history; False when the core refused it."""
    alive = g.alive_ids()
    if not alive.size:
        return False
    node = g.node(int(rng.choice(alive)))
    other = g.node(int(rng.choice(alive)))
    try:
        if kind == "move":
            history.run("move", lambda: setattr(node, "local_position", rng.normal(size=3)))
        elif kind == "scale":
            history.run("scale", lambda: setattr(node, "local_scale", rng.uniform(0.5, 2, 3)))
        elif kind in ("parent", "parent_world"):
            mode = "lossy" if kind == "parent_world" else False
            target = None if rng.random() < 0.2 else other
            history.run("parent", lambda: node.set_parent(target, keep_world=mode))
        elif kind == "reorder":  # beside ``other``, under its parent: often a pure reorder
            parent = other.parent
            word = "before" if rng.random() < 0.5 else "after"
            place = {word: other}
            history.run("reorder", lambda: node.set_parent(parent, keep_world="lossy", **place))
        elif kind == "remove" and len(g) > 1:
            history.run("delete", lambda: g.remove(node))
        elif kind == "remove_keep" and len(g) > 1:
            history.run("delete", lambda: g.remove(node, keep_children=True))
        elif kind == "clone":
            history.run("duplicate", lambda: node.clone())
        elif kind == "add":
            history.run("add", lambda: g.add(f"new{g.capacity_ids}", node))
        else:
            return False
    except HierarchyError:
        return False
    return True


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 12),
    kinds=st.lists(st.sampled_from(EDITS), min_size=1, max_size=10),
    update_between=st.booleans(),
)
def test_undo_puts_back_every_array_and_redo_does_it_again(seed, n, kinds, update_between):
    rng = np.random.default_rng(seed)
    g = random_graph(rng, n)
    history = EditHistory(g)
    states = [readout(g)]
    for kind in kinds:
        before = len(history.done)
        if do(g, history, rng, kind) and len(history.done) > before:
            if update_between:
                g.update()
            states.append(readout(g))
        else:
            assert readout(g) == states[-1]  # refused or no change: nothing moved
    assert len(history.done) == len(states) - 1
    for expected in reversed(states[:-1]):
        assert history.undo() is not None
        report = g.update()
        assert readout(g) == expected
        assert report.log_lines() or not report.executed.size  # what came back, glows
    assert history.undo() is None
    for expected in states[1:]:
        assert history.redo() is not None
        g.update()
        assert readout(g) == expected
    assert history.redo() is None


def test_undo_marks_the_restored_node_and_its_subtree():
    g = SceneGraph()
    a = g.add("A")
    b = g.add("B", a)
    g.add("C", b)
    g.add("D")
    g.update()
    history = EditHistory(g)
    history.run("move B", lambda: setattr(b, "local_position", (1.0, 2.0, 3.0)))
    g.update()
    assert history.undo() == "move B"
    assert g.update().log_lines() == [
        "*Update Local : B*",
        "=Update World : B=",
        "=Update World : C=",
    ]
    np.testing.assert_array_equal(b.local_position, (0.0, 0.0, 0.0))


def test_a_new_step_clears_redo_and_a_refused_edit_is_no_step():
    g = SceneGraph()
    a = g.add("A")
    b = g.add("B", a)
    history = EditHistory(g)
    history.run("move", lambda: setattr(a, "local_position", (1.0, 0.0, 0.0)))
    history.undo()
    assert history.labels() == ([], ["move"])
    with pytest.raises(HierarchyError):
        history.run("cycle", lambda: a.set_parent(b))
    assert history.labels() == ([], ["move"])
    history.run("same", lambda: setattr(a, "local_position", (0.0, 0.0, 0.0)))  # no change
    assert history.labels() == ([], ["move"])
    history.run("scale", lambda: setattr(a, "local_scale", (2.0, 2.0, 2.0)))
    assert history.labels() == (["scale"], [])


def test_a_held_move_is_one_step_and_old_steps_go_past_the_budget():
    g = SceneGraph()
    a = g.add("A")
    history = EditHistory(g)
    history.begin("move A", "keys")
    for _ in range(10):
        a.translate((0.05, 0.0, 0.0))
        g.update()
    history.end("gizmo")  # another's end leaves the step open
    assert history.recording
    history.end("keys")
    assert history.labels() == (["move A"], [])
    history.undo()
    np.testing.assert_array_equal(a.local_position, (0.0, 0.0, 0.0))
    small = EditHistory(g, budget_bytes=1)  # at least the last step is kept
    for k in range(5):
        small.run(f"move {k}", lambda k=k: setattr(a, "local_position", (k + 1.0, 0, 0)))
    assert small.labels() == (["move 4"], [])


def test_a_snapshot_from_another_graph_is_refused():
    g, other = SceneGraph(), SceneGraph()
    g.add("A")
    other.add("A")
    with pytest.raises(ValueError, match="another graph"):
        g.restore(other.snapshot())


def test_undoing_a_reorder_puts_the_sibling_order_back():
    g = SceneGraph()
    root = g.add("root")
    kids = [g.add(name, root, position=(k, 0, 0)) for k, name in enumerate("abcd")]
    g.update()
    history = EditHistory(g)
    before = readout(g)
    history.run("reorder", lambda: kids[3].set_parent(root, before=kids[0]))
    assert [n.name for n in root.children] == ["d", "a", "b", "c"]
    history.run("reorder", lambda: kids[0].set_parent(root, after=kids[2]))
    assert [n.name for n in root.children] == ["d", "b", "c", "a"]
    history.undo()
    history.undo()
    g.update()
    assert readout(g) == before


def test_editor_place_reorders_refuses_its_own_subtree_and_shear_in_one_line():
    g = SceneGraph()
    root = g.add("root", scale=(2.0, 1.0, 1.0))
    a = g.add("a", root)
    b = g.add("b", a)
    c = g.add("c", euler=(0.0, 0.0, 45.0))
    g.update()
    editing = Editing(g)
    assert editing.run(Place(c.id, root.id, "before"))  # roots: c first
    assert [n.name for n in g if n.parent is None] == ["c", "root"]
    before = readout(g)
    assert not editing.run(Place(a.id, b.id, "after"))  # beside its own child: under itself
    assert "\n" not in editing.messages.edit and "'a'" in editing.messages.edit
    assert not editing.run(Place(c.id, a.id, "after", keep_world=True))  # shear under root
    assert "shear" in editing.messages.edit and "\n" not in editing.messages.edit
    assert readout(g) == before and len(editing.history.done) == 1
    with pytest.raises(ValueError):
        editing.run(Place(c.id, a.id, "under"))


def test_an_edit_naming_a_removed_node_is_refused_with_one_line():
    """An edit asked for a node an undo just took away (a tree row dragged meanwhile)."""
    g = SceneGraph()
    a = g.add("a")
    g.add("b", a)
    editing = Editing(g)
    gone = editing.run(AddChild(a.id))
    editing.undo()
    before = readout(g)
    for command in [
        Reparent(gone, a.id),
        Reparent(a.id, gone),
        Place(gone, a.id, "before"),
        Place(a.id, gone, "after"),
        Delete(gone),
        Duplicate(gone),
        AddChild(gone),
        SetField(gone, "local_position", (1.0, 2.0, 3.0)),
    ]:
        assert editing.run(command) in (False, None)
        assert "Empty is no longer in the scene" in editing.messages.edit
    assert readout(g) == before
    assert editing.history.labels() == ([], ["add Empty under a"])


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 12),
    kinds=st.lists(st.sampled_from(EDITS), min_size=1, max_size=6),
)
def test_undo_and_redo_mark_exactly_the_nodes_that_come_back_changed(seed, n, kinds):
    """The frame after an undo or redo recomputes the local matrix of exactly the nodes
    whose local values or parent differ (or that come back from removal), and the world
    of exactly those and their live subtrees."""
    rng = np.random.default_rng(seed)
    g = random_graph(rng, n)
    history = EditHistory(g)
    for kind in kinds:
        do(g, history, rng, kind)
        g.update()

    def values():
        pos, rot, scl = g.local_values()
        alive = np.zeros(g.capacity_ids, bool)
        alive[g.alive_ids()] = True
        return pos.copy(), rot.copy(), scl.copy(), g.parents().copy(), alive

    for move in [history.undo] * len(history.done) + [history.redo] * len(kinds):
        then = values()
        if move() is None:
            break
        now = values()
        alive = now[4]
        changed = ~then[4] & alive
        for a, b in zip(then[:4], now[:4], strict=True):
            d = a != b
            changed |= (d.any(axis=1) if d.ndim > 1 else d) & alive
        report = g.update()
        assert sorted(report.local_updated.tolist()) == np.flatnonzero(changed).tolist()
        parents = g.parents()
        subtree = changed.copy()
        for i in g.alive_ids().tolist():  # pre-order: a parent comes before its children
            if parents[i] >= 0 and subtree[parents[i]]:
                subtree[i] = True
        assert sorted(report.world_updated.tolist()) == np.flatnonzero(subtree).tolist()


def test_an_edit_that_changes_nothing_says_so_and_is_no_step():
    """A row dropped where it already is, a field set to its value: the panel's line
    must not claim a move that did not happen."""
    g = SceneGraph()
    p = g.add("P")
    a, b = g.add("A", p), g.add("B", p)
    editing = Editing(g)
    assert editing.run(Place(a.id, b.id, "before"))  # A is before B already
    assert "nothing changed" in editing.messages.edit
    assert editing.run(SetField(a.id, "local_position", (0.0, 0.0, 0.0)))
    assert "nothing changed" in editing.messages.edit
    assert editing.history.labels() == ([], [])
    assert editing.run(Place(a.id, b.id, "after"))
    assert editing.messages.edit == "move A after B"


def test_a_typed_value_is_one_step_named_in_words_and_merges_with_the_next_numbers():
    """Three numbers of one field typed one after another (each committed as its own
    command, as the inspector commits a number when Tab leaves it) are one undo step,
    named by the value in words; another field, an undo, or a pause past
    `MERGE_SECONDS` starts a new step."""
    from viewer.session import undo

    g = SceneGraph()
    obj = g.add("Obj3")
    g.update()
    now = [0.0]
    editing = Editing(g)
    editing.history.clock = lambda: now[0]
    start = readout(g)
    for value in [(0.0, 0.0, 0.0), (0.0, 10.0, 0.0), (0.0, 10.0, 30.0), (0.0, 0.0, 30.0)]:
        now[0] += 1.0
        editing.run(SetField(obj.id, "local_euler", value))
    assert editing.history.labels() == (["rotate Obj3 to (0, 0, 30)°"], [])
    assert editing.messages.edit == "rotate Obj3 to (0, 0, 30)°"
    np.testing.assert_allclose(obj.local_euler, (0.0, 0.0, 30.0), atol=1e-12)
    editing.run(SetField(obj.id, "local_position", (1.5, -2.0, 0.25)))  # another field
    assert editing.history.labels()[0][-1] == "move Obj3 to (1.5, -2, 0.25)"
    now[0] += undo.MERGE_SECONDS + 1.0  # a pause: a new step
    editing.run(SetField(obj.id, "local_position", (1.0, 0.0, 0.0)))
    assert len(editing.history.done) == 3
    editing.undo()
    now[0] += 0.5
    editing.run(SetField(obj.id, "local_position", (2.0, 0.0, 0.0)))  # after an undo: new
    assert len(editing.history.done) == 3 and editing.history.labels()[1] == []
    while editing.undo():
        pass
    g.update()
    assert readout(g) == start


def test_a_typed_value_that_is_no_numbers_is_refused_in_one_line():
    g = SceneGraph()
    a = g.add("A")
    editing = Editing(g)
    for value in [("x", 1.0, 2.0), (1.0, 2.0, 3.0, 4.0), (float("nan"), 0.0, 0.0), None]:
        assert editing.run(SetField(a.id, "local_position", value)) is None
        assert "\n" not in editing.messages.edit
    assert editing.history.labels() == ([], [])
    with pytest.raises(ValueError, match="not an editable field"):
        SetField(a.id, "world_matrix", (1.0,))


def test_typing_a_field_back_to_where_it_began_leaves_no_step():
    g = SceneGraph()
    a = g.add("A")
    g.update()
    editing = Editing(g)
    editing.run(SetField(a.id, "local_scale", (2.0, 1.0, 1.0)))
    editing.run(SetField(a.id, "local_scale", (1.0, 1.0, 1.0)))
    assert editing.history.labels() == ([], [])


def test_only_the_editing_room_opens_or_closes_undo_steps():
    """Undo steps are recorded in one module: no other module of viewer/ calls a
    history's run, begin, end, undo or redo (the window's input hands its gizmo drag to
    the editing room instead)."""
    import re
    from pathlib import Path

    viewer = Path(__file__).parents[1] / "viewer"
    pattern = re.compile(r"history\.(run|begin|end|undo|redo)\(")
    found = [
        f"{path.relative_to(viewer)}:{n}"
        for path in sorted(viewer.rglob("*.py"))
        if path.relative_to(viewer).as_posix() != "session/edits.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


@pytest.mark.parametrize("make, parent", [
    (lambda c, child: Reparent(c, child, True, "untick the box"), "child"),
    (lambda c, child: Place(c, child, "before", True, "untick the box"), "root"),
])  # fmt: skip
def test_a_shear_refusal_names_the_way_out_of_where_the_edit_came_from(make, parent):
    """The Python API names its argument; an edit from the window names what the user
    can do there (the shear refusal once ended with keep_world='lossy' in the panel):
    the same reason, one way out each."""
    g = SceneGraph()
    root = g.add("root", scale=(2.0, 1.0, 1.0))
    child = g.add("child", root)
    c = g.add("c", euler=(0.0, 0.0, 45.0))
    g.update()
    with pytest.raises(HierarchyError) as api:
        c.set_parent(g[parent], keep_world=True)
    assert str(api.value).endswith("(keep_world='lossy' accepts that)")
    reason = str(api.value).removesuffix(" (keep_world='lossy' accepts that)")
    editing = Editing(g)
    assert not editing.run(make(c.id, child.id))
    assert editing.messages.edit.endswith(f"{reason} (untick the box)")
    assert "keep_world" not in editing.messages.edit
    again = pickle.loads(pickle.dumps(api.value))
    assert str(again) == str(api.value) and isinstance(again, HierarchyError)
    plain = Reparent(c.id, g[parent].id, True)  # no way out given: the core's own words
    assert not editing.run(plain) and editing.messages.edit.endswith(str(api.value))
