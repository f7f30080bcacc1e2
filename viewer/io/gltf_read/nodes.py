"""The node graph of a glTF file: children links checked as a whole, roots, pre-order.

The graph is validated whatever the file declares as roots: each node is the child of at
most one node, never its own child, and no chain of children comes back to where it
started. One cheap pass over the nodes builds the links; a cycle is only looked for when
the walk from the parentless nodes misses some, so a valid file pays for none of it.
"""

from __future__ import annotations

import numpy as np

from viewer.io.errors import SceneError, describe
from viewer.io.gltf_read.data import GltfFile, is_int, whole

__all__ = ["node_order"]


def node_order(gltf: GltfFile, nodes: list) -> tuple[list[int], np.ndarray]:
    """The imported nodes in pre-order and each one's parent row (-1: a root)."""
    table = gltf.node_table
    if table is not None:
        parent_rows = table.parents()
        roots = _roots(gltf, parent_rows)
        if file_order_is_preorder(parent_rows, table.child_start, table.child_flat, roots):
            return list(range(len(parent_rows))), parent_rows  # rows are node indices
        kids, parent = table.links()
    else:
        kids, parent = _links(gltf, nodes)
        roots = _roots(gltf, parent)
    order: list[int] = []
    add, stack = order.append, roots[::-1]
    pop, push = stack.pop, stack.extend
    while stack:
        i = pop()
        add(i)
        children = kids[i]
        if children:
            push(children[::-1])
    if len(order) < len(nodes):  # the rest must hang off parentless nodes too
        listed = set(roots)
        others = [i for i, p in enumerate(parent) if p < 0 and i not in listed]
        if len(order) + len(_walk(others, kids)) < len(nodes):
            reached = np.zeros(len(nodes), bool)
            reached[_walk([i for i, p in enumerate(parent) if p < 0], kids)] = True
            raise _cycle_error(gltf, int(np.flatnonzero(~reached)[0]), parent)
    rows = np.asarray(order, dtype=np.int64)
    row_of = np.full(len(nodes) + 1, -1, dtype=np.int64)  # row_of[-1]: a root's parent
    row_of[rows] = np.arange(len(rows))
    return order, row_of[np.asarray(parent, dtype=np.int64)[rows]]


def file_order_is_preorder(
    parent: np.ndarray, child_start: np.ndarray, child_flat: np.ndarray, roots: list[int]
) -> bool:
    """Whether the nodes in file order are the pre-order a walk from `roots` gives (each
    node's children in their listed order): as exporters often write them, checked for
    all nodes at once instead of walked node by node (tests/io/test_gltf_preorder.py).

    It is iff every node is reached (the roots are the parentless nodes, ascending), each
    node comes after its parent, lists its children ascending, and the spans from a
    parent to its child never cross (no node between them has a parent before that
    parent): then every subtree is one run of indices, its root first, and the runs of
    siblings follow one another in their listed order."""
    n = parent.size
    index = np.arange(n)
    parentless = np.flatnonzero(parent < 0)
    if n == 0 or not np.array_equal(np.asarray(roots, np.int64), parentless):
        return False
    if (parent >= index).any():
        return False
    owner = np.repeat(index, np.diff(child_start))
    if ((np.diff(child_flat) <= 0) & (np.diff(owner) == 0)).any():
        return False
    child = np.flatnonzero(parent >= 0)
    return _spans_hold(parent, parent[child] + 1, child, parent[child])


def _spans_hold(values: np.ndarray, lo: np.ndarray, hi: np.ndarray, bound: np.ndarray) -> bool:
    """Whether ``values[lo[q]:hi[q]].min() >= bound[q]`` for every query q (an empty span
    holds): a sparse table of minima over spans of 2**j, one level at a time."""
    length = hi - lo
    keep = length > 0
    lo, hi, bound = lo[keep], hi[keep], bound[keep]
    if not lo.size:
        return True
    level = np.frexp(length[keep])[1] - 1  # floor(log2(length)), exact for integers
    lowest = values
    for j in range(int(level.max()) + 1):  # lowest[i]: min(values[i : i + 2**j])
        at = np.flatnonzero(level == j)
        if at.size:
            low = np.minimum(lowest[lo[at]], lowest[hi[at] - (1 << j)])
            if (low < bound[at]).any():
                return False
        lowest = np.minimum(lowest[: -(1 << j)], lowest[1 << j :])
    return True


def _links(gltf: GltfFile, nodes: list) -> tuple[list, list[int]]:
    """Each node's children list (or None) and parent (-1: none), refusing a node that
    is its own child or the child of two nodes."""
    n = len(nodes)
    parent = [-1] * n
    kids: list = [None] * n
    for i, node in enumerate(nodes):
        if not isinstance(node, dict):
            raise gltf.error(f"node {i}", f"expected a JSON object, got {describe(node)}")
        children = node.get("children")
        if not children:
            continue
        if type(children) is not list:
            raise gltf.error(f"node {i}", f"children must be an array, got {describe(children)}")
        if not all(type(c) is int for c in children):  # 1.0 is an index too
            children = [whole(c) for c in children]
        for c in children:
            if type(c) is not int or not 0 <= c < n:
                shown = c if is_int(c) else describe(c)
                raise gltf.error(
                    f"node {i}", f"expected child node indices in 0..{n - 1}, got {shown}"
                )
            if parent[c] != -1 or c == i:
                raise gltf.error(f"node {c}", _second_parent(c, parent[c], i))
            parent[c] = i
        kids[i] = children
    return kids, parent


def _second_parent(c: int, first: int, second: int) -> str:
    tree = "the node hierarchy must be a tree"
    if c == second:
        return f"the node is its own child: a cycle in 'children' ({tree})"
    if first == second:
        return f"node {first} lists it twice as a child ({tree})"
    return f"it is a child of both node {first} and node {second} ({tree})"


def _cycle_error(gltf: GltfFile, start: int, parent: list[int]) -> SceneError:
    """The error for a node that no root reaches: it lies on, or hangs off, a cycle."""
    seen = set()
    i = start
    while i not in seen:  # every node has one parent, so this ends on the cycle
        seen.add(i)
        i = parent[i]
    length, j = 1, parent[i]
    while j != i:
        length, j = length + 1, parent[j]
    return gltf.error(
        f"node {i}", f"it is its own ancestor: a cycle of {length:,} nodes in 'children'"
    )


def _roots(gltf: GltfFile, parent: list[int] | np.ndarray) -> list[int]:
    """The default scene's root nodes (``scene``, else the first one), else every node
    that is nobody's child; a listed root must be parentless and listed once."""
    scenes = gltf.array("scenes")
    if not scenes and gltf.doc.get("scene") is None:
        return np.flatnonzero(np.asarray(parent, dtype=np.int64) < 0).tolist()
    chosen = gltf.doc.get("scene")
    chosen = 0 if chosen is None else chosen
    chosen, scene = gltf.item(chosen, "scenes", "scene")
    where = f"scene {chosen}"
    roots = scene.get("nodes") or []
    if not isinstance(roots, list):
        raise gltf.error(where, f"nodes must be an array, got {describe(roots)}")
    listed = set()
    roots = [gltf.index_into(r, "nodes", where) for r in roots]
    for r in roots:
        if parent[r] >= 0:
            raise gltf.error(
                where,
                f"node {r} is listed as a root, but node {int(parent[r])} lists it as a child",
            )
        if r in listed:
            raise gltf.error(where, f"node {r} is listed twice")
        listed.add(r)
    return roots


def _walk(starts: list[int], kids: list) -> list[int]:
    """Every node reached from `starts` through the children lists."""
    seen: list[int] = []
    stack = list(starts)
    while stack:
        i = stack.pop()
        seen.append(i)
        if kids[i]:
            stack.extend(kids[i])
    return seen
