"""Building a benchmark tree node by node with `SceneGraph.add`, as three.js's bench builds it.

bench/threejs/bench.mjs builds each tree one `Object3D` at a time (position, quaternion and
scale set from the tree's arrays, then `parent.add(child)`), followed by one
`scene.updateMatrixWorld()`. This is the same work through our per-node API: one
`g.add(name, parent_handle, position=, rotation=, scale=)` per node, then `update()`.
The timed region includes reading the tree's arrays (`tolist()`) and making the names, which
three.js does not need, so the comparison does not favour us. Issue 36's target: this build
within 1.0x three.js's build in the same run.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import numpy as np
from benchutil import others_busy_percent, timed
from treegen import Tree, balanced_parents, make_tree

import viewer.scene.arrays as arrays_module
import viewer.scene.graph as graph_module
from viewer.scene import SceneGraph
from viewer.scene.names import SHARDS, NameIndex

#: issue 36: ours node by node / three.js's build, at most this, on the 1M tree
MOST_VS_THREE = 1.0
#: issue 47, with the collector on (as in a user's program), at 1M nodes: the mean `add`
#: call at most this (microseconds), and no call over `MOST_CALL_MS`
MOST_MEAN_US = 5.0
MOST_CALL_MS = 10.0


def build_node_by_node(tree: Tree) -> tuple[float, np.ndarray]:
    """(milliseconds to add every node with `add` and run the first `update()`, the last
    node's world matrix). Timed with the cyclic GC paused, as every build in the harness."""
    g = SceneGraph()
    handles: list = []

    def build() -> None:
        parents = tree.parents.tolist()
        positions = tree.positions.tolist()
        rotations = tree.rotations.tolist()
        scales = tree.scales.tolist()
        add, keep = g.add, handles.append
        for i, p in enumerate(parents):
            keep(
                add(
                    f"Obj{i + 1}",
                    None if p < 0 else handles[p],
                    position=positions[i],
                    rotation=rotations[i],
                    scale=scales[i],
                )
            )
        g.update()

    ms = timed(build) * 1e3
    assert len(g) == tree.n
    return ms, g.world_matrices()[tree.n - 1].copy()


def nodewise_targets(builds: list[dict]) -> list[str]:
    """Issue 36's build target, judged on the 1M tree where three.js ran."""
    out = []
    for b in builds:
        if b.get("n") != 1_000_000:
            continue
        ours, three = b.get("ours_add"), b.get("three")
        tag = f"{b['tree']}: built node by node with add, then update(): ours / three.js"
        if ours is None or three is None:
            out.append(f"- n/a  {tag} ≤ {MOST_VS_THREE}: not measured in this run")
        else:
            r = ours / three
            verdict = "PASS" if r <= MOST_VS_THREE else "FAIL"
            out.append(f"- {verdict} {tag} ≤ {MOST_VS_THREE}: {r:.3g}")
    return out


def one_dict_index(names: Iterable[str] = (), ids: Iterable[int] = ()) -> NameIndex:
    """A name index whose shards are all one dict: the one dict of before, behind the
    same calls (so the comparison is of the dicts' growth, not of the calls)."""
    index = NameIndex()
    index.shards = [dict(zip(names, ids))] * SHARDS
    return index


@contextmanager
def as_before(tracked: bool) -> Iterator[None]:
    """`add` as it was before its growth stopped copying (in the same run, as the
    baseline): the per-node arrays grown by copying into doubled plain arrays (no
    reservation), the name index one dict (`one_dict_index`); with `tracked`, also its
    handles left in the cyclic collector's sight (before they were untracked)."""
    saved = (graph_module._untrack, arrays_module.reserve, arrays_module.NameIndex)
    if tracked:
        graph_module._untrack = None
    arrays_module.reserve = lambda fields, need: None
    arrays_module.NameIndex = one_dict_index
    try:
        yield
    finally:
        graph_module._untrack, arrays_module.reserve, arrays_module.NameIndex = saved


def resident_mb() -> float:
    """The process's resident memory now (Linux; NaN elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return float("nan")


def add_calls(tree: Tree, cpu: bool = False) -> tuple[np.ndarray, float, np.ndarray | None]:
    """(microseconds of each `add` call of a node-by-node build of `tree` (a position and
    a scale each, the handles kept), with Python's cyclic GC on, as in a user's program;
    the resident memory the build added, graph and handles, in MB; with `cpu`, also the
    microseconds of the thread's CPU time each call took, else None)."""
    parents = tree.parents.tolist()
    positions = tree.positions.tolist()
    scales = tree.scales.tolist()
    names = [f"Obj{i + 1}" for i in range(tree.n)]
    times = np.empty(tree.n)
    cpu_times = np.empty(tree.n) if cpu else None
    gc.collect()  # the process's first full collection (long-lived objects) is behind us
    rss = resident_mb()
    g = SceneGraph()
    handles: list = []
    add, keep, clock, cpu_clock = g.add, handles.append, time.perf_counter, time.thread_time
    if cpu_times is None:
        for i, p in enumerate(parents):
            t0 = clock()
            node = add(
                names[i], None if p < 0 else handles[p], position=positions[i], scale=scales[i]
            )
            times[i] = clock() - t0
            keep(node)
    else:
        for i, p in enumerate(parents):
            c0 = cpu_clock()
            t0 = clock()
            node = add(
                names[i], None if p < 0 else handles[p], position=positions[i], scale=scales[i]
            )
            t1 = clock()
            cpu_times[i] = cpu_clock() - c0
            times[i] = t1 - t0
            keep(node)
    return times * 1e6, resident_mb() - rss, None if cpu_times is None else cpu_times * 1e6


def call_summary(
    us: np.ndarray, rss_mb: float = float("nan"), cpu_us: np.ndarray | None = None
) -> dict[str, float]:
    return {
        "mean_us": float(us.mean()),
        "median_us": float(np.median(us)),
        "max_ms": float(us.max() / 1e3),
        "over_10ms": int((us > MOST_CALL_MS * 1e3).sum()),
        "rss_mb": rss_mb,
        "cpu_max_ms": float("nan") if cpu_us is None else float(cpu_us.max() / 1e3),
    }


_TREE: list[Tree] = []  # the tree a forked child builds (shared, not pickled)


def _build_in_child(before: bool | None, cpu: bool) -> dict[str, float]:
    if before is None:
        return call_summary(*add_calls(_TREE[0], cpu))
    with as_before(before):
        return call_summary(*add_calls(_TREE[0], cpu))


def isolated(tree: Tree, before: bool | None, cpu: bool = False) -> dict[str, float]:
    """`call_summary` of one build in a forked child process, so that each build starts
    from the same heap and its resident memory is its own (None: as is; a bool:
    `as_before` with that `tracked`)."""
    _TREE[:] = [tree]
    with multiprocessing.get_context("fork").Pool(1) as pool:
        return pool.apply(_build_in_child, (before, cpu))


def main() -> None:
    ap = argparse.ArgumentParser(description="SceneGraph.add call by call, GC on")
    ap.add_argument("--nodes", default="100000,1000000", help="tree sizes, comma-separated")
    ap.add_argument(
        "--cpu-time",
        action="store_true",
        help="also time each call's CPU time (the thread's: without the waits for a core "
        "that other work on a busy machine adds to the wall-clock maximum); the extra "
        "clock adds about a microsecond to every call's wall time",
    )
    args = ap.parse_args()
    busy = others_busy_percent()
    print(f"load average {os.getloadavg()}; other work {busy} % of the CPUs")
    print(
        "| nodes | build | mean us | median us | max call ms | calls over 10 ms | RSS MB "
        "| max call, CPU ms |"
    )
    print("|--:|---|--:|--:|--:|--:|--:|--:|")
    for n in (int(x) for x in args.nodes.split(",")):
        tree = make_tree("balanced", balanced_parents(n))
        variants: dict[str, bool | None] = {
            "before: copying growth, one name dict, handles tracked": True,
            "copying growth, one name dict": False,
            "as is": None,
        }
        # Each built twice, in one order then the other (a build's place in the run
        # must not favour it); the build of the lower mean is shown.
        runs: dict[str, list[dict[str, float]]] = {label: [] for label in variants}
        for order in (list(variants), list(variants)[::-1]):
            for label in order:
                runs[label].append(isolated(tree, variants[label], args.cpu_time))
        rows = {label: min(two, key=lambda r: r["mean_us"]) for label, two in runs.items()}
        after = rows["as is"]
        for label, row in rows.items():
            print(
                f"| {n:,} | {label} | {row['mean_us']:.2f} | {row['median_us']:.2f} | "
                f"{row['max_ms']:.1f} | {row['over_10ms']} | {row['rss_mb']:.0f} | "
                f"{format(row['cpu_max_ms'], '.2f') if args.cpu_time else '-'} |"
            )
        for label, before in list(rows.items())[:2]:
            keys = ("mean_us", "median_us", "max_ms", "rss_mb", "cpu_max_ms")
            ratios = [after[k] / before[k] for k in keys]
            print(
                f"| {n:,} | as is / {label.split(':')[0]} | "
                + " | ".join(f"{r:.2f}x" for r in ratios[:3])
                + f" | | {ratios[3]:.2f}x | {f'{ratios[4]:.2f}x' if args.cpu_time else '-'} |"
            )
        if n == 1_000_000:
            for ok, what in (
                (after["mean_us"] <= MOST_MEAN_US, f"mean add <= {MOST_MEAN_US} us"),
                (after["max_ms"] <= MOST_CALL_MS, f"no add call over {MOST_CALL_MS} ms"),
            ):
                print(f"- {'PASS' if ok else 'FAIL'} {what} at 1M nodes")
            if args.cpu_time:
                ok = after["cpu_max_ms"] <= MOST_CALL_MS
                print(f"- {'PASS' if ok else 'FAIL'} (CPU time) no add call over 10 ms at 1M")
    print(f"load average at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
