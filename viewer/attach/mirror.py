"""A connected program's scene, rebuilt in the viewer from its checked frames.

The mirror is an ordinary `SceneGraph` (wrapped in a `Scene`), so everything that shows a
scene file shows a program too. A frame's structure (when it has one) is reconciled
node by node with the mirror's (new nodes added, moved ones placed after their new
previous sibling, removed ones removed, renamed ones renamed), its local values are set,
and the mirror updates. What the viewer then shows is the report the program sent, in
the mirror's ids, not the mirror's own: for three.js that is what three really did.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from viewer.content.scene import Look, Scene
from viewer.scene.graph import SceneGraph
from viewer.scene.report import FrameReport
from viewer.spans import joined

from .protocol import ProgramFrame, Structure

#: How a program's node is drawn (the protocol carries transforms only).
NODE_LOOK = Look(mesh="cube", size=(0.3, 0.3, 0.3))
#: A received world matrix further than this (relative) from the mirror's parent · local
#: counts as a mismatch (a matrix the program set by hand, with shear, say).
WORLD_TOLERANCE = 1e-9


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
        #: Nodes whose received world matrix differs from the mirror's, last frame.
        self.mismatches = 0

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
        if own.structure_changed or self._slot.size != graph.capacity_ids:
            order = graph.alive_ids()
            self._slot = np.full(graph.capacity_ids, -1, dtype=np.int64)
            self._slot[order] = np.arange(order.size)
        world = self.ids(frame.world_updated)
        if frame.world_ids.size:
            theirs = frame.worlds
            mine = graph.world_matrices()[self.ids(frame.world_ids)]
            scale = np.maximum(np.abs(theirs).max(axis=(1, 2)), 1.0)
            off = np.abs(mine - theirs).max(axis=(1, 2)) > WORLD_TOLERANCE * scale
            self.mismatches = int(off.sum())
        starts, ends = _covering(own.starts, own.ends, self._slot[world])
        return replace(
            own,
            frame=frame.frame,
            local_updated=self.ids(frame.local_updated),
            world_updated=world,
            cause=self.ids(frame.cause),
            executed=world,
            suppressed=frame.suppressed,
            products=frame.products,
            naive_products=frame.naive_products,
            starts=starts,
            ends=ends,
            structure_changed=own.structure_changed or frame.structure_changed,
        )

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
