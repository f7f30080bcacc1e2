"""Compiled loops over the structure-of-arrays storage (numba, cached on disk).

Why compiled: the per-frame work is a walk over parent-before-child arrays where each
node needs its parent's fresh world matrix. numpy can only batch that level by level
(one pass per depth, hopeless for deep chains); a plain loop is the natural algorithm
and numba runs it at C speed. Every loop here is iterative: no recursion, so a chain a
million deep is fine. ``cache=True`` keeps the compiled code between runs so the viewer
starts in well under a second after the first launch.

The flag bits and their transitions are in ``flags.py``; the TRS composition and the
parent product in ``trs.py`` (inlined here).

This is the one module of ``viewer`` allowed past ~350 lines: it holds one concern, the
compiled loops, which share numba's rules and its disk cache and whose Python twins are
made together (``kernel_set.py``); split across modules they would only import each
other back.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .flags import (
    SUBTREE_DIRTY,
    after_change,
    after_frame,
    after_local_in_registers,
    after_local_stored,
    after_world,
    changed_itself,
    local_behind,
    local_recomputed,
    needs_work,
    needs_world,
    touched_this_frame,
    values_changed,
    world_recomputed,
)
from .trs import store_world, trs_row


@njit(cache=True, inline="always")
def _store_local(i, pos, rot, scl, local):
    """local[i] = T · R · S.

    Matrices are stored flat, ``(N, 16)`` row-major: direct 2-D indexing is what numba
    compiles best (row views cost reference counting, 3-D indexing was 2x slower).
    """
    m = trs_row(i, pos, rot, scl)
    for k in range(16):  # row 3 too: `grow` leaves the array's pages untouched
        local[i, k] = m[k] if k < 12 else (1.0 if k == 15 else 0.0)


@njit(cache=True, inline="always")
def _stored_local(i, local):
    """The stored local matrix of ``i`` as the twelve scalars ``store_world`` takes."""
    # fmt: off
    return (local[i, 0], local[i, 1], local[i, 2], local[i, 3],
            local[i, 4], local[i, 5], local[i, 6], local[i, 7],
            local[i, 8], local[i, 9], local[i, 10], local[i, 11])
    # fmt: on


@njit(cache=True, inline="always")
def _pushed(stack, top, value):
    """``stack`` with ``value`` at ``top``, doubled first when full: the one growth rule
    of the iterative walks (``mark``, ``collect_subtree``)."""
    if top == stack.shape[0]:
        bigger = np.empty(2 * top, dtype=np.int64)
        bigger[:top] = stack[:top]
        stack = bigger
    stack[top] = value
    return stack


@njit(cache=True)
def _recompute(i, flags, parent, pos, rot, scl, local, world, version):
    """Bring node ``i`` up to date if it is dirty; returns 1 if a product was done."""
    f = np.int64(flags[i])
    if local_behind(f):
        _store_local(i, pos, rot, scl, local)
        f = after_local_stored(f)
    product = 0
    if needs_world(f):
        store_world(i, parent[i], _stored_local(i, local), world)
        version[i] += 1
        if parent[i] >= 0:
            product = 1
        f = after_world(f)
    flags[i] = f
    return product


@njit(cache=True)
def mark(ids, force, flags, first_child, next_sib, layout, order, slot, size, roots, n_roots):
    """Rule 1 for each id: update_local on it, update_world + execute on its subtree.

    A node whose update_world is already set has its whole subtree set (the invariant
    this module keeps), so that subtree is skipped: marking a whole tree costs O(N) in
    parent-first order however many of its nodes change. ``force`` records the id as a
    dirty root even then (structural edits move subtrees, so the old range is stale).
    With a current pre-order ``layout`` the subtree is one slot range; otherwise it is
    walked through the child links. Returns the new number of recorded dirty roots.
    """
    stack = np.empty(64, dtype=np.int64)
    for k in range(ids.shape[0]):
        i = ids[k]
        flags[i] = after_change(flags[i])
        if needs_world(flags[i]) and not force:
            continue
        roots[n_roots] = i
        n_roots += 1
        if layout:
            for s in range(slot[i], slot[i] + size[i]):
                flags[order[s]] |= SUBTREE_DIRTY
            continue
        stack[0] = i
        top = 1
        while top > 0:
            top -= 1
            node = stack[top]
            flags[node] |= SUBTREE_DIRTY
            c = first_child[node]
            while c >= 0:
                if not needs_world(flags[c]):
                    stack = _pushed(stack, top, c)
                    top += 1
                c = next_sib[c]
    return n_roots


@njit(cache=True, inline="always")
def _write_row(values, i, new, k, width):
    """``values[i] = new[k]`` (``width`` elements, a constant the compiler unrolls);
    whether any element differed."""
    changed = False
    for j in range(width):
        if values[i, j] != new[k, j]:
            changed = True
            values[i, j] = new[k, j]
    return changed


@njit(cache=True)
def set_values(ids, pos_in, rot_in, scl_in, pos, rot, scl, *marking):
    """Write new local values row by row; rows equal to the current ones dirty nothing.

    An empty ``*_in`` array (0 rows) means "this field is not being set"; ``marking``
    is what ``mark`` takes after its first two arguments (``Storage.marking``).
    Returns ``(n_roots, suppressed)``.
    """
    has_p = pos_in.shape[0] > 0
    has_r = rot_in.shape[0] > 0
    has_s = scl_in.shape[0] > 0
    changed_ids = np.empty(ids.shape[0], dtype=np.int64)
    n_changed = 0
    for k in range(ids.shape[0]):
        i = ids[k]
        changed = False
        if has_p:
            changed |= _write_row(pos, i, pos_in, k, 3)
        if has_r:
            changed |= _write_row(rot, i, rot_in, k, 4)
        if has_s:
            changed |= _write_row(scl, i, scl_in, k, 3)
        if changed:
            changed_ids[n_changed] = i
            n_changed += 1
    n_roots = mark(changed_ids[:n_changed], False, *marking)
    return n_roots, ids.shape[0] - n_changed


@njit(cache=True)
def pull_world(i, parent, flags, pos, rot, scl, local, world, version):
    """Make world[i] current now (rule 3): recompute the dirty part of its root path.
    Returns the number of matrix products done."""
    depth = 0
    j = i
    while j >= 0 and needs_world(flags[j]):
        depth += 1
        j = parent[j]
    path = np.empty(depth, dtype=np.int64)
    j = i
    for d in range(depth):
        path[depth - 1 - d] = j
        j = parent[j]
    products = 0
    for d in range(depth):
        products += _recompute(path[d], flags, parent, pos, rot, scl, local, world, version)
    return products


@njit(cache=True)
def pull_local(i, flags, pos, rot, scl, local):
    """Make local[i] current now (rule 2)."""
    f = np.int64(flags[i])
    if local_behind(f):
        _store_local(i, pos, rot, scl, local)
        flags[i] = after_local_stored(f)


@njit(cache=True)
def dirty_ranges(root_ids, alive, slot, size):
    """Sorted, disjoint ``(start, end)`` slot ranges covering the dirty roots' subtrees.

    Roots already in ascending slot order (one touched node, say) are not sorted."""
    n = root_ids.shape[0]
    keys = np.empty(n, dtype=np.int64)
    ends = np.empty(n, dtype=np.int64)
    m = 0
    for k in range(n):
        r = root_ids[k]
        if alive[r]:
            keys[m] = slot[r]
            ends[m] = slot[r] + size[r]
            m += 1
    ascending = True  # the usual case (one touched root, or roots met in pre-order)
    for k in range(1, m):
        if keys[k] < keys[k - 1]:
            ascending = False
            break
    idx = np.arange(m) if ascending else np.argsort(keys[:m], kind="mergesort")
    out_s = np.empty(m, dtype=np.int64)
    out_e = np.empty(m, dtype=np.int64)
    q = -1
    for t in range(m):
        s = keys[idx[t]]
        e = ends[idx[t]]
        if q >= 0 and s <= out_e[q]:
            if e > out_e[q]:
                out_e[q] = e
        else:
            q += 1
            out_s[q] = s
            out_e[q] = e
    return out_s[: q + 1], out_e[: q + 1]


@njit(cache=True, fastmath={"contract"})
def recompute(starts, ends, by_id, order, parent, flags, pos, rot, scl, world, version):
    """Recompute every dirty node in the ranges, parents before children.

    ``by_id``: every parent id is smaller than its child's, so ascending id order is
    also parent-first, and walking ids in memory order beats pre-order's jumps when much
    of the graph is dirty. Returns the number of matrix products done.
    The body is written out here rather than calling ``_recompute``: the call with nine
    array arguments made this loop three times slower. It never stores local matrices:
    at a million nodes that store was a third of the frame's memory traffic; a read of
    the local matrix refreshes it (the ``STALE`` bit). The helpers of ``trs.py`` are
    inlined (as calls, cached functions are not inlined by LLVM: 40% slower).
    """
    products = 0
    if by_id:
        starts = np.zeros(1, dtype=np.int64)
        ends = np.full(1, flags.shape[0], dtype=np.int64)
    for r in range(starts.shape[0]):
        for s in range(starts[r], ends[r]):
            i = s if by_id else order[s]
            f = np.int64(flags[i])
            if not needs_work(f):
                continue
            if values_changed(f):  # the stored local matrix is now behind
                f = after_local_in_registers(f)
            if needs_world(f):
                store_world(i, parent[i], trs_row(i, pos, rot, scl), world)
                version[i] += 1
                if parent[i] >= 0:
                    products += 1
                f = after_world(f)
            flags[i] = f
    return products


@njit(cache=True)
def finish_frame(starts, ends, order, parent, flags, cause):
    """List the frame's work in pre-order, find each dirty node's cause, clear the flags.

    Returns ``(local_ids, world_ids, causes)``. The executed ids are the world ids: a
    node gets ``execute`` exactly when it gets ``update_world``, and every such node is
    recomputed by the end of the frame (checked by the property test).
    """
    total = 0
    for r in range(starts.shape[0]):
        total += ends[r] - starts[r]
    out_local = np.empty(total, dtype=np.int64)
    out_world = np.empty(total, dtype=np.int64)
    out_cause = np.empty(total, dtype=np.int64)
    nl = 0
    nw = 0
    for r in range(starts.shape[0]):
        for s in range(starts[r], ends[r]):
            i = order[s]
            f = np.int64(flags[i])
            if not touched_this_frame(f):
                continue
            if changed_itself(f) or parent[i] < 0:
                cause[i] = i
            else:
                cause[i] = cause[parent[i]]
            if local_recomputed(f):
                out_local[nl] = i
                nl += 1
            if world_recomputed(f):
                out_world[nw] = i
                out_cause[nw] = cause[i]
                nw += 1
            flags[i] = after_frame(f)
    return out_local[:nl], out_world[:nw], out_cause[:nw]


@njit(cache=True)
def rebuild_preorder(first_root, first_child, next_sib, parent, order, slot, size, depth):
    """Lay every live node out in pre-order; record slot, subtree size and depth by id.

    Roots in root-list order, children in attach order. Iterative depth-first walk.
    Returns the sum of depths (the naive method's matrix products per full frame) and
    whether every parent id is smaller than its child's (see ``recompute``).
    """
    s = 0
    depth_sum = 0
    by_id = True
    r = first_root
    while r >= 0:
        node = r
        depth[r] = 0
        while True:
            slot[node] = s
            order[s] = node
            s += 1
            if parent[node] >= 0 and node != r:
                depth[node] = depth[parent[node]] + 1
                depth_sum += depth[node]
                if parent[node] > node:
                    by_id = False
            c = first_child[node]
            if c >= 0:
                node = c
                continue
            done = False
            while True:
                size[node] = s - slot[node]
                if node == r:
                    done = True
                    break
                nxt = next_sib[node]
                if nxt >= 0:
                    node = nxt
                    break
                node = parent[node]
            if done:
                break
        r = next_sib[r]
    return depth_sum, by_id


@njit(cache=True)
def collect_subtree(i, first_child, next_sib, out):
    """Ids of ``i`` and all its descendants (any order). Returns the count."""
    stack = np.empty(64, dtype=np.int64)
    stack[0] = i
    top = 1
    n = 0
    while top > 0:
        top -= 1
        node = stack[top]
        out[n] = node
        n += 1
        c = first_child[node]
        while c >= 0:
            stack = _pushed(stack, top, c)
            top += 1
            c = next_sib[c]
    return n


@njit(cache=True)
def all_finite(values):
    """True when every entry of a 2-D float array is finite (stops at the first that isn't)."""
    for k in range(values.shape[0]):
        for j in range(values.shape[1]):
            if not np.isfinite(values[k, j]):
                return False
    return True


@njit(cache=True)
def first_bad_id(ids, alive):
    """Index of the first id that is out of range or removed, or -1: one pass, no copies."""
    n = alive.shape[0]
    for k in range(ids.shape[0]):
        i = ids[k]
        if i < 0 or i >= n or not alive[i]:
            return k
    return -1


@njit(cache=True)
def is_ancestor(candidate, node, parent):
    """True when ``candidate`` is ``node`` or one of its ancestors."""
    j = node
    while j >= 0:
        if j == candidate:
            return True
        j = parent[j]
    return False


@njit(cache=True)
def link_batch(first_id, parents, parent, first_child, last_child, next_sib, prev_sib, heads):
    """Append nodes ``first_id ..`` as last children of ``parents`` (or as last roots).

    ``heads`` holds ``[first_root, last_root]``.
    """
    for k in range(parents.shape[0]):
        i = first_id + k
        p = parents[k]
        parent[i] = p
        first_child[i] = -1
        last_child[i] = -1
        next_sib[i] = -1
        if p < 0:
            prev_sib[i] = heads[1]
            if heads[1] >= 0:
                next_sib[heads[1]] = i
            else:
                heads[0] = i
            heads[1] = i
        else:
            prev_sib[i] = last_child[p]
            if last_child[p] >= 0:
                next_sib[last_child[p]] = i
            else:
                first_child[p] = i
            last_child[p] = i
