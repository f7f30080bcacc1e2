"""World matrices of the scene at sampled poses of its animation, without touching it.

The camera frames a scene once, at load; an animated model framed in its first pose
(a skin in its bind pose) can swing out of view or under the panels later. So the framing
also takes in a few poses of the current clip. Each pose is evaluated by the core
(`viewer.scene.what_if.worlds_with`, the same loop as ``update()``, on scratch arrays):
the graph, its flags and its log stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from viewer.content.scene import Scene
from viewer.scene.graph import SceneGraph
from viewer.scene.what_if import worlds_with

__all__ = ["POSE_SAMPLES", "clip_worlds", "posed_worlds"]

#: Poses of the clip taken in, evenly spaced over its duration (both ends included).
POSE_SAMPLES = 9
#: A clip's channel paths and the local values they set.
_FIELDS = {"translation": "positions", "rotation": "rotations", "scale": "scales"}


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


def clip_corners(scene: Scene, points_at: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The 8 corners [8, 3] of the box around ``points_at(world)`` (the points that must
    be seen, for world matrices [N, 4, 4]) over the sampled poses of the current clip;
    [0, 3] without a clip."""
    points = [points_at(world) for world in clip_worlds(scene)]
    if not points:
        return np.zeros((0, 3))
    both = np.vstack(points)
    lo, hi = both.min(axis=0), both.max(axis=0)
    return np.array([[(lo, hi)[(k >> a) & 1][a] for a in range(3)] for k in range(8)])
