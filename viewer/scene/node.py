"""Node handles: a graph and a stable id, with the per-node API of Unity/Godot style.

A handle refers to its node by id only, so it stays valid while the graph re-orders its
arrays, and a handle to a removed node raises instead of reading someone else's data.
Matrices and vectors come back as read-only copies: they are current when read and do
not change under the caller's feet afterwards. The maths of the world-space setters and
of the moves (rotate, translate, look at, ...) is in ``node_ops.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from . import node_ops, validate
from .flags import EXEC, LOCAL, WORLD
from .math import (
    decompose,
    quat_from_axis_angle,
    quat_from_euler,
    quat_to_euler,
    trs_matrix,
)

if TYPE_CHECKING:
    from .graph import SceneGraph

_NONE3 = np.empty((0, 3))
_NONE4 = np.empty((0, 4))
_SAME = object()  # clone(): "under the original's parent"


class DirtyFlags(NamedTuple):
    """A node's three flags (docs/dirty-propagation.md): ``local`` (update_local: its
    local matrix is behind its values), ``world`` (update_world: its world matrix is
    behind) and ``execute`` (its world matrix goes to the renderer at ``update()``)."""

    local: bool
    world: bool
    execute: bool


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

    @property
    def dirty(self) -> DirtyFlags:
        """The node's flags now: ``(local, world, execute)``; all False after update()."""
        f = self._graph._flags_of(self.id)
        return DirtyFlags(bool(f & LOCAL), bool(f & WORLD), bool(f & EXEC))

    def traverse(self) -> Iterator[Node]:
        """This node, then its descendants, in pre-order (children in attach order)."""
        g = self._graph
        return (Node(g, j) for j in g._subtree_ids(self.id))

    def descendants(self) -> list[Node]:
        """Every node below this one, in pre-order."""
        g = self._graph
        return [Node(g, j) for j in g._subtree_ids(self.id)[1:]]

    def ancestors(self) -> list[Node]:
        """The parent, its parent, … up to the root."""
        g = self._graph
        out = []
        p = g._parent_id(self.id)
        while p >= 0:
            out.append(Node(g, p))
            p = g._parent_id(p)
        return out

    def clone(self, parent: Node | None | object = _SAME, name: str | None = None) -> Node:
        """Copy this node and its subtree (local values and structure) and return the
        copy's root: under ``parent`` (default: this node's parent; None: a root), last
        among its siblings. Every copied node is named with the first suffix of
        ``_copy``, ``_copy2``, … that is free for all of them (``Obj2`` becomes
        ``Obj2_copy``); ``name`` names the copy's root instead. The copies are new, so
        dirty (rule 1)."""
        g = self._graph
        if parent is _SAME:
            p = g._parent_id(self.id)
        else:
            p = -1 if parent is None else g._own(parent, "parent")
        return Node(g, g._clone(g._live(self.id), p, name))

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
        self._graph._set_vector(self.id, value, "position", "local_position", 0.0)

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
        self._graph._set_vector(self.id, value, "scale", "local_scale", 1.0)

    @property
    def local_matrix(self) -> np.ndarray:
        """``(4, 4)`` ``T · R · S``, recomputed now if its values changed."""
        return _frozen(self._graph._local_matrix(self.id))

    @local_matrix.setter
    def local_matrix(self, value: object) -> None:
        """Decomposed into position, rotation and scale. A matrix ``T · R · S`` cannot
        hold (shear, a projective last row) is refused."""
        m = np.asarray(validate.vector(np.ravel(np.asarray(value, dtype=object)), 16,
                                       self.name, "local_matrix")).reshape(4, 4)  # fmt: skip
        field = f"node {self.name!r}, field 'local_matrix'"
        if m[3].tolist() != [0.0, 0.0, 0.0, 1.0]:
            raise ValueError(f"{field}: the last row must be (0, 0, 0, 1), got {m[3].tolist()}")
        pos, rot, scl = decompose(m)
        size = max(1.0, float(np.abs(m).max()))
        if not np.allclose(trs_matrix(pos, rot, scl), m, rtol=0.0, atol=1e-9 * size):
            raise ValueError(f"{field}: the matrix has shear, which T · R · S cannot hold")
        self._graph._write_locals(self.id, pos[None], rot[None], scl[None])

    @property
    def angle(self) -> float:
        """2-D use: the local rotation about Z, in degrees (exact for such rotations)."""
        return float(quat_to_euler(self._graph._local_values(self.id)[1])[2])

    @angle.setter
    def angle(self, degrees: float) -> None:
        d = validate.vector([degrees], 1, self.name, "angle")[0]
        self.local_rotation = quat_from_axis_angle((0.0, 0.0, 1.0), d)

    # ------------------------------------------------------------------ world values
    @property
    def world_matrix(self) -> np.ndarray:
        """``(4, 4)`` parent world · local, current at the moment of the read."""
        g = self._graph
        if self._matrix_at != g._store.changes:
            self._matrix = g._world_copy(self.id)
            self._matrix_at = g._store.changes
        return self._matrix

    @property
    def world_position(self) -> np.ndarray:
        g = self._graph
        if self._position_at != g._store.changes:
            self._position = g._world_position_copy(self.id)
            self._position_at = g._store.changes
        return self._position

    @world_position.setter
    def world_position(self, value: object) -> None:
        node_ops.set_world_position(self, value)

    @property
    def world_rotation(self) -> np.ndarray:
        """Unit quaternion of the world matrix's rotation (nearest rotation under shear)."""
        return _frozen(decompose(self._graph._world_matrix(self.id))[1])

    @world_rotation.setter
    def world_rotation(self, value: object) -> None:
        node_ops.set_world_rotation(self, value)

    @property
    def world_euler(self) -> np.ndarray:
        """Degrees ``(rx, ry, rz)`` of ``world_rotation`` (``R = Rz · Ry · Rx``)."""
        return _frozen(quat_to_euler(decompose(self._graph._world_matrix(self.id))[1]))

    @world_euler.setter
    def world_euler(self, value: object) -> None:
        self.world_rotation = quat_from_euler(validate.vector(value, 3, self.name, "world_euler"))

    @property
    def world_angle(self) -> float:
        """2-D use: the world rotation about Z, in degrees."""
        return float(self.world_euler[2])

    @world_angle.setter
    def world_angle(self, degrees: float) -> None:
        d = validate.vector([degrees], 1, self.name, "world_angle")[0]
        self.world_rotation = quat_from_axis_angle((0.0, 0.0, 1.0), d)

    @property
    def lossy_scale(self) -> np.ndarray:
        """World scale per axis: exact without shear, an approximation with it."""
        return _frozen(decompose(self._graph._world_matrix(self.id))[2])

    @lossy_scale.setter
    def lossy_scale(self, value: object) -> None:
        node_ops.set_lossy_scale(self, value)

    # ------------------------------------------------------------------ moves (node_ops.py)
    def transform_point(self, point: object) -> np.ndarray:
        """A point from this node's local space to world space."""
        return node_ops.transform_point(self, point)

    def inverse_transform_point(self, point: object) -> np.ndarray:
        """A point from world space to this node's local space."""
        return node_ops.inverse_transform_point(self, point)

    def transform_direction(self, direction: object) -> np.ndarray:
        """A direction from local to world space: rotated only, not scaled (as Unity)."""
        return node_ops.transform_direction(self, direction)

    def look_at(self, target: object, up: object = (0.0, 1.0, 0.0)) -> None:
        """Turn so the node's -Z axis points at the world point ``target`` (Godot's choice)
        with +Y toward ``up``."""
        node_ops.look_at(self, target, up)

    def rotate(self, axis: object, degrees: float) -> None:
        """Rotate by ``degrees`` about ``axis`` given in the parent's space."""
        node_ops.rotate(self, axis, degrees)

    def translate(self, offset: object) -> None:
        """Move by ``offset`` in the parent's space."""
        node_ops.translate(self, offset)

    def translate_on_axis(self, axis: object, distance: float) -> None:
        """Move by ``distance`` along ``axis`` given in this node's own (rotated, not
        scaled) frame, as three.js's ``translateOnAxis``."""
        node_ops.translate_on_axis(self, axis, distance)

    def rotate_on_axis(self, axis: object, degrees: float) -> None:
        """Rotate by ``degrees`` about ``axis`` given in this node's own frame."""
        node_ops.rotate_on_axis(self, axis, degrees)

    def rotate_on_world_axis(self, axis: object, degrees: float) -> None:
        """Rotate by ``degrees`` about ``axis`` given in world space (through the node's
        origin): ``parent⁻¹ · turn · parent · local`` with the parent's world rotation."""
        node_ops.rotate_on_world_axis(self, axis, degrees)
