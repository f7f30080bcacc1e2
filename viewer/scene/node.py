"""Node handles: a graph and a stable id, with the per-node API of Unity/Godot style.

A handle stores nothing else, so it stays valid while the graph re-orders its arrays,
and a handle to a removed node raises instead of reading someone else's data.
Matrices and vectors come back as read-only copies: they are current when read and do
not change under the caller's feet afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import validate
from .math import (
    decompose,
    look_rotation,
    quat_conjugate,
    quat_from_axis_angle,
    quat_multiply,
    quat_to_euler,
    quat_to_matrix3,
)

if TYPE_CHECKING:
    from .graph import SceneGraph

_NONE3 = np.empty((0, 3))
_NONE4 = np.empty((0, 4))
_NEAR_SINGULAR = "the parent's world matrix is too close to singular to solve for a finite value"


def _frozen(arr: np.ndarray) -> np.ndarray:
    out = np.array(arr, dtype=np.float64)
    out.flags.writeable = False
    return out


class Node:
    """Handle to one node of a :class:`SceneGraph`."""

    # A handle keeps the last world matrix and position it handed out, with the graph's
    # edit count at that moment: while nothing in the graph changed, a read returns the
    # same read-only (bytes-backed, so never writeable) array again (~0.1 us, not 0.5 us).
    __slots__ = ("_graph", "id", "_matrix", "_matrix_at", "_position", "_position_at")

    def __init__(self, graph: SceneGraph, node_id: int) -> None:
        self._graph = graph
        self.id = node_id
        self._matrix_at = self._position_at = -1

    def __repr__(self) -> str:
        return f"Node({self._graph.name_of(self.id)!r}, id={self.id})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other._graph is self._graph and other.id == self.id

    def __hash__(self) -> int:
        return hash((id(self._graph), self.id))

    def _i(self) -> int:
        return self._graph._live(self.id)

    # ------------------------------------------------------------------ structure
    @property
    def name(self) -> str:
        return self._graph.name_of(self.id)

    @property
    def alive(self) -> bool:
        """False once the node (or an ancestor) was removed."""
        return self._graph._is_alive(self.id)

    @property
    def parent(self) -> Node | None:
        p = self._graph._parent_id(self.id)
        return None if p < 0 else Node(self._graph, p)

    @property
    def children(self) -> list[Node]:
        """Direct children in attach order."""
        g = self._graph
        return [Node(g, c) for c in g._child_ids(self.id)]

    def set_parent(self, parent: Node | None, keep_world: bool = False) -> None:
        """See :meth:`SceneGraph.set_parent`."""
        self._graph.set_parent(self, parent, keep_world=keep_world)

    def detach_children(self) -> None:
        """See :meth:`SceneGraph.detach_children`."""
        self._graph.detach_children(self)

    def touch(self) -> None:
        """A change with no new value: marks this node and its subtree dirty."""
        self._graph.touch(self)

    # ------------------------------------------------------------------ local values
    def _set(
        self, pos: np.ndarray = _NONE3, rot: np.ndarray = _NONE4, scl: np.ndarray = _NONE3
    ) -> None:
        self._graph._write_locals(self.id, pos, rot, scl)

    @property
    def local_position(self) -> np.ndarray:
        return self._graph._local_copy(self.id, "position")

    @local_position.setter
    def local_position(self, value: object) -> None:
        self._graph._set_vector(self.id, value, "position", "local_position")

    @property
    def local_rotation(self) -> np.ndarray:
        """Unit quaternion ``(x, y, z, w)``."""
        return self._graph._local_copy(self.id, "rotation")

    @local_rotation.setter
    def local_rotation(self, value: object) -> None:
        self._graph._set_rotation(self.id, value)

    @property
    def local_euler(self) -> np.ndarray:
        """Degrees ``(rx, ry, rz)``, ``R = Rz · Ry · Rx``."""
        return _frozen(quat_to_euler(self._graph._local_values(self.id)[1]))

    @local_euler.setter
    def local_euler(self, value: object) -> None:
        self._graph._set_euler(self.id, value)

    @property
    def local_scale(self) -> np.ndarray:
        return self._graph._local_copy(self.id, "scale")

    @local_scale.setter
    def local_scale(self, value: object) -> None:
        self._graph._set_vector(self.id, value, "scale", "local_scale")

    @property
    def local_matrix(self) -> np.ndarray:
        """``(4, 4)`` ``T · R · S``, recomputed now if its values changed."""
        return _frozen(self._graph._local_matrix(self.id))

    # ------------------------------------------------------------------ world values
    @property
    def world_matrix(self) -> np.ndarray:
        """``(4, 4)`` parent world · local, current at the moment of the read."""
        g = self._graph
        if self._matrix_at != g._store.changes:
            self._matrix = g._world_copy(self.id)
            self._matrix_at = g._store.changes
        return self._matrix

    def _parent_world(self) -> np.ndarray:
        p = self._graph._parent_id(self.id)
        return np.eye(4) if p < 0 else self._graph._world_matrix(p)

    @property
    def world_position(self) -> np.ndarray:
        g = self._graph
        if self._position_at != g._store.changes:
            self._position = g._world_position_copy(self.id)
            self._position_at = g._store.changes
        return self._position

    @world_position.setter
    def world_position(self, value: object) -> None:
        p = validate.vector(value, 3, self.name, "world_position")
        with np.errstate(all="ignore"):  # a near-singular parent: checked just below
            inv = self._inverse(self._parent_world(), "world_position")
            local = inv[:3, :3] @ p + inv[:3, 3]
        local = validate.finite_result(local, self.name, "world_position", _NEAR_SINGULAR)
        self._set(pos=local[None])

    @property
    def world_rotation(self) -> np.ndarray:
        """Unit quaternion of the world matrix's rotation (nearest rotation under shear)."""
        return _frozen(decompose(self._graph._world_matrix(self.id))[1])

    @world_rotation.setter
    def world_rotation(self, value: object) -> None:
        q = validate.unit_quaternion(value, self.name, "world_rotation")
        with np.errstate(all="ignore"):  # a near-singular parent: checked just below
            parent_rot = decompose(self._parent_world())[1]
            local = quat_multiply(quat_conjugate(parent_rot), q)
            local = local / np.linalg.norm(local)
        local = validate.finite_result(local, self.name, "world_rotation", _NEAR_SINGULAR)
        self._set(rot=local[None])

    @property
    def lossy_scale(self) -> np.ndarray:
        """World scale per axis: exact without shear, an approximation with it."""
        return _frozen(decompose(self._graph._world_matrix(self.id))[2])

    @lossy_scale.setter
    def lossy_scale(self, value: object) -> None:
        s = validate.vector(value, 3, self.name, "lossy_scale")
        parent_scale = decompose(self._parent_world())[2]
        if (np.abs(parent_scale) < 1e-12).any():
            raise ValueError(
                f"node {self.name!r}, field 'lossy_scale': the parent's world scale "
                f"{parent_scale.tolist()!r} has a zero axis"
            )
        with np.errstate(all="ignore"):
            local = s / parent_scale
        local = validate.finite_result(local, self.name, "lossy_scale", _NEAR_SINGULAR)
        self._set(scl=local[None])

    def _inverse(self, m: np.ndarray, field: str) -> np.ndarray:
        try:
            return np.linalg.inv(m)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"node {self.name!r}, field {field!r}: the parent's world matrix is singular"
            ) from None

    # ------------------------------------------------------------------ helpers
    def transform_point(self, point: object) -> np.ndarray:
        """A point from this node's local space to world space."""
        p = validate.vector(point, 3, self.name, "point")
        w = self._graph._world_matrix(self.id)
        return w[:3, :3] @ p + w[:3, 3]

    def inverse_transform_point(self, point: object) -> np.ndarray:
        """A point from world space to this node's local space."""
        p = validate.vector(point, 3, self.name, "point")
        inv = self._inverse(self._graph._world_matrix(self.id), "point")
        return inv[:3, :3] @ p + inv[:3, 3]

    def transform_direction(self, direction: object) -> np.ndarray:
        """A direction from local to world space: rotated only, not scaled (as Unity)."""
        v = validate.vector(direction, 3, self.name, "direction")
        return quat_to_matrix3(decompose(self._graph._world_matrix(self.id))[1]) @ v

    def look_at(self, target: object, up: object = (0.0, 1.0, 0.0)) -> None:
        """Turn so the node's -Z axis points at the world point ``target`` (Godot's choice)
        with +Y toward ``up``."""
        t = validate.vector(target, 3, self.name, "target")
        u = validate.vector(up, 3, self.name, "up")
        here = self._graph._world_matrix(self.id)[:3, 3]
        self.world_rotation = look_rotation(t - here, u)

    def rotate(self, axis: object, degrees: float) -> None:
        """Rotate by ``degrees`` about ``axis`` given in the parent's space."""
        a = validate.vector(axis, 3, self.name, "axis")
        d = validate.vector([degrees], 1, self.name, "degrees")[0]
        q = quat_multiply(quat_from_axis_angle(a, d), self._graph._local_values(self.id)[1])
        q = validate.finite_result(
            q / np.linalg.norm(q), self.name, "rotation", "the angle overflows"
        )
        self._set(rot=q[None])

    def translate(self, offset: object) -> None:
        """Move by ``offset`` in the parent's space."""
        v = validate.vector(offset, 3, self.name, "offset")
        with np.errstate(over="ignore"):
            moved = self._graph._local_values(self.id)[0] + v
        moved = validate.finite_result(
            moved, self.name, "offset", "the new position would overflow to infinity"
        )
        self._set(pos=moved[None])
