"""The transform hierarchy's public face: building, editing values, and the frame.

``SceneGraph`` is the class users meet. It owns a ``Storage`` (``storage.py``: the
arrays and the primitives on them, through the kernel set of ``kernel_set.py``), hands
out ``Node`` handles that share that storage, and turns handles into ids for it;
structural edits are the functions of ``structure.py``. Imports run one way: graph ->
node -> structure -> storage -> arrays, with the kernel set and the maths below them
(and graph -> peek -> storage: the read-only view, ``SceneGraph.peek``);
nothing imports the graph (but ``coldstart.exercise``, which drives one).

One face per question: the graph changes and computes, its ``peek`` reads what is stored
without changing anything, and a ``Node`` is one node's handle. Where two answer the
same question, one answers and the other delegates: the graph's reads that need no work
(``len``, ``frame``, ``name_of``, ``parents()``, ...) are the peek's, and those that must
be current first (``world_matrices()``, ``alive_ids()``, ``depths()``) bring the storage
up to date and then read through the peek; the graph's edits of one node (``set_parent``,
``detach_children``, ``touch``) are that node's handle's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from . import state, structure, validate
from .errors import HierarchyError
from .math import quat_from_euler_floats
from .names import NumberedNames
from .node import Node, id_of_name, node_id
from .peek import Peek
from .report import FrameReport
from .state import GraphState
from .storage import Storage, readonly


def _gc_untrack() -> Callable[[Node], None] | None:
    """CPython's ``PyObject_GC_UnTrack`` (None elsewhere): see `_untrack`."""
    if sys.implementation.name != "cpython":
        return None
    import ctypes

    untrack = ctypes.pythonapi.PyObject_GC_UnTrack
    untrack.argtypes = [ctypes.py_object]
    untrack.restype = None
    return untrack


#: Takes a handle made by `SceneGraph.add` out of the cyclic garbage collector's sight.
#: A handle holds only its storage and arrays of floats, none of which can lead back to
#: it, so it can never be part of a reference cycle and reference counting alone frees
#: it (as CPython untracks tuples of numbers itself). Tracked, as every instance of a
#: Python class is, a program keeping the handles of a node-by-node build made the
#: collector's full collections come due inside ``add`` every quarter more objects, each
#: walking every tracked object in the process: 0.1-0.4 s at a million nodes.
_untrack = _gc_untrack()

_EMPTY3 = np.empty((0, 3))
_EMPTY4 = np.empty((0, 4))
_ORIGIN, _IDENTITY, _UNIT = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), (1.0, 1.0, 1.0)


class SceneGraph:
    """A forest of transform nodes with dirty-flag propagation (docs/dirty-propagation.md)."""

    def __init__(self, capacity: int = 16) -> None:
        self._store = Storage(capacity)
        self._peek = Peek(self._store)
        self._listeners: list[Callable[[FrameReport], None]] = []

    # ------------------------------------------------------------------ building
    def add(
        self,
        name: str,
        parent: Node | str | None = None,
        *,
        position: Sequence[float] | None = None,
        rotation: Sequence[float] | None = None,
        euler: Sequence[float] | None = None,
        scale: Sequence[float] | None = None,
    ) -> Node:
        """Add a node (a root unless ``parent`` is given) and return its handle.

        ``rotation`` is a quaternion ``(x, y, z, w)``; ``euler`` is degrees with
        ``R = Rz · Ry · Rx``; give one or neither. For 2-D use a position may have two
        numbers (z = 0) and a scale two (z = 1) or one (uniform). The new node is dirty
        (rule 1).

        One node costs a few microseconds (plain-Python checks, as the per-node setters
        make); ``add_many`` adds a whole batch from arrays at a fraction of that per node.
        """
        name = structure.check_new_name(self._store, name)
        p = -1 if parent is None else self._own(parent, "parent")
        pos = (
            _ORIGIN
            if position is None
            else validate.spatial_floats(position, 0.0, name, "position")
        )
        if rotation is not None and euler is not None:
            raise ValueError(f"node {name!r}: give rotation or euler, not both")
        if euler is not None:
            rot = quat_from_euler_floats(*validate.euler_floats(euler, name, "euler"))
        elif rotation is not None:
            rot = validate.unit_floats(rotation, name, "rotation")
        else:
            rot = _IDENTITY
        scl = _UNIT if scale is None else validate.spatial_floats(scale, 1.0, name, "scale")
        node = Node(self._store, self._store.append_one(p, name, pos, rot, scl))
        if _untrack is not None:
            _untrack(node)
        return node

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
        live node or one earlier in this batch. ``names=None`` names them ``Node<id>``;
        ``names`` may be a `NumberedNames` (``names.py``), which are not compared with
        each other (they cannot repeat), only with the live nodes' names.
        Values are ``(k, 3)`` positions, ``(k, 4)`` quaternions, ``(k, 3)`` scales.
        """
        par = validate.ids(parents, "parents").copy()
        k = par.shape[0]
        first = self._store.n
        own = np.arange(first, first + k, dtype=np.int64)
        bad = (par < -1) | (par >= own)
        if not bad.any():
            old = (par >= 0) & (par < first)
            bad = old & ~self._store.alive[np.where(old, par, 0)]
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise HierarchyError(
                f"add_many: node {j} of the batch names parent id {int(par[j])}, which is "
                "not a live node added before it"
            )
        if names is None:
            names = NumberedNames("Node", first, k)
        numbered = type(names) is NumberedNames  # (no two alike: not compared; a subclass is)
        batch: list[str] | NumberedNames
        if not isinstance(names, NumberedNames) or not numbered:
            batch = list(names)
        elif self._store.n:  # joined to earlier ids' names, they are made: once, here
            batch = names.to_list()
        else:
            batch = names
        if len(batch) != k:
            raise ValueError(f"add_many: {len(batch)} names for {k} parents")
        structure.check_new_names(self._store, batch, distinct=numbered)

        def row_name(r: int) -> str:
            return batch[r]

        pos = None if positions is None else validate.rows(positions, k, 3, "positions", row_name)
        rot = (
            None
            if rotations is None
            else validate.unit_quaternion_rows(rotations, k, "rotations", row_name)
        )
        scl = None if scales is None else validate.rows(scales, k, 3, "scales", row_name)
        return self._store.append(par, batch, pos, rot, scl)

    def _own(self, node: object, role: str) -> int:
        """The id of a live node of this graph, given as its handle or its name, or an
        error saying why not (an unknown name: "did you mean ...")."""
        return node_id(node, self._store, role)

    def _handle(self, node: object, role: str) -> Node:
        """`_own`'s node as a handle: the graph's edits of one node are the handle's."""
        return Node(self._store, self._own(node, role))

    # ------------------------------------------------------------------ structure
    def set_parent(
        self,
        node: Node | str,
        parent: Node | str | None,
        keep_world: bool | str = False,
        *,
        before: Node | str | None = None,
        after: Node | str | None = None,
    ) -> float | None:
        """Move ``node`` (with its subtree) under ``parent`` as its last child, or make it a
        root with ``None``. ``before=`` / ``after=`` (a child of ``parent``, or a root when
        it is None) place it just before / after that sibling instead, which also reorders
        a node among its own siblings. ``keep_world=True`` recomputes its local values so
        its world matrix stays put, and raises HierarchyError when position, rotation and
        scale cannot hold that matrix (shear from a non-uniform scale above a rotated
        node); ``keep_world="lossy"`` takes the nearest values instead and returns how far
        they miss (docs/semantics.md section 4). Errors leave the graph as it was.
        (``Node.set_parent`` of ``node``'s handle.)"""
        handle = self._handle(node, "node")
        return handle.set_parent(parent, keep_world, before=before, after=after)

    def remove(self, node: Node | str, keep_children: bool = False) -> None:
        """Remove ``node`` and its whole subtree; their handles become invalid.

        ``keep_children=True`` removes ``node`` alone: its children move to its parent
        (or become roots), last in their new sibling list in their old order, keeping
        their world transforms (as ``set_parent(..., keep_world=True)``, refused as a whole
        when one child's cannot be kept).
        """
        i = self._own(node, "remove")
        if keep_children:
            structure.remove_keeping_children(self._store, i)
        else:
            structure.remove_subtree(self._store, i)

    def rename(self, node: Node | str, name: str) -> None:
        """Call ``node`` ``name`` from now on (a non-empty name no other node has).
        Reported as a structural change by the next ``update()``."""
        structure.rename(self._store, self._own(node, "rename"), name)

    def detach_children(self, node: Node | str) -> None:
        """Make every child of ``node`` a root, keeping its local values (rule 1 on each).
        (``Node.detach_children`` of ``node``'s handle.)"""
        self._handle(node, "detach_children").detach_children()

    # ------------------------------------------------------------------ undo
    def snapshot(self) -> GraphState:
        """The whole graph as a value (ids, names, links, local values) for `restore`:
        what an undo history keeps. Costs about 130 bytes per id ever handed out."""
        return state.capture(self._store)

    def restore(self, snapshot: GraphState) -> int:
        """Put the graph back as it was at ``snapshot`` (taken from this graph), exactly:
        the same ids alive, names, sibling order and local values; ids added since are
        removed. Marks each node whose values, parent or liveness changed back, as an
        edit would, and returns how many."""
        return state.restore(self._store, snapshot)

    # ------------------------------------------------------------------ lookup
    def __len__(self) -> int:
        """How many nodes are alive (``len(peek)``)."""
        return len(self._peek)

    def __contains__(self, name: object) -> bool:
        return name in self._store.ids_by_name

    def __getitem__(self, name: str) -> Node:
        return Node(self._store, id_of_name(name, self._store))

    def __iter__(self) -> Iterator[Node]:
        """Live nodes in pre-order (roots in root order, children in attach order)."""
        return (Node(self._store, int(i)) for i in self.alive_ids())

    def find(self, path: str) -> Node | None:
        """The node at the end of a path of names, ``"Obj1/Obj2/Obj5"``: each name a child
        of the one before it; a leading ``/`` asks for the first name to be a root.
        None when no node matches."""
        names = path.split("/")
        rooted = names[0] == ""
        if rooted:
            names = names[1:]
        if not names or "" in names or names[0] not in self._store.ids_by_name:
            return None
        s = self._store
        i = s.ids_by_name[names[0]]
        if rooted and s.parent[i] >= 0:
            return None
        for name in names[1:]:
            j = s.ids_by_name.get(name)
            if j is None or s.parent[j] != i:
                return None
            i = j
        return Node(self._store, i)

    def owns(self, node: object) -> bool:
        """Whether `node` is a handle of this graph, live or removed (a caller can then
        say "was removed" rather than "belongs to another graph")."""
        if not isinstance(node, Node) or not 0 <= node.id < self._store.n:
            return False
        return Node(self._store, node.id) == node

    def node(self, node_id: int | str) -> Node:
        """The handle of a live node id (or of the node of that name, as ``g[name]``)."""
        if isinstance(node_id, str):
            return Node(self._store, id_of_name(node_id, self._store))
        i = int(node_id)
        if not 0 <= i < self._store.n:
            raise KeyError(f"no node with id {i}")
        self._store.check_alive(i)
        return Node(self._store, i)

    def name_of(self, node_id: int) -> str:
        """The name a node id had (also after it was removed): ``peek.name_of``, with a
        KeyError for an id that was never handed out."""
        i = int(node_id)
        if not 0 <= i < self._store.n:  # a negative index would name a node from the end
            raise KeyError(f"no node with id {i}")
        return self._peek.name_of(i)

    def alive_ids(self) -> np.ndarray:
        """Ids of the live nodes in pre-order. Computes: after a structural edit the
        stored pre-order layout is rebuilt first, then read as ``peek.alive_ids()`` does
        (which works a stale layout out on the side instead; the same ids)."""
        self._store.ensure_layout()
        return self._peek.alive_ids()

    @property
    def capacity_ids(self) -> int:
        """How many ids were ever handed out: the length of the per-id arrays
        (``peek.capacity_ids``)."""
        return self._peek.capacity_ids

    @property
    def frame(self) -> int:
        """Number of ``update()`` calls so far (``peek.frame``)."""
        return self._peek.frame

    # ------------------------------------------------------------------ read-outs
    @property
    def peek(self) -> Peek:
        """A read-only look at the stored values and flags as they are (``peek.py``):
        for tools that watch the graph (panels, names, drawing, traces) and must not
        change it. Unlike every other read it never recomputes, never clears a flag and
        never bumps a version; a stale world matrix comes back as stored, marked stale.
        The graph's own reads that need no work are answered by it."""
        return self._peek

    def world_matrices(self) -> np.ndarray:
        """``(N, 4, 4)`` read-only view of every world matrix, row ``i`` = node id ``i``.

        Computes: every dirty world matrix is brought up to date first (versions bumped,
        the products counted for the frame), so it is always current; then read as
        ``peek.world_matrices()`` reads them as stored, stale rows included. Rows of
        removed ids hold stale values. The view is re-made on growth: call this each
        frame, don't keep it.
        """
        self._store.bring_current()
        return self._peek.world_matrices()

    def hold_worlds(self, node_ids: np.ndarray, worlds: np.ndarray) -> None:
        """Store ``worlds`` ``(k, 4, 4)`` as the world matrices of ``node_ids``, as given
        (versions bumped): for a graph that mirrors a running program, whose own world
        matrices are the truth also where they differ from parent · local
        (``viewer/attach/mirror.py``). What is dirty is brought current first; a held
        matrix lasts until an update recomputes that node, and its children are computed
        from it, as an engine computes them from the world its parent holds."""
        ids = np.asarray(node_ids, dtype=np.int64)
        store = self._store
        store.bring_current()
        store.world[ids] = np.asarray(worlds, dtype=np.float64).reshape(-1, 16)
        store.version[ids] += 1

    def world_versions(self) -> np.ndarray:
        """``(N,)`` read-only world version per id: bumped on every world recomputation
        (``peek.world_versions()``: read as stored, nothing brought up to date)."""
        return self._peek.world_versions()

    def local_values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every id's values: read-only ``(N, 3)`` positions, ``(N, 4)`` quaternions and
        ``(N, 3)`` scales, row ``i`` = node id ``i`` (removed ids hold stale values).
        Don't keep them. (``peek.local_values(id)`` is one live node's, as copies.)"""
        s = self._store
        return readonly(s.pos[: s.n]), readonly(s.rot[: s.n]), readonly(s.scl[: s.n])

    def parents(self) -> np.ndarray:
        """``(N,)`` read-only parent id per id, -1 for roots (``peek.parents()``)."""
        return self._peek.parents()

    def depths(self) -> np.ndarray:
        """``(N,)`` read-only depth per id (roots are 0). Computes: after a structural
        edit the stored layout is rebuilt first, then read as ``peek.depths()`` does."""
        self._store.ensure_layout()
        return self._peek.depths()

    # ------------------------------------------------------------------ editing
    def touch(self, node: Node | str) -> None:
        """A change with no new value: rule 1 on ``node``.
        (``Node.touch`` of ``node``'s handle.)"""
        self._handle(node, "touch").touch()

    def set_locals(
        self,
        ids: np.ndarray | Sequence[int],
        *,
        positions: np.ndarray | None = None,
        rotations: np.ndarray | None = None,
        scales: np.ndarray | None = None,
        skip_removed: bool = False,
    ) -> None:
        """Bulk edit: new local values for ``ids``, same rules as the per-node setters.

        ``positions`` ``(k, 3)``, ``rotations`` ``(k, 4)`` quaternions (normalised here),
        ``scales`` ``(k, 3)``; omit any. Rows equal to the current value are suppressed.
        A removed id is an error, or with ``skip_removed`` its row is left out (content
        that drives nodes by id, motions and animation, after the user deleted one).
        """
        idx = validate.ids(ids, "set_locals")
        k = idx.shape[0]
        n = self._store.n
        keep = None
        bad = self._store.kernels.first_bad_id(idx, self._store.alive[:n])
        if bad >= 0:
            out = (idx < 0) | (idx >= n)
            if skip_removed and out.any():  # an unknown id is an error all the same
                bad = int(np.argmax(out))
            if out[bad]:
                raise KeyError(f"set_locals: no node with id {int(idx[bad])}")
            if not skip_removed:
                self._store.check_alive(int(idx[bad]))
            keep = self._store.alive[idx]

        def row_name(r: int) -> str:
            return self._store.names[int(idx[r])]

        pos = (
            _EMPTY3 if positions is None else validate.rows(positions, k, 3, "positions", row_name)
        )
        rot = (
            _EMPTY4
            if rotations is None
            else validate.unit_quaternion_rows(rotations, k, "rotations", row_name)
        )
        scl = _EMPTY3 if scales is None else validate.rows(scales, k, 3, "scales", row_name)
        if keep is not None:  # skip_removed: the live rows only
            idx, k = idx[keep], int(keep.sum())
            pos, rot, scl = (a if a.shape[0] == 0 else a[keep] for a in (pos, rot, scl))
        if k:
            self._store.set_values(np.ascontiguousarray(idx), pos, rot, scl)

    def update(self, root: Node | str | None = None) -> FrameReport:
        """End the frame: recompute what is dirty, hand it on, clear the flags.

        Cost is proportional to the dirty nodes (plus one O(N) layout pass after a
        structural edit). A frame with no change recomputes and hands on nothing.

        With ``root``, only that node's subtree is brought current and reported (the
        classic ``UpdateChain`` on a sub-root): its dirty ancestors are recomputed as a
        read would, and counted in this report's ``products``; every other dirty node
        keeps its flags and is reported by a later ``update()``.
        """
        report = self._store.end_frame(-1 if root is None else self._own(root, "root"))
        for listener in self._listeners:
            listener(report)
        return report

    def on_update(self, listener: Callable[[FrameReport], None]) -> Callable[[], None]:
        """Call ``listener(report)`` at the end of every ``update()`` from now on (a
        publisher sending the frames to a viewer: ``viewer.publish``); returns the
        function that stops it. The listener runs on the thread that called update()."""
        self._listeners.append(listener)

        def stop() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return stop
