"""Structural edits on a graph's storage: re-parenting, removal, detaching, cloning.

The rules are those of docs/dirty-propagation.md. Each edit checks everything first,
then changes links in O(1) per node moved and invalidates the pre-order layout, which
the next frame rebuilds once. Functions, not methods: ``SceneGraph`` and ``Node``
resolve their node handles to ids and call these with their ``Storage``.
"""

from __future__ import annotations

from collections.abc import Container

import numpy as np

from . import validate, world_space
from .errors import HierarchyError, ShearError
from .names import SHARD_MASK, NumberedNames
from .storage import Storage

#: How far (relative) ``keep_world=True`` may leave a world matrix: rounding only.
KEEP_WORLD_TOLERANCE = 1e-9
#: The ``keep_world`` values: keep the local values, keep the world matrix or refuse,
#: keep it as nearly as position, rotation and scale can.
KEEP_WORLD_MODES = (False, True, "lossy")


def set_parent(
    s: Storage, i: int, p: int, keep_world: bool | str, before: int = -1, after: int = -1
) -> float | None:
    """Move ``i`` (with its subtree) under ``p``, or make it a root with ``p = -1``: as
    the last child, or placed just before the sibling ``before`` / just after ``after``
    (ids of children of ``p``, -1: not given). ``keep_world=True`` recomputes its local
    values so its world matrix stays put, and refuses when position, rotation and scale
    cannot hold it (shear); ``"lossy"`` accepts the nearest values then and returns the
    residual (docs/semantics.md section 4). Errors leave the storage as it was."""
    mode = check_keep_world(keep_world)
    s.flush()
    name = s.names[i]
    if p == i:
        raise HierarchyError(f"node {name!r} cannot be its own parent")
    if p >= 0 and s.kernels.is_ancestor(i, p, s.parent):
        raise HierarchyError(
            f"cannot parent {name!r} to {s.names[p]!r}: {s.names[p]!r} is a "
            f"descendant of {name!r}, which would make a cycle"
        )
    _check_sibling(s, i, p, before, after)
    same_parent = p == s.parent[i]
    if same_parent and _already_placed(s, i, before, after):
        s.suppressed += 1
        return 0.0 if mode == "lossy" else None
    # Under the same parent the world matrix cannot move: the locals stay bit for bit.
    values, residual = (None, 0.0) if not mode or same_parent else kept_locals(s, i, p, mode)
    _unlink(s, i)
    if before >= 0:
        _link_before(s, i, p, before)
    elif after >= 0 and s.next_sib[after] >= 0:
        _link_before(s, i, p, int(s.next_sib[after]))
    else:
        _link_last(s, i, p)
    if values is not None:
        s.pos[i], s.rot[i], s.scl[i] = values
    s.structure_edited()
    s.mark(np.array([i], dtype=np.int64), force=True)
    return residual if mode == "lossy" else None


def _check_sibling(s: Storage, i: int, p: int, before: int, after: int) -> None:
    """A HierarchyError unless ``before`` / ``after`` (at most one, -1: not given) is a
    child of ``p`` (a root when ``p`` is -1)."""
    if before >= 0 and after >= 0:
        raise ValueError("give before= or after=, not both")
    sibling = before if before >= 0 else after
    if sibling < 0 or s.parent[sibling] == p:
        return
    where = "a root" if p < 0 else f"a child of {s.names[p]!r}"
    word = "before" if before >= 0 else "after"
    raise HierarchyError(
        f"cannot place {s.names[i]!r} {word} {s.names[sibling]!r}: "
        f"{s.names[sibling]!r} is not {where}"
    )


def _already_placed(s: Storage, i: int, before: int, after: int) -> bool:
    """Whether ``i`` already sits where the move would put it among its own siblings
    (with no place given, anywhere: keeping the parent is no move)."""
    if before >= 0:
        return before == i or s.next_sib[i] == before
    if after >= 0:
        return after == i or s.prev_sib[i] == after
    return True


def check_keep_world(keep_world: object) -> bool | str:
    """``keep_world`` itself if it is one of `KEEP_WORLD_MODES`, else a ValueError."""
    if isinstance(keep_world, (bool, np.bool_)) or keep_world == "lossy":
        return keep_world if isinstance(keep_world, str) else bool(keep_world)
    raise ValueError(f"keep_world must be False, True or 'lossy', got {keep_world!r}")


def kept_locals(s: Storage, i: int, p: int, mode: bool | str) -> tuple[tuple, float]:
    """The local values that keep ``i``'s world matrix under ``p`` (-1: none) and their
    residual; a HierarchyError when ``p``'s world matrix is singular, or when ``mode`` is
    True and the values cannot keep the world matrix (non-uniform scale above a rotated
    node needs shear, which position, rotation and scale cannot express)."""
    name = s.names[i]
    parent_world = np.eye(4) if p < 0 else s.world_of(p)
    where = "as a root" if p < 0 else f"under {s.names[p]!r}"
    a = parent_world[:3, :3]
    if abs(np.linalg.det(a)) < 1e-12 * max(1.0, float(np.abs(a).max()) ** 3):
        raise HierarchyError(
            f"cannot keep the world transform of {name!r} {where}: that parent's world "
            "matrix is singular"
        )
    values, residual = world_space.reparented_locals(parent_world, s.world_of(i))
    if mode is True and not residual <= KEEP_WORLD_TOLERANCE:
        raise ShearError(
            f"cannot keep the world transform of {name!r} {where}: it would need shear "
            f"(non-uniform scale above a rotated node); the nearest position, rotation and "
            f"scale are off by {residual:.3g}"
        )
    return values, residual


def remove_subtree(s: Storage, i: int) -> None:
    """Remove ``i`` and its whole subtree; their ids stay allocated but dead."""
    s.flush()
    buf = np.empty(s.alive_count, dtype=np.int64)
    n = s.kernels.collect_subtree(i, s.first_child, s.next_sib, buf)
    gone = buf[:n]
    _unlink(s, i)
    s.alive[gone] = False
    s.flags[gone] = 0
    s.unindex(gone.tolist())
    s.alive_count -= n
    s.structure_edited()


def remove_keeping_children(s: Storage, i: int) -> None:
    """Remove ``i`` alone: its children move to its parent (or become roots) keeping
    their world transforms exactly (as ``keep_world=True``). Checked first for every
    child, so an error changes nothing."""
    s.flush()
    p = int(s.parent[i])
    kids = s.child_ids(i)
    try:
        plan = [(c, kept_locals(s, c, p, True)[0]) for c in kids]
    except HierarchyError as e:
        raise HierarchyError(f"cannot remove {s.names[i]!r} keeping its children: {e}") from None
    for c, values in plan:
        _unlink(s, c)
        _link_last(s, c, p)
        s.pos[c], s.rot[c], s.scl[c] = values
    if kids:
        s.structure_edited()
        s.mark(np.array(kids, dtype=np.int64), force=True)
    remove_subtree(s, i)


def check_new_name(s: Storage, name: object) -> str:
    """``name`` itself, if it can name a new node: a non-empty string no node has."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"node names must be non-empty strings, got {name!r}")
    if name in s.ids_by_name.shards[hash(name) & SHARD_MASK]:  # (``in``, a call less)
        raise HierarchyError(f"duplicate node name {name!r}")
    return name


def check_new_names(s: Storage, names: list[str] | NumberedNames, distinct: bool = False) -> None:
    """Refuse a batch of names for new nodes in which one repeats an earlier one or names
    a live node (the first such, in batch order, is the error's), or one is no
    non-empty string. An unhashable name is a TypeError, as a dict key would be.
    ``distinct``: non-empty strings known to differ (`NumberedNames`'), checked only
    against the live nodes' names.

    Without a dict of the batch: the names' hashes, sorted, all differ (then no two
    names are equal), else the names are compared one by one. The live nodes' index is
    only consulted (and built) when the graph has live nodes."""
    repeats = False
    if not distinct:
        hashes = np.fromiter(map(hash, names), dtype=np.int64, count=len(names))
        hashes.sort()
        repeats = bool((hashes[1:] == hashes[:-1]).any())
    if repeats or (s.alive_count and not s.ids_by_name.isdisjoint(names)):
        taken: Container[object] = s.ids_by_name if s.alive_count else {}
        seen: set = set()
        for nm in names:
            if nm in seen or nm in taken:
                raise HierarchyError(f"duplicate node name {nm!r}")
            seen.add(nm)
    if not distinct:
        validate.node_names(names)


def rename(s: Storage, i: int, name: object) -> None:
    """Give node ``i`` a new name no other node has. Counted as a structural change (the
    frame report's ``structure_changed``), so whoever mirrors the graph hears of it; the
    pre-order layout stays valid."""
    if name == s.names[i]:
        return
    name = check_new_name(s, name)
    del s.ids_by_name[s.names[i]]
    s.names[i] = name
    s.ids_by_name[name] = i
    s.changes += 1
    s.structure_changed = True


def clone_subtree(s: Storage, i: int, parent: int, name: str | None) -> int:
    """Copy the subtree of ``i`` (local values, names renamed by `clone_names`) under
    ``parent`` (-1: a root), last among its siblings; returns the copy's root id."""
    ids = s.subtree_ids(i)
    if parent >= 0 and parent in set(ids):
        raise HierarchyError(
            f"cannot clone {s.names[i]!r} under {s.names[parent]!r}, which is inside it"
        )
    if name is not None:
        check_new_name(s, name)
    names = clone_names([s.names[j] for j in ids], name, s.ids_by_name)
    row = {j: r for r, j in enumerate(ids)}
    first = s.n
    parents = np.array([parent] + [first + row[int(s.parent[j])] for j in ids[1:]], dtype=np.int64)
    idx = np.array(ids, dtype=np.int64)
    return int(s.append(parents, names, s.pos[idx], s.rot[idx], s.scl[idx])[0])


def clone_names(names: list[str], root_name: str | None, taken: Container[str]) -> list[str]:
    """Names for a copy of a subtree (``names`` in pre-order): each name plus the first
    suffix of ``_copy``, ``_copy2``, ``_copy3``, … that is free for every node of the
    copy; ``root_name``, if given, names the copy's root instead."""
    k = 1
    while True:
        suffix = "_copy" if k == 1 else f"_copy{k}"
        out = [f"{n}{suffix}" for n in names]
        if root_name is not None:
            out[0] = root_name
        if len(set(out)) == len(out) and not any(n in taken for n in out):
            return out
        k += 1


def detach_children(s: Storage, i: int) -> None:
    """Make every child of ``i`` a root, keeping its local values (rule 1 on each)."""
    s.flush()
    kids = s.child_ids(i)
    if not kids:
        return
    for c in kids:
        _unlink(s, c)
        _link_last(s, c, -1)
    s.structure_edited()
    s.mark(np.array(kids, dtype=np.int64), force=True)


def _unlink(s: Storage, i: int) -> None:
    """Take ``i`` out of its sibling list (or the root list); its subtree stays."""
    p, prev, nxt = s.parent[i], s.prev_sib[i], s.next_sib[i]
    _relink(s, prev, p, nxt, forward=True)
    _relink(s, nxt, p, prev, forward=False)
    s.prev_sib[i] = s.next_sib[i] = -1


def _link_last(s: Storage, i: int, p: int) -> None:
    """Append the unlinked ``i`` as the last child of ``p`` (or the last root)."""
    last = s.heads[1] if p < 0 else s.last_child[p]
    s.parent[i] = p
    s.prev_sib[i] = last
    s.next_sib[i] = -1
    _relink(s, last, p, i, forward=True)
    _relink(s, -1, p, i, forward=False)


def _link_before(s: Storage, i: int, p: int, b: int) -> None:
    """Insert the unlinked ``i`` just before ``b``, a child of ``p`` (or a root)."""
    prev = int(s.prev_sib[b])
    s.parent[i] = p
    s.prev_sib[i] = prev
    s.next_sib[i] = b
    s.prev_sib[b] = i
    _relink(s, prev, p, i, forward=True)


def _relink(s: Storage, neighbour: int, p: int, target: int, forward: bool) -> None:
    """Point one link of a sibling list at ``target``: ``neighbour``'s next sibling
    (``forward``) or previous one; with no neighbour (-1), the end of the list instead,
    which is ``p``'s first (last) child, or for the root list the first (last) root."""
    if neighbour >= 0:
        (s.next_sib if forward else s.prev_sib)[neighbour] = target
    elif p >= 0:
        (s.first_child if forward else s.last_child)[p] = target
    else:
        s.heads[0 if forward else 1] = target
