"""Node handles: a storage and a stable id, with the per-node API of Unity/Godot style.

A handle refers to its node by id only, so it stays valid while the graph re-orders its
arrays, and a handle to a removed node raises instead of reading someone else's data.
It calls its storage's own methods (``storage.py``, ``arrays.py``), the structural edits
of ``structure.py``, and for the world-space setters and the moves (rotate, translate,
look at, ...) the pure functions of ``world_space.py``. Matrices and vectors come back as
read-only copies: current when read, and they do not change under the caller's feet
afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from ..text import closest_name, quoted
from . import structure, validate, world_space
from .errors import HierarchyError
from .flags import EXEC, LOCAL, WORLD
from .math import (
    decompose,
    look_rotation,
    quat_from_axis_angle,
    quat_from_euler,
    quat_to_euler,
    trs_matrix,
)
from .storage import Storage

_NONE3 = np.empty((0, 3))
_NONE4 = np.empty((0, 4))
_SAME = object()  # clone(): "under the original's parent"
#: Names longer than this get no "did you mean" (see `unknown_name`).
FUZZY_LENGTH_MAX = 256


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


def unknown_name(name: str, store: Storage) -> KeyError:
    """The error for a name the graph lacks, with the closest it has ("did you mean")."""
    # A name far longer than any the graph holds is no misspelling (and a fuzzy match
    # over it would cost seconds).
    close = closest_name(name, store.ids_by_name) if len(name) <= FUZZY_LENGTH_MAX else None
    hint = f"; did you mean {quoted(close)}?" if close is not None else ""
    return KeyError(f"no node named {quoted(name)}{hint}")


def id_of_name(name: str, store: Storage) -> int:
    """The id of the live node called ``name``, or ``unknown_name``'s error."""
    i = store.ids_by_name.get(name)
    if i is None:
        raise unknown_name(name, store)
    return i


def node_id(node: object, store: Storage, role: str) -> int:
    """The id of ``node`` (a handle or a node name), a live node of the graph whose
    storage is ``store``, or an error naming ``role``: a KeyError for an unknown name,
    a TypeError for anything else that is not a Node, a HierarchyError for a node of
    another graph or a removed one."""
    if isinstance(node, str):
        return id_of_name(node, store)
    if not isinstance(node, Node):
        raise TypeError(f"{role}: expected a Node, a node name or None, got {node!r}")
    if node._store is not store:
        raise HierarchyError(f"{role} {node.name!r} belongs to another SceneGraph")
    if not store.alive_v[node.id]:
        store.check_alive(node.id)
    return node.id


class Node:
    """Handle to one node of a :class:`SceneGraph`."""

    # A handle keeps the last world matrix and position it handed out, with the storage's
    # edit count at that moment: while nothing in the graph changed, a read returns the
    # same read-only (bytes-backed, so never writeable) array again (~0.1 us, not 0.5 us).
    __slots__ = ("_store", "id", "_matrix", "_matrix_at", "_position", "_position_at")

    def __init__(self, store: Storage, node_id: int) -> None:
        self._store = store
        self.id = node_id
        self._matrix_at = self._position_at = -1

    def __repr__(self) -> str:
        return f"Node({self._store.names[self.id]!r}, id={self.id})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and other._store is self._store and other.id == self.id

    def __hash__(self) -> int:
        return hash((id(self._store), self.id))

    # ------------------------------------------------------------------ structure
    @property
    def name(self) -> str:
        return self._store.names.at(self.id)

    @property
    def alive(self) -> bool:
        """False once the node (or an ancestor) was removed."""
        return self._store.is_alive(self.id)

    @property
    def parent(self) -> Node | None:
        p = self._store.parent_id(self.id)
        return None if p < 0 else Node(self._store, p)

    @property
    def children(self) -> list[Node]:
        """Direct children in attach order."""
        s = self._store
        return [Node(s, c) for c in s.child_ids(self.id)]

    def set_parent(
        self,
        parent: Node | str | None,
        keep_world: bool | str = False,
        *,
        before: Node | str | None = None,
        after: Node | str | None = None,
    ) -> float | None:
        """See :meth:`SceneGraph.set_parent`, which delegates here."""
        s = self._store
        i = node_id(self, s, "node")
        p = -1 if parent is None else node_id(parent, s, "parent")
        b = -1 if before is None else node_id(before, s, "before")
        a = -1 if after is None else node_id(after, s, "after")
        return structure.set_parent(s, i, p, keep_world, before=b, after=a)

    def detach_children(self) -> None:
        """See :meth:`SceneGraph.detach_children`, which delegates here."""
        structure.detach_children(self._store, node_id(self, self._store, "detach_children"))

    def touch(self) -> None:
        """A change with no new value: marks this node and its subtree dirty
        (``SceneGraph.touch`` delegates here)."""
        self._store.touch(self.id)

    @property
    def dirty(self) -> DirtyFlags:
        """The node's flags now: ``(local, world, execute)``; all False after update()."""
        f = self._store.flags_of(self.id)
        return DirtyFlags(bool(f & LOCAL), bool(f & WORLD), bool(f & EXEC))

    def traverse(self) -> Iterator[Node]:
        """This node, then its descendants, in pre-order (children in attach order)."""
        s = self._store
        return (Node(s, j) for j in s.subtree_ids(self.id))

    def descendants(self) -> list[Node]:
        """Every node below this one, in pre-order."""
        s = self._store
        return [Node(s, j) for j in s.subtree_ids(self.id)[1:]]

    def ancestors(self) -> list[Node]:
        """The parent, its parent, … up to the root."""
        s = self._store
        out = []
        p = s.parent_id(self.id)
        while p >= 0:
            out.append(Node(s, p))
            p = s.parent_id(p)
        return out

    def clone(self, parent: Node | str | None | object = _SAME, name: str | None = None) -> Node:
        """Copy this node and its subtree (local values and structure) and return the
        copy's root: under ``parent`` (default: this node's parent; None: a root), last
        among its siblings. Every copied node is named with the first suffix of
        ``_copy``, ``_copy2``, … that is free for all of them (``Obj2`` becomes
        ``Obj2_copy``); ``name`` names the copy's root instead. The copies are new, so
        dirty (rule 1)."""
        s = self._store
        if parent is _SAME:
            p = s.parent_id(self.id)
        else:
            p = -1 if parent is None else node_id(parent, s, "parent")
        s.check_alive(self.id)
        return Node(s, structure.clone_subtree(s, self.id, p, name))

    # ------------------------------------------------------------------ local values
    def _set(
        self, pos: np.ndarray = _NONE3, rot: np.ndarray = _NONE4, scl: np.ndarray = _NONE3
    ) -> None:
        self._store.write_locals(self.id, pos, rot, scl)

    @property
    def local_position(self) -> np.ndarray:
        return self._store.local_copy(self.id, "position")

    @local_position.setter
    def local_position(self, value: object) -> None:
        self._store.set_vector(self.id, value, "position", "local_position", 0.0)

    @property
    def local_rotation(self) -> np.ndarray:
        """Unit quaternion ``(x, y, z, w)``."""
        return self._store.local_copy(self.id, "rotation")

    @local_rotation.setter
    def local_rotation(self, value: object) -> None:
        self._store.set_rotation(self.id, value)

    @property
    def local_euler(self) -> np.ndarray:
        """Degrees ``(rx, ry, rz)``, ``R = Rz · Ry · Rx``."""
        return _frozen(quat_to_euler(self._store.local_values(self.id)[1]))

    @local_euler.setter
    def local_euler(self, value: object) -> None:
        self._store.set_euler(self.id, value)

    @property
    def local_scale(self) -> np.ndarray:
        return self._store.local_copy(self.id, "scale")

    @local_scale.setter
    def local_scale(self, value: object) -> None:
        self._store.set_vector(self.id, value, "scale", "local_scale", 1.0)

    @property
    def local_matrix(self) -> np.ndarray:
        """``(4, 4)`` ``T · R · S``. Computes: the stored matrix is recomputed now if its
        values changed, which clears the update_local flag (``peek.local_matrix(id)``
        makes the same matrix on the side and leaves the flag)."""
        return _frozen(self._store.local_of(self.id))

    @local_matrix.setter
    def local_matrix(self, value: object) -> None:
        """Decomposed into position, rotation and scale. A matrix ``T · R · S`` cannot
        hold (shear, a projective last row) is refused."""
        m = np.asarray(
            validate.vector(
                np.ravel(np.asarray(value, dtype=object)), 16, self.name, "local_matrix"
            )
        ).reshape(4, 4)
        field = f"node {self.name!r}, field 'local_matrix'"
        if m[3].tolist() != [0.0, 0.0, 0.0, 1.0]:
            raise ValueError(f"{field}: the last row must be (0, 0, 0, 1), got {m[3].tolist()}")
        pos, rot, scl = decompose(m)
        size = max(1.0, float(np.abs(m).max()))
        if not np.allclose(trs_matrix(pos, rot, scl), m, rtol=0.0, atol=1e-9 * size):
            raise ValueError(f"{field}: the matrix has shear, which T · R · S cannot hold")
        self._set(pos[None], rot[None], scl[None])

    @property
    def angle(self) -> float:
        """2-D use: the local rotation about Z, in degrees (exact for such rotations)."""
        return float(quat_to_euler(self._store.local_values(self.id)[1])[2])

    @angle.setter
    def angle(self, degrees: float) -> None:
        d = validate.vector([degrees], 1, self.name, "angle")[0]
        self.local_rotation = quat_from_axis_angle((0.0, 0.0, 1.0), d)

    # ------------------------------------------------------------------ world values
    @property
    def world_matrix(self) -> np.ndarray:
        """``(4, 4)`` parent world · local, current at the moment of the read. Computes:
        the dirty part of the root path is recomputed first (rule 3), bumping versions
        and clearing flags (``peek.world_matrix(id)`` reads it as stored, with whether
        it is stale)."""
        s = self._store
        if self._matrix_at != s.changes:
            self._matrix = s.world_copy(self.id)
            self._matrix_at = s.changes
        return self._matrix

    @property
    def world_position(self) -> np.ndarray:
        s = self._store
        if self._position_at != s.changes:
            self._position = s.world_position_copy(self.id)
            self._position_at = s.changes
        return self._position

    @world_position.setter
    def world_position(self, value: object) -> None:
        p = validate.spatial(value, 0.0, self.name, "world_position")
        parent = self._store.parent_world(self.id)
        self._set(pos=self._solve(world_space.local_position, parent, p)[None])

    @property
    def world_rotation(self) -> np.ndarray:
        """Unit quaternion of the world matrix's rotation (nearest rotation under shear)."""
        return _frozen(decompose(self._store.world_of(self.id))[1])

    @world_rotation.setter
    def world_rotation(self, value: object) -> None:
        q = validate.unit_quaternion(value, self.name, "world_rotation")
        parent = self._store.parent_world(self.id)
        self._set(rot=self._solve(world_space.local_rotation, parent, q)[None])

    @property
    def world_euler(self) -> np.ndarray:
        """Degrees ``(rx, ry, rz)`` of ``world_rotation`` (``R = Rz · Ry · Rx``)."""
        return _frozen(quat_to_euler(decompose(self._store.world_of(self.id))[1]))

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
        return _frozen(decompose(self._store.world_of(self.id))[2])

    @lossy_scale.setter
    def lossy_scale(self, value: object) -> None:
        v = validate.vector(value, 3, self.name, "lossy_scale")
        parent = self._store.parent_world(self.id)
        self._set(scl=self._solve(world_space.local_scale, parent, v)[None])

    # ------------------------------------------------------------------ moves (world_space.py)
    def _solve(self, maths, *args) -> np.ndarray:
        """``maths(*args)`` of world_space.py, its `FieldError` named after this node."""
        try:
            return maths(*args)
        except world_space.FieldError as exc:
            raise ValueError(f"node {quoted(self.name)}, {exc}") from None

    def transform_point(self, point: object) -> np.ndarray:
        """A point from this node's local space to world space."""
        p = validate.vector(point, 3, self.name, "point")
        return world_space.transform_point(self._store.world_of(self.id), p)

    def inverse_transform_point(self, point: object) -> np.ndarray:
        """A point from world space to this node's local space."""
        p = validate.vector(point, 3, self.name, "point")
        return self._solve(world_space.inverse_transform_point, self._store.world_of(self.id), p)

    def transform_direction(self, direction: object) -> np.ndarray:
        """A direction from local to world space: rotated only, not scaled (as Unity)."""
        v = validate.vector(direction, 3, self.name, "direction")
        return world_space.transform_direction(self._store.world_of(self.id), v)

    def look_at(self, target: object, up: object = (0.0, 1.0, 0.0)) -> None:
        """Turn so the node's -Z axis points at the world point ``target`` (Godot's choice)
        with +Y toward ``up``."""
        t = validate.vector(target, 3, self.name, "target")
        u = validate.vector(up, 3, self.name, "up")
        s, i = self._store, self.id
        turn = look_rotation(t - s.world_of(i)[:3, 3], u)
        q = validate.unit_quaternion(turn, self.name, "world_rotation")
        self._set(rot=self._solve(world_space.local_rotation, s.parent_world(i), q)[None])

    def rotate(self, axis: object, degrees: float) -> None:
        """Rotate by ``degrees`` about ``axis`` given in the parent's space."""
        a = validate.vector(axis, 3, self.name, "axis")
        d = validate.vector([degrees], 1, self.name, "degrees")[0]
        rot = self._store.local_values(self.id)[1]
        self._set(rot=self._solve(world_space.rotated, rot, a, d)[None])

    def translate(self, offset: object) -> None:
        """Move by ``offset`` in the parent's space."""
        v = validate.vector(offset, 3, self.name, "offset")
        pos = self._store.local_values(self.id)[0]
        self._set(pos=self._solve(world_space.translated, pos, v)[None])

    def translate_on_axis(self, axis: object, distance: float) -> None:
        """Move by ``distance`` along ``axis`` given in this node's own (rotated, not
        scaled) frame, as three.js's ``translateOnAxis``."""
        a = self._solve(world_space.unit_axis, validate.vector(axis, 3, self.name, "axis"))
        d = validate.vector([distance], 1, self.name, "distance")[0]
        pos, rot, _ = self._store.local_values(self.id)
        self._set(pos=self._solve(world_space.translated_on_axis, pos, rot, a, d)[None])

    def rotate_on_axis(self, axis: object, degrees: float) -> None:
        """Rotate by ``degrees`` about ``axis`` given in this node's own frame."""
        a = self._solve(world_space.unit_axis, validate.vector(axis, 3, self.name, "axis"))
        d = validate.vector([degrees], 1, self.name, "degrees")[0]
        rot = self._store.local_values(self.id)[1]
        self._set(rot=world_space.rotated_on_axis(rot, a, d)[None])

    def rotate_on_world_axis(self, axis: object, degrees: float) -> None:
        """Rotate by ``degrees`` about ``axis`` given in world space (through the node's
        origin): ``parent⁻¹ · turn · parent · local`` with the parent's world rotation."""
        a = self._solve(world_space.unit_axis, validate.vector(axis, 3, self.name, "axis"))
        d = validate.vector([degrees], 1, self.name, "degrees")[0]
        s, i = self._store, self.id
        q = world_space.rotated_on_world_axis(s.parent_world(i), s.local_values(i)[1], a, d)
        self._set(rot=q[None])
