"""A read-only look at a graph's core: what is stored and flagged now, with no side effects.

Why. Every public read of a graph (``node.world_matrix``, ``graph.world_matrices()``,
``node.dirty``) is a *pull*: it marks the deferred subtrees, brings what it reads up to
date, bumps world versions and clears flags, as the transform contract asks (rule 3).
A tool that only watches the core (the overlay's panels, the names, the renderer's
drawing, a trace) must not do that, or it changes what it shows: paused after a touch,
a panel that read the selected node's world matrix would clear the very flags the user
is looking at. ``Peek`` answers the same questions from the stored arrays as they are:
it never recomputes, never flushes the deferred marking, never rebuilds the stored
pre-order layout and never writes a counter. What it cannot read as stored it works out
on copies (the flags the deferred marking will set, the pre-order of an edited
structure), and a world matrix that is behind its values is returned as stored and
reported stale.

The graph's own reads go through these: those that need no work delegate here
(``len``, ``frame``, ``capacity_ids``, ``name_of``, ``parents()``, ``world_versions()``),
and those that must be current first bring the storage up to date and then read here
(``world_matrices()``, ``alive_ids()``, ``depths()``). Where a graph or node read of the
same name computes and this one does not, each docstring says which.
"""

from __future__ import annotations

import numpy as np

from .flags import EXEC, LOCAL, PENDING, WORLD
from .math import trs_matrix
from .storage import Storage, readonly


class PeekFlags:
    """The flags of every node id at one moment, as boolean arrays of length ``n``.

    ``local`` (update_local: values changed, local matrix not recomputed), ``world``
    (update_world: world matrix behind its values, i.e. stale), ``execute`` (not yet
    handed to the renderer by ``update()``). Nodes queued by the per-node setters are
    counted as marked, as the next read or ``update()`` will mark them.
    """

    __slots__ = ("local", "world", "execute")

    def __init__(self, bits: np.ndarray) -> None:
        self.local = readonly((bits & LOCAL) != 0)
        self.world = readonly((bits & WORLD) != 0)
        self.execute = readonly((bits & EXEC) != 0)

    def of(self, node_id: int) -> tuple[bool, bool, bool]:
        """``(local, world, execute)`` of one id (False for an id past the arrays)."""
        i = int(node_id)
        if not 0 <= i < self.local.shape[0]:
            return False, False, False
        return bool(self.local[i]), bool(self.world[i]), bool(self.execute[i])

    @property
    def pending(self) -> np.ndarray:
        """Ids marked and not yet executed (any of the three flags), ascending."""
        return np.flatnonzero(self.local | self.world | self.execute)


class Peek:
    """Read-only view of one graph's storage (``SceneGraph.peek``); see the module notes.

    Every method returns copies or read-only views; none changes the storage, its
    flags, versions or counters. Views are re-made on growth: ask again each frame.
    """

    __slots__ = ("_store",)

    def __init__(self, store: Storage) -> None:
        self._store = store

    # -- sizes and names ------------------------------------------------------------------
    @property
    def frame(self) -> int:
        """Number of ``update()`` calls so far."""
        return self._store.frame

    @property
    def capacity_ids(self) -> int:
        """Ids handed out so far: the length of the per-id arrays."""
        return self._store.n

    def __len__(self) -> int:
        return self._store.alive_count

    def name_of(self, node_id: int) -> str:
        """The name node id had (also after its removal). For ids handed out: unchecked
        here (``SceneGraph.name_of`` refuses any other with a KeyError)."""
        return self._store.names.at(int(node_id))

    def names_of(self, node_ids: np.ndarray) -> list[str]:
        """The names of many node ids at once, as `name_of` gives each (for writers of a
        million nodes: no call per node)."""
        return list(map(self._store.names.made().__getitem__, np.asarray(node_ids).tolist()))

    def is_alive(self, node_id: int) -> bool:
        i = int(node_id)
        return 0 <= i < self._store.n and bool(self._store.alive[i])

    # -- structure ----------------------------------------------------------------------
    def parents(self) -> np.ndarray:
        """``(N,)`` read-only parent id per id, -1 for roots."""
        s = self._store
        return readonly(s.parent[: s.n])

    def alive_ids(self) -> np.ndarray:
        """Live ids in pre-order: the stored layout when it is current, else one worked
        out on scratch arrays (the stored one is rebuilt by the core's next read, such
        as ``SceneGraph.alive_ids()``, which rebuilds it and then reads it here)."""
        return self._layout()[0]

    def depths(self) -> np.ndarray:
        """``(N,)`` depth per id (roots 0), from the same layout as ``alive_ids``."""
        return self._layout()[1]

    def _layout(self) -> tuple[np.ndarray, np.ndarray]:
        s = self._store
        if s.layout_valid:
            return s.order[: s.alive_count].copy(), readonly(s.depth[: s.n])
        order = np.zeros(s.cap, dtype=np.int64)
        slot, size, depth = (np.zeros(s.cap, dtype=np.int64) for _ in range(3))
        s.kernels.rebuild_preorder(
            s.heads[0], s.first_child, s.next_sib, s.parent, order, slot, size, depth
        )
        return order[: s.alive_count], readonly(depth[: s.n])

    # -- flags ------------------------------------------------------------------------------
    @property
    def marked(self) -> bool:
        """Some node is marked and not yet executed (an edit since the last ``update()``),
        answered without looking at the flags."""
        s = self._store
        return bool(s.pending) or s.n_roots > 0

    @property
    def edition(self) -> tuple[int, int, int, int]:
        """Differs whenever a value, a flag or the structure may have changed since it
        was last asked (edits, frames, ids, products of mid-frame reads): a watcher redoes
        its work only then."""
        s = self._store
        return s.changes, s.frame, s.n, s.products

    def flags(self) -> PeekFlags:
        """Every node's flags now, the deferred marking of queued nodes included (worked
        out on a copy of the flags: the stored ones and the queue stay as they are)."""
        s = self._store
        bits = s.flags[: s.cap].copy()
        if s.pending:
            ids = np.array(s.pending, dtype=np.int64)
            scratch = np.empty(ids.shape[0], dtype=np.int64)
            s.kernels.mark(
                ids,
                False,
                bits,
                s.first_child,
                s.next_sib,
                s.layout_valid,
                s.order,
                s.slot,
                s.size,
                scratch,
                0,
            )
        bits = bits[: s.n]
        bits[~s.alive[: s.n]] = 0
        return PeekFlags(bits)

    # -- values -----------------------------------------------------------------------------
    def world_matrices(self) -> np.ndarray:
        """``(N, 4, 4)`` read-only view of the stored world matrices, as they are: rows
        whose ``flags().world`` is set are stale (behind their values). Computes nothing;
        ``SceneGraph.world_matrices()`` brings them current first, then reads here."""
        s = self._store
        return readonly(s.world[: s.n].reshape(s.n, 4, 4))

    def world_versions(self) -> np.ndarray:
        """``(N,)`` read-only world version per id."""
        s = self._store
        return readonly(s.version[: s.n])

    def world_matrix(self, node_id: int) -> tuple[np.ndarray, bool]:
        """(a copy of the stored world matrix of a node, whether it is stale). Computes
        nothing: ``Node.world_matrix`` is the one that brings it current first."""
        i = self._live(node_id)
        m = self._store.world[i].reshape(4, 4).copy()
        return m, self._stale(i)

    def _stale(self, i: int) -> bool:
        """Whether node ``i``'s stored world matrix is behind: update_world is set on it,
        or it lies below a node whose marking is still queued (O(depth), no copy)."""
        s = self._store
        if s.flags[i] & WORLD:
            return True
        while s.pending and i >= 0:
            if s.flags[i] & PENDING:
                return True
            i = int(s.parent[i])
        return False

    def local_values(self, node_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of one live node's stored (position, quaternion, scale): always current
        (the values are what a change writes). ``SceneGraph.local_values()`` is every
        id's at once, as read-only views."""
        i = self._live(node_id)
        s = self._store
        return s.pos[i].copy(), s.rot[i].copy(), s.scl[i].copy()

    def local_matrix(self, node_id: int) -> np.ndarray:
        """A node's local matrix ``T · R · S`` made from its values on the side (the
        stored one may lag them; it is left as it is). ``Node.local_matrix`` is the one
        that recomputes the stored matrix and clears its flag."""
        return trs_matrix(*self.local_values(node_id))

    def _live(self, node_id: int) -> int:
        i = int(node_id)
        if not self.is_alive(i):
            raise KeyError(f"no live node with id {i}")
        return i
