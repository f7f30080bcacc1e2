"""Storage of the transform hierarchy: the per-node arrays and the primitives on them.

The arrays themselves, their growth and the per-node setters are ``NodeArrays``
(``arrays.py``); this adds what needs the compiled loops: marking, the pre-order
layout, recomputing, and the end of a frame. Every call into the loops goes through
``self.kernels``, the kernel set this storage took when it was made
(``kernel_set.py``: compiled, or the Python twins while numba's cache is cold).

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

from .arrays import NodeArrays
from .flags import NEW, WORLD, changed_itself, touched_this_frame
from .kernel_set import Floats, Ids, Marking, current
from .names import SHARD_MASK, NumberedNames
from .report import FrameReport

_FLOAT = np.dtype(np.float64)
_MATRIX, _VEC3 = (4, 4), (3,)
_COLUMN = (32,)  # the byte stride down a column of a row-major 4x4 float64 matrix


class Storage(NodeArrays):
    """The arrays of one graph and the low-level operations its public API is made of.

    Internal: owned by a ``SceneGraph`` and shared with its ``Node`` handles, never
    handed to users, so its attributes are plain names.
    """

    __slots__ = (
        "kernels",
        "heads",
        "heads_v",
        "roots",
        "n_roots",
        "products",
        "frame",
        "layout_valid",
        "structure_changed",
        "depth_sum",
        "ids_topological",
    )

    def __init__(self, capacity: int = 16) -> None:
        super().__init__(capacity)
        self.kernels = current()
        self.heads = np.array([-1, -1], dtype=np.int64)  # first root, last root
        self.heads_v = self.heads.data  # for the per-node path: never replaced
        self.roots = np.empty(16, dtype=np.int64)  # dirty roots recorded this frame
        self.n_roots = 0
        self.products = 0  # world products computed this frame so far (mid-frame reads)
        self.frame = 0
        self.layout_valid = True
        self.structure_changed = False
        self.depth_sum = 0
        self.ids_topological = True

    # ------------------------------------------------------------------ building
    def append(
        self,
        par: Ids,
        names: list[str] | NumberedNames,
        pos: Floats | None,
        rot: Floats | None,
        scl: Floats | None,
    ) -> Ids:
        """Store checked new nodes, link them, mark them dirty. Nothing here can fail.
        ``names``: the caller's own list, which the storage may keep as it is, or a
        `NumberedNames`, which it may keep unmade (``NodeNames.add``).
        None for a channel: every new node's is the identity's (no million-row array
        of zeros or ones made to be copied)."""
        k = par.shape[0]
        first = self.n
        self.grow(first + k)
        sl = slice(first, first + k)
        self.pos[sl] = 0.0 if pos is None else pos
        self.scl[sl] = 1.0 if scl is None else scl
        if rot is None:
            self.rot[sl, :3] = 0.0
            self.rot[sl, 3] = 1.0
        else:
            self.rot[sl] = rot
        self.world[sl, 15] = 1.0  # (the rest of row 3 stays 0; see ``arrays.FIELDS``)
        self.flags[sl] = NEW
        self.version[sl] = 0
        self.alive[sl] = True
        self.kernels.link_batch(
            first,
            par,
            self.parent,
            self.first_child,
            self.last_child,
            self.next_sib,
            self.prev_sib,
            self.heads,
        )
        self.names.add(names)
        self.n += k
        self.alive_count += k
        self.index_added(first)
        # A node whose parent is new too lies inside that parent's subtree already.
        ids = np.arange(first, first + k, dtype=np.int64)
        tops = ids[par < first]
        self.mark(tops, force=True)
        self.structure_edited()
        return ids

    def append_one(self, p: int, name: str, pos: tuple, rot: tuple, scl: tuple) -> int:
        """``append`` for one checked node, in plain Python through the memoryviews (the
        compiled loops' call overhead is most of a node's cost): the same links, flags,
        dirty root and counters as ``append`` leaves. Returns the new id."""
        if self.pending:
            self.flush()  # as ``mark`` does, so dirty roots stay in the order of the edits
        i = self.n
        if i >= self.cap:
            self.grow(i + 1)
        pv, rv, sv = self.pos_v, self.rot_v, self.scl_v
        pv[3 * i], pv[3 * i + 1], pv[3 * i + 2] = pos
        rv[4 * i], rv[4 * i + 1], rv[4 * i + 2], rv[4 * i + 3] = rot
        sv[3 * i], sv[3 * i + 1], sv[3 * i + 2] = scl
        self.world_v[16 * i + 15] = 1.0  # (as ``append``)
        self.flags_v[i] = NEW  # what ``mark`` leaves on a new node (rule 1, subtree dirty)
        self.version_v[i] = 0
        self.alive_v[i] = True
        parent, first, last, next_, prev = self.links_v
        parent[i], first[i], last[i], next_[i] = p, -1, -1, -1
        heads = self.heads_v
        before = heads[1] if p < 0 else last[p]  # the new node's previous sibling
        prev[i] = before
        if before >= 0:
            next_[before] = i
        elif p < 0:
            heads[0] = i
        else:
            first[p] = i
        if p < 0:
            heads[1] = i
        else:
            last[p] = i
        self.names.append(name)
        index = self.name_index
        if index is not None:  # (``add`` built it, checking the name is new)
            index.shards[hash(name) & SHARD_MASK][name] = i
        self.n = i + 1
        self.alive_count += 1
        k = self.n_roots
        if k >= self.roots.shape[0]:
            self.reserve_roots(1)
        self.roots[k] = i
        self.n_roots = k + 1
        self.changes += 2  # the marking and the structural edit, as ``append`` counts
        self.layout_valid = False
        self.structure_changed = True
        return i

    # ------------------------------------------------------------------ marking
    def flush(self) -> None:
        """Mark the subtrees of the per-node changes queued in ``pending`` (one
        compiled pass). Every operation that reads flags or marks calls this first."""
        if self.pending:
            ids = np.array(self.pending, dtype=np.int64)
            self.pending.clear()
            self.n_roots = self.kernels.mark(ids, False, *self.marking(ids.shape[0]))

    def reserve_roots(self, k: int) -> None:
        need = self.n_roots + k
        if need > self.roots.shape[0]:
            bigger = np.empty(max(need, 2 * self.roots.shape[0]), dtype=np.int64)
            bigger[: self.n_roots] = self.roots[: self.n_roots]
            self.roots = bigger

    def marking(self, k: int) -> Marking:
        """Room for ``k`` more dirty roots, then the arguments every marking kernel ends
        with (flags, links, layout, roots, root count), in the kernels' order."""
        self.reserve_roots(k)
        return (
            self.flags,
            self.first_child,
            self.next_sib,
            self.layout_valid,
            self.order,
            self.slot,
            self.size,
            self.roots,
            self.n_roots,
        )

    def mark(self, ids: Ids, force: bool) -> None:
        """Rule 1 on each id; ``force`` for structural edits (see ``kernels.mark``)."""
        self.flush()
        self.changes += 1
        self.n_roots = self.kernels.mark(ids, force, *self.marking(ids.shape[0]))

    def set_values(self, ids: Ids, pos: Floats, rot: Floats, scl: Floats) -> None:
        """Write checked values; rows equal to the current ones are counted, not marked."""
        self.flush()
        self.changes += 1
        self.n_roots, suppressed = self.kernels.set_values(
            ids, pos, rot, scl, self.pos, self.rot, self.scl, *self.marking(ids.shape[0])
        )
        self.suppressed += suppressed

    def write_locals(self, i: int, pos: Floats, rot: Floats, scl: Floats) -> None:
        """Checked ``(1, 3)`` / ``(1, 4)`` rows for node ``i`` (empty: unchanged)."""
        self.check_alive(i)
        self.set_values(np.array([i], dtype=np.int64), pos, rot, scl)

    def touch(self, i: int) -> None:
        """A change with no new value: rule 1 on node ``i``."""
        self.check_alive(i)
        self.mark(np.array([i], dtype=np.int64), force=False)

    def structure_edited(self) -> None:
        self.changes += 1
        self.layout_valid = False
        self.structure_changed = True

    # ------------------------------------------------------------------ reads
    def flags_of(self, i: int) -> int:
        """Node ``i``'s flag bits (``flags.py``), deferred marking done first."""
        self.check_alive(i)
        self.flush()
        return int(self.flags[i])

    def subtree_ids(self, i: int) -> list[int]:
        """``i`` and its descendants in pre-order."""
        self.check_alive(i)
        self.ensure_layout()
        return self.order[self.slot[i] : self.slot[i] + self.size[i]].tolist()

    def local_of(self, i: int) -> np.ndarray:
        """A view of ``i``'s local matrix, recomputed first if its values changed."""
        self.check_alive(i)
        self.flush()
        self.locals_written = True
        self.kernels.pull_local(i, self.flags, self.pos, self.rot, self.scl, self.local)
        return self.local[i].reshape(4, 4)

    def world_of(self, i: int) -> np.ndarray:
        """A view of ``i``'s world matrix, brought up to date first (rule 3)."""
        self.check_alive(i)
        self.pull_world(i)
        return self.world[i].reshape(4, 4)

    def parent_world(self, i: int) -> np.ndarray:
        """The world matrix of ``i``'s parent (identity for a root), current."""
        p = self.parent_id(i)
        return np.eye(4) if p < 0 else self.world_of(p)

    def world_copy(self, i: int) -> np.ndarray:
        """A read-only copy of ``i``'s current world matrix (over a ``bytes`` copy: a
        clean read calls nothing compiled)."""
        if not self.alive_v[i]:
            self.check_alive(i)
        if self.pending or self.flags_v[i] & WORLD:
            self.pull_world(i)
        return np.ndarray(_MATRIX, _FLOAT, self.world_b[i << 7 : (i + 1) << 7].tobytes())

    def world_position_copy(self, i: int) -> np.ndarray:
        """A read-only copy of ``i``'s current world position (the last column)."""
        if not self.alive_v[i]:
            self.check_alive(i)
        if self.pending or self.flags_v[i] & WORLD:
            self.pull_world(i)
        b = i << 7
        return np.ndarray(_VEC3, _FLOAT, self.world_b[b : b + 96].tobytes(), 24, _COLUMN)

    def pull_world(self, i: int) -> None:
        """Recompute the dirty part of ``i``'s root path now; the products count for the
        frame like those of ``update()``."""
        if self.pending:
            self.flush()
        if self.flags_v[i] & WORLD:
            self.locals_written = True
            self.products += self.kernels.pull_world(
                i,
                self.parent,
                self.flags,
                self.pos,
                self.rot,
                self.scl,
                self.local,
                self.world,
                self.version,
            )

    def ensure_layout(self) -> None:
        if not self.layout_valid:
            self.depth_sum, self.ids_topological = self.kernels.rebuild_preorder(
                self.heads[0],
                self.first_child,
                self.next_sib,
                self.parent,
                self.order,
                self.slot,
                self.size,
                self.depth,
            )
            self.layout_valid = True

    def dirty_ranges(self) -> tuple[Ids, Ids]:
        """Disjoint pre-order slot ranges covering every node dirtied this frame."""
        return self.kernels.dirty_ranges(
            self.roots[: self.n_roots], self.alive, self.slot, self.size
        )

    def recompute(self, starts: Ids, ends: Ids, everything: bool = True) -> int:
        """Recompute the dirty nodes of the ranges; returns the products done. With
        ``everything`` (the ranges cover every dirty node) a walk in id order may be used."""
        dirty = int((ends - starts).sum())
        by_id = everything and self.ids_topological and dirty * 8 > self.alive_count
        return self.kernels.recompute(
            starts,
            ends,
            by_id,
            self.order,
            self.parent,
            self.flags[: self.n],
            self.pos,
            self.rot,
            self.scl,
            self.world,
            self.version,
        )

    def bring_current(self) -> None:
        """Recompute every dirty world matrix now (the flags stay for the frame report)."""
        self.flush()
        if self.n_roots:
            self.ensure_layout()
            self.products += self.recompute(*self.dirty_ranges())

    def end_frame(self, root: int = -1) -> FrameReport:
        """``SceneGraph.update()``: recompute what is dirty, report it, clear the flags;
        with a ``root``, only in that node's subtree (``_end_subtree``)."""
        self.flush()
        self.ensure_layout()
        naive = self.depth_sum
        if root >= 0:
            starts, ends = self._end_subtree(root)
            sub = self.order[starts[0] : ends[0]]
            naive = int(self.depth[sub].sum() - self.depth[root] * sub.shape[0])
        elif self.n_roots:
            starts, ends = self.dirty_ranges()
            self.products += self.recompute(starts, ends)
            self.n_roots = 0
        else:
            starts = ends = np.empty(0, dtype=np.int64)
        local, world, cause = self.kernels.finish_frame(
            starts, ends, self.order, self.parent, self.flags, self.cause
        )
        self.frame += 1
        report = FrameReport(
            frame=self.frame,
            local_updated=local,
            world_updated=world,
            cause=cause,
            executed=world,
            suppressed=self.suppressed,
            products=self.products,
            naive_products=naive,
            node_count=self.alive_count,
            structure_changed=self.structure_changed,
            starts=starts,
            ends=ends,
            _name_of=self.names.__getitem__,
        )
        self.suppressed = 0
        self.products = 0
        self.structure_changed = False
        return report

    def _end_subtree(self, root: int) -> tuple[Ids, Ids]:
        """Bring ``root``'s subtree current for ``end_frame``: its dirty ancestors as a
        read would, then the subtree's dirty nodes. Dirty roots recorded inside the
        subtree are dropped; the others stay for a later frame. Returns its slot range."""
        p = int(self.parent[root])
        if p >= 0:
            self.pull_world(p)
        lo, hi = int(self.slot[root]), int(self.slot[root] + self.size[root])
        starts = np.array([lo], dtype=np.int64)
        ends = np.array([hi], dtype=np.int64)
        self.products += self.recompute(starts, ends, everything=False)
        recorded = self.roots[: self.n_roots]
        inside = self.alive[recorded] & (self.slot[recorded] >= lo) & (self.slot[recorded] < hi)
        kept = recorded[~inside]
        self.roots[: kept.shape[0]] = kept
        self.n_roots = kept.shape[0]
        self._ancestor_causes(p)
        return starts, ends

    def _ancestor_causes(self, p: int) -> None:
        """``cause`` of ``p`` and its ancestors recomputed this frame, top down, so the
        subtree below can inherit it (``finish_frame`` only walks the subtree)."""
        chain = []
        while p >= 0 and touched_this_frame(int(self.flags[p])):
            chain.append(p)
            p = int(self.parent[p])
        for j in reversed(chain):
            up = int(self.parent[j])
            own = changed_itself(int(self.flags[j])) or up < 0 or up not in chain
            self.cause[j] = j if own else self.cause[up]


def readonly(arr: np.ndarray) -> np.ndarray:
    view = arr.view()
    view.flags.writeable = False
    return view
