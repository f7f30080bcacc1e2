"""The per-node arrays of a graph, and the per-node path that writes one node's values.

Why this shape. Every per-node quantity (position, quaternion, scale, local and world
matrices, parent and sibling links, flags, world version) is one numpy array indexed by
the node's id, so the compiled loops touch only the nodes that are dirty and a renderer
can read all world matrices as one ``(N, 4, 4)`` array.

Why the per-node setters live here, with the arrays: they are the path a script takes
thousands of times a frame (``node.local_position = ...``), so they avoid numpy and the
compiled loops altogether. A setter checks the value, compares it with the stored one
through flat memoryviews of these arrays (an equal value is counted as suppressed and
dirties nothing), writes it, and queues the node in ``pending``; ``Storage`` marks the
queued subtrees later in one compiled pass (``Storage.flush``), before anything reads
flags. ``field`` names the Node property in errors.
"""

from __future__ import annotations

import numpy as np

from . import validate
from .errors import HierarchyError
from .flags import LOCAL, PENDING, WORLD
from .kernel_set import Bits, Floats, Ids, Mask
from .math import quat_from_euler_floats
from .names import NameIndex, NodeNames
from .reserve import SMALL_ROWS, Field, Reservation, reserve

_FLOAT = np.dtype(np.float64)
_VEC3, _VEC4 = (3,), (4,)
_INT, _BYTE, _BOOL = np.dtype(np.int64), np.dtype(np.uint8), np.dtype(np.bool_)

#: Every per-node array: its name, the shape of one node's row, its dtype. Matrices are
#: flat, (N, 16) row-major: what the compiled loops index fastest. Row 3 of a world
#: matrix is written (0, 0, 0, 1) when its node is added; the kernels never write it.
#: Local matrices are written whole, only when one is read (never by update()): their
#: 128 MB at a million ids stay zero pages nothing touched.
FIELDS: tuple[Field, ...] = (
    ("pos", (3,), _FLOAT),
    ("rot", (4,), _FLOAT),
    ("scl", (3,), _FLOAT),
    ("local", (16,), _FLOAT),
    ("world", (16,), _FLOAT),
    *((name, (), _INT) for name in ("parent", "first_child", "last_child", "next_sib")),
    *((name, (), _INT) for name in ("prev_sib", "slot", "size", "depth", "order", "cause")),
    ("version", (), _INT),
    ("flags", (), _BYTE),
    ("alive", (), _BOOL),
)


class NodeArrays:
    """The arrays of one graph, indexed by node id; ``n`` ids were handed out so far and
    ids are never reused. Internal (``Storage`` builds on it), so attributes are plain;
    slots, so that the per-node path finds them (and its methods) without a dict."""

    __slots__ = (
        "n",
        "alive_count",
        "names",
        "name_index",
        "suppressed",
        "changes",
        "pending",
        "cap",
        "reserved",
        "locals_written",
        "pos",
        "rot",
        "scl",
        "local",
        "world",
        "parent",
        "first_child",
        "last_child",
        "next_sib",
        "prev_sib",
        "slot",
        "size",
        "depth",
        "order",
        "cause",
        "version",
        "flags",
        "alive",
        "pos_v",
        "rot_v",
        "scl_v",
        "vector_v",
        "flags_v",
        "alive_v",
        "pos_b",
        "rot_b",
        "scl_b",
        "world_b",
        "world_v",
        "version_v",
        "links_v",
    )

    # The arrays, made by ``grow`` (their shapes are listed in ``FIELDS``).
    pos: Floats
    rot: Floats
    scl: Floats
    local: Floats
    world: Floats
    parent: Ids
    first_child: Ids
    last_child: Ids
    next_sib: Ids
    prev_sib: Ids
    slot: Ids
    size: Ids
    depth: Ids
    order: Ids
    cause: Ids
    version: Ids
    flags: Bits
    alive: Mask
    # Flat memoryviews over them, made by ``_scalar_views``.
    pos_v: memoryview[float]
    rot_v: memoryview[float]
    scl_v: memoryview[float]
    vector_v: dict[str, memoryview[float]]
    flags_v: memoryview
    alive_v: memoryview
    pos_b: memoryview
    rot_b: memoryview
    scl_b: memoryview
    world_b: memoryview
    world_v: memoryview[float]
    version_v: memoryview
    links_v: tuple[memoryview, ...]

    def __init__(self, capacity: int = 16) -> None:
        self.n = 0
        self.alive_count = 0
        self.names = NodeNames()  # (a list's reads and writes; a numbered batch unmade)
        #: Each live node's id by its name, or None until first asked for (``ids_by_name``).
        self.name_index: NameIndex | None = None
        self.suppressed = 0  # values set to what they were this frame
        #: Bumped by every edit that can change a world matrix or a node's liveness:
        #: a node handle reuses the matrix it handed out while this is unchanged.
        self.changes = 0
        #: Ids set by the per-node setters whose subtrees are not marked yet.
        self.pending: list[int] = []
        #: Whether a local matrix was ever written (``Storage.local_of``, ``pull_world``):
        #: until then the array is zero pages that growing need not copy.
        self.locals_written = False
        self.cap = 0
        #: The address space the arrays are views of, or None: plain arrays (``grow``).
        self.reserved: Reservation | None = None
        self.grow(max(int(capacity), 1))

    # ------------------------------------------------------------------ names
    @property
    def ids_by_name(self) -> NameIndex:
        """Each live node's id by its name, built from ``names`` on first use. Lazy
        because a bulk add rarely needs it: a million names hashed into the index (and a
        million int objects) cost about 0.4 s and 80 MB, and nothing before a generated
        scene's first frame looks a node up by name. Once built it is kept up to date."""
        index = self.name_index
        if index is None:
            n = self.n
            if self.alive_count == n:
                index = NameIndex(self.names, range(n))
            else:
                live = np.flatnonzero(self.alive[:n]).tolist()
                index = NameIndex(map(self.names.__getitem__, live), live)
            self.name_index = index
        return index

    def index_added(self, first: int) -> None:
        """Bring a built name index up to date with the ids ``first`` .. ``n - 1`` just
        added; a batch larger than the index drops it instead (rebuilt on first use,
        at most about twice the batch's cost, and never if no one asks)."""
        index = self.name_index
        if index is None:
            return
        if self.n - first > len(index):
            self.name_index = None
        else:
            index.update(zip(self.names[first:], range(first, self.n)))

    def unindex(self, ids: list[int]) -> None:
        """Take the names of removed ``ids`` out of a built name index."""
        index = self.name_index
        if index is not None:
            for i in ids:
                del index[self.names[i]]

    # ------------------------------------------------------------------ growth
    def grow(self, need: int) -> None:
        """Make every per-node array hold at least ``need`` ids (capacity doubling).

        Within the graph's reservation (``reserve.py``) that only widens the views:
        nothing is copied or written, and arrays handed out before stay valid. Rows past
        ``n`` are zeros and never read: adding a node writes every value of its row
        that is not zero (``Storage.append``, ``append_one``)."""
        if need <= self.cap:
            return
        cap = max(need, 2 * self.cap)
        held = self.reserved
        if held is not None and cap <= held.rows:
            arrays = held.views(cap)
        else:
            held = reserve(FIELDS, cap) if cap > SMALL_ROWS else None
            if held is not None:
                arrays = held.views(cap)
            else:  # (zeros: pages the system zeroes on first touch)
                arrays = {name: np.zeros((cap, *shape), dtype) for name, shape, dtype in FIELDS}
            if self.cap:
                n = self.n
                for name, arr in arrays.items():
                    # Local matrices are written whole, only when one is read (never by
                    # update()): until then they are zero pages, nothing to copy.
                    if name != "local" or self.locals_written:
                        arr[:n] = getattr(self, name)[:n]
            self.reserved = held
        for name, arr in arrays.items():
            setattr(self, name, arr)
        self.cap = cap
        self._scalar_views()

    def _scalar_views(self) -> None:
        """Memoryviews for the per-node path, re-made whenever ``grow`` replaces the
        arrays: a Python index into a flat memoryview costs ~30 ns, a numpy scalar index
        ~100 ns, and ``bytes`` slices make read-only copies cheaply."""
        self.pos_v = self.pos.data.cast("B").cast("d")
        self.rot_v = self.rot.data.cast("B").cast("d")
        self.scl_v = self.scl.data.cast("B").cast("d")
        self.vector_v = {"position": self.pos_v, "scale": self.scl_v}
        self.flags_v = self.flags.data
        self.alive_v = self.alive.data
        self.pos_b = self.pos.data.cast("B")
        self.rot_b = self.rot.data.cast("B")
        self.scl_b = self.scl.data.cast("B")
        self.world_b = self.world.data.cast("B")
        self.world_v = self.world_b.cast("d")
        self.version_v = self.version.data
        #: parent, first child, last child, next sibling, previous sibling: ``append_one``.
        self.links_v = tuple(
            links.data
            for links in (
                self.parent,
                self.first_child,
                self.last_child,
                self.next_sib,
                self.prev_sib,
            )
        )

    # ------------------------------------------------------------------ one node's reads
    def check_alive(self, i: int) -> None:
        """A HierarchyError for a removed node."""
        if not self.alive[i]:
            raise HierarchyError(f"node {self.names[i]!r} was removed from the graph")

    def is_alive(self, i: int) -> bool:
        return bool(self.alive_v[i])

    def parent_id(self, i: int) -> int:
        """The parent's id, -1 for a root."""
        self.check_alive(i)
        return int(self.parent[i])

    def child_ids(self, i: int) -> list[int]:
        """The children's ids in attach order."""
        self.check_alive(i)
        kids = []
        c = int(self.first_child[i])
        while c >= 0:
            kids.append(c)
            c = int(self.next_sib[c])
        return kids

    def local_values(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Views of the stored ``(position, quaternion, scale)``: copy before handing out."""
        self.check_alive(i)
        return self.pos[i], self.rot[i], self.scl[i]

    def local_copy(self, i: int, channel: str) -> np.ndarray:
        """A read-only copy of ``"position"``, ``"rotation"`` or ``"scale"`` (an array
        over a ``bytes`` copy of the row: ~0.3 us, where ``copy()`` plus clearing
        ``writeable`` costs 0.5 us)."""
        if not self.alive_v[i]:
            self.check_alive(i)
        if channel == "rotation":
            return np.ndarray(_VEC4, _FLOAT, self.rot_b[i << 5 : (i + 1) << 5].tobytes())
        view = self.pos_b if channel == "position" else self.scl_b
        return np.ndarray(_VEC3, _FLOAT, view[24 * i : 24 * i + 24].tobytes())

    # ------------------------------------------------------------------ one node's writes
    def set_vector(self, i: int, value: object, channel: str, field: str, plane: float) -> None:
        """Set ``channel`` ("position" or "scale") of node ``i``; ``plane`` is the z of a
        2-D value. Equal values are counted as suppressed and dirty nothing."""
        if not self.alive_v[i]:
            self.check_alive(i)
        x, y, z = validate.three(value, self.names, i, field, plane)
        view, b = self.vector_v[channel], 3 * i
        if view[b] == x and view[b + 1] == y and view[b + 2] == z:
            self.suppressed += 1
            return
        view[b] = x
        view[b + 1] = y
        view[b + 2] = z
        self.queue_change(i)

    def set_rotation(self, i: int, value: object, field: str = "local_rotation") -> None:
        """Set node ``i``'s rotation from a quaternion (normalised here)."""
        if not self.alive_v[i]:
            self.check_alive(i)
        self.write_rotation(i, validate.unit_four(value, self.names, i, field))

    def set_euler(self, i: int, value: object, field: str = "local_euler") -> None:
        """Set node ``i``'s rotation from Euler degrees."""
        if not self.alive_v[i]:
            self.check_alive(i)
        self.write_rotation(i, quat_from_euler_floats(*validate.three(value, self.names, i, field)))

    def write_rotation(self, i: int, q: tuple) -> None:
        """Per-node write of a checked unit quaternion (rules as ``set_vector``)."""
        view, b = self.rot_v, 4 * i
        x, y, z, w = q
        if view[b] == x and view[b + 1] == y and view[b + 2] == z and view[b + 3] == w:
            self.suppressed += 1
            return
        view[b] = x
        view[b + 1] = y
        view[b + 2] = z
        view[b + 3] = w
        self.queue_change(i)

    def queue_change(self, i: int) -> None:
        """Rule 1 for a per-node change, with the subtree marking deferred: a node whose
        update_world is set has its subtree marked already (the invariant), so update_local
        is all it needs; any other is queued once (``PENDING``) for ``Storage.flush``."""
        self.changes += 1
        flags = self.flags_v
        f = flags[i]
        if f & WORLD:
            flags[i] = f | LOCAL
        elif not f & PENDING:
            flags[i] = f | PENDING
            self.pending.append(i)
