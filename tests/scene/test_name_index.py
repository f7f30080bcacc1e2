"""The graph's name index is built on first use (``NodeArrays.ids_by_name``), kept up to
date once built, dropped by a large batch or a restore, and a batch's names are checked
unique by their hashes (``structure.check_new_names``). Whatever state the index is in,
every lookup must answer as a plain dict of the live nodes' names would, and every
refused name must get the error of a name-by-name check. The oracle here is that dict,
kept by hand over random sequences of edits, with lookups interleaved at random (so the
index is built at different moments, or never)."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.scene import HierarchyError, SceneGraph
from viewer.scene import names as names_module
from viewer.scene.names import NodeNames, NumberedNames

# Short names over a few letters (duplicates are common), unicode and the empty name.
name = st.one_of(
    st.text(alphabet="ab", max_size=2),
    st.sampled_from(["é", "e\u0301", "名", "🌳", " ", "Obj1", "Node0"]),
)
PROBES = ["", "a", "b", "aa", "ab", "ba", "bb", "é", "e\u0301", "名", "🌳", " ", "Obj1", "Node0"]

op = st.one_of(
    st.tuples(st.just("add_many"), st.lists(name, max_size=6), st.integers(0, 10**6)),
    st.tuples(st.just("add_many_unnamed"), st.integers(0, 4), st.integers(0, 10**6)),
    st.tuples(st.just("add"), name, st.integers(0, 10**6)),
    st.tuples(st.just("remove"), st.integers(0, 10**6), st.booleans()),
    st.tuples(st.just("rename"), st.integers(0, 10**6), name),
    st.tuples(st.just("snapshot")),
    st.tuples(st.just("restore"), st.integers(0, 10**6)),
    st.tuples(st.just("look"), st.integers(0, len(PROBES) - 1)),
)


class Oracle:
    """Names, parents and liveness per id, as plain Python: the index is a dict of them."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.parent: list[int] = []
        self.alive: list[bool] = []

    def index(self) -> dict[str, int]:
        return {nm: i for i, nm in enumerate(self.names) if self.alive[i]}

    def live(self) -> list[int]:
        return [i for i, a in enumerate(self.alive) if a]

    def batch_error(self, names: list) -> str | None:
        taken, seen = self.index(), set()
        for nm in names:
            if nm in seen or nm in taken:
                return f"duplicate node name {nm!r}"
            seen.add(nm)
        for nm in names:
            if not isinstance(nm, str) or not nm:
                return f"node names must be non-empty strings, got {nm!r}"
        return None

    def subtree(self, i: int) -> list[int]:
        out = [i]
        for j in range(i + 1, len(self.names)):
            if self.alive[j] and self.parent[j] in out:
                out.append(j)
        return out

    def state(self) -> tuple:
        return list(self.names), list(self.parent), list(self.alive)


def _check(g: SceneGraph, oracle: Oracle) -> None:
    index = oracle.index()
    for nm in PROBES + list(index):
        assert (nm in g) == (nm in index)
        if nm in index:
            assert g.node(nm).id == index[nm] and g[nm].name == nm
            root = oracle.parent[index[nm]] < 0
            assert (g.find("/" + nm) is not None) == root if "/" not in nm and nm else True
        elif nm:
            with pytest.raises(KeyError):
                g.node(nm)
    assert [g.name_of(i) for i in range(len(oracle.names))] == oracle.names
    assert len(g) == len(index)


@settings(max_examples=300, deadline=None)
@given(st.lists(op, max_size=25), st.booleans())
def test_lookups_match_a_dict_of_the_live_names(ops, check_each):
    g, oracle, saved = SceneGraph(), Oracle(), []
    for step in ops:
        kind = step[0]
        live = oracle.live()
        if kind in ("add_many", "add_many_unnamed"):
            first = len(oracle.names)
            k = len(step[1]) if kind == "add_many" else step[1]
            names = step[1] if kind == "add_many" else [f"Node{first + j}" for j in range(k)]
            parents = [
                -1 if not live or (step[2] + j) % 3 == 0 else live[(step[2] + j) % len(live)]
                for j in range(k)
            ]
            error = oracle.batch_error(names)
            if error is not None:
                with pytest.raises((HierarchyError, ValueError)) as raised:
                    g.add_many(names, parents)
                assert str(raised.value) == error
                continue
            given_names = names if kind == "add_many" else None
            ids = g.add_many(given_names, parents)
            assert ids.tolist() == list(range(first, first + k))
            oracle.names += names
            oracle.parent += parents
            oracle.alive += [True] * k
        elif kind == "add":
            error = oracle.batch_error([step[1]])
            if error is not None:
                with pytest.raises((HierarchyError, ValueError)) as raised:
                    g.add(step[1])
                assert str(raised.value) == error
                continue
            assert g.add(step[1]).id == len(oracle.names)
            oracle.names.append(step[1])
            oracle.parent.append(-1)
            oracle.alive.append(True)
        elif kind == "remove" and live:
            i = live[step[1] % len(live)]
            if step[2]:
                g.remove(g.node(i), keep_children=True)
                for j in live:
                    if oracle.parent[j] == i:
                        oracle.parent[j] = oracle.parent[i]
                oracle.alive[i] = False
            else:
                g.remove(g.node(i))
                for j in oracle.subtree(i):
                    oracle.alive[j] = False
        elif kind == "rename" and live:
            i = live[step[1] % len(live)]
            error = None if step[2] == oracle.names[i] else oracle.batch_error([step[2]])
            if error is not None:
                with pytest.raises((HierarchyError, ValueError)) as raised:
                    g.rename(g.node(i), step[2])
                assert str(raised.value) == error
                continue
            g.rename(g.node(i), step[2])
            oracle.names[i] = step[2]
        elif kind == "snapshot":
            saved.append((g.snapshot(), oracle.state()))
        elif kind == "restore" and saved:
            snap, (names, parent, alive) = saved[step[1] % len(saved)]
            g.restore(snap)
            extra = len(oracle.names) - len(names)
            oracle.names[: len(names)] = names  # ids added since keep their names, dead
            oracle.parent[: len(parent)] = parent
            oracle.alive = alive + [False] * extra
        elif kind == "look":  # builds the index now (or uses it)
            nm = PROBES[step[1]]
            assert (nm in g) == (nm in oracle.index())
        if check_each:
            _check(g, oracle)
    _check(g, oracle)


class Clash(str):
    """A name whose hash every other Clash shares: distinct names, equal hashes."""

    def __hash__(self) -> int:
        return 12345


def test_equal_hashes_of_distinct_names_are_accepted():
    g = SceneGraph()
    names = [Clash(f"n{i}") for i in range(50)]
    assert g.add_many(names, [-1] * 50).tolist() == list(range(50))
    assert [g.name_of(i) for i in range(50)] == names
    assert len(g.peek.alive_ids()) == 50
    with pytest.raises(HierarchyError, match="duplicate node name 'n7'"):
        g.add_many([Clash("x"), Clash("n7")], [-1, -1])
    with pytest.raises(HierarchyError, match="duplicate node name 'y'"):
        g.add_many([Clash("y"), Clash("z"), Clash("y")], [-1, -1, -1])
    assert len(g) == 50


def test_a_large_batch_leaves_the_index_to_its_first_use():
    g = SceneGraph()
    g.add("root")
    assert "root" in g  # the index is built now, and kept up to date ...
    g.add_many([f"x{i}" for i in range(3)], [0, 0, 0])
    assert g.node("x2").id == 3
    g.add_many([f"y{i}" for i in range(100)], [-1] * 100)  # ... but a batch larger drops it
    assert g.node("y99").id == 103 and g.node("x0").id == 1 and "root" in g
    g.remove("x1")
    assert "x1" not in g and g.node("y0").id == 4
    with pytest.raises(HierarchyError, match="duplicate node name 'y5'"):
        g.add_many(["z", "y5"], [-1, -1])


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["Obj", "Node", "", "n_", "é"]),
    st.integers(-30, 30),
    st.integers(0, 40),
    st.lists(st.sampled_from(["Obj1", "Obj7", "Node3", "1", "-2", "é0", "n_5", "x"]), max_size=3),
)
def test_numbered_names_are_the_list_they_stand_for(prefix, start, count, before):
    """`NumberedNames` reads as the list of its names, and a graph takes it as it takes
    that list: the same ids and names, or the same error for the first that is taken."""
    listed = [f"{prefix}{i}" for i in range(start, start + count)]
    numbered = NumberedNames(prefix, start, count)
    assert list(numbered) == listed and len(numbered) == count
    assert [numbered[j] for j in range(-count, count)] == listed + listed
    assert numbered[2:-1:3] == listed[2:-1:3]
    with pytest.raises(IndexError):
        numbered[count]
    outcomes = []
    for names in (numbered, listed):
        g = SceneGraph()
        if len(set(before)) == len(before):
            g.add_many(before, [-1] * len(before))
        try:
            ids = g.add_many(names, [-1] * count)
        except HierarchyError as e:
            outcomes.append(("error", str(e), len(g)))
        else:
            outcomes.append((ids.tolist(), [g.name_of(i) for i in range(g.capacity_ids)]))
            assert all(g.node(g.name_of(i)).id == i for i in ids.tolist())
    assert outcomes[0] == outcomes[1]


def test_unnamed_nodes_are_refused_a_taken_name():
    g = SceneGraph()
    g.add("Node2")
    with pytest.raises(HierarchyError, match="duplicate node name 'Node2'"):
        g.add_many(None, [-1, -1, -1])
    assert len(g) == 1
    assert g.add_many(None, [-1]).tolist() == [1] and g.node("Node1").id == 1


names_op = st.one_of(
    st.tuples(
        st.just("numbered"), st.sampled_from(["Obj", "N", ""]), st.integers(0, 9), st.integers(0, 5)
    ),  # fmt: skip
    st.tuples(st.just("listed"), st.lists(name, max_size=4)),
    st.tuples(st.just("append"), name),
    st.tuples(st.just("set"), st.integers(-20, 20), name),
    st.tuples(st.just("set_slice"), st.integers(0, 20), st.lists(name, max_size=3)),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(names_op, max_size=12),
    st.integers(-25, 25),
    st.integers(-25, 25),
    st.integers(0, 6),
)
def test_node_names_read_and_write_as_a_list(ops, a, b, made_after):
    """`NodeNames` (a graph's names, a first numbered batch unmade) against a plain list;
    `made_after` small, so that reads make the batch at different moments too."""
    with patch.object(names_module, "MADE_AFTER", made_after):
        _node_names_against_a_list(ops, a, b)


def _node_names_against_a_list(ops, a, b) -> None:
    names, oracle = NodeNames(), []
    for step in ops:
        if step[0] == "numbered":
            batch = NumberedNames(step[1], step[2], step[3])
            names.add(batch)
            oracle += list(batch)
        elif step[0] == "listed":
            names.add(list(step[1]))
            oracle += step[1]
        elif step[0] == "append":
            names.append(step[1])
            oracle.append(step[1])
        elif step[0] == "set":
            if -len(oracle) <= step[1] < len(oracle):
                names[step[1]] = step[2]
                oracle[step[1]] = step[2]
            else:
                with pytest.raises(IndexError):
                    names[step[1]] = step[2]
        else:
            names[: step[1]] = step[2]
            oracle[: step[1]] = step[2]
        assert len(names) == len(oracle)
        assert [names[j] for j in range(len(oracle))] == oracle  # (reads one by one)
        assert [names.at(j) for j in range(len(oracle))] == oracle
    assert list(names) == oracle and names == oracle
    for i in range(-len(oracle) - 2, len(oracle) + 2):
        if -len(oracle) <= i < len(oracle):
            assert names[i] == oracle[i]
        else:
            with pytest.raises(IndexError):
                names[i]
    assert names[a:b] == oracle[a:b] and names[a:] == oracle[a:] and names[::-2] == oracle[::-2]
    assert tuple(names) == tuple(oracle)


def test_a_subclass_of_numbered_names_is_compared_as_any_names():
    """Only `NumberedNames` itself is trusted to hold no two names alike."""

    class Repeating(NumberedNames):
        def to_list(self) -> list[str]:
            return ["a"] * len(self)

        def __iter__(self):
            return iter(self.to_list())

        def __getitem__(self, j):
            return "a"

    with pytest.raises(HierarchyError, match="duplicate node name 'a'"):
        SceneGraph().add_many(Repeating("x", 0, 2), [-1, -1])
