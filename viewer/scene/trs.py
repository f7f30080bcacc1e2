"""The one place the core turns translation, quaternion and scale into a matrix.

``trs_columns`` gives the 3x3 block of ``R · S`` and ``store_world`` multiplies a parent's
world matrix by an affine local matrix given as scalars. Both are inlined by numba into
the kernels (``kernels.py``), which keep the local matrix in registers in the hot loop,
and ``trs_into`` / ``trs_rows_into`` wrap them for the maths of ``math.py``. Matrices are flat
``(16,)`` row-major rows, as the storage keeps them (docs/conventions.md).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def trs_columns(x, y, z, w, sx, sy, sz):
    """``R(x, y, z, w) · diag(sx, sy, sz)`` for a unit quaternion, as nine scalars,
    row-major: ``(m00, m01, m02, m10, m11, m12, m20, m21, m22)``."""
    x2, y2, z2 = x + x, y + y, z + z
    xx, yy, zz = x * x2, y * y2, z * z2
    xy, xz, yz = x * y2, x * z2, y * z2
    wx, wy, wz = w * x2, w * y2, w * z2
    return (
        (1.0 - yy - zz) * sx,
        (xy - wz) * sy,
        (xz + wy) * sz,
        (xy + wz) * sx,
        (1.0 - xx - zz) * sy,
        (yz - wx) * sz,
        (xz - wy) * sx,
        (yz + wx) * sy,
        (1.0 - xx - yy) * sz,
    )


@njit(cache=True, inline="always")
def trs_row(i, pos, rot, scl):
    """Node ``i``'s local matrix ``T · R · S`` as the twelve scalars of its top three rows."""
    m = trs_columns(rot[i, 0], rot[i, 1], rot[i, 2], rot[i, 3], scl[i, 0], scl[i, 1], scl[i, 2])
    # fmt: off
    return (m[0], m[1], m[2], pos[i, 0],
            m[3], m[4], m[5], pos[i, 1],
            m[6], m[7], m[8], pos[i, 2])
    # fmt: on


@njit(cache=True, inline="always")
def store_world(i, p, m, world):
    """``world[i] = world[p] · m`` (``m``: twelve scalars of an affine matrix's top rows),
    or ``m`` itself for a root (``p < 0``). Row 3 is (0, 0, 0, 1) from allocation on, so
    it is never written."""
    if p < 0:
        for k in range(12):
            world[i, k] = m[k]
        return
    for r in range(0, 12, 4):
        a0, a1, a2, a3 = world[p, r], world[p, r + 1], world[p, r + 2], world[p, r + 3]
        world[i, r] = a0 * m[0] + a1 * m[4] + a2 * m[8]
        world[i, r + 1] = a0 * m[1] + a1 * m[5] + a2 * m[9]
        world[i, r + 2] = a0 * m[2] + a1 * m[6] + a2 * m[10]
        world[i, r + 3] = a0 * m[3] + a1 * m[7] + a2 * m[11] + a3


@njit(cache=True)
def trs_into(pos, rot, scl, out):
    """``out[0] = T · R · S`` as a flat ``(1, 16)`` row (the single-value form)."""
    m = trs_row(0, pos, rot, scl)
    for k in range(12):
        out[0, k] = m[k]
    out[0, 12], out[0, 13], out[0, 14], out[0, 15] = 0.0, 0.0, 0.0, 1.0


@njit(cache=True)
def trs_rows_into(pos, rot, scl, out):
    """``out[i] = T_i · R_i · S_i`` as flat ``(16,)`` rows, for every row of the inputs."""
    for i in range(pos.shape[0]):
        m = trs_row(i, pos, rot, scl)
        for k in range(12):
            out[i, k] = m[k]
        out[i, 12], out[i, 13], out[i, 14], out[i, 15] = 0.0, 0.0, 0.0, 1.0
