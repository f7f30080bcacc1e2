"""The transform hierarchy: structure-of-arrays storage, structure edits and the frame.

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

from collections.abc import Iterator, Sequence

import numpy as np

from . import kernels as K
from . import validate
from .errors import HierarchyError
from .math import decompose, quat_from_euler
from .node import Node
from .report import FrameReport

_EMPTY3 = np.empty((0, 3))
_EMPTY4 = np.empty((0, 4))
_NEW = K.LOCAL | K.WORLD | K.EXEC


class SceneGraph:
    """A forest of transform nodes with dirty-flag propagation (SEMANTICS.md)."""

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
        self._local = grown(get("_local"), (16,), np.float64, 0.0)
        self._world = grown(get("_world"), (16,), np.float64, 0.0)
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

    def _mark(self, ids: np.ndarray, force: bool) -> None:
        """Rule 1 on each id; ``force`` for structural edits (see ``kernels.mark``)."""
        self._reserve_roots(ids.shape[0])
        self._n_roots = K.mark(
            ids,
            force,
            self._flags,
            self._first_child,
            self._next_sib,
            self._layout_valid,
            self._order,
            self._slot,
            self._size,
            self._roots,
            self._n_roots,
        )

    def _set_values(
        self, ids: np.ndarray, pos: np.ndarray, rot: np.ndarray, scl: np.ndarray
    ) -> None:
        """Write checked values; rows equal to the current ones are counted, not marked."""
        self._reserve_roots(ids.shape[0])
        self._n_roots, suppressed = K.set_values(
            ids,
            pos,
            rot,
            scl,
            self._pos,
            self._rot,
            self._scl,
            self._flags,
            self._first_child,
            self._next_sib,
            self._layout_valid,
            self._order,
            self._slot,
            self._size,
            self._roots,
            self._n_roots,
        )
        self._suppressed += suppressed

    # ------------------------------------------------------------------ building
    def add(
        self,
        name: str,
        parent: Node | None = None,
        *,
        position: Sequence[float] | None = None,
        rotation: Sequence[float] | None = None,
        euler: Sequence[float] | None = None,
        scale: Sequence[float] | None = None,
    ) -> Node:
        """Add a node (a root unless ``parent`` is given) and return its handle.

        ``rotation`` is a quaternion ``(x, y, z, w)``; ``euler`` is degrees with
        ``R = Rz · Ry · Rx``; give one or neither. The new node is dirty (rule 1).
        """
        name = self._check_new_name(name)
        p = -1 if parent is None else self._own(parent, "parent")
        pos = np.zeros(3) if position is None else validate.vector(position, 3, name, "position")
        if rotation is not None and euler is not None:
            raise ValueError(f"node {name!r}: give rotation or euler, not both")
        if euler is not None:
            rot = quat_from_euler(validate.vector(euler, 3, name, "euler"))
        elif rotation is not None:
            rot = validate.unit_quaternion(rotation, name, "rotation")
        else:
            rot = np.array([0.0, 0.0, 0.0, 1.0])
        scl = np.ones(3) if scale is None else validate.vector(scale, 3, name, "scale")
        i = self._append(np.array([p], dtype=np.int64), [name], pos[None], rot[None], scl[None])
        return Node(self, int(i[0]))

    def add_many(
        self,
        names: Sequence[str] | None,
        parents: Sequence[int] | np.ndarray,
        *,
        positions: np.ndarray | None = None,
        rotations: np.ndarray | None = None,
        scales: np.ndarray | None = None,
    ) -> np.ndarray:
        """Add ``k`` nodes at once; returns their ids (consecutive, in the order given).

        ``parents[j]`` is ``-1`` for a root or the id of an earlier node: an existing
        live node or one earlier in this batch. ``names=None`` names them ``Node<id>``.
        Values are ``(k, 3)`` positions, ``(k, 4)`` quaternions, ``(k, 3)`` scales.
        """
        par = np.asarray(parents)
        if par.ndim != 1 or not np.issubdtype(par.dtype, np.integer):
            raise ValueError(f"parents: expected a 1-D integer array, got {par!r}")
        par = par.astype(np.int64)
        k = par.shape[0]
        first = self._n
        own = np.arange(first, first + k, dtype=np.int64)
        bad = (par < -1) | (par >= own)
        if not bad.any():
            old = (par >= 0) & (par < first)
            bad = old & ~self._alive[np.where(old, par, 0)]
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise HierarchyError(
                f"add_many: node {j} of the batch names parent id {int(par[j])}, which is "
                "not a live node added before it"
            )
        if names is None:
            names = [f"Node{i}" for i in range(first, first + k)]
        names = list(names)
        if len(names) != k:
            raise ValueError(f"add_many: {len(names)} names for {k} parents")
        if len(set(names)) != k or not self._ids_by_name.keys().isdisjoint(names):
            seen: set[str] = set()
            for nm in names:
                if nm in seen or nm in self._ids_by_name:
                    raise HierarchyError(f"duplicate node name {nm!r}")
                seen.add(nm)
        for nm in names:
            if not isinstance(nm, str) or not nm:
                raise ValueError(f"node names must be non-empty strings, got {nm!r}")

        def row_name(r: int) -> str:
            return names[r]

        pos = (
            np.zeros((k, 3))
            if positions is None
            else validate.rows(positions, k, 3, "positions", row_name)
        )
        rot = (
            np.tile([0.0, 0.0, 0.0, 1.0], (k, 1))
            if rotations is None
            else (validate.unit_quaternion_rows(rotations, k, "rotations", row_name))
        )
        scl = np.ones((k, 3)) if scales is None else validate.rows(scales, k, 3, "scales", row_name)
        return self._append(par, names, pos, rot, scl)

    def _append(
        self,
        par: np.ndarray,
        names: list[str],
        pos: np.ndarray,
        rot: np.ndarray,
        scl: np.ndarray,
    ) -> np.ndarray:
        """Store checked new nodes, link them, mark them dirty. Nothing here can fail."""
        k = par.shape[0]
        first = self._n
        self._grow(first + k)
        sl = slice(first, first + k)
        self._pos[sl], self._rot[sl], self._scl[sl] = pos, rot, scl
        self._flags[sl] = _NEW
        self._version[sl] = 0
        self._alive[sl] = True
        K.link_batch(
            first,
            par,
            self._parent,
            self._first_child,
            self._last_child,
            self._next_sib,
            self._prev_sib,
            self._heads,
        )
        self._names.extend(names)
        self._ids_by_name.update(zip(names, range(first, first + k), strict=True))
        self._n += k
        self._alive_count += k
        # A node whose parent is new too lies inside that parent's subtree already.
        ids = np.arange(first, first + k, dtype=np.int64)
        tops = ids[par < first]
        self._mark(tops, force=True)
        self._structure_edited()
        return ids

    def _check_new_name(self, name: object) -> str:
        if not isinstance(name, str) or not name:
            raise ValueError(f"node names must be non-empty strings, got {name!r}")
        if name in self._ids_by_name:
            raise HierarchyError(f"duplicate node name {name!r}")
        return name

    def _structure_edited(self) -> None:
        self._layout_valid = False
        self._structure_changed = True

    # ------------------------------------------------------------------ lookup
    def __len__(self) -> int:
        return self._alive_count

    def __contains__(self, name: object) -> bool:
        return name in self._ids_by_name

    def __getitem__(self, name: str) -> Node:
        try:
            return Node(self, self._ids_by_name[name])
        except KeyError:
            raise KeyError(f"no node named {name!r}") from None

    def __iter__(self) -> Iterator[Node]:
        """Live nodes in pre-order (roots in root order, children in attach order)."""
        return (Node(self, int(i)) for i in self.alive_ids())

    def node(self, node_id: int) -> Node:
        """The handle of a live node id."""
        i = int(node_id)
        if not 0 <= i < self._n:
            raise KeyError(f"no node with id {i}")
        self._check_alive(i)
        return Node(self, i)

    def name_of(self, node_id: int) -> str:
        """The name a node id had (also after it was removed)."""
        return self._names[int(node_id)]

    def alive_ids(self) -> np.ndarray:
        """Ids of the live nodes in pre-order."""
        self._ensure_layout()
        return self._order[: self._alive_count].copy()

    @property
    def capacity_ids(self) -> int:
        """How many ids were ever handed out: the length of the per-id arrays."""
        return self._n

    @property
    def frame(self) -> int:
        """Number of ``update()`` calls so far."""
        return self._frame

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

    # ------------------------------------------------------------------ read-outs
    def world_matrices(self) -> np.ndarray:
        """``(N, 4, 4)`` read-only view of every world matrix, row ``i`` = node id ``i``.

        Brought up to date first, so it is always current. Rows of removed ids hold
        stale values. The view is re-made on growth: call this each frame, don't keep it.
        """
        if self._n_roots:
            self._ensure_layout()
            self._recompute(*self._dirty_ranges())
        return _readonly(self._world[: self._n].reshape(self._n, 4, 4))

    def world_versions(self) -> np.ndarray:
        """``(N,)`` read-only world version per id: bumped on every world recomputation."""
        return _readonly(self._version[: self._n])

    def parents(self) -> np.ndarray:
        """``(N,)`` read-only parent id per id, -1 for roots."""
        return _readonly(self._parent[: self._n])

    def depths(self) -> np.ndarray:
        """``(N,)`` read-only depth per id (roots are 0)."""
        self._ensure_layout()
        return _readonly(self._depth[: self._n])

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

    # ------------------------------------------------------------------ editing
    def touch(self, node: Node) -> None:
        """A change with no new value (the seeds' SomeChange): rule 1 on ``node``."""
        i = self._own(node, "touch")
        self._mark(np.array([i], dtype=np.int64), force=False)

    def set_locals(
        self,
        ids: np.ndarray | Sequence[int],
        *,
        positions: np.ndarray | None = None,
        rotations: np.ndarray | None = None,
        scales: np.ndarray | None = None,
    ) -> None:
        """Bulk edit: new local values for ``ids``, same rules as the per-node setters.

        ``positions`` ``(k, 3)``, ``rotations`` ``(k, 4)`` quaternions (normalised here),
        ``scales`` ``(k, 3)``; omit any. Rows equal to the current value are suppressed.
        """
        idx = np.asarray(ids)
        if idx.ndim != 1 or not (np.issubdtype(idx.dtype, np.integer) or idx.size == 0):
            raise ValueError(f"set_locals: ids must be a 1-D integer array, got {idx!r}")
        idx = idx.astype(np.int64, copy=False)
        k = idx.shape[0]
        if k and (idx.min() < 0 or idx.max() >= self._n):
            bad = idx[(idx < 0) | (idx >= self._n)][0]
            raise KeyError(f"set_locals: no node with id {int(bad)}")
        dead = ~self._alive[idx]
        if dead.any():
            self._check_alive(int(idx[np.flatnonzero(dead)[0]]))

        def row_name(r: int) -> str:
            return self._names[int(idx[r])]

        pos = (
            _EMPTY3 if positions is None else validate.rows(positions, k, 3, "positions", row_name)
        )
        rot = (
            _EMPTY4
            if rotations is None
            else validate.unit_quaternion_rows(rotations, k, "rotations", row_name)
        )
        scl = _EMPTY3 if scales is None else validate.rows(scales, k, 3, "scales", row_name)
        if k:
            self._set_values(np.ascontiguousarray(idx), pos, rot, scl)

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

    # ------------------------------------------------------------------ the frame
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
            self._local,
            self._world,
            self._version,
        )

    def update(self) -> FrameReport:
        """End the frame: recompute what is dirty, hand it on, clear the flags.

        Cost is proportional to the dirty nodes (plus one O(N) layout pass after a
        structural edit). A frame with no change recomputes and hands on nothing.
        """
        self._ensure_layout()
        if self._n_roots:
            starts, ends = self._dirty_ranges()
            products = self._recompute(starts, ends)
            local, world, cause, executed = K.finish_frame(
                starts, ends, self._order, self._parent, self._flags, self._cause
            )
        else:
            local = world = cause = executed = np.empty(0, dtype=np.int64)
            products = 0
        self._frame += 1
        report = FrameReport(
            frame=self._frame,
            local_updated=local,
            world_updated=world,
            cause=cause,
            executed=executed,
            suppressed=self._suppressed,
            products=int(products),
            naive_products=self._depth_sum,
            node_count=self._alive_count,
            structure_changed=self._structure_changed,
            _name_of=self._names.__getitem__,
        )
        self._n_roots = 0
        self._suppressed = 0
        self._structure_changed = False
        return report


def _readonly(arr: np.ndarray) -> np.ndarray:
    view = arr.view()
    view.flags.writeable = False
    return view
