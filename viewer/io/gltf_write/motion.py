"""sgview's motions as glTF animation channels, so a saved scene moves in any glTF viewer.

Each motion of each node becomes one channel of one animation, "sgview motions", whose
keys cover one common period of all the scene's motions (the horizon), so the clip loops
seamlessly. What is exact and what is sampled (docs/viewer.md, "What --save keeps"):

- ``spin``: exact. A turn at constant speed about a fixed axis is what LINEAR rotation keys
  give (the glTF slerp between two keys less than 180 degrees apart turns at constant speed
  about the axis between them); keys every `SPIN_STEP` degrees.
- ``orbit``, ``swing``, ``oscillate``, ``pulse``: sampled, `KEYS_PER_PERIOD` keys per
  period, as CUBICSPLINE keys whose tangents are the motion's exact time derivatives.
  A cubic Hermite interpolant with exact end derivatives errs by at most
  ``h^4 / 384 * max|f''''|`` on a key interval of length ``h``; with ``w h = 2 pi / N``
  that is ``(2 pi / N)^4 / 384 = 1.5e-8`` (N = 128) times: the orbit radius (times sqrt 2,
  a vector in a plane), the oscillation amplitude, the pulse amplitude times the rest
  scale, and for swing (quaternion components) sqrt 2 times
  ``a^4 + 6 a^3 + 7 a^2 + a`` with ``a`` half the amplitude in radians.

Key times are rounded to float32 (the accessor type) before the values are computed at
them, so the rounding moves no key off its curve; values are float32 too (relative error
6e-8 of their size). The horizon is the least common multiple of the periods when one
exists up to `MAX_HORIZON` seconds (and `MAX_KEYS` keys in all); otherwise the longest
period, and the motions whose period does not divide it jump when the clip loops (a
note says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from viewer.content.motion import Motion
from viewer.scene.math import quat_from_axis_angle, quat_multiply, quat_rotate

__all__ = ["KEYS_PER_PERIOD", "SPIN_STEP", "KeyedChannel", "motion_channels"]

#: Degrees between two keys of a spin (under 180: the slerp takes the intended arc).
SPIN_STEP = 90.0
#: Keys per period of a sampled motion.
KEYS_PER_PERIOD = 128
#: The longest common period looked for, in seconds, and the most keys in all.
MAX_HORIZON = 3600.0
MAX_KEYS = 2_000_000
_PATH = {"position": "translation", "rotation": "rotation", "scale": "scale"}


@dataclass(frozen=True)
class KeyedChannel:
    """One glTF channel: `values` is (k, width) for LINEAR, (3k, width) for CUBICSPLINE
    (in-tangent, value, out-tangent per key, the glTF layout)."""

    node: int  # node id
    path: str
    interpolation: str
    times: np.ndarray  # (k,) float32
    values: np.ndarray  # float32


def _period(m: Motion, row: int) -> float | None:
    """Seconds per cycle of one row; None when the value never changes."""
    if m.kind in ("spin", "orbit"):
        speed = abs(float(m.speed[row]))
        return 360.0 / speed if speed > 0 else None
    if float(m.amplitude[row]) == 0.0:
        return None
    return float(m.period[row])


def _keys_per_period(m: Motion) -> float:
    return 360.0 / SPIN_STEP if m.kind == "spin" else float(KEYS_PER_PERIOD)


def _horizon(rows: list[tuple[Motion, int, float]]) -> tuple[float, bool]:
    """(the clip's length, whether every motion loops seamlessly in it)."""
    periods = [p for _m, _r, p in rows]
    longest = max(periods)

    def keys(t: float) -> float:
        return sum(t / p * _keys_per_period(m) for m, _r, p in rows)

    for k in range(1, 100_000):
        t = longest * k
        if t > MAX_HORIZON or keys(t) > MAX_KEYS:
            break
        if all(abs(t / p - round(t / p)) <= 1e-9 * (t / p) for p in periods):
            return t, True
    return longest, len({round(p, 9) for p in periods}) == 1 or all(
        abs(longest / p - round(longest / p)) <= 1e-9 * (longest / p) for p in periods
    )


def motion_channels(motions: list[Motion]) -> tuple[list[KeyedChannel], float, list[str]]:
    """The channels of every motion row, the clip length and notes."""
    rows: list[tuple[Motion, int, float]] = []
    still: list[tuple[Motion, int]] = []
    for m in motions:
        for row in range(len(m)):
            period = _period(m, row)
            if period is None:
                still.append((m, row))
            else:
                rows.append((m, row, period))
    notes: list[str] = []
    horizon, seamless = _horizon(rows) if rows else (0.0, True)
    if not seamless:
        notes.append(
            f"the motions have no common period up to {MAX_HORIZON:g} s: the exported "
            f"animation lasts {horizon:g} s and the motions whose period does not "
            "divide it jump when it loops"
        )
    out = [_constant(m, row) for m, row in still]
    for m, row, period in rows:
        n = max(1, math.ceil(round(horizon / period * _keys_per_period(m), 6)))
        times = np.linspace(0.0, horizon, n + 1).astype(np.float32)
        t = times.astype(np.float64)
        if m.kind == "spin":
            q = _spin(m, row, t)
            out.append(
                KeyedChannel(int(m.ids[row]), "rotation", "LINEAR", times, q.astype(np.float32))
            )
            continue
        value, slope = _sampled(m, row, t)
        packed = np.stack([slope, value, slope], axis=1).reshape(-1, value.shape[1])
        out.append(
            KeyedChannel(
                int(m.ids[row]), _PATH[m.channel], "CUBICSPLINE", times, packed.astype(np.float32)
            )
        )
    return out, horizon, notes


def _constant(m: Motion, row: int) -> KeyedChannel:
    value = m.subset(np.arange(len(m)) == row).values(0.0)
    return KeyedChannel(
        int(m.ids[row]),
        _PATH[m.channel],
        "LINEAR",
        np.zeros(1, np.float32),
        value.astype(np.float32),
    )


def _spin(m: Motion, row: int, t: np.ndarray) -> np.ndarray:
    angle = float(m.speed[row]) * t + float(m.phase[row])
    turn = quat_from_axis_angle(np.broadcast_to(m.axis[row], (t.size, 3)), angle)
    return quat_multiply(np.broadcast_to(m.rest[row], (t.size, 4)), turn)


def _sampled(m: Motion, row: int, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The motion's values at times `t` and their time derivatives (per second)."""
    axis, rest = m.axis[row], m.rest[row]
    if m.kind == "orbit":
        angle = float(m.speed[row]) * t + float(m.phase[row])
        q = quat_from_axis_angle(np.broadcast_to(axis, (t.size, 3)), angle)
        value = quat_rotate(q, np.broadcast_to(rest, (t.size, 3)))
        omega = math.radians(float(m.speed[row])) * axis
        return value, np.cross(omega, value)
    w = 2.0 * math.pi / float(m.period[row])
    phase = w * t + math.radians(float(m.phase[row]))
    s, c = np.sin(phase), np.cos(phase)
    amp = float(m.amplitude[row])
    if m.kind == "oscillate":
        return rest + np.outer(amp * s, axis), np.outer(amp * w * c, axis)
    if m.kind == "pulse":
        return np.outer(1.0 + amp * s, rest), np.outer(amp * w * c, rest)
    # swing: rest ⊗ (axis sin(θ/2), cos(θ/2)), θ = amplitude·sin(phase) in radians
    theta = math.radians(amp) * s
    dtheta = math.radians(amp) * w * c
    half = theta / 2.0
    local = np.concatenate([np.outer(np.sin(half), axis), np.cos(half)[:, None]], axis=1)
    dlocal = np.concatenate([np.outer(np.cos(half), axis), -np.sin(half)[:, None]], axis=1)
    dlocal *= (dtheta / 2.0)[:, None]
    rest4 = np.broadcast_to(rest, (t.size, 4))
    return quat_multiply(rest4, local), quat_multiply(rest4, dlocal)
