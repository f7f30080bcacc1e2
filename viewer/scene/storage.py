"""Storage of the transform hierarchy: per-node arrays and the primitives on them.

Why this shape. Every per-node quantity (position, quaternion, scale, local and world
matrices, parent and sibling links, flags, world version) is one numpy array indexed by
the node's id, so the compiled loops in ``kernels.py`` touch only the nodes that are
dirty and a renderer can read all world matrices as one ``(N, 4, 4)`` array.

Structure is kept twice: as parent / first-child / next-sibling links (O(1) to edit, and
enough to mark a subtree dirty by walking it), and as a pre-order layout (``order``,
``slot``, ``size``) in which every subtree is one contiguous range. Structural edits only
invalidate the layout; it is rebuilt once, at the next ``update()`` or pre-order read,
in one O(N) compiled pass. So building a million nodes one ``add`` at a time stays
linear, and a frame with nothing dirty does no O(N) work at all.

Invariant kept by every operation: a node with ``update_world`` set has it set on all its
descendants. That lets marking skip subtrees that are already dirty.
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .errors import HierarchyError
from .node import Node


class Storage:
    """The arrays of a graph and the low-level operations the public API is made of."""

    def __init__(self, capacity: int = 16) -> None:
        self._n = 0  # ids handed out so far; ids are never reused
        self._alive_count = 0
        self._names: list[str] = []
        self._ids_by_name: dict[str, int] = {}
        self._heads = np.array([-1, -1], dtype=np.int64)  # first root, last root
        self._roots = np.empty(16, dtype=np.int64)  # dirty roots recorded this frame
        self._n_roots = 0
        self._suppressed = 0
        self._frame = 0
        self._layout_valid = True
        self._structure_changed = False
        self._depth_sum = 0
        self._ids_topological = True
        self._cap = 0
        self._grow(max(int(capacity), 1))

    # ------------------------------------------------------------------ storage
    def _grow(self, need: int) -> None:
        """Make every per-node array hold at least ``need`` ids (amortised doubling)."""
        if need <= self._cap:
            return
        cap = max(need, 2 * self._cap)
        n = self._n

        def grown(old: np.ndarray | None, shape: tuple, dtype: type, fill: object) -> np.ndarray:
            arr = np.full((cap, *shape), fill, dtype=dtype)
            if old is not None:
                arr[:n] = old[:n]
            return arr

        first = self._cap == 0
        get = (lambda name: None) if first else (lambda name: getattr(self, name))
        self._pos = grown(get("_pos"), (3,), np.float64, 0.0)
        self._rot = grown(get("_rot"), (4,), np.float64, 0.0)
        self._scl = grown(get("_scl"), (3,), np.float64, 1.0)
        # Matrices flat, (N, 16) row-major: what the compiled loops index fastest.
        # Row 3 of every matrix is (0, 0, 0, 1) from here on; the kernels never write it.
        self._local = grown(get("_local"), (16,), np.float64, 0.0)
        self._world = grown(get("_world"), (16,), np.float64, 0.0)
        self._local[n:, 15] = 1.0
        self._world[n:, 15] = 1.0
        for name in ("_parent", "_first_child", "_last_child", "_next_sib", "_prev_sib"):
            setattr(self, name, grown(get(name), (), np.int64, -1))
        for name in ("_slot", "_size", "_depth", "_order", "_cause"):
            setattr(self, name, grown(get(name), (), np.int64, 0))
        self._version = grown(get("_version"), (), np.int64, 0)
        self._flags = grown(get("_flags"), (), np.uint8, 0)
        self._alive = grown(get("_alive"), (), np.bool_, False)
        self._cap = cap

    def _reserve_roots(self, k: int) -> None:
        need = self._n_roots + k
        if need > self._roots.shape[0]:
            bigger = np.empty(max(need, 2 * self._roots.shape[0]), dtype=np.int64)
            bigger[: self._n_roots] = self._roots[: self._n_roots]
            self._roots = bigger

    def _marking(self, k: int) -> tuple:
        """Room for ``k`` more dirty roots, then the arguments every marking kernel ends
        with (flags, links, layout, roots, root count), in the kernels' order."""
        self._reserve_roots(k)
        return (self._flags, self._first_child, self._next_sib, self._layout_valid,
                self._order, self._slot, self._size, self._roots, self._n_roots)  # fmt: skip

    def _mark(self, ids: np.ndarray, force: bool) -> None:
        """Rule 1 on each id; ``force`` for structural edits (see ``kernels.mark``)."""
        self._n_roots = K.mark(ids, force, *self._marking(ids.shape[0]))

    def _set_values(
        self, ids: np.ndarray, pos: np.ndarray, rot: np.ndarray, scl: np.ndarray
    ) -> None:
        """Write checked values; rows equal to the current ones are counted, not marked."""
        self._n_roots, suppressed = K.set_values(
            ids, pos, rot, scl, self._pos, self._rot, self._scl, *self._marking(ids.shape[0])
        )
        self._suppressed += suppressed

    def _check_alive(self, i: int) -> None:
        if not self._alive[i]:
            raise HierarchyError(f"node {self._names[i]!r} was removed from the graph")

    def _own(self, node: object, role: str) -> int:
        """The id of a live node of this graph, or a HierarchyError saying why not."""
        if not isinstance(node, Node):
            raise TypeError(f"{role}: expected a Node or None, got {node!r}")
        if node._graph is not self:
            raise HierarchyError(f"{role} {node.name!r} belongs to another SceneGraph")
        self._check_alive(node.id)
        return node.id

    def _structure_edited(self) -> None:
        self._layout_valid = False
        self._structure_changed = True

    def _local_of(self, i: int) -> np.ndarray:
        K.pull_local(i, self._flags, self._pos, self._rot, self._scl, self._local)
        return self._local[i].reshape(4, 4)

    def _world_of(self, i: int) -> np.ndarray:
        if self._flags[i] & K.WORLD:
            K.pull_world(
                i,
                self._parent,
                self._flags,
                self._pos,
                self._rot,
                self._scl,
                self._local,
                self._world,
                self._version,
            )
        return self._world[i].reshape(4, 4)

    def _ensure_layout(self) -> None:
        if not self._layout_valid:
            self._depth_sum, self._ids_topological = K.rebuild_preorder(
                self._heads[0],
                self._first_child,
                self._next_sib,
                self._parent,
                self._order,
                self._slot,
                self._size,
                self._depth,
            )
            self._layout_valid = True

    def _dirty_ranges(self) -> tuple[np.ndarray, np.ndarray]:
        """Disjoint pre-order slot ranges covering every node dirtied this frame."""
        return K.dirty_ranges(self._roots[: self._n_roots], self._alive, self._slot, self._size)

    def _recompute(self, starts: np.ndarray, ends: np.ndarray) -> int:
        """Recompute the dirty nodes of the ranges; returns the products done."""
        dirty = int((ends - starts).sum())
        by_id = self._ids_topological and dirty * 8 > self._alive_count
        return K.recompute(
            starts,
            ends,
            by_id,
            self._order,
            self._parent,
            self._flags[: self._n],
            self._pos,
            self._rot,
            self._scl,
            self._world,
            self._version,
        )


def readonly(arr: np.ndarray) -> np.ndarray:
    view = arr.view()
    view.flags.writeable = False
    return view
