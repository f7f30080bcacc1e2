"""A scene's animation as USD time samples: the local values of its moving nodes at
chosen times, for write.py.

What moves: the scene's motions (`viewer.content.motion`, pure functions of time) and the
animation clip playing (`AnimationPlayer.current`; its translation, rotation and scale
channels), the clip's pose winning over a motion's as in the frame loop. The times:

- a clip whose channels are all ``LINEAR`` and no motion: its key times. USD interpolates
  time samples linearly too (a ``quatd`` orient by slerp), so between keys it follows
  sgview's clip as well;
- otherwise (``STEP`` or ``CUBICSPLINE`` keys, or motions, which are curves): 60 samples a
  second, sgview's frame rate, over one loop (and the key times): exact at each sample,
  linear between them.

Each op then keeps only the samples USD's own interpolation does not give back (`needed`:
linear for a translate or scale, slerp for an orient) to 1e-12 of the value's size: a
spin at constant speed needs a few samples a turn, a held or straight stretch its ends,
a curve such as an orbit every one.

One loop lasts the clip's duration, or the motions' common period (the one the glTF
writer's animation takes, `viewer.io.gltf_write.motion`), whichever is longer. Time
code ``start + t * per_second`` is scene time ``t``: for a stage read from USD (its clip
``timeSamples``) its own start, end and time codes a second, so the samples land on the
time codes they came from; otherwise 0, the loop's end and 60 a second.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from viewer.content.scene import Scene
from viewer.io.gltf_write.motion import motion_channels

__all__ = ["FRAME_RATE", "Samples", "animation_samples", "needed"]

#: Samples a second where the values are not linear between keys.
FRAME_RATE = 60
#: The most samples one property gets (as the reader's budget, timeline.py).
MAX_SAMPLES = 1_000_000
_PATHS = ("translation", "rotation", "scale")


@dataclass
class Samples:
    """Time codes (F,), the moving nodes (k ids) and their local values at each code:
    positions (F, k, 3), quaternions (F, k, 4) (x, y, z, w; each next to the one before
    on the same side, so USD's slerp takes the short way), scales (F, k, 3); the stage's
    start and end time codes and time codes a second; what is not carried."""

    codes: NDArray[np.float64]
    nodes: list[int]
    positions: NDArray[np.float64]
    rotations: NDArray[np.float64]
    scales: NDArray[np.float64]
    start: float
    end: float
    per_second: float
    how: str
    notes: list[str] = field(default_factory=list)


def animation_samples(scene: Scene, stage_timeline=None) -> Samples | None:
    """The samples of `scene`'s animation (module notes), or None when nothing moves.
    `stage_timeline`: the `Timeline` of the stage the scene was read from, if any."""
    graph = scene.graph
    alive = set(graph.alive_ids().tolist())
    player = scene.animation
    clip = None if player is None else player.current
    notes: list[str] = []
    if player is not None and len(player.clips) > 1:
        other = len(player.clips) - (clip is not None)
        playing = f" (only {clip.name!r}, the one playing)" if clip is not None else ""
        notes.append(f"{other} animation clips are not written{playing}")
    channels = [] if clip is None else [c for c in clip.channels if c.path in _PATHS]
    if clip is not None and len(channels) != len(clip.channels):
        notes.append("morph weights and instance animation are not written")
    moving = [m for m in scene.motions if len(m)]
    horizon = 0.0
    if moving:
        _, horizon, motion_notes = motion_channels(moving)
        notes += motion_notes
    duration = max(horizon, 0.0 if clip is None else clip.duration)
    nodes = sorted(
        {int(c.node) for c in channels} | {int(i) for m in moving for i in m.ids.tolist()}
    )
    nodes = [n for n in nodes if n in alive]
    if not nodes or not duration > 0.0:
        return None
    keys = np.concatenate([np.asarray(c.times, np.float64) for c in channels] or [np.zeros(0)])
    linear = not moving and all(c.interpolation == "LINEAR" for c in channels)
    if linear:
        times = keys
        how = "at the clip's key times"
    else:
        frames = np.arange(int(np.ceil(duration * FRAME_RATE - 1e-9)) + 1) / FRAME_RATE
        times = np.concatenate([frames, keys])
        how = f"{FRAME_RATE} a second (linear between samples)"
    times = np.unique(np.clip(np.concatenate([times, [0.0, duration]]), 0.0, duration))
    if len(times) > MAX_SAMPLES:
        times = times[:MAX_SAMPLES]
        notes.append(f"the animation is cut at {MAX_SAMPLES:,} samples ({times[-1]:g} s)")
    column = {node: j for j, node in enumerate(nodes)}
    pos, rot, scl = graph.local_values()
    at = np.asarray(nodes, dtype=np.int64)
    out_p = np.repeat(pos[at][None], len(times), axis=0)
    out_r = np.repeat(rot[at][None], len(times), axis=0)
    out_s = np.repeat(scl[at][None], len(times), axis=0)
    target = {"position": out_p, "rotation": out_r, "scale": out_s}
    by_path = {"translation": out_p, "rotation": out_r, "scale": out_s}
    for f, t in enumerate(times.tolist()):
        for m in moving:  # the frame loop's order: motions, then the clip's pose
            values = m.values(t)
            for row, node in enumerate(m.ids.tolist()):
                if node in column:
                    target[m.channel][f, column[node]] = values[row]
        for c in channels:
            if c.node in column:
                by_path[c.path][f, column[c.node]] = c.at(t)
    _same_side(out_r)
    if stage_timeline is not None and clip is not None and stage_timeline.animated:
        start, per_second = stage_timeline.start, stage_timeline.per_second
    else:
        start, per_second = 0.0, float(FRAME_RATE)
    codes = start + times * per_second
    return Samples(
        codes,
        nodes,
        out_p,
        out_r,
        out_s,
        start,
        start + duration * per_second,
        per_second,
        how,
        notes,
    )


def _same_side(q: NDArray[np.float64]) -> None:
    """Flip each quaternion (F, k, 4) to the side of the one before it (the same
    rotation; exact)."""
    for f in range(1, len(q)):
        flip = (q[f] * q[f - 1]).sum(axis=1) < 0
        q[f, flip] *= -1.0


#: How close (relative to the values' size) USD's interpolation between two kept samples
#: must give a dropped sample back.
DROP_WITHIN = 1e-12


def needed(codes: NDArray[np.float64], values: NDArray[np.float64], slerp: bool) -> NDArray:
    """The indices of the samples (codes (F,), values (F, w)) to write: the others are
    what USD interpolates between the written ones around them (linearly; quaternions
    (x, y, z, w) by slerp, as pxr's ``GfSlerp``) to `DROP_WITHIN` of the values' size.
    A sample that its two neighbours do not give back is kept; between such samples, each
    kept span is made as long as it stays exact (doubling, then bisection)."""
    count = len(codes)
    if count <= 2:
        return np.arange(count)
    tol = DROP_WITHIN * max(1.0, float(np.abs(values).max()))

    def exact(i: int, j: int) -> bool:
        inner = np.arange(i + 1, j)
        s = (codes[inner] - codes[i]) / (codes[j] - codes[i])
        got = _interpolate(values[i], values[j], s, slerp)
        return bool(np.abs(got - values[inner]).max(initial=0.0) <= tol)

    mid = np.arange(1, count - 1)
    s = (codes[mid] - codes[mid - 1]) / (codes[mid + 1] - codes[mid - 1])
    alone = np.abs(_pairwise(values[mid - 1], values[mid + 1], s, slerp) - values[mid])
    fixed = np.concatenate([[0], mid[alone.max(axis=1) > tol], [count - 1]])
    kept = [0]
    for a, b in zip(fixed[:-1].tolist(), fixed[1:].tolist(), strict=True):
        i = a
        while i < b:
            good, step = i + 1, 2
            while i + step <= b and exact(i, i + step):
                good, step = i + step, step * 2
            bad = min(i + step, b + 1)
            while bad - good > 1:  # good spans exactly, bad does not (or lies past b)
                probe = (good + bad) // 2
                if exact(i, probe):
                    good = probe
                else:
                    bad = probe
            kept.append(good)
            i = good
    return np.asarray(kept)


def _interpolate(a, b, s: NDArray[np.float64], slerp: bool) -> NDArray[np.float64]:
    """Values between `a` and `b` at fractions `s` (m,): (m, w)."""
    return _pairwise(
        np.broadcast_to(a, (len(s), len(a))), np.broadcast_to(b, (len(s), len(b))), s, slerp
    )


def _pairwise(a, b, s: NDArray[np.float64], slerp: bool) -> NDArray[np.float64]:
    """Row by row between `a` and `b` (m, w) at fractions `s` (m,)."""
    if not slerp:
        return (1.0 - s)[:, None] * a + s[:, None] * b
    cos = (a * b).sum(axis=1)
    b = np.where((cos < 0)[:, None], -b, b)  # the shorter arc, as GfSlerp takes it
    angle = np.arccos(np.clip(np.abs(cos), -1.0, 1.0))
    sin = np.sin(angle)
    small = sin < 1e-9
    safe = np.where(small, 1.0, sin)
    wa = np.where(small, 1.0 - s, np.sin((1.0 - s) * angle) / safe)
    wb = np.where(small, s, np.sin(s * angle) / safe)
    return wa[:, None] * a + wb[:, None] * b
