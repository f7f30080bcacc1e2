"""The per-node flag bits and the few transitions the compiled loops make on them.

Three bits are the contract's flags (docs/dirty-propagation.md): ``LOCAL``
(update_local), ``WORLD`` (update_world) and ``EXEC`` (execute: hand the world matrix to
the renderer at ``update()``). Three more are bookkeeping: ``LOCAL_DONE`` and
``WORLD_DONE`` say a matrix was recomputed this frame, so a mid-frame read can clear
``LOCAL`` / ``WORLD`` while the frame report still lists the node; ``STALE`` says the
stored local matrix lags the values because ``update()`` kept it in registers;
``PENDING`` says a per-node setter queued the node and its subtree is not marked yet
(the queue is flushed before anything reads flags).

The transitions are named functions, inlined into the kernels, so no loop spells the bit
arithmetic out and each rule is written once.
"""

from __future__ import annotations

from numba import njit

# Plain ints, not np.uint8: numba folds them as constants (uint8 maths was 3x slower).
LOCAL = 1
WORLD = 2
EXEC = 4
LOCAL_DONE = 8
WORLD_DONE = 16
STALE = 32
#: Set by the per-node setters when a node's subtree marking is deferred (storage.py).
PENDING = 64
#: Every bit: clearing is ``f & (ALL ^ BIT)``, never ``~BIT``, which is a negative Python
#: int that a uint8 refuses when the loops run as plain Python (coldstart.py).
ALL = 0xFF
#: What rule 1 sets on every node of a changed node's subtree.
SUBTREE_DIRTY = WORLD | EXEC
#: What a node added to the graph starts with: everything to do.
NEW = LOCAL | WORLD | EXEC


@njit(cache=True, inline="always")
def local_behind(f):
    """The stored local matrix does not match the values (changed, or kept in registers)."""
    return f & (LOCAL | STALE) != 0


@njit(cache=True, inline="always")
def needs_world(f):
    """update_world is set: the world matrix must be recomputed."""
    return f & WORLD != 0


@njit(cache=True, inline="always")
def needs_work(f):
    """The node's local values changed or its world matrix is out of date."""
    return f & (LOCAL | WORLD) != 0


@njit(cache=True, inline="always")
def after_local_stored(f):
    """Flags once the local matrix was recomputed and stored (a change is recorded)."""
    if f & LOCAL:
        f |= LOCAL_DONE
    return f & (ALL ^ (LOCAL | STALE))


@njit(cache=True, inline="always")
def after_local_in_registers(f):
    """Flags once a changed local matrix was used without being stored (``update()``)."""
    return (f & (ALL ^ LOCAL)) | LOCAL_DONE | STALE


@njit(cache=True, inline="always")
def after_world(f):
    """Flags once the world matrix was recomputed."""
    return (f & (ALL ^ WORLD)) | WORLD_DONE


@njit(cache=True, inline="always")
def changed_itself(f):
    """The node's own values changed this frame (so it is its own cause)."""
    return f & (LOCAL | LOCAL_DONE) != 0


@njit(cache=True, inline="always")
def touched_this_frame(f):
    """Any flag other than ``STALE``: the node has something to report or clear."""
    return f & (ALL ^ STALE) != 0


@njit(cache=True, inline="always")
def after_frame(f):
    """Flags at the end of ``update()``: only ``STALE`` survives into the next frame."""
    return f & STALE


@njit(cache=True, inline="always")
def values_changed(f):
    """update_local is set: the local values changed since the local matrix was made."""
    return f & LOCAL != 0


@njit(cache=True, inline="always")
def local_recomputed(f):
    """The local matrix was recomputed this frame (the report lists the node)."""
    return f & LOCAL_DONE != 0


@njit(cache=True, inline="always")
def world_recomputed(f):
    """The world matrix was recomputed this frame (the report lists the node)."""
    return f & WORLD_DONE != 0


@njit(cache=True, inline="always")
def after_change(f):
    """Rule 1 on the changed node itself: update_local set, no longer queued."""
    return (f | LOCAL) & (ALL ^ PENDING)
