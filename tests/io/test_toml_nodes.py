"""The column-wise node check (viewer/io/toml_nodes.py) against `parse_node`, its oracle:
on random node tables, valid or not, it returns the same values (bit for bit) or raises
the same error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import SceneError
from viewer.io import _fields as F
from viewer.io.toml_nodes import parse_nodes
from viewer.io.toml_order import checked_order, node_order
from viewer.io.toml_sections import parse_node

numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e7, 1e7),
    st.integers(-(10**400), 10**400),
    st.integers(-5, 5),
    st.sampled_from([0.0, -0.0, 1e-7, 2e-6, 1e9, 1e9 + 1, 1e6, True, 0.5]),
)
values = st.one_of(
    numbers,
    st.lists(numbers, min_size=0, max_size=4),
    st.lists(st.floats(-5, 5), min_size=3, max_size=3),
    st.sampled_from(["cube", "sphere", "none", "blob", "#4c72b0", "#abc", "#12", "x", ""]),
    st.text(max_size=4),
    st.dictionaries(st.sampled_from(["spin", "a"]), st.integers(), max_size=1),
)
EDGES = [1e-7, 1e-6, 2e-6, -1.0, 0.0, -0.0, 1e6, 1.5e6, 1e9, 1.5e9, [1e-7, 1, 1], [0, 1, 1],
         [1e10, 0, 0], [-1, 1, 1], [0, 1e6 + 1, 0], [1, 2], True, "1", float("nan")]  # fmt: skip
keys = st.sampled_from(
    [
        "name",
        "parent",
        "position",
        "rotation",
        "scale",
        "mesh",
        "size",
        "color",
        "quaternion",
        "motion",
        "other",
    ]  # fmt: skip
)


@st.composite
def node_items(draw):
    items = []
    for i in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):  # a plain, valid node
            table = {"name": f"N{i}"}
            if i and draw(st.booleans()):
                table["parent"] = f"N{i - 1}"
            for key in ("position", "rotation"):
                if draw(st.booleans()):
                    table[key] = draw(st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3))
            for key in ("scale", "size"):
                if draw(st.booleans()):
                    table[key] = draw(st.one_of(st.floats(0.01, 100), st.integers(1, 9)))
            if draw(st.booleans()):
                table["mesh"] = draw(st.sampled_from(["cube", "sphere", "none"]))
            if draw(st.booleans()):
                table["color"] = draw(st.sampled_from(["#4c72b0", "#ABC", "#2a9d8f"]))
            if draw(st.booleans()):  # one number at or past the edge of a range
                key = draw(st.sampled_from(["position", "rotation", "scale", "size"]))
                table[key] = draw(st.sampled_from(EDGES))
        else:
            table = draw(st.dictionaries(keys, values, max_size=5))
            if draw(st.booleans()):
                table["name"] = draw(st.sampled_from([f"N{i}", " ", 3, "N0"]))
            if draw(st.booleans()):
                table = draw(st.sampled_from([table, [table], "x"]))
        items.append(table)
    return items


def _outcome(call):
    try:
        return call()
    except SceneError as exc:
        return str(exc)


def _bits(rows, width: int) -> list:
    return np.array(rows, dtype=np.float64).reshape(-1, width).view(np.int64).tolist()


def _same(columns, specs) -> bool:
    """`parse_nodes`'s columns hold what `parse_node` gave each table, bit for bit."""
    if isinstance(columns, str) or isinstance(specs, str):
        return columns == specs
    n = len(specs)
    return (
        [s.index for s in specs] == list(range(n))
        and columns.names == [s.name for s in specs]
        and columns.parents == [s.parent for s in specs]
        and columns.positions.shape == (n, 3)
        and _bits(columns.positions, 3) == _bits([s.position for s in specs], 3)
        and _bits(columns.rotations, 4) == _bits([s.rotation for s in specs], 4)
        and _bits(columns.scales, 3) == _bits([s.scale for s in specs], 3)
        and columns.looks == [s.look for s in specs]
        and columns.extras == [s for s in specs if s.gltf is not None or s.motions]
    )


@settings(max_examples=400, deadline=None)
@given(node_items())
def test_column_wise_nodes_match_parse_node(items):
    locator = F.Locator("")
    base = Path(".")
    fast = _outcome(lambda: parse_nodes(items, "f.toml", locator, base))
    slow = _outcome(
        lambda: [parse_node(t, i, "f.toml", locator, base) for i, t in enumerate(items)]
    )
    assert _same(fast, slow), (fast, slow)


def test_plain_nodes_take_the_column_path(monkeypatch):
    """Plain valid tables never reach parse_node (else the speed-up is not there)."""
    import viewer.io.toml_nodes as module

    items = [{"name": f"N{i}", "position": [i, 0.5, 0], "color": "#4c72b0"} for i in range(50)]
    calls = []
    monkeypatch.setattr(module, "parse_node", lambda *a: calls.append(a))
    columns = parse_nodes(items, "f.toml", F.Locator(""), Path("."))
    assert not calls and columns.names == [f"N{i}" for i in range(50)]


@st.composite
def parent_names(draw):
    """Names and parents of a random forest in random file order, sometimes with a fault:
    a duplicate name, an unknown or own parent, or a cycle."""
    n = draw(st.integers(1, 12))
    names = [f"N{i}" for i in range(n)]
    parents = [None] + [names[draw(st.integers(0, i - 1))] for i in range(1, n)]
    fault = draw(st.sampled_from(["none", "duplicate", "unknown", "own", "cycle"]))
    k = draw(st.integers(0, n - 1))
    if fault == "duplicate" and n > 1:
        names[k] = names[(k + 1) % n]
    elif fault == "unknown":
        parents[k] = "missing"
    elif fault == "own":
        parents[k] = names[k]
    elif fault == "cycle":
        parents[0] = names[k]  # the root under one of its descendants (or itself)
    rows = draw(st.permutations(range(n)))
    return [names[r] for r in rows], [parents[r] for r in rows]


@settings(max_examples=300, deadline=None)
@given(parent_names())
def test_one_pass_order_matches_the_checked_order(forest):
    """The one-pass order equals the node-by-node one, and a fault raises its message."""
    names, parents = forest
    locator = F.Locator("")
    fast = _outcome(lambda: node_order(names, parents, "f.toml", locator))
    slow = _outcome(lambda: checked_order(names, parents, "f.toml", locator))
    if isinstance(slow, str):
        assert fast == slow
    else:
        order = list(range(len(names))) if fast[0] is None else fast[0]  # None: file order
        assert order == slow[0] and np.array_equal(fast[1], slow[1])
        assert {name: fast[2][name] for name in names} == slow[2]


def _in_preorder_by_walking(parent_rows: list[int]) -> bool:
    """The oracle: walk the rows keeping the path from the root to the row before."""
    path: list[int] = []
    for row, parent in enumerate(parent_rows):
        if parent < 0:
            path.clear()
        else:
            while path and path[-1] != parent:
                path.pop()
            if not path:
                return False
        path.append(row)
    return True


@st.composite
def forests_in_some_order(draw):
    """A random forest's parent rows, in a pre-order, in an order with each parent before
    its children (a pre-order now and then), or in any order."""
    n = draw(st.integers(1, 40))
    parent = [-1] + [draw(st.one_of(st.just(-1), st.integers(0, i - 1))) for i in range(1, n)]
    children: dict[int, list[int]] = {}
    for row, p in enumerate(parent):
        children.setdefault(p, []).append(row)
    kind = draw(st.sampled_from(["pre-order", "parents first", "any"]))
    if kind == "pre-order":  # siblings in a random order
        order, stack = [], list(reversed(draw(st.permutations(children[-1]))))
        while stack:
            row = stack.pop()
            order.append(row)
            stack.extend(reversed(draw(st.permutations(children.get(row, [])))))
    elif kind == "parents first":  # each next row drawn from those whose parent is placed
        order, ready = [], list(children[-1])
        while ready:
            row = ready.pop(draw(st.integers(0, len(ready) - 1)))
            order.append(row)
            ready.extend(children.get(row, []))
    else:
        order = draw(st.permutations(range(n)))
    row_of = {old: new for new, old in enumerate(order)}
    return [-1 if parent[old] < 0 else row_of[parent[old]] for old in order]


@settings(max_examples=500, deadline=None)
@given(forests_in_some_order())
def test_the_preorder_test_matches_a_walk(parent_rows):
    from viewer.io.toml_order import _in_preorder

    assert _in_preorder(np.array(parent_rows)) == _in_preorder_by_walking(parent_rows)
