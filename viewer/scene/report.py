"""What one frame did: the end-of-frame answer of ``SceneGraph.update()``.

The id arrays are cheap to make even for a million nodes; names and log lines are built
only when asked for, so a renderer that needs just ``executed`` pays nothing more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..text import MAX_NAME, printable


@dataclass(frozen=True)
class FrameReport:
    """The nodes a frame recomputed and handed on, in pre-order.

    Attributes
    ----------
    frame : int
        1 for the first ``update()`` of a graph.
    local_updated : ndarray, [k] int64
        Ids whose local matrix was recomputed during the frame (also by mid-frame reads).
    world_updated : ndarray, [m] int64
        Ids whose world matrix was recomputed during the frame (also by mid-frame reads).
    cause : ndarray, [m] int64
        Aligned with ``world_updated``: the nearest changed node (itself or an ancestor)
        whose change made that node dirty — the answer to "why is this node dirty?".
    executed : ndarray, [e] int64
        Ids whose world matrix must be handed to the renderer.
    suppressed : int
        Values set to what they already were (they dirtied nothing).
    products : int
        Matrix products done this frame (parent world · local, roots excluded), whoever
        triggered them: ``update()``, mid-frame reads, ``world_matrices()``.
    naive_products : int
        Products the naive method (every world from scratch along its root path, every
        frame) would have done: the sum of node depths.
    node_count : int
        Live nodes at the end of the frame.
    structure_changed : bool
        Nodes were added, removed, re-parented or renamed since the previous frame (a renderer
        lays its instance buffers out again).
    starts, ends : ndarray, [r] int64
        The disjoint pre-order slot ranges ``[starts[k], ends[k])`` the frame was
        computed from, ascending: every node in ``world_updated`` lies in one of them
        (slot ``s`` is the ``s``-th live node of ``alive_ids()``), so a renderer whose
        rows follow pre-order writes a few contiguous runs and sorts nothing. With
        ``update(root)`` the range is the root's whole subtree, clean nodes included.
    """

    frame: int
    local_updated: np.ndarray
    world_updated: np.ndarray
    cause: np.ndarray
    executed: np.ndarray
    suppressed: int = 0
    products: int = 0
    naive_products: int = 0
    node_count: int = 0
    structure_changed: bool = False
    starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ends: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    _name_of: Callable[[int], str] = field(default=str, repr=False, compare=False)

    @property
    def empty(self) -> bool:
        """True when the frame recomputed and uploaded nothing."""
        return self.world_updated.size == 0 and self.executed.size == 0

    def name(self, node_id: int) -> str:
        """The name of a node in this report (names outlive removal for this purpose)."""
        return self._name_of(int(node_id))

    def cause_of(self, node_id: int) -> int | None:
        """Id of the changed node that made ``node_id`` dirty, or None if it was clean."""
        hits = np.flatnonzero(self.world_updated == node_id)
        return int(self.cause[hits[0]]) if hits.size else None

    def shown_names(self, ids: list[int]) -> list[str]:
        """The names of nodes `ids` as a log prints them. Names come from files and
        programs: each is made safe (`printable`); a short printable name, the common
        case, is itself, so that check is made inline: a --log of a big scene writes
        millions of these lines."""
        return [
            n if len(n) <= MAX_NAME and n.isprintable() else printable(n)
            for n in map(self._name_of, ids)
        ]

    def log_lines(self) -> list[str]:
        """docs/semantics.md section 3: per recomputed world, in pre-order, local line first."""
        ids = self.world_updated.tolist()
        names = self.shown_names(ids)
        local = set(self.local_updated.tolist())
        if not local:
            return [f"=Update World : {name}=" for name in names]
        lines: list[str] = []
        for i, name in zip(ids, names, strict=True):
            if i in local:
                lines.append(f"*Update Local : {name}*")
            lines.append(f"=Update World : {name}=")
        return lines
