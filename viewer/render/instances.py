"""Per-mesh-kind instance buffers, fed by the frame reports' pre-order ranges.

Each mesh kind has three instance buffers with one row per node of that kind:

- matrices : 64 bytes per row, the world matrix as float32, column-major (what GLSL's
             `mat4` attribute expects), written whenever the node is recomputed;
- stamps   :  8 bytes per row, when the node was last recomputed and why (`glow.py`),
             written with its matrix: the shader derives the glow from it;
- looks    : 24 bytes per row, colour (3f) and size (3f), written when built.

Rows follow the pre-order of the graph at build time (each batch keeps the pre-order slot
of each row, ascending), so a subtree (what a change dirties) is one contiguous run of
rows in every batch. `sync()` takes the slot ranges of the frame report, finds each
range's rows in each batch by binary search, merges touching runs and writes each with
one `buffer.write(data, offset=...)`: no sorting, no per-node bookkeeping. The parent ->
child lines read node origins from one more buffer (12 bytes per live node, in pre-order
too) and the lit ones a link stamp (4 bytes per live node: when the line to it was last
lit), both written with the same ranges. Nothing is written for a frame that recomputed
nothing, and every byte written is counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import moderngl
import numpy as np
import numpy.typing as npt

from viewer.content import meshes
from viewer.scene.graph import SceneGraph
from viewer.scene.report import FrameReport
from viewer.spans import aranges

from .glow import STAMP_BYTES, STAMP_FORMAT, Glow
from .scatter import RowScatter
from .scene_bounds import SceneBounds

MATRIX_BYTES = 64
LOOK_BYTES = 24
ORIGIN_BYTES = 12
LINK_STAMP_BYTES = 4
#: Above this many runs of pre-order slots in one frame, the frame's rows go up in one
#: staged write scattered on the GPU (`scatter.py`) instead of one write per run.
DIRECT_RUNS_MAX = 8


def instanced_vao(
    ctx: moderngl.Context,
    prog: moderngl.Program,
    mesh,
    matrices: moderngl.Buffer,
    looks: moderngl.Buffer,
    stamps: moderngl.Buffer,
) -> moderngl.VertexArray:
    """One mesh drawn once per row of (`matrices`, `looks`, `stamps`): the instance layout
    every batch shares, whole (the renderer's) or culled (`culling.py`'s compacted rows)."""
    return ctx.vertex_array(
        prog,
        [
            (mesh.vbo, *vertex_layout(prog)),
            (matrices, "16f/i", "in_world"),
            (looks, "3f 3f/i", "in_color", "in_size"),
            (stamps, STAMP_FORMAT, "in_stamp"),
        ],
        index_buffer=mesh.ibo,
        index_element_size=4,
    )


def vertex_layout(prog: moderngl.Program) -> tuple[str, ...]:
    """`meshes.VERTEX_FORMAT` and its attributes as `prog` reads them: each attribute it
    lacks (the built-in meshes' program reads no texture coordinates) skipped as padding."""
    kinds, names = [], []
    for kind, name in zip(meshes.VERTEX_FORMAT.split(), meshes.VERTEX_ATTRS, strict=True):
        if prog.get(name, None) is not None:
            kinds.append(kind)
            names.append(name)
        else:  # "2f" -> "2x4": two 4-byte floats' room
            kinds.append(f"{kind[:-1]}x4")
    return (" ".join(kinds), *names)


def merge_touching(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop empty runs ``[lo[k], hi[k])`` (ascending, disjoint) and join those that touch."""
    keep = hi > lo
    lo, hi = lo[keep], hi[keep]
    if lo.size < 2:
        return lo, hi
    new = np.concatenate([[True], lo[1:] != hi[:-1]])
    last = np.concatenate([new[1:], [True]])
    return lo[new], hi[last]


@dataclass
class Batch:
    """The instances of one mesh kind."""

    kind: str
    ids: np.ndarray  # [rows] node ids, in pre-order
    slots: np.ndarray  # [rows] their pre-order slots, ascending
    matrices: moderngl.Buffer
    looks: moderngl.Buffer
    stamps: moderngl.Buffer
    vao: moderngl.VertexArray | None = None
    #: The rows' slots on the GPU (uint32), for the scatter pass; None without one.
    slot_buffer: moderngl.Buffer | None = None

    @property
    def count(self) -> int:
        return len(self.ids)

    def release(self) -> None:
        if self.vao is not None:
            self.vao.release()
        for buf in (self.matrices, self.looks, self.stamps, self.slot_buffer):
            if buf is not None:
                buf.release()


class Instances:
    """All instance data of a scene on the GPU, and the bookkeeping to update it.

    Parameters
    ----------
    ctx : moderngl.Context
    kinds : list[str]
        Mesh kinds that can be drawn; a node whose look names another kind (or "none")
        gets no instance but still has an origin for the parent -> child lines.
    scatter : RowScatter, optional
        Spread-out frames go up through it (when its context runs compute shaders).
    """

    def __init__(self, ctx: moderngl.Context, kinds: list[str], scatter: RowScatter | None = None):
        self.ctx = ctx
        self.kinds = list(kinds)
        self.scatter = scatter if scatter is not None and scatter.available else None
        self.batches: list[Batch] = []
        self.origins: moderngl.Buffer | None = None
        self.link_times: moderngl.Buffer | None = None
        self.link_count = 0
        self.order = np.zeros(0, dtype=np.int64)  # live ids in pre-order (slot -> id)
        self.kind_of = np.zeros(0, dtype=np.int64)  # by node id: batch index or -1
        self.row_of = np.zeros(0, dtype=np.int64)  # by node id: row in its batch
        self.sizes = np.zeros((0, 3))  # by node id: the look's size, as built
        self.signature: tuple = ()
        #: Bytes written to GPU buffers by the last `sync()` / `build()` / `write_stamps()`.
        self.bytes_last = 0
        #: `buffer.write` calls made by the last `sync()`.
        self.writes_last = 0

    # -- structure -------------------------------------------------------------------------
    def build(self, graph: SceneGraph, shapes: SceneBounds, world: np.ndarray, glow: Glow) -> None:
        """(Re)create every buffer from the graph's current state and upload it all.

        `shapes` (a `SceneBounds`) gives each node's mesh kind, size and colour; `world`
        is `graph.world_matrices()`; `glow` gives each row's stamp.
        """
        self.release()
        n_ids = int(graph.capacity_ids)
        alive = self.order = np.asarray(graph.alive_ids(), dtype=np.int64)
        parents = np.asarray(graph.parents(), dtype=np.int64)
        kind_index = {k: i for i, k in enumerate(self.kinds)}
        known = np.array([kind_index.get(k, -1) for k in shapes.kinds] + [-1], dtype=np.int64)
        self.kind_of = known[shapes.kind_of[:n_ids]]  # (-1 picks the spare last entry)
        self.row_of = np.full(n_ids, -1, dtype=np.int64)
        colors = shapes.colors[:n_ids]
        sizes = self.sizes = shapes.sizes[:n_ids]
        #: Colour and size per id, as the looks buffers hold them (see `set_colors`).
        self.look_rows = np.empty((n_ids, 6), dtype=np.float32)  # (no float64 copy first)
        self.look_rows[:, :3], self.look_rows[:, 3:] = colors, sizes
        written = 0
        self.batches = []
        kind_by_slot = self.kind_of[alive]
        for k, kind in enumerate(self.kinds):
            slots = np.flatnonzero(kind_by_slot == k)
            if len(slots) == 0:
                continue
            ids = alive[slots]
            self.row_of[ids] = np.arange(len(ids))
            mats = _gather_column_major(world, ids)
            look_rows = self.look_rows[ids]
            stamps = glow.stamp_rows(ids)
            self.batches.append(  # (arrays handed over as they are: no copy as bytes)
                Batch(
                    kind,
                    ids,
                    slots,
                    self.ctx.buffer(mats, dynamic=True),
                    self.ctx.buffer(look_rows),
                    self.ctx.buffer(stamps, dynamic=True),
                    slot_buffer=None
                    if self.scatter is None
                    else self.ctx.buffer(slots.astype(np.uint32)),
                )
            )
            written += mats.nbytes + look_rows.nbytes + stamps.nbytes
        # Re-point kind_of from kind index to batch index.
        batch_of_kind = np.full(len(self.kinds) + 1, -1, dtype=np.int64)
        for b, batch in enumerate(self.batches):
            batch_of_kind[kind_index[batch.kind]] = b
        self.kind_of = batch_of_kind[self.kind_of]  # -1 maps to the spare last slot (-1)
        origins = np.zeros((max(len(alive), 1), 3), dtype=np.float32)
        origins[: len(alive)] = world[alive, :3, 3]
        self.origins = self.ctx.buffer(origins, dynamic=True)
        link_times = np.zeros(max(len(alive), 1), dtype=np.float32)
        link_times[: len(alive)] = glow.link_rows(alive)
        self.link_times = self.ctx.buffer(link_times, dynamic=True)
        self.link_count = int(np.count_nonzero(parents[alive] >= 0))
        # The lines' (parent slot, child slot) pairs, 8 bytes each, are counted with the
        # build: the renderer uploads them in its own order (`Renderer._make_vaos`).
        written += origins.nbytes + link_times.nbytes + 8 * self.link_count
        self.signature = (n_ids, len(graph))
        self.bytes_last = written
        self.writes_last = 0

    def structure_changed(self, graph: SceneGraph, report: FrameReport | None = None) -> bool:
        """Whether nodes were added, removed or re-parented since `build()`.

        The frame report says so (`structure_changed`); the id count and live count catch
        edits made without a report (e.g. before the first sync).
        """
        if report is not None and getattr(report, "structure_changed", False):
            return True
        return (int(graph.capacity_ids), len(graph)) != self.signature

    # -- per frame ---------------------------------------------------------------------
    def sync(
        self,
        starts: np.ndarray,
        ends: np.ndarray,
        world: np.ndarray,
        glow: Glow,
        recomputed: np.ndarray | None = None,
    ) -> int:
        """Upload the world matrices, stamps, origins and link stamps of the nodes in the
        pre-order slot ranges ``[starts[k], ends[k])`` (a frame report's); return the
        bytes written. `recomputed` (the report's ``world_updated``, in pre-order, all
        inside the ranges) are those nodes when there are as many: no gather of them."""
        self.bytes_last = 0
        self.writes_last = 0
        starts = np.asarray(starts, dtype=np.int64)
        ends = np.asarray(ends, dtype=np.int64)
        if starts.size == 0:
            return 0
        first, last = merge_touching(starts, ends)  # runs of slots
        if self.scatter is not None and first.size > DIRECT_RUNS_MAX:
            return self._scatter(self.scatter, first, last, world, glow, recomputed)
        written = 0
        for batch in self.batches:
            lo, hi = merge_touching(
                np.searchsorted(batch.slots, starts), np.searchsorted(batch.slots, ends)
            )
            if lo.size == 0:
                continue
            ids = batch.ids[aranges(lo, hi)]
            mats = _gather_column_major(world, ids)
            written += self._write_runs(batch.matrices, mats, lo, hi, MATRIX_BYTES)
            written += self._write_runs(batch.stamps, glow.stamp_rows(ids), lo, hi, STAMP_BYTES)
        ids = self.order[aranges(first, last)]
        origins = np.ascontiguousarray(world[ids, :3, 3], np.float32)
        written += self._write_runs(self.origins, origins, first, last, ORIGIN_BYTES)
        links = glow.link_rows(ids)
        written += self._write_runs(self.link_times, links, first, last, LINK_STAMP_BYTES)
        self.bytes_last = written
        return written

    def _scatter(
        self,
        scatter: RowScatter,
        lo: np.ndarray,
        hi: np.ndarray,
        world: np.ndarray,
        glow: Glow,
        recomputed: np.ndarray | None,
    ) -> int:
        """`sync` for a spread-out frame: the rows of slot runs [lo, hi) in one write,
        put in place on the GPU by `scatter` (`scatter.py`)."""
        exact = recomputed is not None and len(recomputed) == int((hi - lo).sum())
        ids = recomputed if exact and recomputed is not None else self.order[aranges(lo, hi)]
        rows = RowScatter.stage(world, ids, glow.stamp_rows(ids), glow.link_rows(ids), lo, hi)
        written = scatter.upload(rows)
        scatter.scatter(len(ids), self.batches, self.origins, self.link_times)
        self.writes_last = 1
        self.bytes_last = written
        return written

    def _write_runs(self, buf, rows: np.ndarray, lo: np.ndarray, hi: np.ndarray, size: int) -> int:
        """Write `rows` (the runs ``[lo[k], hi[k])`` one after another) into `buf`, one
        write per run at its row offset."""
        data = np.ascontiguousarray(rows).data.cast("B")  # (slices: no copies)
        at = 0
        for a, b in zip(lo.tolist(), hi.tolist(), strict=True):
            n = (b - a) * size
            buf.write(data[at : at + n], offset=a * size)
            at += n
            self.writes_last += 1
        return at

    def write_stamps(self, glow: Glow) -> int:
        """Rewrite every row's stamp and link stamp (a frame picked on the timeline, or
        let go)."""
        written = 0
        for batch in self.batches:
            data = glow.stamp_rows(batch.ids).tobytes()
            batch.stamps.write(data)
            written += len(data)
        if self.link_times is not None and len(self.order):
            data = glow.link_rows(self.order).tobytes()
            self.link_times.write(data)
            written += len(data)
        self.bytes_last = written
        return written

    def write_stamps_of(self, ids: npt.ArrayLike, glow: Glow) -> int:
        """Write the stamps of node `ids` alone (a few nodes lit outside the report's
        ranges), one write each; return the bytes written."""
        written = 0
        for node_id in np.asarray(ids, dtype=np.int64).reshape(-1).tolist():
            b = int(self.kind_of[node_id]) if node_id < len(self.kind_of) else -1
            if b < 0:
                continue
            data = glow.stamp_rows([node_id]).tobytes()
            self.batches[b].stamps.write(data, offset=int(self.row_of[node_id]) * STAMP_BYTES)
            written += len(data)
        return written

    def set_colors(self, ids, rgb) -> int:
        """Draw node `ids` in colour `rgb` (one [3] or [k, 3] in 0..1); return bytes."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        colors = np.broadcast_to(np.asarray(rgb, dtype=np.float32), (len(ids), 3))
        written = 0
        for node_id, color in zip(ids.tolist(), colors):
            self.look_rows[node_id, :3] = color
            b = int(self.kind_of[node_id])
            if b < 0:
                continue
            data = self.look_rows[node_id].tobytes()
            self.batches[b].looks.write(data, offset=int(self.row_of[node_id]) * LOOK_BYTES)
            written += len(data)
        return written

    def placed(self, world: np.ndarray, which) -> list[tuple[Batch, np.ndarray, np.ndarray]]:
        """(batch, model matrices [n, 4, 4], look sizes [n, 3]) of the instances of each
        batch whose kind `which(kind)` names, in row order (for sorting blended parts)."""
        return [(b, world[b.ids], self.sizes[b.ids]) for b in self.batches if which(b.kind)]

    def release(self) -> None:
        for batch in self.batches:
            batch.release()
        self.batches = []
        for buf in (self.origins, self.link_times):
            if buf is not None:
                buf.release()
        self.origins = self.link_times = None


#: Rows gathered at a time by `_gather_column_major` (a few MB of float64 in flight).
GATHER_ROWS = 16384


def _gather_column_major(world: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """[n, 16] float32 rows of `world[ids]` ([N, 4, 4] row-major float64) in GLSL's column
    order, gathered a block at a time: no float64 copy of every gathered matrix (128 MB at
    a million nodes) on the way."""
    out = np.empty((len(ids), 16), dtype=np.float32)
    rows = out.reshape(-1, 4, 4)
    for start in range(0, len(ids), GATHER_ROWS):
        block = ids[start : start + GATHER_ROWS]
        rows[start : start + len(block)] = np.transpose(world[block], (0, 2, 1))
    return out
