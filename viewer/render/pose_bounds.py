"""World matrices of the scene at sampled poses of its animation, without touching it.

The camera frames a scene once, at load; an animated model framed in its first pose
(a skin in its bind pose) can swing out of view or under the panels later. So the framing
also takes in a few poses of the current clip. Each pose is evaluated by the core
(`viewer.scene.what_if.worlds_with`, the same loop as ``update()``, on scratch arrays):
the graph, its flags and its log stay as they are.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from viewer.animation.clip import Clip
from viewer.content.scene import Scene
from viewer.scene.graph import SceneGraph
from viewer.scene.what_if import worlds_with

__all__ = ["POSE_SAMPLES", "clip_worlds", "moved_ids", "moved_worlds", "posed_worlds"]

#: Poses of the clip taken in, evenly spaced over its duration (both ends included).
POSE_SAMPLES = 9
#: A clip's channel paths and the local values they set.
_FIELDS = {"translation": "positions", "rotation": "rotations", "scale": "scales"}
#: A `Clip.pose`: {path: (node ids, values)}.
Pose = dict[str, tuple[np.ndarray, np.ndarray]]


def posed_worlds(graph: SceneGraph, pose: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The world matrices [N, 4, 4] the graph would have with `pose` ({"translation" |
    "rotation" | "scale": (node ids, values)}, a `Clip.pose`; other paths move no node)
    applied; rows of removed ids are identity."""
    fields = {_FIELDS[path]: value for path, value in pose.items() if path in _FIELDS}
    return worlds_with(graph, **fields)


def clip_worlds(scene: Scene, samples: int = POSE_SAMPLES) -> list[np.ndarray]:
    """World matrices at `samples` poses of the scene's current clip ([] without one)."""
    player = scene.animation
    clip = player.current if player is not None else None
    if clip is None or not clip.channels:
        return []
    times = np.linspace(0.0, max(clip.duration, 0.0), samples)
    return [posed_worlds(scene.graph, clip.pose(float(t))) for t in times]


class _Subtrees:
    """The moved nodes of a graph as a graph of their own (what `worlds_with` reads):
    compact rows in pre-order, a subtree's top node a root, so a pose is evaluated over
    the nodes it can move and no other."""

    def __init__(self, graph: SceneGraph, moved: npt.NDArray[np.int64]) -> None:
        self.ids = moved
        self._values = tuple(v[moved] for v in graph.local_values())
        parents = np.asarray(graph.parents(), dtype=np.int64)[moved]
        row = np.full(int(graph.capacity_ids), -1, dtype=np.int64)
        row[moved] = np.arange(len(moved))
        inside = parents >= 0
        inside[inside] = row[parents[inside]] >= 0
        self._parents = np.where(inside, row[np.maximum(parents, 0)], -1)
        self.row = row
        # A moved node's world is the world its subtree hangs from (the parent's of its
        # top node, which no pose moves) times its world within the subtree.
        top = np.arange(len(moved))
        up = np.where(self._parents >= 0, self._parents, top)
        while not np.array_equal(up[top], top):  # pointer doubling: log(depth) steps
            top = up[top]
            up = up[up]
        hang = parents[top]
        #: Rows whose subtree hangs from a node no pose moves, and that node's world.
        self.hung = np.flatnonzero(hang >= 0)
        self.base = graph.world_matrices()[hang[self.hung]]

    def local_values(self) -> tuple[npt.NDArray[np.float64], ...]:
        return self._values

    def alive_ids(self) -> npt.NDArray[np.int64]:
        return np.arange(len(self.ids), dtype=np.int64)

    def parents(self) -> npt.NDArray[np.int64]:
        return self._parents

    def worlds(self, pose: Pose) -> npt.NDArray[np.float64]:
        """World matrices [k, 4, 4] of the moved nodes (rows of `ids`) at `pose`."""
        fields = {}
        for path, (ids, values) in pose.items():
            if path in _FIELDS:
                rows = self.row[ids]
                keep = rows >= 0  # a removed node's channel moves nothing drawn
                fields[_FIELDS[path]] = (rows[keep], values[keep])
        worlds = worlds_with(self, **fields)
        if len(self.hung):
            worlds[self.hung] = np.matmul(self.base, worlds[self.hung])
        return worlds


def moved_ids(graph: SceneGraph, clip: Clip) -> npt.NDArray[np.int64]:
    """The live nodes a pose of `clip` can move (the subtrees of its translation,
    rotation and scale channels' nodes), in pre-order."""
    order = np.asarray(graph.alive_ids(), dtype=np.int64)
    n = int(graph.capacity_ids)
    mark = np.zeros(n, dtype=bool)
    targets = np.array([c.node for c in clip.channels if c.path in _FIELDS], dtype=np.int64)
    mark[targets[(targets >= 0) & (targets < n)]] = True
    up = np.asarray(graph.parents(), dtype=np.int64).copy()
    # Pointer doubling: after step k a node is marked when one of its 2**k nearest
    # ancestors (itself included) is, so log2(depth) passes over the ids, never a pass
    # per level.
    while True:
        has = up >= 0
        if not has.any():
            break
        mark[has] |= mark[up[has]]
        up[has] = up[up[has]]
    return order[mark[order]]


def moved_worlds(
    scene: Scene, samples: int = POSE_SAMPLES
) -> tuple[npt.NDArray[np.int64], Iterator[npt.NDArray[np.float64]]] | None:
    """(ids [k], one [k, 4, 4] world per sampled pose of the current clip, made when
    asked for) of the nodes its poses can move; None without a clip. Memory and time
    follow the moved nodes, not the scene (one animated node of a million costs one)."""
    player = scene.animation
    clip = player.current if player is not None else None
    if clip is None or not clip.channels:
        return None
    moved = moved_ids(scene.graph, clip)
    sub = _Subtrees(scene.graph, moved)
    times = np.linspace(0.0, max(clip.duration, 0.0), samples)
    return moved, (sub.worlds(clip.pose(float(t))) for t in times)
