"""A Blender scene as the attach publisher reads a program's graph: per-id rows of local
values and world matrices, the hierarchy in pre-order, and the frames' reports.

`viewer.attach.publisher.Link` takes a frame from a graph through a few reads only
(``on_update``, ``capacity_ids``, ``alive_ids()``, ``parents()``, ``name_of()``,
``local_values()``, ``world_matrices()``); `PublishedNodes` answers them with what
Blender computed, so the Blender publisher sends Blender's own world matrices and its own
recomputed set through the one wire implementation, snapshots and merging included. No
``bpy`` here: `viewer.blender.publisher` fills it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from viewer.scene.report import FrameReport

#: Below this a scale column counts as zero (its rotation axis is then made up).
_EPS = 1e-12


class PublishedNodes:
    """What a publisher reads of a graph, held for a scene sgview does not compute."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[FrameReport], None]] = []
        self._n = 0
        self._parents = np.zeros(0, dtype=np.int64)
        self._pos = np.zeros((0, 3))
        self._rot = np.zeros((0, 4))
        self._scl = np.zeros((0, 3))
        self._world = np.zeros((0, 4, 4))
        self._names: list[str] = []
        self._order = np.zeros(0, dtype=np.int64)
        self._grow(16)

    # -- what the publisher reads ----------------------------------------------------------
    def on_update(self, listener: Callable[[FrameReport], None]) -> Callable[[], None]:
        self._listeners.append(listener)

        def stop() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return stop

    @property
    def capacity_ids(self) -> int:
        return self._n

    def alive_ids(self) -> NDArray[np.int64]:
        return self._order

    def parents(self) -> NDArray[np.int64]:
        return self._parents[: self._n]

    def name_of(self, node_id: int) -> str:
        return self._names[node_id]

    def local_values(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        n = self._n
        return self._pos[:n], self._rot[:n], self._scl[:n]

    def world_matrices(self) -> NDArray[np.float64]:
        return self._world[: self._n]

    # -- what the Blender side writes ------------------------------------------------------
    def new_id(self, name: str) -> int:
        """A fresh id (never handed out again: the viewer tells nodes apart by id)."""
        if self._n == self._parents.size:
            self._grow(2 * self._n)
        i = self._n
        self._n += 1
        self._names.append(name)
        return i

    def set_structure(
        self, order: NDArray[np.int64], parents: NDArray[np.int64], names: list[str]
    ) -> bool:
        """The hierarchy in pre-order (``parents`` and ``names`` aligned with ``order``);
        whether it differs from the one before."""
        old = self._order
        changed = (
            old.size != order.size
            or not np.array_equal(old, order)
            or not np.array_equal(self._parents[order], parents)
            or any(self._names[i] != name for i, name in zip(order.tolist(), names))
        )
        self._parents[order] = parents
        for i, name in zip(order.tolist(), names):
            self._names[i] = name
        self._order = order
        return changed

    def set_worlds(self, ids: NDArray[np.int64], worlds: NDArray[np.float64]) -> None:
        """The world matrices of ``ids`` as the engine computed them."""
        self._world[ids] = worlds

    def derive_locals(self, ids: NDArray[np.int64]) -> None:
        """Each of ``ids``'s local values as ``inverse(parent world) · world`` split into
        position, rotation and scale (the worlds of the ids and their parents set first):
        the values whose ``T · R · S`` the viewer composes under the parent it shows."""
        if ids.size == 0:
            return
        world = self._world[ids]
        parents = self._parents[ids]
        has_parent = parents >= 0
        local = world.copy()
        if has_parent.any():
            local[has_parent] = np.linalg.inv(self._world[parents[has_parent]]) @ world[has_parent]
        pos, rot, scl = trs_rows(local)
        self._pos[ids], self._rot[ids], self._scl[ids] = pos, rot, scl

    def emit(self, report: FrameReport) -> None:
        for listener in list(self._listeners):
            listener(report)

    def _grow(self, size: int) -> None:
        n = self._parents.size
        self._parents = np.concatenate((self._parents, np.full(size - n, -1, dtype=np.int64)))
        self._pos = np.concatenate((self._pos, np.zeros((size - n, 3))))
        unit = np.zeros((size - n, 4))
        unit[:, 3] = 1.0
        self._rot = np.concatenate((self._rot, unit))
        self._scl = np.concatenate((self._scl, np.ones((size - n, 3))))
        self._world = np.concatenate((self._world, np.tile(np.eye(4), (size - n, 1, 1))))


def trs_rows(
    matrices: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Position, unit quaternion (x y z w) and scale of each affine ``(k, 4, 4)`` matrix,
    as `viewer.scene.math.decompose` splits one (a mirror on the x scale; with shear, the
    column lengths and the quaternion of the normalised columns, which then is no exact
    rotation), all rows at once: a frame's hundred bones in a few numpy calls."""
    a = matrices[:, :3, :3]
    scale = np.linalg.norm(a, axis=1)  # the columns' lengths
    scale[np.linalg.det(a) < 0, 0] *= -1.0
    safe = np.where(np.abs(scale) > _EPS, scale, 1.0)
    r = a / safe[:, None, :]
    r00, r11, r22 = r[:, 0, 0], r[:, 1, 1], r[:, 2, 2]
    # Shepperd's method: of the four ways to the quaternion, the one dividing by the
    # largest of (trace, r00, r11, r22) is stable; each row takes its own.
    lead = np.stack((r00 + r11 + r22, r00, r11, r22), axis=1)
    pick = np.argmax(lead, axis=1)
    s = 2.0 * np.sqrt(np.maximum(1.0 + 2.0 * lead[np.arange(len(r)), pick] - lead[:, 0], _EPS))
    d21, d12 = r[:, 2, 1], r[:, 1, 2]
    d02, d20 = r[:, 0, 2], r[:, 2, 0]
    d10, d01 = r[:, 1, 0], r[:, 0, 1]
    ways = np.stack(
        (
            np.stack(((d21 - d12) / s, (d02 - d20) / s, (d10 - d01) / s, s / 4), axis=1),
            np.stack((s / 4, (d01 + d10) / s, (d02 + d20) / s, (d21 - d12) / s), axis=1),
            np.stack(((d01 + d10) / s, s / 4, (d12 + d21) / s, (d02 - d20) / s), axis=1),
            np.stack(((d02 + d20) / s, (d12 + d21) / s, s / 4, (d10 - d01) / s), axis=1),
        ),
        axis=1,
    )
    quat = ways[np.arange(len(r)), pick]
    norm = np.linalg.norm(quat, axis=1)
    quat = np.where(norm[:, None] > _EPS, quat / np.maximum(norm, _EPS)[:, None], [0, 0, 0, 1.0])
    return matrices[:, :3, 3].copy(), quat, scale
