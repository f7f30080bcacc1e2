"""A Blender scene as the attach publisher reads a program's graph: per-id rows of local
values and world matrices, the hierarchy in pre-order, and the frames' reports.

`viewer.attach.publisher.Link` takes a frame from a graph through a few reads only
(``on_update``, ``capacity_ids``, ``len()``, ``alive_ids()``, ``parents()``, ``name_of()``,
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

from .kernels import derive_locals


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

    def __len__(self) -> int:
        """How many nodes the scene has (as ``len(SceneGraph)``: the alive ones)."""
        return int(self._order.size)

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
        derive_locals(ids, self._parents, self._world, self._pos, self._rot, self._scl)

    def rows(
        self,
    ) -> tuple[
        NDArray[np.float64], NDArray[np.int64], NDArray[np.float64], NDArray[np.float64],
        NDArray[np.float64],
    ]:  # fmt: skip
        """The arrays behind every id (worlds, parents, positions, quaternions, scales),
        for the compiled frame to write in place; `new_id` may replace them."""
        return self._world, self._parents, self._pos, self._rot, self._scl

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
