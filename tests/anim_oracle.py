"""An independent reading of the glTF 2.0 sampler rules, for tests (not the viewer's code).

Written from the specification's text, in a different form from viewer/animation: keys
found by a linear scan, the shortest-path slerp as a quaternion power
``a * (a^-1 * b)^s``, and the cubic Hermite spline from its basis matrix.
"""

from __future__ import annotations

import math

import numpy as np

HERMITE = np.array(  # rows: the weights of p0, m0, p1, m1 for 1, s, s^2, s^3
    [[1, 0, 0, 0], [0, 1, 0, 0], [-3, -2, 3, -1], [2, 1, -2, 1]], dtype=float
)


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ])  # fmt: skip


def qpow(q, s):
    """A unit quaternion raised to a real power: the rotation angle times s."""
    v = np.asarray(q[:3], dtype=float)
    w = float(np.clip(q[3], -1.0, 1.0))
    half = math.atan2(np.linalg.norm(v), w)
    if np.linalg.norm(v) < 1e-15:
        return np.array([0.0, 0.0, 0.0, 1.0])
    axis = v / np.linalg.norm(v)
    return np.array([*(axis * math.sin(half * s)), math.cos(half * s)])


def oracle_slerp(a, b, s):
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    if np.dot(a, b) < 0:
        b = -b
    inverse = np.array([-a[0], -a[1], -a[2], a[3]])
    out = qmul(a, qpow(qmul(inverse, b), s))
    return out / np.linalg.norm(out)


def oracle_sample(times, keys, interpolation, t, rotation=False):
    """`keys`: one value per key, or (in, value, out) triples for CUBICSPLINE."""
    times = [float(x) for x in times]
    cubic = interpolation == "CUBICSPLINE"
    value = [np.asarray(k[1] if cubic else k, float) for k in keys]

    def done(v):
        v = np.asarray(v, float)
        return v / np.linalg.norm(v) if rotation else v

    if t <= times[0]:
        return done(value[0])
    if t >= times[-1]:
        return done(value[-1])
    k = 0
    while not (times[k] <= t < times[k + 1]):
        k += 1
    if interpolation == "STEP":
        return done(value[k])
    dt = times[k + 1] - times[k]
    s = (t - times[k]) / dt
    if interpolation == "LINEAR":
        if rotation:
            return oracle_slerp(value[k], value[k + 1], s)
        return value[k] + s * (value[k + 1] - value[k])
    p0, m0 = value[k], dt * np.asarray(keys[k][2], float)
    p1, m1 = value[k + 1], dt * np.asarray(keys[k + 1][0], float)
    basis = np.array([1.0, s, s * s, s**3]) @ HERMITE
    return done(basis[0] * p0 + basis[1] * m0 + basis[2] * p1 + basis[3] * m1)


def f32(values):
    """The values as the file stores them (float32), back in float64."""
    return np.asarray(np.asarray(values, dtype=np.float32), dtype=np.float64)
