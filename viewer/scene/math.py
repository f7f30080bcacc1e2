"""Transform maths for the core: quaternions, Euler angles, TRS matrices, decomposition,
and the world ray under a pixel (picking and the gizmo's drags share it).

Conventions (docs/conventions.md): column vectors, so a point maps as ``M @ [x, y, z, 1]``;
quaternions are ``(x, y, z, w)``; Euler angles are degrees ``(rx, ry, rz)`` meaning
``R = Rz · Ry · Rx`` about the parent's axes. Everything here is float64 numpy and works
on single values; the batched hot path lives in ``kernels.py``, and both compose
``T · R · S`` with the one formula of ``trs.py``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .trs import trs_into, trs_rows_into

_EPS = 1e-12
_HALF_DEGREE = math.pi / 360.0  # half an angle, in radians per degree
_ORIGIN = np.zeros(3)
_UNIT = np.ones(3)


def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a · b`` (apply ``b`` first, then ``a``); ``[..., 4]`` arrays."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ],
        axis=-1,
    )


def quat_conjugate(q: np.ndarray) -> np.ndarray:
    """The inverse of a unit quaternion."""
    return np.array([-q[0], -q[1], -q[2], q[3]])


def quat_from_axis_angle(axis: ArrayLike, degrees: float | np.ndarray) -> np.ndarray:
    """Rotations of ``degrees`` about ``axis`` (any non-zero length); ``axis [..., 3]`` and
    ``degrees [...]`` broadcast, giving ``[..., 4]``."""
    axis = np.asarray(axis, dtype=np.float64)
    n = np.linalg.norm(axis, axis=-1, keepdims=True)
    if not (n > _EPS).all():
        raise ValueError(f"rotation axis must be non-zero, got {axis.tolist()!r}")
    half = np.radians(np.asarray(degrees, dtype=np.float64)) / 2.0
    xyz = axis / n * np.sin(half)[..., None]
    return np.concatenate([xyz, np.cos(half)[..., None] * np.ones_like(n)], axis=-1)


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v [..., 3]`` by unit quaternions ``q [..., 4]``."""
    q, v = np.asarray(q, dtype=np.float64), np.asarray(v, dtype=np.float64)
    u, w = q[..., :3], q[..., 3:4]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def quat_from_euler(euler_deg: np.ndarray) -> np.ndarray:
    """Quaternion of ``R = Rz · Ry · Rx`` for Euler angles in degrees."""
    return np.array(quat_from_euler_floats(*np.asarray(euler_deg, dtype=np.float64).tolist()))


def quat_from_euler_floats(rx: float, ry: float, rz: float) -> tuple[float, float, float, float]:
    """``quat_from_euler`` on three floats, in plain Python: the per-node setter's path
    (a numpy call per value costs more than the whole formula). The shared products are
    formed once, in the order the full products would group them."""
    hx, hy, hz = rx * _HALF_DEGREE, ry * _HALF_DEGREE, rz * _HALF_DEGREE
    cx, sx = math.cos(hx), math.sin(hx)
    cy, sy = math.cos(hy), math.sin(hy)
    cz, sz = math.cos(hz), math.sin(hz)
    cxcy, sxsy, sxcy, cxsy = cx * cy, sx * sy, sx * cy, cx * sy
    # qz · qy · qx written out.
    return (
        sxcy * cz - cxsy * sz,
        cxsy * cz + sxcy * sz,
        cxcy * sz - sxsy * cz,
        cxcy * cz + sxsy * sz,
    )


def quat_to_matrix3(q: np.ndarray) -> np.ndarray:
    """3x3 rotation matrix of a unit quaternion."""
    return trs_matrix(_ORIGIN, q, _UNIT)[:3, :3]


def matrix3_to_quat(m: np.ndarray) -> np.ndarray:
    """Unit quaternion of a proper rotation matrix (Shepperd's method, stable everywhere)."""
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 2.0 * np.sqrt(trace + 1.0)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4, (m[1, 0] - m[0, 1]) / s]
    quat = np.array(q)
    return quat / np.linalg.norm(quat)


#: Below this cosine of the pitch (about the square root of the rounding unit), a rotation
#: reads as gimbal-locked (pitch ±90, rx 0): there rx and rz, each known only to about
#: rounding / cosine, stop being told apart, and either reading is off by a few 1e-8 at most
#: (snapping at a sine of 1 - 1e-12 was off by up to 1.4e-6).
GIMBAL_COS = 1.5e-8


def quat_to_euler(q: np.ndarray) -> np.ndarray:
    """Euler degrees ``(rx, ry, rz)`` with ``R = Rz · Ry · Rx``; at gimbal lock rx is 0.

    The pitch comes from ``atan2(sin, cos)``, exact to rounding at every angle (an arcsine
    loses half the digits near ±90); only where its cosine is below `GIMBAL_COS`, where rx
    and rz can no longer be told apart, is the rotation read as locked."""
    m = quat_to_matrix3(q)
    sy, cy = -m[2, 0], float(np.hypot(m[0, 0], m[1, 0]))
    if cy >= GIMBAL_COS:
        rx = np.arctan2(m[2, 1], m[2, 2])
        ry = np.arctan2(sy, cy)
        rz = np.arctan2(m[1, 0], m[0, 0])
    else:
        rx = 0.0
        ry = np.copysign(np.pi / 2, sy)
        rz = np.arctan2(-m[0, 1], m[1, 1])
    return np.degrees(np.array([rx, ry, rz]))


def quats_to_eulers(q: np.ndarray) -> np.ndarray:
    """`quat_to_euler` on rows: (k, 4) unit quaternions -> (k, 3) degrees, the same
    formulas (gimbal lock: rx is 0), for writing many nodes at once."""
    x, y, z, w = np.asarray(q, dtype=np.float64).T
    m00, m11, m22 = 1 - 2 * (y * y + z * z), 1 - 2 * (x * x + z * z), 1 - 2 * (x * x + y * y)
    m01, m10 = 2 * (x * y - z * w), 2 * (x * y + z * w)
    m20, m21 = 2 * (x * z - y * w), 2 * (y * z + x * w)
    sy, cy = -m20, np.hypot(m00, m10)
    free = cy >= GIMBAL_COS
    rx = np.where(free, np.arctan2(m21, m22), 0.0)
    ry = np.where(free, np.arctan2(sy, cy), np.copysign(np.pi / 2, sy))
    rz = np.where(free, np.arctan2(m10, m00), np.arctan2(-m01, m11))
    return np.degrees(np.stack([rx, ry, rz], axis=1))


def quats_from_eulers(euler: np.ndarray) -> np.ndarray:
    """`quat_from_euler` on rows: (k, 3) degrees -> (k, 4), the same products."""
    h = np.radians(np.asarray(euler, dtype=np.float64)) / 2.0
    cx, cy, cz = np.cos(h).T
    sx, sy, sz = np.sin(h).T
    cxcy, sxsy, sxcy, cxsy = cx * cy, sx * sy, sx * cy, cx * sy
    return np.stack(
        [
            sxcy * cz - cxsy * sz,
            cxsy * cz + sxcy * sz,
            cxcy * sz - sxsy * cz,
            cxcy * cz + sxsy * sz,
        ],
        axis=1,
    )


def trs_matrix(position: np.ndarray, rotation: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``T · R · S`` (docs/semantics.md section 1), by the kernels' own composition."""
    out = np.empty((1, 16))
    trs_into(_row(position, 3), _row(rotation, 4), _row(scale, 3), out)
    return out.reshape(4, 4)


def trs_matrices(positions: np.ndarray, rotations: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """(N, 4, 4) matrices ``T · R · S`` from (N, 3) positions, (N, 4) unit quaternions and
    (N, 3) scales, by the same formula as `trs_matrix` (glTF instancing uses it)."""
    pos, rot, scl = (
        np.ascontiguousarray(a, dtype=np.float64) for a in (positions, rotations, scales)
    )
    out = np.empty((len(pos), 16))
    trs_rows_into(pos, rot, scl, out)
    return out.reshape(-1, 4, 4)


def _row(values: object, n: int) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64).reshape(1, n)


def nearest_rotation(m: np.ndarray) -> np.ndarray:
    """The proper rotation closest to ``m`` (polar decomposition through the SVD)."""
    u, _, vt = np.linalg.svd(m)
    if np.linalg.det(u @ vt) < 0:
        u[:, 2] = -u[:, 2]
    return u @ vt


def decompose(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split an affine matrix into position, unit quaternion and scale.

    Exact for any ``T · R · S`` (negative scales included: a mirror goes on the x scale).
    With shear, which TRS cannot hold, the rotation is the nearest proper rotation to the
    scale-normalised columns and the scale is the column lengths: the lossy answer Unity
    also gives.
    """
    a = np.asarray(matrix, dtype=np.float64)[:3, :3]
    scale = np.linalg.norm(a, axis=0)
    if np.linalg.det(a) < 0:
        scale[0] = -scale[0]
    cols = np.zeros((3, 3))
    ok = np.abs(scale) > _EPS
    cols[:, ok] = a[:, ok] / scale[ok]
    if not ok.all():
        cols = _complete_basis(cols, ok)
    rot = cols if _is_rotation(cols) else nearest_rotation(cols)
    return np.array(matrix[:3, 3], dtype=np.float64), matrix3_to_quat(rot), scale


def _is_rotation(m: np.ndarray) -> bool:
    return bool(np.allclose(m.T @ m, np.eye(3), atol=1e-12) and np.linalg.det(m) > 0)


def _complete_basis(cols: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Fill the columns of zero-scale axes so the rotation stays defined."""
    known = [i for i in range(3) if ok[i]]
    if not known:
        return np.eye(3)
    if len(known) == 1:
        a = cols[:, known[0]]
        helper = np.eye(3)[int(np.argmin(np.abs(a)))]
        b = np.cross(a, helper)
        b /= np.linalg.norm(b)
        i = known[0]
        cols[:, (i + 1) % 3] = b
        cols[:, (i + 2) % 3] = np.cross(a, b)
        return cols
    missing = 3 - sum(known)  # indices 0+1+2 = 3
    j, k = (missing + 1) % 3, (missing + 2) % 3
    cols[:, missing] = np.cross(cols[:, j], cols[:, k])
    return cols


def look_rotation(forward: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Quaternion that turns -Z toward ``forward`` and +Y as close to ``up`` as possible."""
    f = np.asarray(forward, dtype=np.float64)
    n = np.linalg.norm(f)
    if not n > _EPS:
        raise ValueError("look_at: the target is at the node's own position")
    z = -f / n
    x = np.cross(np.asarray(up, dtype=np.float64), z)
    if np.linalg.norm(x) < 1e-9:  # up parallel to the view direction: pick another up
        alt = np.array([0.0, 0.0, 1.0]) if abs(z[1]) > 0.9 else np.array([0.0, 1.0, 0.0])
        x = np.cross(alt, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return matrix3_to_quat(np.column_stack([x, y, z]))


def from_pyrr(matrix: np.ndarray) -> np.ndarray:
    """A pyrr matrix in our column-vector layout: pyrr multiplies row vectors,
    ``p' = p @ M`` (translation in row 3), so the same transform is the transpose. The
    one place that conversion is written (docs/conventions.md)."""
    return np.ascontiguousarray(np.asarray(matrix, dtype=np.float64).T)


def pixel_ray(view_proj: np.ndarray, size, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    """The world ray under window pixel (x, y) (top-left origin) of an image of ``size``
    drawn with ``view_proj``: a point on the near plane and a unit direction away from
    the camera. Perspective and orthographic alike (the inverse of projecting)."""
    ndc = np.array([2.0 * x / size[0] - 1.0, 1.0 - 2.0 * y / size[1]])
    inverse = np.linalg.inv(np.asarray(view_proj, dtype=np.float64))
    near, far = (inverse @ np.array([ndc[0], ndc[1], z, 1.0]) for z in (-1.0, 1.0))
    near, far = near[:3] / near[3], far[:3] / far[3]
    direction = far - near
    return near, direction / np.linalg.norm(direction)
