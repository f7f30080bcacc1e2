"""A graph's whole state as a value: what undo needs to put a graph back exactly.

Why in the core: undo of a removal, a clone or a re-parent must give back the same ids,
the same sibling order and the same local values, bit for bit; rebuilding that through
the public edits cannot (a re-parent appends, a re-added node gets a new id). So the
core copies its own arrays (`capture`) and writes them back (`restore`), marking what
differs as an edit would (rule 1), so the next frame recomputes and shows it.
Ids are never reused: a state taken before nodes were added restores with those ids
removed, not forgotten.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .storage import Storage

#: The per-id arrays a state holds: local values, links, liveness.
FIELDS = (
    "pos",
    "rot",
    "scl",
    "parent",
    "first_child",
    "last_child",
    "next_sib",
    "prev_sib",
    "alive",
)
_VALUES = ("pos", "rot", "scl", "parent")
_LINKS = ("parent", "first_child", "last_child", "next_sib", "prev_sib", "alive")


@dataclass(frozen=True, eq=False)
class GraphState:
    """Copies of one graph's arrays for its first ``n`` ids (`SceneGraph.snapshot`)."""

    owner: int
    n: int
    names: tuple[str, ...]
    arrays: dict
    heads: tuple[int, int]

    @property
    def nbytes(self) -> int:
        """Memory the copies take (the names are shared with the graph)."""
        return sum(a.nbytes for a in self.arrays.values()) + 8 * self.n

    def same_as(self, other: GraphState) -> bool:
        """Whether the two states hold the same graph (ids, names, links, values)."""
        return (
            self.n == other.n
            and self.heads == other.heads
            and self.names == other.names
            and all(np.array_equal(self.arrays[f], other.arrays[f]) for f in FIELDS)
        )


def capture(s: Storage) -> GraphState:
    """The storage's state now (pending per-node edits included: they are in the values)."""
    n = s.n
    arrays = {f: getattr(s, f)[:n].copy() for f in FIELDS}
    return GraphState(id(s), n, tuple(s.names), arrays, (int(s.heads[0]), int(s.heads[1])))


def restore(s: Storage, state: GraphState) -> int:
    """Put ``state`` back; ids added since become removed ones. Marks the nodes whose
    values, parent or liveness differ (rule 1, as a structural edit) and returns how many."""
    if state.owner != id(s) or state.n > s.n:
        raise ValueError("that state was taken from another graph")
    s.flush()
    k = state.n
    a = state.arrays
    alive_then = a["alive"]
    differs = ~s.alive[:k] & alive_then
    for f in _VALUES:
        now, then = getattr(s, f)[:k], a[f]
        d = now != then
        differs |= (d.any(axis=1) if d.ndim > 1 else d) & alive_then
    relinked = any(not np.array_equal(getattr(s, f)[:k], a[f]) for f in _LINKS)
    relinked = relinked or bool(s.alive[k : s.n].any()) or tuple(s.heads) != state.heads
    for f in FIELDS:
        getattr(s, f)[:k] = a[f]
    s.heads[:] = state.heads
    extra = slice(k, s.n)
    s.alive[extra] = False
    s.flags[extra] = 0
    for f in _LINKS[:-1]:
        getattr(s, f)[extra] = -1
    s.flags[:k][~alive_then] = 0
    renamed = len(s.names) != k or s.names != list(state.names)
    if relinked or renamed:  # who is alive, or what they are called, changed
        s.names.made()[:k] = state.names
        s.name_index = None  # (rebuilt from the names on first use)
    s.alive_count = int(alive_then.sum())
    ids = np.flatnonzero(differs).astype(np.int64)
    if relinked or renamed:  # a rename alone is structural news too (structure.rename)
        s.structure_edited()
    s.changes += 1
    if ids.size:
        s.mark(ids, force=True)
    return int(ids.size)
