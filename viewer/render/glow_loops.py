"""Compiled loops for a changed frame's glow bookkeeping and staged rows (numba, cached).

At a million nodes a frame that changes 1 % recomputes about 50,000 of them, and the
numpy path in `glow.py` and `scatter.py` touches each about 9 times through separate
gathers and scatters (its frame of last stamp, heat, own flag, parent, line frame), then
gathers and casts its world matrix: about as long as the core's whole `update()` of that
frame. These loops do the same in one pass over the recomputed nodes each, with the same
results bit for bit: the float arithmetic whose last bit a compiler could change (the
exponential, a multiply followed by an add) stays in numpy between the two passes.

They compile once, cached on disk like the core's loops: the first run after an install
compiles them in the same background step (``viewer.scene.coldstart``, which the command
line names this module to, `exercise`), and until that is done `serving()` is False and
the numpy path runs instead.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from viewer.scene import coldstart

__all__ = [
    "WINDOW",
    "exercise",
    "serving",
    "stage",
    "stage_rows",
    "stamp_frame",
    "stamp_late",
    "stamp_nodes",
]


def serving() -> bool:
    """Whether the compiled loops serve now: not while the first run compiles them in
    the background (the numpy path runs then, as the core's Python twins do). The first
    time they do, every loop is loaded (or, where no first-run step ran, compiled) at
    once, so none is compiled later in a session (`stamp_late` may first be needed
    thousands of frames in)."""
    if coldstart.compiling():
        return False
    if not _exercised:
        exercise()
    return True


_exercised = False  # (`exercise` ran in this process)

#: Frames back whose decay of the heat `stamp_frame` works out once per frame (in numpy,
#: the same bits as per node); a node last stamped earlier gets its own, afterwards.
WINDOW = 1024


@njit(cache=True, nogil=True, inline="always")
def _code(own_flag, heat, codes):
    """A stamp's code, as `Glow.stamp_rows` makes it: reason + heat (below the top)."""
    heat = codes[3] if heat > codes[3] else heat  # (as np.minimum: NaN stays)
    return np.float32((codes[1] if own_flag else codes[2]) + heat)


@njit(cache=True, nogil=True)
def stamp_nodes(
    world,
    local,
    parents,
    frame,
    decays,
    first,
    heat_added,
    own,
    frame_of,
    link_frame,
    heat_at,
    counted,
    every,
    limit,
    base,
    node_gone,
    line_gone,
    alone,
    lines,
    line_frames,
    codes,
    stamps,
    frame_time,
    links,
    heat_now,
    late,
    late_frames,
):
    """Stamp frame `frame` on nodes `world` and `local` (own changes; each id once in
    each), light the lines to those whose parent was recomputed too, and count what the
    recent frames from `base` on lose (`node_gone`, `line_gone` by frame - base + 1; -1:
    no recent frame). A node counts (weight 1) when below `limit` and, unless `every`,
    `counted[node]`. A node's new heat is its old one times its decay since its last
    stamp (`decays[0]` for none, `decays[f - first + 1]` for frame f >= `first`) plus
    `heat_added`; one stamped before `first` is left to `stamp_late` (`late[:c]` its
    place in `world`, `late_frames` its frame). Fills per node of `world` its
    `heat_now`, `line_frames` and the rows the GPU takes (`Glow.stamp_rows`,
    `link_rows`): `stamps` from `codes` (time, own reason, followed reason, heat's top),
    `links` from the line frames' times (`frame_time`). Returns (a, b, counted nodes,
    c): `alone[:a]` the locals not in `world`, `lines[:b]` the lit lines."""
    total = 0.0
    n_late = 0
    for i in range(world.size):
        node = world[i]
        was = frame_of[node]
        if was == 0 or was >= first:
            heat = decays[0 if was == 0 else was - first + 1] * heat_at[node]
            heat = heat + heat_added  # (apart: the multiply and add round as numpy's)
            heat_now[i] = heat
            heat_at[node] = heat
        else:
            late[n_late] = i
            late_frames[n_late] = was
            n_late += 1
        frame_of[node] = frame
        own[node] = False
        weight = 1.0 if node < limit and (every or counted[node]) else 0.0
        total += weight
        if base >= 0:
            node_gone[max(was - (base - 1), 0)] += weight
    n_alone = 0
    for j in range(local.size):
        node = local[j]
        was = frame_of[node]
        if was != frame:  # recomputed alone, with no world recomputation
            alone[n_alone] = node
            n_alone += 1
            weight = 1.0 if node < limit and (every or counted[node]) else 0.0
            total += weight
            if base >= 0:
                node_gone[max(was - (base - 1), 0)] += weight
        own[node] = True
        frame_of[node] = frame
    n_lines = 0
    for i in range(world.size):
        node = world[i]
        parent = parents[node]
        line_frames[i] = link_frame[node]
        if parent >= 0 and frame_of[parent] == frame:
            if base >= 0:
                line_gone[max(line_frames[i] - (base - 1), 0)] += 1
            lines[n_lines] = node
            n_lines += 1
            link_frame[node] = frame
            line_frames[i] = frame
        stamps[i, 0] = np.float32(codes[0])
        stamps[i, 1] = _code(own[node], heat_now[i], codes)  # (a late one's: again later)
        lit = frame_time[line_frames[i]]
        links[i] = np.float32(-3.0e38 if lit < -3.0e38 else lit)  # (as np.maximum)
    return n_alone, n_lines, total, n_late


@njit(cache=True, nogil=True)
def stamp_late(world, late, decays, heat_added, own, heat_at, codes, stamps, heat_now):
    """`stamp_nodes`' heat and stamp of the nodes `world[late[j]]` stamped before its
    window, with their own `decays[j]`."""
    for j in range(late.size):
        i = late[j]
        node = world[i]
        heat = decays[j] * heat_at[node]
        heat = heat + heat_added
        heat_now[i] = heat
        heat_at[node] = heat
        stamps[i, 1] = _code(own[node], heat, codes)


@njit(cache=True, nogil=True)
def stage_rows(world16, ids, stamps, links, lo, hi, rows, row_bits):
    """Fill the staged rows (`scatter.ROW_FLOATS` floats each) of nodes `ids`, at the
    pre-order slots of the runs [lo[r], hi[r]) one after another: the world matrix from
    `world16` [N, 16] float64 cast to float32, the stamp, the link stamp and the slot's
    bits (`row_bits`: the same rows seen as uint32)."""
    k = 0
    for r in range(lo.size):
        for slot in range(lo[r], hi[r]):
            node = ids[k]
            for j in range(16):
                rows[k, j] = np.float32(world16[node, j])
            rows[k, 16] = stamps[k, 0]
            rows[k, 17] = stamps[k, 1]
            rows[k, 18] = links[k]
            row_bits[k, 19] = np.uint32(slot)
            k += 1


def stamp_frame(
    world,
    local,
    parents,
    frame: int,
    base: int | None,
    clock: tuple,
    frame_time: np.ndarray,
    state: tuple,
    counted: np.ndarray | None,
    every: bool,
    codes: tuple,
) -> tuple:
    """`Glow.record`'s stamps of frame `frame` through the loops: `clock` is (now, 1 / the
    heat's seconds, this frame's heat), `state` the glow's (own, frame_of, link_frame,
    heat_at) by id, `base` its oldest recent frame (None: none), `codes` as `stamp_nodes`
    takes them. Returns (new heat, line frames, (stamps, link stamps)) per node of
    `world`, the locals not in it, the lit lines, how many nodes count, and (nodes,
    lines) each recent frame loses, from `base` - 1 on."""
    own, frame_of, link_frame, heat_at = state
    now, inv_seconds, heat_added = clock
    world, local = _read_only(world, np.int64), _read_only(local, np.int64)
    k = world.size
    first = max(frame - WINDOW, 1)
    decays = _decays(np.concatenate((frame_time[:1], frame_time[first:frame])), now, inv_seconds)
    span = frame - base + 2 if base is not None else 1
    node_gone, line_gone = np.zeros(span), np.zeros(span, dtype=np.int64)
    limit = np.iinfo(np.int64).max if counted is None else len(counted)
    counted = _read_only(np.zeros(0, dtype=np.bool_) if counted is None else counted, np.bool_)
    alone, lines, line_frames = (
        np.empty(local.size, np.int64),
        np.empty(k, np.int64),
        np.empty(k, np.int64),
    )
    late, late_frames = np.empty(k, np.int64), np.empty(k, np.int64)
    stamps, links = np.empty((k, 2), dtype=np.float32), np.empty(k, dtype=np.float32)
    heat_now = np.empty(k)
    n_alone, n_lines, total, n_late = stamp_nodes(
        world,
        local,
        _read_only(parents, np.int64),
        frame,
        decays,
        first,
        heat_added,
        own,
        frame_of,
        link_frame,
        heat_at,
        counted,
        every,
        limit,
        -1 if base is None else base,
        node_gone,
        line_gone,
        alone,
        lines,
        line_frames,
        codes,
        stamps,
        frame_time,
        links,
        heat_now,
        late,
        late_frames,
    )
    if n_late:
        late_decays = _decays(frame_time[late_frames[:n_late]], now, inv_seconds)
        stamp_late(
            world, late[:n_late], late_decays, heat_added, own, heat_at, codes, stamps, heat_now
        )
    return (
        heat_now,
        line_frames,
        (stamps, links),
        alone[:n_alone],
        lines[:n_lines],
        int(total),
        (node_gone, line_gone),
    )


def _decays(times: np.ndarray, now: float, inv_seconds: float) -> np.ndarray:
    """How much heat stamped at `times` keeps by `now`: numpy's operations, in numpy's
    order, as the numpy path does them per node (numba's exp differs in the last bit)."""
    decays = times - now
    decays *= inv_seconds
    return np.exp(decays, out=decays)


def stage(
    world: np.ndarray,
    ids: np.ndarray,
    stamps: np.ndarray,
    links: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    rows: np.ndarray,
) -> None:
    """`stage_rows` into `rows` [n, 20] float32 from `world` [N, 4, 4] float64 (the
    caller checks that `ids` fill the runs exactly)."""
    stage_rows(
        _read_only(world.reshape(len(world), 16), np.float64),
        _read_only(ids, np.int64),
        _read_only(stamps, np.float32),
        _read_only(links, np.float32),
        _read_only(lo, np.int64),
        _read_only(hi, np.int64),
        rows,
        rows.view(np.uint32),
    )


def _read_only(array, dtype) -> np.ndarray:
    """`array` as a read-only, contiguous plain array of `dtype` (a view when it is one
    already): the loops see one type whatever the caller's array, so they are compiled
    for one signature (`exercise`'s), never again at a frame."""
    view = np.ascontiguousarray(array, dtype=dtype).view(np.ndarray)
    view.flags.writeable = False
    return view


def exercise() -> None:
    """Call every loop with the argument types the renderer passes, so each is compiled
    (or loaded from the cache) here rather than at a frame (the first run's step)."""
    global _exercised
    ids, floats, flags = np.zeros(1, np.int64), np.zeros(1), np.zeros(1, np.bool_)
    frame = WINDOW + 2  # node 0 last stamped in frame 1, before the window: `stamp_late`
    state = (flags, np.ones(1, np.int64), ids.copy(), floats.copy())
    stamp_frame(
        ids,
        ids,
        ids - 1,
        frame,
        1,
        (0.0, 1.0, 0.0),
        np.zeros(frame),
        state,
        flags,
        True,
        (0.0, 1, 2, 0.5),
    )
    stage(
        np.zeros((1, 4, 4)),
        ids,
        np.zeros((1, 2), np.float32),
        np.zeros(1, np.float32),
        ids,
        ids + 1,
        np.zeros((1, 20), np.float32),
    )
    _exercised = True
