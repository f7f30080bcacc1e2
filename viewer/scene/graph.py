"""The transform hierarchy's public face: building, editing values, and the frame.

``SceneGraph`` is the class users meet; its storage and compiled primitives are in
``storage.py`` and ``kernels.py``, structural edits in ``structure.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from . import kernels as K
from . import validate
from .errors import HierarchyError
from .math import quat_from_euler
from .node import Node
from .report import FrameReport
from .storage import readonly
from .structure import StructureEdits

_EMPTY3 = np.empty((0, 3))
_EMPTY4 = np.empty((0, 4))
_NEW = K.LOCAL | K.WORLD | K.EXEC


class SceneGraph(StructureEdits):
    """A forest of transform nodes with dirty-flag propagation (SEMANTICS.md)."""

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
        par = validate.ids(parents, "parents").copy()
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
        i = int(node_id)
        if not 0 <= i < self._n:  # a negative index would name a node from the end
            raise KeyError(f"no node with id {i}")
        return self._names[i]

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

    # ------------------------------------------------------------------ read-outs
    def world_matrices(self) -> np.ndarray:
        """``(N, 4, 4)`` read-only view of every world matrix, row ``i`` = node id ``i``.

        Brought up to date first, so it is always current. Rows of removed ids hold
        stale values. The view is re-made on growth: call this each frame, don't keep it.
        """
        if self._n_roots:
            self._ensure_layout()
            self._recompute(*self._dirty_ranges())
        return readonly(self._world[: self._n].reshape(self._n, 4, 4))

    def world_versions(self) -> np.ndarray:
        """``(N,)`` read-only world version per id: bumped on every world recomputation."""
        return readonly(self._version[: self._n])

    def parents(self) -> np.ndarray:
        """``(N,)`` read-only parent id per id, -1 for roots."""
        return readonly(self._parent[: self._n])

    def depths(self) -> np.ndarray:
        """``(N,)`` read-only depth per id (roots are 0)."""
        self._ensure_layout()
        return readonly(self._depth[: self._n])

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
        idx = validate.ids(ids, "set_locals")
        k = idx.shape[0]
        bad = K.first_bad_id(idx, self._alive[: self._n])
        if bad >= 0:
            if not 0 <= idx[bad] < self._n:
                raise KeyError(f"set_locals: no node with id {int(idx[bad])}")
            self._check_alive(int(idx[bad]))

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

    def update(self) -> FrameReport:
        """End the frame: recompute what is dirty, hand it on, clear the flags.

        Cost is proportional to the dirty nodes (plus one O(N) layout pass after a
        structural edit). A frame with no change recomputes and hands on nothing.
        """
        self._ensure_layout()
        if self._n_roots:
            starts, ends = self._dirty_ranges()
            products = self._recompute(starts, ends)
            local, world, cause = K.finish_frame(
                starts, ends, self._order, self._parent, self._flags, self._cause
            )
            executed = world
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
