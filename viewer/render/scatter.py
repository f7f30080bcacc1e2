"""One frame's instance uploads in one write, scattered on the GPU.

A frame report's pre-order ranges are many short runs when the changes are spread out
(1 % of a balanced tree's nodes: one run per changed leaf), and writing each run of each
buffer with its own `buffer.write` costs a driver call per run: thousands a frame. Instead
every node of the ranges becomes one staged row of `ROW_FLOATS` floats (its world matrix
as the core stores it, row-major, its glow stamp, its link stamp and its pre-order slot),
all rows go up in a single write, and two compute shaders (shaders/scatter_rows.comp,
scatter_slots.comp) put them in place: one dispatch per mesh kind's batch (each finds a
slot's row by binary search in the batch's ascending slots and writes the matrix
column-major), one for the per-slot origins and link stamps. 80 bytes per node instead of
88, and one write instead of one per run and buffer.

Compute shaders need OpenGL 4.3 (`shaders.has_compute`); without them `Instances` keeps
writing runs.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.spans import aranges

from . import glow_loops
from .shaders import has_compute, load_compute, uniform

__all__ = ["ROW_FLOATS", "RowScatter"]

#: Floats per staged row: matrix (16), glow stamp (2), link stamp (1), slot (1, uint bits).
ROW_FLOATS = 20
#: Threads per work group (the shaders' local_size_x).
GROUP = 64


class RowScatter:
    """The staging buffer and the two scatter passes of one context."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self.available = has_compute(ctx)
        self._rows = load_compute(ctx, "scatter_rows") if self.available else None
        self._slots = load_compute(ctx, "scatter_slots") if self.available else None
        self._staged: moderngl.Buffer | None = None

    @staticmethod
    def stage(
        world: np.ndarray,
        ids: np.ndarray,
        stamps: np.ndarray,
        links: np.ndarray,
        lo: np.ndarray,
        hi: np.ndarray,
    ):
        """The staged rows [n, ROW_FLOATS] float32 of nodes `ids`: their world matrices
        (gathered from `world` [N, 4, 4] straight into the float32 rows, row-major as the
        core stores them: the shader writes them column-major; a transpose or a float64
        copy on the CPU would cost most of the staging), stamps [n, 2], link stamps [n] and
        pre-order slots: those of the runs [lo[k], hi[k]) one after another."""
        if len(ids) != int((hi - lo).sum()):
            raise ValueError(f"{len(ids)} nodes for {int((hi - lo).sum())} slots")
        rows = np.empty((len(ids), ROW_FLOATS), dtype=np.float32)
        if glow_loops.serving():  # one compiled pass, the same bytes (`glow_loops.py`)
            glow_loops.stage(world, ids, stamps, links, lo, hi, rows)
            return rows
        slots = aranges(lo, hi)
        # (`clip` lets take cast into the strided float32 rows; the ids are all in range;
        # a matrix beyond float32 casts silently, as `np.copyto` would: inf where it overflows)
        with np.errstate(over="ignore", invalid="ignore"):
            np.take(world.reshape(len(world), 16), ids, axis=0, out=rows[:, :16], mode="clip")
        rows[:, 16:18] = stamps
        rows[:, 18] = links
        rows[:, 19] = np.asarray(slots, dtype=np.uint32).view(np.float32)
        return rows

    def upload(self, rows: np.ndarray) -> int:
        """Write the staged `rows` in one `buffer.write` (growing the staging buffer by
        doubling when needed); returns the bytes written."""
        data = np.ascontiguousarray(rows, dtype=np.float32)
        if self._staged is None or self._staged.size < data.nbytes:
            old = 0
            if self._staged is not None:
                old = self._staged.size
                self._staged.release()
            self._staged = self.ctx.buffer(reserve=max(data.nbytes, 2 * old, 4096), dynamic=True)
        self._staged.write(data)
        return data.nbytes

    def scatter(self, count: int, batches, origins, link_times) -> None:
        """Put the `count` rows just uploaded in place: each batch's matrices and stamps
        (`batch.slot_buffer`: its slots on the GPU), then the origins and link stamps."""
        staged, rows_pass, slots_pass = self._staged, self._rows, self._slots
        if staged is None or rows_pass is None or slots_pass is None:
            raise RuntimeError("scatter needs compute shaders and rows uploaded first")
        groups = (count + GROUP - 1) // GROUP
        staged.bind_to_storage_buffer(0)
        uniform(rows_pass, "u_count").value = count
        for batch in batches:
            batch.slot_buffer.bind_to_storage_buffer(1)
            batch.matrices.bind_to_storage_buffer(2)
            batch.stamps.bind_to_storage_buffer(3)
            uniform(rows_pass, "u_rows").value = batch.count
            rows_pass.run(groups)
        uniform(slots_pass, "u_count").value = count
        origins.bind_to_storage_buffer(1)
        link_times.bind_to_storage_buffer(2)
        slots_pass.run(groups)
        self.ctx.memory_barrier()

    def release(self) -> None:
        for thing in (self._rows, self._slots, self._staged):
            if thing is not None:
                thing.release()
