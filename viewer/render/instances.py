"""Per-mesh-kind instance buffers, fed by frame reports.

Each mesh kind has three instance buffers with one row per node of that kind:

- matrices   : 64 bytes per row, the world matrix as float32, column-major (what GLSL's
               `mat4` attribute expects), written whenever the node is executed;
- looks      : 24 bytes per row, colour (3f) and size (3f), written when built;
- highlights :  4 bytes per row, the overlay's highlight value (1f).

Rows follow the pre-order of the graph at build time, so a subtree (what a change dirties)
is a contiguous run of rows. `sync()` takes the ids a frame report says were executed,
groups them by kind, merges consecutive rows into ranges and writes each range with one
`buffer.write(data, offset=...)`. The parent -> child lines read node origins from one more
buffer (12 bytes per node id), written the same way. Nothing is written for a frame with
no executed nodes, and every byte written is counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import moderngl
import numpy as np

MATRIX_BYTES = 64
LOOK_BYTES = 24
HIGHLIGHT_BYTES = 4
ORIGIN_BYTES = 12


def runs(sorted_keys: np.ndarray) -> np.ndarray:
    """Start indices of runs of consecutive integers in a sorted array, plus len at the end.

    `runs([3, 4, 5, 9, 10])` is `[0, 3, 5]`: rows 3..5 and 9..10.
    """
    n = len(sorted_keys)
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    breaks = np.flatnonzero(np.diff(sorted_keys) != 1) + 1
    return np.concatenate([[0], breaks, [n]]).astype(np.int64)


@dataclass
class Batch:
    """The instances of one mesh kind."""

    kind: str
    ids: np.ndarray  # [rows] node ids, in pre-order
    matrices: moderngl.Buffer
    looks: moderngl.Buffer
    highlights: moderngl.Buffer
    vao: moderngl.VertexArray | None = None

    @property
    def count(self) -> int:
        return len(self.ids)

    def release(self) -> None:
        if self.vao is not None:
            self.vao.release()
        for buf in (self.matrices, self.looks, self.highlights):
            buf.release()


class Instances:
    """All instance data of a scene on the GPU, and the bookkeeping to update it.

    Parameters
    ----------
    ctx : moderngl.Context
    kinds : list[str]
        Mesh kinds that can be drawn; a node whose look names another kind (or "none")
        gets no instance but still has an origin for the parent -> child lines.
    """

    def __init__(self, ctx: moderngl.Context, kinds: list[str]):
        self.ctx = ctx
        self.kinds = list(kinds)
        self.batches: list[Batch] = []
        self.origins: moderngl.Buffer | None = None
        self.links: moderngl.Buffer | None = None
        self.link_count = 0
        self.kind_of = np.zeros(0, dtype=np.int64)  # by node id: batch index or -1
        self.row_of = np.zeros(0, dtype=np.int64)  # by node id: row in its batch
        self.highlight = np.zeros(0, dtype=np.float32)  # by node id
        self.sizes = np.zeros((0, 3))  # by node id: the look's size, as built
        self.signature: tuple = ()
        #: Bytes written to GPU buffers by the last `sync()` / `build()`, and in total.
        self.bytes_last = 0
        self.bytes_total = 0
        #: `buffer.write` calls made by the last `sync()`.
        self.writes_last = 0

    # -- structure -------------------------------------------------------------------------
    def build(self, graph, looks_of, world: np.ndarray) -> None:
        """(Re)create every buffer from the graph's current state and upload it all.

        `looks_of(id)` returns the node's `Look`; `world` is `graph.world_matrices()`.
        """
        self.release()
        n_ids = int(graph.capacity_ids)
        alive = np.asarray(graph.alive_ids(), dtype=np.int64)
        parents = np.asarray(graph.parents(), dtype=np.int64)
        kind_index = {k: i for i, k in enumerate(self.kinds)}
        self.kind_of = np.full(n_ids, -1, dtype=np.int64)
        self.row_of = np.full(n_ids, -1, dtype=np.int64)
        old = self.highlight
        self.highlight = np.zeros(n_ids, dtype=np.float32)
        keep = min(len(old), n_ids)
        self.highlight[:keep] = old[:keep]
        colors = np.zeros((n_ids, 3), dtype=np.float32)
        sizes = self.sizes = np.ones((n_ids, 3), dtype=np.float64)
        for node_id in alive.tolist():
            look = looks_of(node_id)
            self.kind_of[node_id] = kind_index.get(look.mesh, -1)
            colors[node_id] = look.color
            sizes[node_id] = look.size
        #: Colour and size per id, as the looks buffers hold them (see `set_colors`).
        self.look_rows = np.hstack([colors, sizes]).astype(np.float32)
        written = 0
        self.batches = []
        for k, kind in enumerate(self.kinds):
            ids = alive[self.kind_of[alive] == k]
            if len(ids) == 0:
                continue
            self.row_of[ids] = np.arange(len(ids))
            mats = _column_major(world[ids])
            look_rows = self.look_rows[ids]
            hl = self.highlight[ids]
            self.batches.append(
                Batch(
                    kind,
                    ids,
                    self.ctx.buffer(mats.tobytes(), dynamic=True),
                    self.ctx.buffer(look_rows.tobytes()),
                    self.ctx.buffer(hl.tobytes(), dynamic=True),
                )
            )
            written += mats.nbytes + look_rows.nbytes + hl.nbytes
        # Re-point kind_of from kind index to batch index.
        batch_of_kind = np.full(len(self.kinds) + 1, -1, dtype=np.int64)
        for b, batch in enumerate(self.batches):
            batch_of_kind[kind_index[batch.kind]] = b
        self.kind_of = batch_of_kind[self.kind_of]  # -1 maps to the spare last slot (-1)
        origins = np.zeros((max(n_ids, 1), 3), dtype=np.float32)
        origins[alive] = world[alive, :3, 3]
        self.origins = self.ctx.buffer(origins.tobytes(), dynamic=True)
        child = alive[parents[alive] >= 0]
        pairs = np.stack([parents[child], child], axis=1).astype(np.uint32)
        self.link_count = len(child)
        self.links = self.ctx.buffer(pairs.tobytes() if len(child) else b"\0" * 8)
        written += origins.nbytes + pairs.nbytes
        self.signature = (n_ids, len(graph))
        self.bytes_last = written
        self.bytes_total += written
        self.writes_last = 0

    def structure_changed(self, graph, report=None) -> bool:
        """Whether nodes were added, removed or re-parented since `build()`.

        The frame report says so (`structure_changed`); the id count and live count catch
        edits made without a report (e.g. before the first sync).
        """
        if report is not None and getattr(report, "structure_changed", False):
            return True
        return (int(graph.capacity_ids), len(graph)) != self.signature

    # -- per frame ---------------------------------------------------------------------
    def sync(self, executed: np.ndarray, world: np.ndarray) -> int:
        """Upload the world matrices (and origins) of `executed` node ids; return bytes."""
        self.bytes_last = 0
        self.writes_last = 0
        ids = np.asarray(executed, dtype=np.int64)
        if len(ids) == 0:
            return 0
        ids = np.unique(ids)  # sorted; a node is handed over once per frame anyway
        mats = world[ids]
        written = self._write_rows(ids, _column_major(mats), MATRIX_BYTES, "matrices")
        origins = np.ascontiguousarray(mats[:, :3, 3], dtype=np.float32)
        bounds = runs(ids)
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            chunk = origins[a:b].tobytes()
            self.origins.write(chunk, offset=int(ids[a]) * ORIGIN_BYTES)
            written += len(chunk)
            self.writes_last += 1
        self.bytes_last = written
        self.bytes_total += written
        return written

    def set_highlight(self, ids, values) -> int:
        """Set the highlight value of node `ids` (scalar or one per id); return bytes."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        vals = np.broadcast_to(np.asarray(values, dtype=np.float32), ids.shape)
        if len(ids) == 0:
            return 0
        order = np.argsort(ids, kind="stable")
        ids, vals = ids[order], vals[order]
        self.highlight[ids] = vals
        written = self._write_rows(ids, self.highlight[ids], HIGHLIGHT_BYTES, "highlights")
        self.bytes_total += written
        return written

    def set_colors(self, ids, rgb) -> int:
        """Draw node `ids` in colour `rgb` (one [3] or [k, 3] in 0..1); return bytes."""
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        if len(ids) == 0:
            return 0
        order = np.argsort(ids, kind="stable")
        colors = np.broadcast_to(np.asarray(rgb, dtype=np.float32), (len(ids), 3))[order]
        ids = ids[order]
        self.look_rows[ids, :3] = colors
        written = self._write_rows(ids, self.look_rows[ids], LOOK_BYTES, "looks")
        self.bytes_total += written
        return written

    def _write_rows(self, ids: np.ndarray, rows: np.ndarray, row_bytes: int, which: str) -> int:
        """Write per-node `rows` (aligned with sorted `ids`) into each batch's `which` buffer,
        one write per run of consecutive rows. Nodes without an instance are skipped."""
        batch = self.kind_of[ids]
        drawn = batch >= 0
        ids, rows, batch = ids[drawn], rows[drawn], batch[drawn]
        if len(ids) == 0:
            return 0
        row = self.row_of[ids]
        order = np.lexsort((row, batch))
        rows, batch, row = rows[order], batch[order], row[order]
        # A run breaks where the batch changes or the row is not the previous row + 1.
        key = batch * (len(self.row_of) + 1) + row
        bounds = runs(key)
        written = 0
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            chunk = np.ascontiguousarray(rows[a:b]).tobytes()
            buf = getattr(self.batches[int(batch[a])], which)
            buf.write(chunk, offset=int(row[a]) * row_bytes)
            written += len(chunk)
            self.writes_last += 1
        return written

    def placed(self, world: np.ndarray) -> list[tuple[Batch, np.ndarray, np.ndarray]]:
        """(batch, model matrices [n, 4, 4], look sizes [n, 3]) of each batch's
        instances, in row order (for sorting blended parts)."""
        return [(b, world[b.ids], self.sizes[b.ids]) for b in self.batches]

    def release(self) -> None:
        for batch in self.batches:
            batch.release()
        self.batches = []
        for buf in (self.origins, self.links):
            if buf is not None:
                buf.release()
        self.origins = self.links = None


def _column_major(mats: np.ndarray) -> np.ndarray:
    """[n, 4, 4] row-major float64 matrices -> [n, 16] float32 in GLSL column order."""
    return np.ascontiguousarray(np.transpose(mats, (0, 2, 1)), dtype=np.float32).reshape(-1, 16)
