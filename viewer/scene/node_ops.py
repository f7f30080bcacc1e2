"""The arithmetic behind ``Node``'s world-space setters and its moves.

Why apart from ``node.py``: a handle's own job is reading and writing its node's values
through the graph; solving a world-space value for the local one (through the parent's
world matrix) and the relative moves (rotate, translate, look at, along an axis) are
maths on top of that. Each function takes the handle, checks its input (errors name the
node and the field, as the setters' do) and writes the new local values through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..text import quoted
from . import validate
from .math import (
    decompose,
    look_rotation,
    quat_conjugate,
    quat_from_axis_angle,
    quat_multiply,
    quat_rotate,
    quat_to_matrix3,
)

if TYPE_CHECKING:
    from .node import Node

_NEAR_SINGULAR = "the parent's world matrix is too close to singular to solve for a finite value"
_OVERFLOW = "the new position would overflow to infinity"


def parent_world(node: Node) -> np.ndarray:
    """The parent's current world matrix (identity for a root)."""
    g = node._graph
    p = g._parent_id(node.id)
    return np.eye(4) if p < 0 else g._world_matrix(p)


def inverse(node: Node, m: np.ndarray, field: str) -> np.ndarray:
    """``m⁻¹``, or a ValueError naming ``field`` when the parent's world is singular."""
    try:
        return np.linalg.inv(m)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"node {node.name!r}, field {field!r}: the parent's world matrix is singular"
        ) from None


def set_world_position(node: Node, value: object) -> None:
    p = validate.spatial(value, 0.0, node.name, "world_position")
    with np.errstate(all="ignore"):  # a near-singular parent: checked just below
        inv = inverse(node, parent_world(node), "world_position")
        local = inv[:3, :3] @ p + inv[:3, 3]
    local = validate.finite_result(local, node.name, "world_position", _NEAR_SINGULAR)
    node._set(pos=local[None])


def set_world_rotation(node: Node, value: object) -> None:
    q = validate.unit_quaternion(value, node.name, "world_rotation")
    with np.errstate(all="ignore"):  # a near-singular parent: checked just below
        parent_rot = decompose(parent_world(node))[1]
        local = quat_multiply(quat_conjugate(parent_rot), q)
        local = local / np.linalg.norm(local)
    local = validate.finite_result(local, node.name, "world_rotation", _NEAR_SINGULAR)
    node._set(rot=local[None])


def set_lossy_scale(node: Node, value: object) -> None:
    s = validate.vector(value, 3, node.name, "lossy_scale")
    parent_scale = decompose(parent_world(node))[2]
    if (np.abs(parent_scale) < 1e-12).any():
        raise ValueError(
            f"node {node.name!r}, field 'lossy_scale': the parent's world scale "
            f"{parent_scale.tolist()!r} has a zero axis"
        )
    with np.errstate(all="ignore"):
        local = s / parent_scale
    local = validate.finite_result(local, node.name, "lossy_scale", _NEAR_SINGULAR)
    node._set(scl=local[None])


def transform_point(node: Node, point: object) -> np.ndarray:
    p = validate.vector(point, 3, node.name, "point")
    w = node._graph._world_matrix(node.id)
    return w[:3, :3] @ p + w[:3, 3]


def inverse_transform_point(node: Node, point: object) -> np.ndarray:
    p = validate.vector(point, 3, node.name, "point")
    inv = inverse(node, node._graph._world_matrix(node.id), "point")
    return inv[:3, :3] @ p + inv[:3, 3]


def transform_direction(node: Node, direction: object) -> np.ndarray:
    v = validate.vector(direction, 3, node.name, "direction")
    return quat_to_matrix3(decompose(node._graph._world_matrix(node.id))[1]) @ v


def look_at(node: Node, target: object, up: object) -> None:
    t = validate.vector(target, 3, node.name, "target")
    u = validate.vector(up, 3, node.name, "up")
    here = node._graph._world_matrix(node.id)[:3, 3]
    node.world_rotation = look_rotation(t - here, u)


def rotate(node: Node, axis: object, degrees: float) -> None:
    a = validate.vector(axis, 3, node.name, "axis")
    d = validate.vector([degrees], 1, node.name, "degrees")[0]
    q = quat_multiply(quat_from_axis_angle(a, d), node._graph._local_values(node.id)[1])
    q = validate.finite_result(q / np.linalg.norm(q), node.name, "rotation", "the angle overflows")
    node._set(rot=q[None])


def translate(node: Node, offset: object) -> None:
    v = validate.vector(offset, 3, node.name, "offset")
    with np.errstate(over="ignore"):
        moved = node._graph._local_values(node.id)[0] + v
    node._set(pos=validate.finite_result(moved, node.name, "offset", _OVERFLOW)[None])


def translate_on_axis(node: Node, axis: object, distance: float) -> None:
    a = unit_axis(node, axis)
    d = validate.vector([distance], 1, node.name, "distance")[0]
    pos, rot, _ = node._graph._local_values(node.id)
    with np.errstate(over="ignore"):
        moved = pos + quat_rotate(rot, a) * d
    node._set(pos=validate.finite_result(moved, node.name, "distance", _OVERFLOW)[None])


def rotate_on_axis(node: Node, axis: object, degrees: float) -> None:
    a = unit_axis(node, axis)
    d = validate.vector([degrees], 1, node.name, "degrees")[0]
    q = quat_multiply(node._graph._local_values(node.id)[1], quat_from_axis_angle(a, d))
    node._set(rot=(q / np.linalg.norm(q))[None])


def rotate_on_world_axis(node: Node, axis: object, degrees: float) -> None:
    a = unit_axis(node, axis)
    d = validate.vector([degrees], 1, node.name, "degrees")[0]
    parent_rot = decompose(parent_world(node))[1]
    turn = quat_multiply(quat_conjugate(parent_rot), quat_from_axis_angle(a, d))
    turn = quat_multiply(turn, parent_rot)
    q = quat_multiply(turn, node._graph._local_values(node.id)[1])
    node._set(rot=(q / np.linalg.norm(q))[None])


def unit_axis(node: Node, axis: object) -> np.ndarray:
    """``axis`` normalised, or a ValueError for a zero one."""
    a = validate.vector(axis, 3, node.name, "axis")
    n = float(np.linalg.norm(a))
    if not n > 1e-12:
        raise ValueError(f"node {quoted(node.name)}, field 'axis': expected a non-zero axis")
    return a / n
