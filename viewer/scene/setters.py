"""The per-node setters: one value of one node, written in plain Python.

Why a module of its own: this is the path a script takes thousands of times a frame
(``node.local_position = ...``), so it avoids numpy and the compiled loops altogether. A
setter checks the value, compares it with the stored one through the storage's flat
memoryviews (an equal value is counted as suppressed and dirties nothing), writes it, and
queues the node; the queued subtrees are marked later in one compiled pass
(``Storage.flush``), before anything reads flags.

The functions take the ``Storage`` first; ``SceneGraph`` binds them to its storage as
methods (``types.MethodType``), so a call costs what a method call costs. ``field`` names
the Node property in errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import validate
from .flags import LOCAL, PENDING, WORLD
from .math import euler_to_quat

if TYPE_CHECKING:
    from .storage import Storage


def set_vector(s: Storage, i: int, value: object, channel: str, field: str, plane: float) -> None:
    """Set ``channel`` ("position" or "scale") of node ``i``; ``plane`` is the z of a
    2-D value. Equal values are counted as suppressed and dirty nothing."""
    if not s.alive_v[i]:
        s.check_alive(i)
    x, y, z = validate.three(value, s.names, i, field, plane)
    view, b = s.vector_v[channel], 3 * i
    if view[b] == x and view[b + 1] == y and view[b + 2] == z:
        s.suppressed += 1
        return
    view[b] = x
    view[b + 1] = y
    view[b + 2] = z
    changed(s, i)


def set_rotation(s: Storage, i: int, value: object, field: str = "local_rotation") -> None:
    """Set node ``i``'s rotation from a quaternion (normalised here)."""
    if not s.alive_v[i]:
        s.check_alive(i)
    write_rotation(s, i, validate.unit_four(value, s.names, i, field))


def set_euler(s: Storage, i: int, value: object, field: str = "local_euler") -> None:
    """Set node ``i``'s rotation from Euler degrees."""
    if not s.alive_v[i]:
        s.check_alive(i)
    write_rotation(s, i, euler_to_quat(*validate.three(value, s.names, i, field)))


def write_rotation(s: Storage, i: int, q: tuple) -> None:
    """Per-node write of a checked unit quaternion (rules as ``set_vector``)."""
    view, b = s.rot_v, 4 * i
    x, y, z, w = q
    if view[b] == x and view[b + 1] == y and view[b + 2] == z and view[b + 3] == w:
        s.suppressed += 1
        return
    view[b] = x
    view[b + 1] = y
    view[b + 2] = z
    view[b + 3] = w
    changed(s, i)


def changed(s: Storage, i: int) -> None:
    """Rule 1 for a per-node change, with the subtree marking deferred: a node whose
    update_world is set has its subtree marked already (the invariant), so update_local
    is all it needs; any other is queued once (``PENDING``) for ``Storage.flush``."""
    s.changes += 1
    flags = s.flags_v
    f = flags[i]
    if f & WORLD:
        flags[i] = f | LOCAL
    elif not f & PENDING:
        flags[i] = f | PENDING
        s.pending.append(i)
