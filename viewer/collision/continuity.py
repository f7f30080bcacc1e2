"""Motions that carry on from where their nodes stand (the collision demo's M key).

A motion is a pure function of the scene time, anchored at its rest value. Swapping one
set of motions for another at time ``t`` would make the nodes jump to wherever the new set
puts them at ``t``. `restart_at` re-anchors a motion instead: its rest value becomes the
node's current value and its phase is shifted so the motion adds nothing at ``t``; from the
next frame on it moves the node by one frame's worth, as it would have anyway.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from viewer.content.motion import Motion

__all__ = ["current_values", "restart_at"]

_GETTERS = {"position": "local_position", "rotation": "local_rotation", "scale": "local_scale"}


def current_values(graph, motion: Motion) -> np.ndarray:
    """The local values of the channel `motion` drives, for its nodes, as they are now."""
    getter = _GETTERS[motion.channel]
    return np.array([getattr(graph.node(int(i)), getter) for i in motion.ids], dtype=np.float64)


def restart_at(motion: Motion, t: float, rest: np.ndarray) -> Motion:
    """`motion` re-anchored so that at time `t` its value is `rest` (the node's value now)
    and it then advances as before: same speed, period, amplitude and axis."""
    if motion.kind in ("spin", "orbit"):
        phase = np.mod(-motion.speed * t, 360.0)  # the angle is speed·t + phase
    else:
        phase = np.mod(-360.0 * t / motion.period, 360.0)  # sin(2πt/period + phase) = 0
    return replace(motion, phase=phase, rest=np.array(rest, dtype=np.float64))
