"""What a publisher takes from the program's graph after an ``update()``, as `ProgramFrame`s.

Runs on the program's thread, so each step costs what the frame changed: a frame is its
report's id arrays (kept, not copied) and one copy of the changed rows' local values and
world matrices. When the viewer falls behind, frames are folded into a `Backlog` instead:
per id, "recomputed since the last frame sent" and the latest cause, which costs a few
writes per recomputed node; the merged frame is taken once the queue has room again.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from viewer.scene.graph import SceneGraph
from viewer.scene.report import FrameReport

from .protocol import ProgramFrame, Structure


def structure_of(graph: SceneGraph) -> Structure:
    """The whole hierarchy in pre-order (O(N): taken on a snapshot or a structural change)."""
    order = graph.alive_ids()
    parents = graph.parents()[order].astype(np.int64)
    names = [graph.name_of(i) for i in order.tolist()]  # sent as they are: names are data
    return Structure(order, parents, names)


def values_of(graph: SceneGraph, ids: NDArray[np.int64]) -> tuple[NDArray[np.float64], ...]:
    """Copies of the rows ``ids`` of the local positions, quaternions and scales (the
    column blocks of a frame's value rows, joined on the sending thread)."""
    pos, rot, scl = graph.local_values()
    return _rows(pos, ids), _rows(rot, ids), _rows(scl, ids)


def _rows(array: NDArray[np.float64], ids: NDArray[np.int64]) -> NDArray[np.float64]:
    """``array[ids]``, copied: ``np.take`` gathers rows about 3x faster than indexing."""
    return np.take(array, ids, axis=0)


def frame_of(graph: SceneGraph, report: FrameReport) -> ProgramFrame:
    """One frame as it happened: its report, the recomputed locals and worlds."""
    world = report.world_updated
    return ProgramFrame(
        frame=report.frame,
        merged=1,
        local_updated=report.local_updated,
        world_updated=world,
        cause=report.cause,
        value_ids=report.local_updated,
        values=values_of(graph, report.local_updated),
        world_ids=world,
        worlds=_rows(graph.world_matrices(), world),
        structure_changed=report.structure_changed,
        suppressed=report.suppressed,
        products=report.products,
        naive_products=report.naive_products,
        structure=structure_of(graph) if report.structure_changed else None,
    )


class Backlog:
    """Frames folded while the viewer was behind: a node recomputed in any of them counts
    as recomputed, with the latest cause; counters add up."""

    def __init__(self) -> None:
        self.frames = 0
        self._local = np.zeros(0, dtype=bool)
        self._world = np.zeros(0, dtype=bool)
        self._cause = np.zeros(0, dtype=np.int64)
        self._counters = np.zeros(3, dtype=np.int64)
        self._structure = False
        self._last = 0
        self._rows = [0, 0]  # local and world rows folded, repeats counted

    def clear(self) -> None:
        self.frames = 0
        self._rows = [0, 0]
        self._local[:] = self._world[:] = False
        self._counters[:] = 0
        self._structure = False

    def fold(self, graph: SceneGraph, report: FrameReport) -> None:
        need = graph.capacity_ids
        if self._local.size < need:
            size = max(need, 2 * self._local.size)
            for name, dtype in (("_local", bool), ("_world", bool), ("_cause", np.int64)):
                grown = np.zeros(size, dtype=dtype)
                old = getattr(self, name)
                grown[: old.size] = old
                setattr(self, name, grown)
        self._local[report.local_updated] = True
        self._world[report.world_updated] = True
        self._cause[report.world_updated] = report.cause
        self._counters += (report.suppressed, report.products, report.naive_products)
        self._structure |= report.structure_changed
        self._last = report.frame
        self._rows[0] += report.local_updated.size
        self._rows[1] += report.world_updated.size
        self.frames += 1

    def most_bytes(self, graph: SceneGraph) -> int:
        """The most `ProgramFrame.nbytes` the merged frame can take (without gathering it): its
        rows are at most those folded, and at most one per id."""
        ids = graph.capacity_ids
        local, world = (min(rows, ids) for rows in self._rows)
        names = 24 * ids if self._structure else 0
        return 8 * (12 * local + 19 * world) + names + 256

    def take(self, graph: SceneGraph, everything: bool = False) -> ProgramFrame:
        """The folded frames as one (and the backlog empty again). ``everything``: a
        snapshot, with the structure and every node's values and world matrix."""
        order = graph.alive_ids()
        size = self._local.size
        inside = order[order < size]
        local = inside[self._local[inside]]
        world = inside[self._world[inside]]
        cause = self._cause[world]
        alive = np.zeros(max(size, graph.capacity_ids), dtype=bool)
        alive[order] = True
        cause = np.where(alive[cause], cause, world)  # its cause was removed since: itself
        value_ids = order if everything else local
        world_ids = order if everything else world
        suppressed, products, naive = self._counters.tolist()
        frame = ProgramFrame(
            frame=self._last,
            merged=self.frames,
            local_updated=local,
            world_updated=world,
            cause=cause,
            value_ids=value_ids,
            values=values_of(graph, value_ids),
            world_ids=world_ids,
            worlds=_rows(graph.world_matrices(), world_ids),
            structure_changed=self._structure,
            suppressed=suppressed,
            products=products,
            naive_products=naive,
            structure=structure_of(graph) if everything or self._structure else None,
        )
        self.clear()
        return frame
