"""A connected program's scene, rebuilt in the viewer from its checked frames.

The mirror is an ordinary `SceneGraph` (wrapped in a `Scene`), so everything that shows a
scene file shows a program too. A frame's structure (when it has one) is reconciled
node by node with the mirror's (new nodes added, moved ones placed after their new
previous sibling, removed ones removed, renamed ones renamed), its local values are set,
and the mirror updates. What the viewer then shows is the report the program sent, in
the mirror's ids, not the mirror's own: for three.js that is what three really did.

The program's world matrices are the truth: each node holds the last world the program
sent for it (held over the mirror's own recomputation, `SceneGraph.hold_worlds`), and
only a node whose world was never sent is computed, parent · local. A node whose held
world differs from its parent's held world · its local matrix by more than
`stale_tolerance` is stale (a forgotten ``updateMatrixWorld``): drawn, dumped and shown
where the program has it, and named in the report (`ProgramReport`). A node the program
says its engine holds on purpose (a held reason: "frozen", "billboard", ...) whose world
so differs is **held**, not stale: shown with its reason, drawn in its own colour.
Staleness is worked out only for the nodes a frame touched (its world, local or held
reason sent, its parent's world changed), in a few numpy passes, and kept for the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
from numpy.typing import NDArray

from viewer.content.scene import Look, Scene
from viewer.scene.graph import SceneGraph
from viewer.scene.math import trs_matrices
from viewer.scene.report import FrameReport
from viewer.spans import joined
from viewer.text import printable

from .protocol import ProgramFrame, Structure

#: How a program's node is drawn (the protocol carries transforms only).
NODE_LOOK = Look(mesh="cube", size=(0.3, 0.3, 0.3))
#: A stale node's colour in the view (magenta: none of the glow's or the flags' colours).
STALE_COLOR = (0.90, 0.20, 0.75)
STALE_LOOK = Look(mesh="cube", size=(0.3, 0.3, 0.3), color=STALE_COLOR)
#: A held world is stale when an element differs from parent · local's by more than this
#: times parent · local's largest element, at least 1 (docs/attach.md, "Stale worlds").
STALE_RELATIVE = 1e-6


def stale_tolerance(expected: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per ``(k, 4, 4)`` parent · local matrix, how far (largest element difference) a
    held world may be from it and still not be stale: `STALE_RELATIVE` of its largest
    element's magnitude, with 1 as that magnitude's floor (so 1e-6 at least)."""
    scale: NDArray[np.float64] = np.abs(expected).max(axis=(1, 2), initial=0.0)
    return STALE_RELATIVE * np.maximum(scale, 1.0)


_EMPTY_IDS = np.zeros(0, dtype=np.int64)
#: A held reason's longest shown form (the wire allows 64 bytes; escapes lengthen it).
REASON_SHOWN = 64


@dataclass(frozen=True)
class ProgramReport(FrameReport):
    """A connected program's frame report, with its stale worlds (in the mirror's ids).

    ``stale``: every node whose held world is stale after this frame, pre-order (what the
    view, the tree and the counters show); ``flagged``: those among them this frame
    touched (its world, local or held reason was sent, or its parent's world changed),
    which the log names. ``held``, ``held_flagged``: the same for the nodes whose world
    differs from parent x local on purpose, as the program said (``held_why``: each
    ``held`` node's reason, as sent)."""

    stale: NDArray[np.int64] = field(default_factory=lambda: _EMPTY_IDS)
    flagged: NDArray[np.int64] = field(default_factory=lambda: _EMPTY_IDS)
    held: NDArray[np.int64] = field(default_factory=lambda: _EMPTY_IDS)
    held_flagged: NDArray[np.int64] = field(default_factory=lambda: _EMPTY_IDS)
    held_why: tuple[str, ...] = ()

    def log_lines(self) -> list[str]:
        """The update lines, then one ``!Stale World : NAME!`` line per flagged node, then
        one ``!Held World : NAME (REASON)!`` line per held node this frame touched."""
        stale = [f"!Stale World : {n}!" for n in self.shown_names(self.flagged.tolist())]
        why = dict(zip(self.held.tolist(), self.held_why, strict=True))
        ids = self.held_flagged.tolist()
        held = [
            f"!Held World : {n} ({printable(why[i], REASON_SHOWN)})!"
            for i, n in zip(ids, self.shown_names(ids), strict=True)
        ]
        return [*super().log_lines(), *stale, *held]


def display_names(structure: Structure) -> list[str]:
    """Names the core accepts: a program's names as they are where unique and non-empty,
    else ``NAME#ID`` (three.js objects are often unnamed, or share names)."""
    taken: set[str] = set()
    out = []
    for name, i in zip(structure.names, structure.ids.tolist(), strict=True):
        shown = name
        while not shown or shown in taken:
            shown = f"{shown or 'node'}#{i}"
        taken.add(shown)
        out.append(shown)
    return out


def _previous_siblings(structure: Structure) -> NDArray[np.int64]:
    """Per listed node, the id of the sibling listed just before it (-2: none)."""
    parents = structure.parents
    order = np.argsort(parents, kind="stable")  # siblings grouped, in pre-order
    prev = np.full(parents.size, -2, dtype=np.int64)
    same = parents[order][1:] == parents[order][:-1]
    prev[order[1:][same]] = structure.ids[order[:-1][same]]
    return prev


class Mirror:
    """One program's scene in the viewer, kept equal to the program's by `apply`."""

    def __init__(self, title: str) -> None:
        self.graph = SceneGraph()
        self.scene = Scene(self.graph, title=title)
        self._pub = np.zeros(0, dtype=np.int64)  # the program's ids, sorted
        self._mine = np.zeros(0, dtype=np.int64)  # the mirror's id for each
        self._places: dict[int, tuple[int, int, str]] = {}  # id: parent, previous, name
        self._slot = np.zeros(0, dtype=np.int64)
        # Per mirror id: the world the program holds, whether the program sent it (else the
        # mirror computed it), whether the node is alive, stale, and by how much.
        self._held = np.zeros((0, 4, 4), dtype=np.float64)
        self._sent = np.zeros(0, dtype=bool)
        self._alive = np.zeros(0, dtype=bool)
        self._stale = np.zeros(0, dtype=bool)
        self._off = np.zeros(0, dtype=np.float64)
        # Per mirror id: whether the program gave a held reason, the reason, and whether
        # the node is held now (its world differs from parent x local and it has a reason).
        self._reasoned = np.zeros(0, dtype=bool)
        self._why = np.zeros(0, dtype=object)
        self._held_now = np.zeros(0, dtype=bool)
        self._painted = np.zeros(0, dtype=bool)  # drawn in the stale colour

    def repaint(self) -> dict[int, tuple[float, float, float]]:
        """The colour of each node whose staleness changed since the last call (stale ones
        in `STALE_COLOR`, current ones in their own): what the renderer is to redraw. The
        scene's looks already say it, for a renderer built afresh."""
        size = self._stale.size
        painted = np.zeros(size, dtype=bool)
        keep = min(size, self._painted.size)
        painted[:keep] = self._painted[:keep]
        changed = np.flatnonzero((painted != self._stale) & self._alive)
        self._painted = self._stale & self._alive
        return {i: STALE_COLOR if self._stale[i] else NODE_LOOK.color for i in changed.tolist()}

    @property
    def stale_count(self) -> int:
        """Nodes whose held world is stale now."""
        return int(self._stale.sum())

    @property
    def held_count(self) -> int:
        """Nodes whose world differs from parent x local on purpose (a held reason) now."""
        return int(self._held_now.sum())

    def staleness(self, node_id: int) -> tuple[float, NDArray[np.float64]] | None:
        """For a stale or held node: (the largest element difference, its parent's held
        world · its local matrix); None for any other node."""
        if not 0 <= node_id < self._stale.size:
            return None
        if not (self._stale[node_id] or self._held_now[node_id]):
            return None
        ids = np.array([node_id], dtype=np.int64)
        return float(self._off[node_id]), self._expected(ids)[0]

    def held_reason(self, node_id: int) -> str | None:
        """A held node's reason, as the program sent it (untrusted text); None for any
        node that is not held now (no reason, or its world equals parent x local)."""
        if not 0 <= node_id < self._held_now.size or not self._held_now[node_id]:
            return None
        return str(self._why[node_id])

    def given_reason(self, node_id: int) -> str | None:
        """The held reason the program gave a node and has not cleared (untrusted text),
        whether or not its world differs from parent x local now; None: none given."""
        if not 0 <= node_id < self._reasoned.size or not self._reasoned[node_id]:
            return None
        return str(self._why[node_id])

    def ids(self, program_ids: NDArray[np.int64]) -> NDArray[np.int64]:
        """The mirror's ids of nodes of the current structure."""
        return self._mine[np.searchsorted(self._pub, program_ids)]

    def apply(self, frame: ProgramFrame) -> FrameReport:
        """Bring the mirror to the program's state after ``frame``; returns the report
        to show: the program's, in the mirror's ids."""
        if frame.structure is not None:
            self._restructure(frame.structure)
        graph = self.graph
        if frame.value_ids.size:
            values = frame.value_rows()
            graph.set_locals(
                self.ids(frame.value_ids),
                positions=values[:, :3],
                rotations=values[:, 3:7],
                scales=values[:, 7:],
            )
        own = graph.update()
        changed = own.structure_changed or self._slot.size != graph.capacity_ids
        if changed:
            order = graph.alive_ids()
            self._slot = np.full(graph.capacity_ids, -1, dtype=np.int64)
            self._slot[order] = np.arange(order.size)
            self._grow(graph.capacity_ids)
            self._alive[:] = False
            self._alive[order] = True
        if changed:
            self._reasoned[~self._alive] = False
        reasoned = self.ids(frame.held_ids)
        if reasoned.size:
            why = np.array(frame.held_reasons, dtype=object)
            self._reasoned[reasoned] = why != ""
            self._why[reasoned] = why
        sent = self.ids(frame.world_ids)
        moved = self._hold(sent, frame.worlds, own.world_updated)
        touched = np.concatenate((self.ids(frame.value_ids), reasoned))
        flagged, held = self._check(sent, touched, moved, everything=changed)
        world = self.ids(frame.world_updated)
        starts, ends = _covering(own.starts, own.ends, self._slot[np.concatenate((world, sent))])
        base = {f.name: getattr(own, f.name) for f in fields(own)}
        slots = self._slot
        stale = np.flatnonzero(self._stale)
        held_now = np.flatnonzero(self._held_now)
        held_now = held_now[np.argsort(slots[held_now], kind="stable")]
        return ProgramReport(
            **{
                **base,
                "frame": frame.frame,
                "local_updated": self.ids(frame.local_updated),
                "world_updated": world,
                "cause": self.ids(frame.cause),
                "executed": world,
                "suppressed": frame.suppressed,
                "products": frame.products,
                "naive_products": frame.naive_products,
                "starts": starts,
                "ends": ends,
                "structure_changed": own.structure_changed or frame.structure_changed,
            },
            stale=stale[np.argsort(slots[stale], kind="stable")],
            flagged=flagged[np.argsort(slots[flagged], kind="stable")],
            held=held_now,
            held_flagged=held[np.argsort(slots[held], kind="stable")],
            held_why=tuple(str(w) for w in self._why[held_now]),
        )

    def _grow(self, size: int) -> None:
        """The per-id arrays for ``size`` ids (new ids: nothing held, not stale)."""
        extra = size - self._sent.size
        if extra <= 0:
            return
        self._held = np.concatenate((self._held, np.tile(np.eye(4), (extra, 1, 1))))
        self._sent = np.concatenate((self._sent, np.zeros(extra, dtype=bool)))
        self._alive = np.concatenate((self._alive, np.zeros(extra, dtype=bool)))
        self._stale = np.concatenate((self._stale, np.zeros(extra, dtype=bool)))
        self._off = np.concatenate((self._off, np.zeros(extra)))
        self._reasoned = np.concatenate((self._reasoned, np.zeros(extra, dtype=bool)))
        self._why = np.concatenate((self._why, np.full(extra, "", dtype=object)))
        self._held_now = np.concatenate((self._held_now, np.zeros(extra, dtype=bool)))

    def _hold(
        self, sent: NDArray[np.int64], worlds: NDArray[np.float64], recomputed: NDArray[np.int64]
    ) -> NDArray[np.int64]:
        """Put the program's worlds in the graph: the ``sent`` ones, and the held ones back
        over what the mirror's update recomputed (``recomputed``, pre-order), whose world
        the program did not send again (so it holds it still). A node whose world was never
        sent is computed from its parent's held world, depth by depth. Returns the nodes
        whose held world may have changed (sent or computed)."""
        held, graph = self._held, self.graph
        held[sent] = worlds
        self._sent[sent] = True
        free = recomputed[~self._sent[recomputed]]
        back = recomputed[self._sent[recomputed]]
        written = np.concatenate((sent, back))  # one twice gets the same matrix twice
        graph.hold_worlds(written, held[written])
        if free.size:
            depth = graph.depths()[free]
            for d in np.unique(depth).tolist():
                level = free[depth == d]
                held[level] = self._expected(level)
            graph.hold_worlds(free, held[free])
        return np.concatenate((sent, free))

    def _expected(self, ids: NDArray[np.int64]) -> NDArray[np.float64]:
        """Per node: its parent's held world · its local matrix (a root's: its local)."""
        positions, rotations, scales = self.graph.local_values()
        local = trs_matrices(positions[ids], rotations[ids], scales[ids])
        parents = self.graph.parents()[ids]
        rooted = parents >= 0
        local[rooted] = self._held[parents[rooted]] @ local[rooted]
        return local

    def _check(
        self,
        sent: NDArray[np.int64],
        values: NDArray[np.int64],
        moved: NDArray[np.int64],
        everything: bool,
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Work out staleness for the nodes this frame touched (every node after a
        structure change): those whose world, local or held reason was sent (``values``),
        and the children of those whose held world changed (``moved``). Returns the
        touched nodes found stale, and those found held (off, with a held reason)."""
        alive = self._alive
        if everything:
            mask = alive.copy()
            self._stale[~alive] = False
            self._held_now[~alive] = False
        else:
            mask = np.zeros(alive.size, dtype=bool)
            if moved.size:
                parents = self.graph.parents()
                mask[moved] = True
                below = (parents >= 0) & mask[np.maximum(parents, 0)]
                mask[: below.size] = below & alive[: below.size]
            mask[sent] = True
            mask[values] = True
        touched = np.flatnonzero(mask & self._sent)
        if not touched.size:
            return touched, touched
        expected = self._expected(touched)
        off = np.abs(self._held[touched] - expected).max(axis=(1, 2))
        differs = off > stale_tolerance(expected)
        reasoned = self._reasoned[touched]
        stale = differs & ~reasoned
        became = touched[stale != self._stale[touched]]
        self._stale[touched] = stale
        self._held_now[touched] = differs & reasoned
        self._off[touched] = off
        looks = self.scene.looks
        for i in became.tolist():  # few: only where staleness changed
            looks[i] = STALE_LOOK if self._stale[i] else NODE_LOOK
        found: NDArray[np.int64] = touched[stale]
        held: NDArray[np.int64] = touched[differs & reasoned]
        return found, held

    def _restructure(self, structure: Structure) -> None:
        if not self._places:  # the first structure: one bulk add, in the program's order
            self._build(structure)
            return
        graph = self.graph
        mine = dict(zip(self._pub.tolist(), self._mine.tolist(), strict=True))
        names = display_names(structure)
        prev = _previous_siblings(structure).tolist()
        ids, parents = structure.ids.tolist(), structure.parents.tolist()
        fresh = []
        for i in ids:  # new nodes first, as roots with names no program node can have
            if i not in mine:
                mine[i] = graph.add(f"\x01new{i}").id
                self.scene.looks[mine[i]] = NODE_LOOK
                fresh.append(i)
        placed = dict(self._places)
        for k, i in enumerate(ids):  # pre-order: a node's parent and earlier siblings are set
            if placed.get(i, (None, None))[:2] == (parents[k], prev[k]) and i not in fresh:
                continue
            self._place(mine, i, parents[k], prev[k], first_root=k == 0)
        gone = set(mine) - set(ids)
        for i in gone:
            if graph.peek.is_alive(mine[i]):
                graph.remove(graph.node(mine[i]))
            if mine[i] < self._reasoned.size:  # an id the graph gives again starts plain
                self._reasoned[mine[i]] = False
        for i in gone:
            self.scene.looks.pop(mine.pop(i), None)
        renamed = [
            (i, n) for i, n in zip(ids, names, strict=True) if i in fresh or placed[i][2] != n
        ]
        for i, _ in renamed:  # two steps: a name may pass from one node to another
            graph.rename(graph.node(mine[i]), f"\x01{mine[i]}")
        for i, name in renamed:
            graph.rename(graph.node(mine[i]), name)
        self._places = {i: (parents[k], prev[k], names[k]) for k, i in enumerate(ids)}
        self._pub = np.sort(structure.ids)
        self._mine = np.array([mine[i] for i in self._pub.tolist()], dtype=np.int64)

    def _build(self, structure: Structure) -> None:
        """The mirror's first nodes, all at once: listed in pre-order, each parent before
        its children, so ``add_many`` links them in the program's order."""
        ids, parents = structure.ids, structure.parents
        first = self.graph.capacity_ids
        order = np.argsort(ids, kind="stable")
        position = order[np.searchsorted(ids, parents, sorter=order).clip(0, max(ids.size - 1, 0))]
        mine = np.where(parents < 0, -1, first + position)
        names = display_names(structure)
        made = self.graph.add_many(names, mine)
        self.scene.looks.update(dict.fromkeys(made.tolist(), NODE_LOOK))
        prev = _previous_siblings(structure).tolist()
        self._places = {
            i: (p, q, n)
            for i, p, q, n in zip(ids.tolist(), parents.tolist(), prev, names, strict=True)
        }
        self._pub = ids[order]
        self._mine = made[order]

    def _place(
        self, mine: dict[int, int], i: int, parent: int, previous: int, first_root: bool
    ) -> None:
        """Node ``i`` under ``parent`` (-1: a root), just after ``previous`` (-2: first)."""
        graph, node = self.graph, self.graph.node(mine[i])
        target = None if parent < 0 else graph.node(mine[parent])
        if previous >= 0:
            graph.set_parent(node, target, after=graph.node(mine[previous]))
            return
        if target is not None:
            siblings = target.children
        else:
            siblings = [graph.node(graph.alive_ids()[0])] if first_root else []
        if siblings and siblings[0] != node:
            graph.set_parent(node, target, before=siblings[0])
        elif not siblings:
            graph.set_parent(node, target)


def _covering(
    starts: NDArray[np.int64], ends: NDArray[np.int64], slots: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Sorted, disjoint slot ranges covering ``[starts, ends)`` and every slot in ``slots``
    (what the renderer uploads: the mirror's recomputed nodes and the program's)."""
    slots = np.sort(slots)
    breaks = np.flatnonzero(np.diff(slots) != 1) + 1
    lo = np.concatenate((starts, slots[np.r_[0, breaks]] if slots.size else slots))
    hi = np.concatenate(
        (ends, slots[np.r_[breaks - 1, slots.size - 1]] + 1 if slots.size else slots)
    )
    return joined(lo, hi)
