"""Structural edits: re-parenting, removal, detaching (SEMANTICS.md section 4).

Each edit checks everything first, then changes links in O(1) per node moved and
invalidates the pre-order layout, which the next frame rebuilds once.
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .errors import HierarchyError
from .math import decompose
from .node import Node
from .storage import Storage


class StructureEdits(Storage):
    """Moving, removing and detaching nodes."""

    def set_parent(self, node: Node, parent: Node | None, keep_world: bool = False) -> None:
        """Move ``node`` (with its subtree) under ``parent`` as its last child, or make it a
        root with ``None``. ``keep_world`` recomputes its local values so its world matrix
        stays put. Errors leave the graph as it was."""
        i = self._own(node, "node")
        p = -1 if parent is None else self._own(parent, "parent")
        name = self._names[i]
        if p == i:
            raise HierarchyError(f"node {name!r} cannot be its own parent")
        if p >= 0 and K.is_ancestor(i, p, self._parent):
            raise HierarchyError(
                f"cannot parent {name!r} to {self._names[p]!r}: {self._names[p]!r} is a "
                f"descendant of {name!r}, which would make a cycle"
            )
        if p == self._parent[i]:
            self._suppressed += 1
            return
        values = None
        if keep_world:
            parent_world = np.eye(4) if p < 0 else self._world_of(p)
            a = parent_world[:3, :3]
            if abs(np.linalg.det(a)) < 1e-12 * max(1.0, float(np.abs(a).max()) ** 3):
                raise HierarchyError(
                    f"cannot keep the world transform of {name!r} under "
                    f"{self._names[p]!r}: that parent's world matrix is singular"
                )
            values = decompose(np.linalg.solve(parent_world, self._world_of(i)))
        self._unlink(i)
        self._link_last(i, p)
        if values is not None:
            self._pos[i], self._rot[i], self._scl[i] = values
        self._structure_edited()
        self._mark(np.array([i], dtype=np.int64), force=True)

    def _unlink(self, i: int) -> None:
        """Take ``i`` out of its sibling list (or the root list); its subtree stays."""
        p, prev, nxt = self._parent[i], self._prev_sib[i], self._next_sib[i]
        if prev >= 0:
            self._next_sib[prev] = nxt
        elif p >= 0:
            self._first_child[p] = nxt
        else:
            self._heads[0] = nxt
        if nxt >= 0:
            self._prev_sib[nxt] = prev
        elif p >= 0:
            self._last_child[p] = prev
        else:
            self._heads[1] = prev
        self._prev_sib[i] = self._next_sib[i] = -1

    def _link_last(self, i: int, p: int) -> None:
        """Append the unlinked ``i`` as the last child of ``p`` (or the last root)."""
        last = self._heads[1] if p < 0 else self._last_child[p]
        self._parent[i] = p
        self._prev_sib[i] = last
        self._next_sib[i] = -1
        if last >= 0:
            self._next_sib[last] = i
        elif p >= 0:
            self._first_child[p] = i
        else:
            self._heads[0] = i
        if p >= 0:
            self._last_child[p] = i
        else:
            self._heads[1] = i

    def remove(self, node: Node) -> None:
        """Remove ``node`` and its whole subtree. Their handles become invalid."""
        i = self._own(node, "remove")
        buf = np.empty(self._alive_count, dtype=np.int64)
        n = K.collect_subtree(i, self._first_child, self._next_sib, buf)
        gone = buf[:n]
        self._unlink(i)
        self._alive[gone] = False
        self._flags[gone] = 0
        for g in gone.tolist():
            del self._ids_by_name[self._names[g]]
        self._alive_count -= n
        self._structure_edited()

    def detach_children(self, node: Node) -> None:
        """Make every child of ``node`` a root, keeping its local values (rule 1 on each)."""
        i = self._own(node, "detach_children")
        kids = []
        c = self._first_child[i]
        while c >= 0:
            kids.append(c)
            c = self._next_sib[c]
        if not kids:
            return
        for c in kids:
            self._unlink(c)
            self._link_last(c, -1)
        self._structure_edited()
        self._mark(np.array(kids, dtype=np.int64), force=True)
