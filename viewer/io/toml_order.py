"""The order a scene file's nodes are built in: every parent before its children.

Parents may be named before or after their children in the file. A file without a fault
(names unique, parents known, no cycle) is ordered in one pass, and taken as it stands
when it is already in pre-order (as --save writes it); one with a fault goes through
`checked_order`, which names the first fault as the node-by-node check always did.
"""

from __future__ import annotations

from itertools import repeat

import numpy as np

from viewer.io import _fields as F

from ..text import printable

__all__ = ["checked_order", "node_order"]


def node_order(names: list[str], parents: list[str | None], display: str, locator: F.Locator):
    """Pre-order of the nodes (roots and siblings in file order; None when that is the
    file's order), each row's parent row, and each name's row.

    A file without a fault (names unique, parents known, no cycle: then the pre-order
    reaches every node) is ordered in one pass; one with a fault goes through
    `checked_order`, which names the first. `names` and `parents`: by row, the
    [[node]] tables in file order."""
    n = len(names)
    row_of: dict[str | None, int] = dict(zip(names, range(n)))
    if len(row_of) == n:
        row_of[None] = -1  # no parent (names are strings: None is no name)
        rows = list(map(row_of.get, parents, repeat(-2)))
        parent_rows = np.array(rows, dtype=np.int64)
        if not ((parent_rows == -2) | (parent_rows == np.arange(n))).any():
            if _in_preorder(parent_rows):
                return None, parent_rows, row_of
            order = _preorder(parent_rows)
            if len(order) == n:  # else a cycle kept some nodes from the roots
                return order, parent_rows, row_of
    return checked_order(names, parents, display, locator)


def checked_order(names: list[str], parents: list[str | None], display: str, locator: F.Locator):
    """`node_order`, node by node: raises naming the first duplicate name, unknown or own
    parent, or parent cycle."""
    row_of: dict[str, int] = {}
    for row, name in enumerate(names):
        if name in row_of:
            where = F.Where(display, locator, "node", row, name)
            raise where.error("name", f"duplicate name: node {row_of[name] + 1} has the same name")
        row_of[name] = row
    parent_rows = np.full(len(names), -1, dtype=np.int64)
    for row, (name, parent) in enumerate(zip(names, parents, strict=True)):
        if parent is None:
            continue
        where = F.Where(display, locator, "node", row, name)
        if parent == name:
            raise where.error("parent", "a node cannot be its own parent")
        if parent not in row_of:
            raise where.error("parent", f"unknown parent {parent!r}")
        parent_rows[row] = row_of[parent]
    # cycles: walk up from each node; a walk that meets itself is a cycle
    state = np.zeros(len(names), dtype=np.int8)  # 0 new, 1 on the current walk, 2 done
    for start in range(len(names)):
        path = []
        row = start
        while row >= 0 and state[row] == 0:
            state[row] = 1
            path.append(row)
            row = int(parent_rows[row])
        if row >= 0 and state[row] == 1:
            cycle = path[path.index(row) :]
            loop = [*cycle, row]
            if len(loop) > 7:  # a 200,000-node cycle: its start and end, and its length
                shown = [printable(names[r], 40) for r in loop[:3]]
                tail = [printable(names[r], 40) for r in loop[-2:]]
                chain = " -> ".join([*shown, f"... ({len(cycle):,} nodes) ...", *tail])
            else:
                chain = " -> ".join(printable(names[r], 40) for r in loop)
            first = min(cycle)
            where = F.Where(display, locator, "node", first, names[first])
            raise where.error("parent", f"parent cycle: {chain}")
        for r in path:
            state[r] = 2
    return _preorder(parent_rows), parent_rows, row_of


def _in_preorder(parent_rows: np.ndarray) -> bool:
    """Whether the rows are already in `_preorder`'s order (as --save writes them): each
    row's parent comes before it and is the row before it or one of that row's
    ancestors, that is: every row between the parent and the row has a parent at or
    after that parent (then, row by row, each of them lies in the parent's subtree).
    The minimum of the parents over each such span from a sparse table, a level at a
    time (a chain has no span; a tree of a million nodes needs about 20 levels)."""
    child = np.flatnonzero(parent_rows >= 0)
    parent = parent_rows[child]
    if (parent >= child).any():
        return False
    span = child - parent - 1  # the rows strictly between the parent and the row
    start, parent, span = parent[span > 0] + 1, parent[span > 0], span[span > 0]
    if not span.size:
        return True
    level = np.frexp(span.astype(np.float64))[1] - 1  # floor(log2(span)), exactly
    lowest = parent_rows  # lowest[i]: the least parent row among rows i .. i + 2**k - 1
    for k in range(int(level.max()) + 1):
        at = level == k
        first, last = start[at], start[at] + span[at] - (1 << k)
        if (np.minimum(lowest[first], lowest[last]) < parent[at]).any():
            return False
        lowest = np.minimum(lowest[: -(1 << k)], lowest[1 << k :])
    return True


def _preorder(parent_rows: np.ndarray) -> list[int]:
    """The rows reachable from the roots, in pre-order (siblings in row order)."""
    children: list[list[int]] = [[] for _ in range(len(parent_rows))]
    roots: list[int] = []
    for row, p in enumerate(parent_rows.tolist()):
        (children[p] if p >= 0 else roots).append(row)
    order: list[int] = []
    stack = roots[::-1]
    while stack:
        row = stack.pop()
        order.append(row)
        stack.extend(children[row][::-1])
    return order
