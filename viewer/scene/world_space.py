"""World-space maths of the node handles: pure functions on arrays.

Why apart from ``node.py``: a handle's job is reading and writing its node's values
through the storage; solving a world-space value for the local one (through the parent's
world matrix) and the relative moves (rotate, translate, look at, along an axis) are
maths on top of that, the way pylinalg serves pygfx. Each function takes matrices,
quaternions and vectors (inputs already checked by the caller), returns the new local
value and changes nothing. They know no node: a result that cannot be finite (a
near-singular parent, an overflow) is a `FieldError` naming the field and why, which the
handle turns into the setters' one-line error naming its node.
"""

from __future__ import annotations

import numpy as np

from .math import (
    decompose,
    quat_conjugate,
    quat_from_axis_angle,
    quat_multiply,
    quat_rotate,
    quat_to_matrix3,
    trs_matrix,
)


class FieldError(ValueError):
    """A world-space value that cannot be solved: the field it was for and why."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(f"field {field!r}: {why}")
        self.field, self.why = field, why


def _finite(arr: np.ndarray, field: str, why: str) -> np.ndarray:
    """``arr`` when every value is finite; else a `FieldError` saying `why` it is not."""
    if not np.isfinite(arr).all():
        raise FieldError(field, why)
    return arr


_NEAR_SINGULAR = "the parent's world matrix is too close to singular to solve for a finite value"
_OVERFLOW = "the new position would overflow to infinity"


def inverse(m: np.ndarray, field: str) -> np.ndarray:
    """``m⁻¹``, or a `FieldError` for ``field`` when the matrix is singular."""
    try:
        return np.linalg.inv(m)
    except np.linalg.LinAlgError:
        raise FieldError(field, "the parent's world matrix is singular") from None


def local_position(parent_world: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The local position that puts a node at the world ``position``."""
    with np.errstate(all="ignore"):  # a near-singular parent: checked just below
        inv = inverse(parent_world, "world_position")
        local = inv[:3, :3] @ position + inv[:3, 3]
    return _finite(local, "world_position", _NEAR_SINGULAR)


def local_rotation(parent_world: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """The local unit quaternion that gives a node the world ``rotation``."""
    with np.errstate(all="ignore"):  # a near-singular parent: checked just below
        parent_rot = decompose(parent_world)[1]
        local = quat_multiply(quat_conjugate(parent_rot), rotation)
        local = local / np.linalg.norm(local)
    return _finite(local, "world_rotation", _NEAR_SINGULAR)


def local_scale(parent_world: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The local scale that gives a node the world (lossy) ``scale``."""
    parent_scale = decompose(parent_world)[2]
    if (np.abs(parent_scale) < 1e-12).any():
        raise FieldError(
            "lossy_scale", f"the parent's world scale {parent_scale.tolist()!r} has a zero axis"
        )
    with np.errstate(all="ignore"):
        local = scale / parent_scale
    return _finite(local, "lossy_scale", _NEAR_SINGULAR)


def reparented_locals(
    parent_world: np.ndarray, world: np.ndarray
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], float]:
    """The local values that keep a node at ``world`` under a parent at ``parent_world``
    (non-singular), and how far they miss: ``((pos, rot, scale), residual)``.

    The needed local matrix is ``parent⁻¹ · world``; its position is kept exactly, its
    rotation and scale are what `decompose` reads from it (exact for any ``T·R·S``; with
    shear, the nearest rotation and the column lengths). ``residual`` is the largest
    change, entry by entry, of the 3x4 world matrix those values give, relative to the
    largest entry of the old one's 3x3 part: 0 up to rounding when the local matrix has
    no shear, that is when TRS can keep the world pose at all.
    """
    with np.errstate(all="ignore"):  # a near-singular parent: the caller checked it
        values = decompose(np.linalg.solve(parent_world, world))
        after = parent_world @ trs_matrix(*values)
        size = max(float(np.abs(world[:3, :3]).max()), 1e-300)
        residual = float(np.abs(after[:3, :3] - world[:3, :3]).max()) / size
    return values, residual


def transform_point(world: np.ndarray, point: np.ndarray) -> np.ndarray:
    """A point from a node's local space to world space."""
    return world[:3, :3] @ point + world[:3, 3]


def inverse_transform_point(world: np.ndarray, point: np.ndarray) -> np.ndarray:
    """A point from world space to a node's local space."""
    inv = inverse(world, "point")
    return inv[:3, :3] @ point + inv[:3, 3]


def transform_direction(world: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """A direction from local to world space: rotated only, not scaled (as Unity)."""
    return quat_to_matrix3(decompose(world)[1]) @ direction


def rotated(rotation: np.ndarray, axis: np.ndarray, degrees: float) -> np.ndarray:
    """``rotation`` turned by ``degrees`` about ``axis`` given in the parent's space."""
    q = quat_multiply(quat_from_axis_angle(axis, degrees), rotation)
    return _finite(q / np.linalg.norm(q), "rotation", "the angle overflows")


def translated(position: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """``position`` moved by ``offset`` in the parent's space."""
    with np.errstate(over="ignore"):
        moved = position + offset
    return _finite(moved, "offset", _OVERFLOW)


def translated_on_axis(
    position: np.ndarray, rotation: np.ndarray, axis: np.ndarray, distance: float
) -> np.ndarray:
    """``position`` moved by ``distance`` along the unit ``axis`` of the node's own
    (rotated, not scaled) frame."""
    with np.errstate(over="ignore"):
        moved = position + quat_rotate(rotation, axis) * distance
    return _finite(moved, "distance", _OVERFLOW)


def rotated_on_axis(rotation: np.ndarray, axis: np.ndarray, degrees: float) -> np.ndarray:
    """``rotation`` turned by ``degrees`` about the unit ``axis`` of the node's own frame."""
    q = quat_multiply(rotation, quat_from_axis_angle(axis, degrees))
    return q / np.linalg.norm(q)


def rotated_on_world_axis(
    parent_world: np.ndarray, rotation: np.ndarray, axis: np.ndarray, degrees: float
) -> np.ndarray:
    """``rotation`` turned by ``degrees`` about the unit world ``axis`` (through the
    node's origin): ``parent⁻¹ · turn · parent · local`` with the parent's rotation."""
    parent_rot = decompose(parent_world)[1]
    turn = quat_multiply(quat_conjugate(parent_rot), quat_from_axis_angle(axis, degrees))
    turn = quat_multiply(turn, parent_rot)
    q = quat_multiply(turn, rotation)
    return q / np.linalg.norm(q)


def unit_axis(axis: np.ndarray) -> np.ndarray:
    """``axis`` (three finite numbers) normalised, or a `FieldError` for a zero one."""
    n = float(np.linalg.norm(axis))
    if not n > 1e-12:
        raise FieldError("axis", "expected a non-zero axis")
    return axis / n
