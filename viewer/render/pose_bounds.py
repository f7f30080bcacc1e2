"""World matrices of the scene at sampled poses of its animation, without touching it.

The camera frames a scene once, at load; an animated model framed in its first pose
(a skin in its bind pose) can swing out of view or under the panels later. So the framing
also takes in a few poses of the current clip, computed here in numpy from the graph's
local values with the clip's values put in their place (``T · R · S``, world = parent's
world · local, docs/semantics.md): the graph, its flags and its log stay as they are.
"""

from __future__ import annotations

import numpy as np

__all__ = ["POSE_SAMPLES", "clip_worlds", "posed_worlds"]

#: Poses of the clip taken in, evenly spaced over its duration (both ends included).
POSE_SAMPLES = 9


def _trs(pos: np.ndarray, rot: np.ndarray, scl: np.ndarray) -> np.ndarray:
    """``T · R · S`` [n, 4, 4] of positions [n, 3], quaternions (x, y, z, w) [n, 4] and
    scales [n, 3]; the quaternions are normalised first (as the graph's setters do)."""
    q = rot / np.maximum(np.linalg.norm(rot, axis=1, keepdims=True), 1e-300)
    x, y, z, w = q.T
    r = np.empty((len(q), 3, 3))
    r[:, 0] = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], 1)
    r[:, 1] = np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], 1)
    r[:, 2] = np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], 1)
    m = np.zeros((len(q), 4, 4))
    m[:, :3, :3] = r * scl[:, None, :]
    m[:, :3, 3] = pos
    m[:, 3, 3] = 1.0
    return m


def posed_worlds(graph, pose: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The world matrices [N, 4, 4] the graph would have with `pose` ({"translation" |
    "rotation" | "scale": (node ids, values)}, a `Clip.pose`) applied; rows of removed
    ids are identity."""
    pos, rot, scl = (np.array(v, dtype=np.float64) for v in graph.local_values())
    fields = {"translation": pos, "rotation": rot, "scale": scl}
    for path, (ids, values) in pose.items():
        fields[path][np.asarray(ids, dtype=np.int64)] = values
    local = _trs(pos, rot, scl)
    alive = np.zeros(len(local), dtype=bool)
    alive[np.asarray(graph.alive_ids(), dtype=np.int64)] = True
    local[~alive] = np.eye(4)
    up = np.where(alive, np.asarray(graph.parents(), dtype=np.int64), -1)
    # Pointer jumping: `local[i]` becomes the product of the locals from just below node
    # up[i] down to i, and up[i] jumps twice as far each round, so a chain of any depth
    # takes log2(depth) rounds of whole-array products (not one round per level).
    while True:
        ids = np.flatnonzero(up >= 0)
        if len(ids) == 0:
            return local
        above = up[ids]
        local[ids] = np.matmul(local[above], local[ids])
        up[ids] = up[above]


def clip_worlds(scene, samples: int = POSE_SAMPLES) -> list[np.ndarray]:
    """World matrices at `samples` poses of the scene's current clip ([] without one)."""
    player = scene.animation
    clip = player.current if player is not None else None
    if clip is None or not clip.channels:
        return []
    times = np.linspace(0.0, max(clip.duration, 0.0), samples)
    return [posed_worlds(scene.graph, clip.pose(float(t))) for t in times]


def clip_corners(scene, points_at) -> np.ndarray:
    """The 8 corners [8, 3] of the box around ``points_at(world)`` (the points that must
    be seen, for world matrices [N, 4, 4]) over the sampled poses of the current clip;
    [0, 3] without a clip."""
    points = [points_at(world) for world in clip_worlds(scene)]
    if not points:
        return np.zeros((0, 3))
    both = np.vstack(points)
    lo, hi = both.min(axis=0), both.max(axis=0)
    return np.array([[(lo, hi)[(k >> a) & 1][a] for a in range(3)] for k in range(8)])
