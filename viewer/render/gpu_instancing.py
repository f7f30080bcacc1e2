"""EXT_mesh_gpu_instancing on the GPU: a node's mesh drawn once per instance.

Each instanced node gets one `Batch` (the same instance layout as the node pass:
matrices, looks, highlights), with one row per instance. Instance k's matrix is
``world(node) @ locals[k]``: whenever a frame report says the node was executed, all its
rows are rewritten, so a recompute of the node (or of any ancestor) re-poses every
instance. The instances take the node's highlight: the overlay shows them as part of
their node.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.content.geometry import Geometry

from .instances import Batch

__all__ = ["NodeInstances"]


class NodeInstances:
    """The instance batches of a scene's instanced nodes."""

    def __init__(self, ctx: moderngl.Context, geometry: Geometry, kinds, morphed=None) -> None:
        self.ctx = ctx
        self.items = [item for item in geometry.instanced if item.mesh in kinds]
        #: Node -> the mesh kind its instances draw: its morphed copy, if it has one.
        self._kind = {item.node: (morphed or {}).get(item.node, item.mesh) for item in self.items}
        self.batches: list[Batch] = []
        self._built: list = []  # the item of each batch
        self._batch_of: dict[int, list[int]] = {}  # node -> indices into batches
        self.bytes_last = 0

    def build(self, world: np.ndarray, highlight: np.ndarray) -> int:
        """(Re)create every batch from the world matrices and the nodes' highlights."""
        self.release()
        written = 0
        for item in self.items:
            if item.node >= len(world):
                continue
            mats = _rows(world[item.node], item.locals)
            n = len(item.locals)
            looks = np.tile(np.array([*item.color, 1.0, 1.0, 1.0], np.float32), (n, 1))
            glow = float(highlight[item.node]) if item.node < len(highlight) else 0.0
            hl = np.full(n, glow, np.float32)
            self._batch_of.setdefault(item.node, []).append(len(self.batches))
            self._built.append(item)
            self.batches.append(
                Batch(
                    self._kind[item.node],
                    np.full(n, item.node, np.int64),
                    self.ctx.buffer(mats.tobytes(), dynamic=True),
                    self.ctx.buffer(looks.tobytes()),
                    self.ctx.buffer(hl.tobytes(), dynamic=True),
                )
            )
            written += mats.nbytes + looks.nbytes + hl.nbytes
        self.bytes_last = written
        return written

    def sync(self, executed: np.ndarray, world: np.ndarray) -> int:
        """Re-pose the instances of the executed instanced nodes; returns bytes written."""
        written = 0
        if self._batch_of and len(executed):
            for node in np.intersect1d(np.asarray(executed, np.int64), list(self._batch_of)):
                for b in self._batch_of[int(node)]:
                    item = self._built[b]
                    data = _rows(world[int(node)], item.locals).tobytes()
                    self.batches[b].matrices.write(data)
                    written += len(data)
        self.bytes_last = written
        return written

    def set_highlight(self, ids: np.ndarray, values: np.ndarray) -> int:
        """Give the instances of nodes `ids` their node's highlight value."""
        written = 0
        if not self._batch_of:
            return 0
        for node, value in zip(ids.tolist(), np.broadcast_to(values, ids.shape).tolist(),
                               strict=True):  # fmt: skip
            for b in self._batch_of.get(node, ()):
                batch = self.batches[b]
                data = np.full(batch.count, value, np.float32).tobytes()
                batch.highlights.write(data)
                written += len(data)
        return written

    def placed(self, world: np.ndarray) -> list[tuple[Batch, np.ndarray, np.ndarray]]:
        """(batch, instance matrices [n, 4, 4], sizes [n, 3] of ones) of each batch, in
        row order (for sorting blended parts)."""
        out = []
        for batch, item in zip(self.batches, self._built, strict=True):
            n = len(item.locals)
            out.append((batch, world[item.node] @ item.locals, np.ones((n, 3))))
        return out

    def boxes(self, world: np.ndarray, bounds):
        """(node ids [k], instance worlds [k, 4, 4], lo [k, 3], hi [k, 3]) of every
        instance's mesh box, each named by its node: a click on an instance picks it."""
        parts = [(np.zeros(0, np.int64), np.zeros((0, 4, 4)), np.zeros((0, 3)), np.zeros((0, 3)))]
        for item in self.items:
            if item.node >= len(world):
                continue
            lo, hi = bounds(item.mesh)
            n = len(item.locals)
            parts.append((np.full(n, item.node, np.int64), world[item.node] @ item.locals,
                          np.tile(lo, (n, 1)), np.tile(hi, (n, 1))))  # fmt: skip
        return tuple(np.concatenate(column) for column in zip(*parts, strict=True))

    def release(self) -> None:
        for batch in self.batches:
            batch.release()
        self.batches = []
        self._built = []
        self._batch_of = {}


def _rows(world: np.ndarray, locals_: np.ndarray) -> np.ndarray:
    """[N, 16] float32 column-major matrices ``world @ locals[k]`` (what GLSL reads)."""
    mats = np.asarray(world, np.float64) @ locals_
    return np.ascontiguousarray(np.transpose(mats, (0, 2, 1)), dtype=np.float32).reshape(-1, 16)
