"""Keyframe sampling as the glTF 2.0 specification defines it (no GL, no scene).

A sampler is a non-decreasing array of key times (two equal times make a jump: the
segment before ends at the first of them, the one after starts at the last) and one
value per key (for ``CUBICSPLINE``: an in-tangent, a value and an out-tangent per key).
At time ``t``:

- before the first key or after the last, the first or last value (times are clamped);
- ``STEP``: the value of the last key at or before ``t``;
- ``LINEAR``: straight-line interpolation between the two keys around ``t``; for
  rotations, spherical linear interpolation of the unit quaternions along the shorter arc
  (the second key is negated when the two point into opposite half-spaces);
- ``CUBICSPLINE``: the cubic Hermite spline through the two values whose tangents are the
  first key's out-tangent and the second key's in-tangent, each multiplied by the interval
  between the keys; rotations are normalised afterwards.
"""

from __future__ import annotations

import numpy as np

__all__ = ["INTERPOLATIONS", "sample", "slerp"]

INTERPOLATIONS = ("STEP", "LINEAR", "CUBICSPLINE")


def slerp(a: np.ndarray, b: np.ndarray, s: float) -> np.ndarray:
    """The unit quaternion a fraction `s` of the way from `a` to `b`, along the shorter arc."""
    a = a / np.linalg.norm(a)
    b = b / np.linalg.norm(b)
    cos = float(np.dot(a, b))
    if cos < 0.0:  # q and -q are the same rotation: take the nearer of the two
        b, cos = -b, -cos
    cos = min(cos, 1.0)
    angle = float(np.arccos(cos))
    sin = np.sin(angle)
    if sin < 1e-9:  # (nearly) the same rotation: the straight line is exact to 1e-18
        out = (1.0 - s) * a + s * b
    else:
        out = (np.sin((1.0 - s) * angle) * a + np.sin(s * angle) * b) / sin
    return out / np.linalg.norm(out)


def sample(
    times: np.ndarray, values: np.ndarray, interpolation: str, t: float, *, rotation: bool = False
) -> np.ndarray:
    """The sampler's value at time `t`.

    Parameters
    ----------
    times : ndarray, (k,) float64
        Key times, non-decreasing.
    values : ndarray
        (k, width) for STEP and LINEAR; (k, 3, width) for CUBICSPLINE (in-tangent, value,
        out-tangent of each key).
    interpolation : str
        "STEP", "LINEAR" or "CUBICSPLINE".
    t : float
        The time in seconds.
    rotation : bool, keyword-only
        The values are quaternions (x, y, z, w): slerp for LINEAR, normalised results.
    """
    cubic = interpolation == "CUBICSPLINE"
    points = values[:, 1] if cubic else values
    last = len(times) - 1
    if t <= times[0] or last == 0:
        return _finish(points[0], rotation)
    if t >= times[last]:
        return _finish(points[last], rotation)
    k = int(np.searchsorted(times, t, side="right")) - 1  # times[k] <= t < times[k + 1]
    if interpolation == "STEP":
        return _finish(points[k], rotation)
    dt = times[k + 1] - times[k]
    s = (t - times[k]) / dt
    if not cubic:
        if rotation:
            return slerp(points[k], points[k + 1], s)
        return (1.0 - s) * points[k] + s * points[k + 1]
    s2, s3 = s * s, s * s * s
    out = (
        (2 * s3 - 3 * s2 + 1) * values[k, 1]
        + dt * (s3 - 2 * s2 + s) * values[k, 2]
        + (-2 * s3 + 3 * s2) * values[k + 1, 1]
        + dt * (s3 - s2) * values[k + 1, 0]
    )
    return _finish(out, rotation)


def _finish(value: np.ndarray, rotation: bool) -> np.ndarray:
    if not rotation:
        return np.array(value, dtype=np.float64)
    norm = float(np.linalg.norm(value))
    if not norm > 1e-12:  # a spline can pass through zero: keep the identity, never NaN
        return np.array([0.0, 0.0, 0.0, 1.0])
    return np.asarray(value, dtype=np.float64) / norm
