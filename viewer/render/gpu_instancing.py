"""EXT_mesh_gpu_instancing on the GPU: a node's mesh drawn once per instance.

Each instanced node gets one `Batch` (the same instance layout as the node pass:
matrices, looks, glow stamps), with one row per instance. Instance k's matrix is
``world(node) @ locals[k]``: whenever the node's pre-order slot lies in one of a frame
report's ranges, all its rows are rewritten, so a recompute of the node (or of any
ancestor) re-poses every instance. The instances take the node's glow stamp
(`viewer.render.glow`): the overlay shows them as part of their node.
"""

from __future__ import annotations

import moderngl
import numpy as np

from viewer.content.geometry import Geometry

from .glow import Glow
from .instances import Batch

__all__ = ["NodeInstances"]


class NodeInstances:
    """The instance batches of a scene's instanced nodes."""

    def __init__(self, ctx: moderngl.Context, geometry: Geometry, kinds, morphed=None) -> None:
        self.ctx = ctx
        self._geometry, self._kinds, self._morphed = geometry, kinds, morphed or {}
        #: The instanced items drawn, as taken from the geometry at the last `build`.
        self.items: list = []
        self.batches: list[Batch] = []
        self._built: list = []  # the item of each batch
        self._batch_of: dict[int, list[int]] = {}  # node -> indices into batches
        self._slot: dict[int, int] = {}  # node -> its pre-order slot at the last build
        self.bytes_last = 0

    def build(self, world: np.ndarray, glow: Glow, order: np.ndarray) -> int:
        """(Re)create every batch from the world matrices and the nodes' glow stamps;
        `order` is the live ids in pre-order (a node's slot is its position there).
        The items are taken from the geometry again: a live stage may have replaced them
        (`Geometry.replace_instanced`)."""
        self.release()
        self.items = [item for item in self._geometry.instanced if item.mesh in self._kinds]
        slot_of = np.full(len(world), -1, dtype=np.int64)
        slot_of[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
        written = 0
        for item in self.items:
            if item.node >= len(world):
                continue
            mats = _rows(world[item.node], item.locals)
            n = len(item.locals)
            looks = np.tile(np.array([*item.color, 1.0, 1.0, 1.0], np.float32), (n, 1))
            stamps = np.repeat(glow.stamp_rows([item.node]), n, axis=0)
            self._batch_of.setdefault(item.node, []).append(len(self.batches))
            self._slot[item.node] = int(slot_of[item.node])
            self._built.append(item)
            self.batches.append(
                Batch(
                    self._morphed.get(item.node, item.mesh),  # its morphed copy, if any
                    np.full(n, item.node, np.int64),
                    np.zeros(n, np.int64),  # (its rows follow the node, not the ranges)
                    self.ctx.buffer(mats.tobytes(), dynamic=True),
                    self.ctx.buffer(looks.tobytes()),
                    self.ctx.buffer(stamps.tobytes(), dynamic=True),
                )
            )
            written += mats.nbytes + looks.nbytes + stamps.nbytes
        self.bytes_last = written
        return written

    def sync(self, starts: np.ndarray, ends: np.ndarray, world: np.ndarray, glow: Glow) -> int:
        """Re-pose (and re-stamp) the instances of the instanced nodes inside the report's
        pre-order ranges [starts, ends); returns bytes written."""
        written = 0
        if not self._slot or not len(starts):
            self.bytes_last = 0
            return 0
        for node, slot in self._slot.items():
            if slot < 0 or not ((starts <= slot) & (slot < ends)).any():
                continue
            for b in self._batch_of[node]:
                written += self._write(b, world, glow)
        self.bytes_last = written
        return written

    def repose(self, ids, world: np.ndarray) -> int:
        """Rewrite the matrices of node `ids`' instances from their current locals (their
        instance data changed, no matrix of the node moved: an animated USD
        PointInstancer); returns bytes written."""
        written = 0
        for node in np.asarray(ids, np.int64).reshape(-1).tolist():
            for b in self._batch_of.get(int(node), ()):
                item, batch = self._built[b], self.batches[b]
                data = _rows(world[item.node], item.locals).tobytes()
                batch.matrices.write(data)
                written += len(data)
        return written

    def _write(self, b: int, world: np.ndarray, glow: Glow) -> int:
        item, batch = self._built[b], self.batches[b]
        data = _rows(world[item.node], item.locals).tobytes()
        batch.matrices.write(data)
        return len(data) + self._stamp(b, glow)

    def _stamp(self, b: int, glow: Glow) -> int:
        batch = self.batches[b]
        data = np.repeat(glow.stamp_rows([self._built[b].node]), batch.count, axis=0).tobytes()
        batch.stamps.write(data)
        return len(data)

    def write_stamps(self, glow: Glow, ids=None) -> int:
        """Rewrite the stamps of every instanced node (or of node `ids` alone): a frame
        picked on the timeline, or nodes lit outside the report."""
        written = 0
        nodes = self._batch_of if ids is None else np.asarray(ids, np.int64).reshape(-1).tolist()
        for node in nodes:
            for b in self._batch_of.get(int(node), ()):
                written += self._stamp(b, glow)
        return written

    def placed(self, world: np.ndarray, which) -> list[tuple[Batch, np.ndarray, np.ndarray]]:
        """(batch, instance matrices [n, 4, 4], sizes [n, 3] of ones) of each batch whose
        kind `which(kind)` names, in row order (for sorting blended parts)."""
        out = []
        for batch, item in zip(self.batches, self._built, strict=True):
            if not which(batch.kind):
                continue
            n = len(item.locals)
            out.append((batch, world[item.node] @ item.locals, np.ones((n, 3))))
        return out

    def release(self) -> None:
        for batch in self.batches:
            batch.release()
        self.batches = []
        self._built = []
        self._batch_of = {}
        self._slot = {}


def _rows(world: np.ndarray, locals_: np.ndarray) -> np.ndarray:
    """[N, 16] float32 column-major matrices ``world @ locals[k]`` (what GLSL reads)."""
    mats = np.asarray(world, np.float64) @ locals_
    return np.ascontiguousarray(np.transpose(mats, (0, 2, 1)), dtype=np.float32).reshape(-1, 16)
