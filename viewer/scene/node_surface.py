"""The internal surface ``Node`` handles reach their graph through; not public API.

Why apart from ``graph.py``: the graph's public face (building, lookup, read-outs, bulk
edits, ``update()``) is what users read; this is what ``node.py`` needs and nothing else.
Each function takes the graph and a node id and raises HierarchyError for a removed node
unless it says otherwise. ``SceneGraph`` binds them as its underscore methods (``_live``,
``_world_copy``, ...), so a handle's call costs a method call and no more. Handles also
read ``_store.changes``, the edit count, to reuse matrices they handed out, and call the
per-node setters of ``setters.py`` that the graph binds to its storage.

Read-only copies are arrays over a ``bytes`` copy of the row: ~0.3 us, where ``copy()``
plus clearing ``writeable`` costs 0.5 us. A clean world read calls nothing compiled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import structure
from .errors import HierarchyError
from .flags import WORLD

if TYPE_CHECKING:
    from .graph import SceneGraph

_EMPTY3 = np.empty((0, 3))
_EMPTY4 = np.empty((0, 4))
_FLOAT = np.dtype(np.float64)
_MATRIX, _VEC3, _VEC4 = (4, 4), (3,), (4,)
_COLUMN = (32,)  # the byte stride down a column of a row-major 4x4 float64 matrix


def live(g: SceneGraph, i: int) -> int:
    """``i`` itself, after checking the node was not removed."""
    g._store.check_alive(i)
    return i


def is_alive(g: SceneGraph, i: int) -> bool:
    """Whether id ``i`` is a live node (no error for a removed one)."""
    return bool(g._store.alive[i])


def parent_id(g: SceneGraph, i: int) -> int:
    """The parent's id, -1 for a root."""
    return int(g._store.parent[live(g, i)])


def child_ids(g: SceneGraph, i: int) -> list[int]:
    """The children's ids in attach order."""
    return structure.child_ids(g._store, live(g, i))


def local_values(g: SceneGraph, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Views of the stored ``(position, quaternion, scale)``: copy before handing out."""
    s = g._store
    live(g, i)
    return s.pos[i], s.rot[i], s.scl[i]


def local_copy(g: SceneGraph, i: int, channel: str) -> np.ndarray:
    """A read-only copy of ``"position"``, ``"rotation"`` or ``"scale"``."""
    s = g._store
    if not s.alive_v[i]:
        s.check_alive(i)
    if channel == "rotation":
        return np.ndarray(_VEC4, _FLOAT, s.rot_b[i << 5 : (i + 1) << 5].tobytes())
    view = s.pos_b if channel == "position" else s.scl_b
    return np.ndarray(_VEC3, _FLOAT, view[24 * i : 24 * i + 24].tobytes())


def flags_of(g: SceneGraph, i: int) -> int:
    """The node's flag bits (``flags.py``), deferred marking done first."""
    s = g._store
    s.check_alive(i)
    s.flush()
    return int(s.flags[i])


def subtree_ids(g: SceneGraph, i: int) -> list[int]:
    """``i`` and its descendants in pre-order."""
    s = g._store
    s.check_alive(i)
    s.ensure_layout()
    return s.order[s.slot[i] : s.slot[i] + s.size[i]].tolist()


def clone(g: SceneGraph, i: int, parent: int, name: str | None) -> int:
    """Copy the subtree of ``i`` (local values, names renamed) under ``parent``;
    returns the copy's root id. See ``Node.clone`` for the names."""
    s = g._store
    ids = subtree_ids(g, i)
    if parent >= 0 and parent in set(ids):
        raise HierarchyError(
            f"cannot clone {s.names[i]!r} under {s.names[parent]!r}, which is inside it"
        )
    if name is not None:
        g._check_new_name(name)
    names = structure.clone_names([s.names[j] for j in ids], name, s.ids_by_name)
    row = {j: r for r, j in enumerate(ids)}
    first = s.n
    parents = np.array([parent] + [first + row[int(s.parent[j])] for j in ids[1:]], dtype=np.int64)
    idx = np.array(ids, dtype=np.int64)
    return int(s.append(parents, names, s.pos[idx], s.rot[idx], s.scl[idx])[0])


def write_locals(
    g: SceneGraph,
    i: int,
    pos: np.ndarray = _EMPTY3,
    rot: np.ndarray = _EMPTY4,
    scl: np.ndarray = _EMPTY3,
) -> None:
    """Set checked ``(1, 3)`` / ``(1, 4)`` rows (empty: unchanged), as ``set_locals``."""
    g._store.set_values(np.array([live(g, i)], dtype=np.int64), pos, rot, scl)


def world_copy(g: SceneGraph, i: int) -> np.ndarray:
    """A read-only copy of the current world matrix."""
    s = g._store
    if not s.alive_v[i]:
        s.check_alive(i)
    if s.pending or s.flags_v[i] & WORLD:
        s.pull_world(i)
    return np.ndarray(_MATRIX, _FLOAT, s.world_b[i << 7 : (i + 1) << 7].tobytes())


def world_position_copy(g: SceneGraph, i: int) -> np.ndarray:
    """A read-only copy of the current world position (the matrix's last column)."""
    s = g._store
    if not s.alive_v[i]:
        s.check_alive(i)
    if s.pending or s.flags_v[i] & WORLD:
        s.pull_world(i)
    b = i << 7
    return np.ndarray(_VEC3, _FLOAT, s.world_b[b : b + 96].tobytes(), 24, _COLUMN)


def local_matrix(g: SceneGraph, i: int) -> np.ndarray:
    """A ``(4, 4)`` view of the current local matrix."""
    return g._store.local_of(live(g, i))


def world_matrix(g: SceneGraph, i: int) -> np.ndarray:
    """A ``(4, 4)`` view of the world matrix, brought up to date first (rule 3)."""
    return g._store.world_of(live(g, i))
