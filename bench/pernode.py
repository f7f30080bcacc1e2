"""Per-node API timings: one setter or one clean read, in microseconds per call.

Shared by our side (bench/propagation.py) and pygfx's (bench/pygfx_pernode.py, run by
pygfx's own interpreter), so both are timed by the same code: a statement template run
over 2,000 prepared values, repeated, median per call, garbage collector paused. The
values differ from call to call and from repeat to repeat, so no setter is suppressed.
Needs only the standard library (it runs in pygfx's environment too).
"""

from __future__ import annotations

import gc
import math
import statistics
import timeit

CALLS = 2_000
REPEATS = 15
#: Operation -> statement template; ``{obj}`` and ``{attr}`` are filled per library.
OPS = {
    "set local_position": "for v in positions: {position} = v",
    "set local_rotation": "for v in rotations: {rotation} = v",
    "set local_euler": "for v in eulers: {euler} = v",
    "set local_scale": "for v in scales: {scale} = v",
    "read clean world_matrix": "for _ in calls: {world_matrix}",
    "read clean world_position": "for _ in calls: {world_position}",
    "read clean world_matrix, new handle": "for _ in calls: {fresh_handle}",
    "touch elsewhere, then read world_matrix": "for _ in calls: {after_change}",
    # Last: it grows the tree (each call adds a child of the timed node).
    "add a node with position and scale": "for name, v, s in adds: {add}",
}
#: The tree both libraries build: balanced, branching 8, this many nodes; the timed node
#: is id 9 (depth 2, with children, so a change has a subtree to mark).
TREE_NODES = 1_000
TIMED_NODE = 9


def tree_parents(n: int = TREE_NODES) -> list[int]:
    return [-1] + [(i - 1) // 8 for i in range(1, n)]


def values(repeat: int) -> dict[str, list]:
    """Fresh values for one repeat: every call of every repeat sets a new value."""
    base = repeat * CALLS
    angles = [(base + k) * 1e-4 for k in range(CALLS)]
    return {
        "positions": [(a, 1.0, 2.0) for a in angles],
        "rotations": [(0.0, math.sin(a), 0.0, math.cos(a)) for a in angles],
        "eulers": [(a, 10.0, 20.0) for a in angles],
        "scales": [(1.0 + a, 1.0, 2.0) for a in angles],
        "adds": [
            (f"Added{base + k}", (a, 1.0, 2.0), (1.0 + a, 1.0, 2.0)) for k, a in enumerate(angles)
        ],
        "calls": range(CALLS),
    }


def per_call_us(stmt: str, names: dict, after_repeat=None) -> float:
    """Median over ``REPEATS`` runs of ``stmt`` of the time per call, in microseconds.

    ``names`` holds the objects the statement uses; ``after_repeat()`` (untimed) ends
    the frame between repeats, as a program would.
    """
    times = []
    for r in range(REPEATS + 2):  # two warm-up runs
        scope = dict(names, **values(r))
        timer = timeit.Timer(stmt, globals=scope)
        was = gc.isenabled()
        gc.disable()
        try:
            t = timer.timeit(number=1)
        finally:
            if was:
                gc.enable()
        if after_repeat is not None:
            after_repeat()
        if r >= 2:
            times.append(t / CALLS * 1e6)
    return statistics.median(times)


def measure(templates: dict[str, str], names: dict, after_repeat=None) -> dict[str, float]:
    """Time every operation of ``OPS`` whose placeholder ``templates`` fills."""
    out = {}
    for op, stmt in OPS.items():
        key = stmt.split("{")[1].split("}")[0]
        if key in templates:
            out[op] = per_call_us(stmt.format(**{key: templates[key]}), names, after_repeat)
    return out
