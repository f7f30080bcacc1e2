"""Propagation benchmark: our core against the object-per-node baseline and three.js.

    .venv/bin/python bench/propagation.py [--quick] [--out FILE] [--pygfx-python PATH]

Builds the issue's trees (chains of 5 and 1,000, a balanced 8-ary tree and a random tree of
100k nodes, a balanced tree of 1M nodes) in all three implementations within one run, changes
every node / 1 % of the nodes / one leaf, and prints a markdown table of medians and ratios,
then the issue's targets marked PASS or FAIL. Each timing covers setting the values and the
end-of-frame update together. The numpy copy of the (N, 4, 4) world-matrix array is the
memory-bandwidth floor. `--quick` runs small trees only (a smoke test; targets not judged).
The build table also times building each tree node by node with `SceneGraph.add`
(bench/nodewise_build.py) against three.js's build of the same tree.

A second table times the per-node API call by call (bench/pernode.py): the four local
setters and clean world reads, ours against pygfx run by `--pygfx-python` (an interpreter
with pygfx installed; pygfx is not a dependency) in the same run, with the issue's targets.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # the sibling modules, then `viewer` from the repo

import pernode  # noqa: E402
from benchutil import (  # noqa: E402
    Timing,
    machine_lines,
    markdown_table,
    measure,
    others_busy_percent,
    paused_gc,
    timed,
)
from nodewise_build import build_node_by_node, nodewise_targets  # noqa: E402
from objtree import ObjTree  # noqa: E402
from threejs_driver import ThreeJS  # noqa: E402
from treegen import Tree, offset_positions, standard_trees  # noqa: E402

from viewer.scene import SceneGraph  # noqa: E402

PER_NODE_MAX = 100_000  # the per-node setter path is informational; skip it above this
CASES = ("all", "1%", "leaf")


def bench_ours(tree: Tree, row_of: dict, build: dict, quick: bool) -> np.ndarray:
    """Time our core on every case; returns the start-state world matrix of the last node."""
    names = [f"Obj{i + 1}" for i in range(tree.n)]
    g = SceneGraph()
    t_build = timed(
        lambda: g.add_many(
            names,
            tree.parents,
            positions=tree.positions,
            rotations=tree.rotations,
            scales=tree.scales,
        )
    )
    t_first = timed(g.update)
    assert len(g) == tree.n
    check = g.world_matrices()[tree.n - 1].copy()
    build["ours"], build["ours_first"] = t_build * 1e3, t_first * 1e3
    budget = 0.3 if quick else 1.0

    for case in CASES:
        ids = tree.cases[case]
        row = row_of[case]

        def set_and_update(step: int, ids=ids) -> float:
            p = offset_positions(tree, ids, step)
            with paused_gc():
                t0 = time.perf_counter()
                g.set_locals(ids, positions=p)
                g.update()
                return time.perf_counter() - t0

        def update_alone(step: int, ids=ids) -> float:
            g.set_locals(ids, positions=offset_positions(tree, ids, step))
            return timed(g.update)

        row["ours"] = measure(set_and_update, warmup=3, min_repeats=7, budget_s=budget)
        row["update"] = measure(
            update_alone, warmup=2, min_repeats=7, max_repeats=101, budget_s=budget, step0=10_000
        )
        if len(ids) <= PER_NODE_MAX:
            handles = [g.node(int(i)) for i in ids]

            def per_node(step: int, ids=ids, handles=handles) -> float:
                p = offset_positions(tree, ids, step)
                with paused_gc():
                    t0 = time.perf_counter()
                    for h, v in zip(handles, p, strict=True):
                        h.local_position = v
                    g.update()
                    return time.perf_counter() - t0

            row["per_node"] = measure(
                per_node, warmup=1, min_repeats=5, max_repeats=21, budget_s=budget, step0=20_000
            )

    w = g.world_matrices()
    dst = np.empty_like(w)
    floor = measure(
        lambda _s: timed(lambda: np.copyto(dst, w)),
        warmup=3,
        min_repeats=11,
        max_repeats=201,
        budget_s=0.5,
    )
    for case in CASES:
        row_of[case]["floor"] = floor
    return check


def bench_baseline(tree: Tree, row_of: dict, build: dict) -> np.ndarray:
    """Time the object-per-node baseline; returns the last node's start-state world matrix."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), ObjTree.recursion_needed(tree.depth)))
    holder: list[ObjTree] = []
    t_build = timed(
        lambda: holder.append(ObjTree(tree.parents, tree.positions, tree.rotations, tree.scales))
    )
    ot = holder[0]
    t_first = timed(ot.update_chain)
    check = ot.nodes[-1].world.copy()
    build["base"], build["base_first"] = t_build * 1e3, t_first * 1e3
    big = tree.n >= 100_000
    for case in CASES:
        ids = tree.cases[case]
        nodes = [ot.nodes[i] for i in ids]

        def run(step: int, ids=ids, nodes=nodes) -> float:
            p = offset_positions(tree, ids, step)
            with paused_gc():
                t0 = time.perf_counter()
                for node, v in zip(nodes, p, strict=True):
                    node.set_position(v)
                ot.update_chain()
                return time.perf_counter() - t0

        slow = big and case == "all"
        row_of[case]["base"] = measure(
            run, warmup=1, min_repeats=3 if slow else 5, max_repeats=3 if slow else 21, budget_s=1.0
        )
    return check


def bench_three(three: ThreeJS, tree: Tree, row_of: dict, build: dict) -> np.ndarray:
    """Time three.js in node; returns the last node's start-state world matrix."""
    out = three.run(tree, warmup=3, repeats=9)
    three.revision = out["three"]
    build["three"] = out["build_ms"]
    for case in CASES:
        c = out["cases"][case]
        row_of[case]["three"] = Timing(c["median_ms"], c["times_ms"])
    return out["check"]["world"]


def fmt_num(v: float) -> str:
    """Three significant digits or so, without switching to exponents."""
    for bound, spec in ((100, ".0f"), (10, ".1f"), (1, ".2f"), (0.01, ".3f")):
        if v >= bound:
            return format(v, spec)
    return format(v, ".2g")


def fmt_ms(t: Timing | float | None) -> str:
    if t is None:
        return "—"
    return fmt_num(t.median_ms if isinstance(t, Timing) else t)


def ratio(a: Timing | None, b: Timing | None) -> float | None:
    return None if a is None or b is None else a.median_ms / b.median_ms


def fmt_ratio(r: float | None) -> str:
    return "—" if r is None else f"{fmt_num(r)}×"


HEADINGS = (
    "tree",
    "n",
    "changed",
    "ours: set_locals + update (ms)",
    "ours: update() alone (ms)",
    "ours: per-node setters (ms)",
    "three.js (ms)",
    "baseline (ms)",
    "copy floor (ms)",
    "ours / three.js",
    "baseline / ours",
    "ours / floor",
)


def table(rows: list[dict]) -> list[str]:
    cells = [
        (
            r["tree"],
            f"{r['n']:,}",
            f"{r['case']} ({r['k']:,})",
            fmt_ms(r.get("ours")),
            fmt_ms(r.get("update")),
            fmt_ms(r.get("per_node")),
            fmt_ms(r.get("three")),
            fmt_ms(r.get("base")),
            fmt_ms(r.get("floor")),
            fmt_ratio(ratio(r.get("ours"), r.get("three"))),
            fmt_ratio(ratio(r.get("base"), r.get("ours"))),
            fmt_ratio(ratio(r.get("ours"), r.get("floor"))),
        )
        for r in rows
    ]
    return markdown_table(HEADINGS, cells, "l" + "r" * 11)


def build_table(builds: list[dict]) -> list[str]:
    """Build times (one run each): informational, and the first update() shows any compile."""
    headings = (
        "tree",
        "ours: add_many",
        "ours: first update()",
        "baseline: build",
        "baseline: first update_chain()",
        "three.js: build + first updateMatrixWorld()",
        "ours: add node by node + first update()",
        "add node by node / three.js",
    )
    cells = [
        (
            b["tree"],
            fmt_ms(b.get("ours")),
            fmt_ms(b.get("ours_first")),
            fmt_ms(b.get("base")),
            fmt_ms(b.get("base_first")),
            fmt_ms(b.get("three")),
            fmt_ms(b.get("ours_add")),
            fmt_ratio(
                None if "ours_add" not in b or "three" not in b else b["ours_add"] / b["three"]
            ),
        )
        for b in builds
    ]
    return markdown_table(headings, cells, "lrrrrrrr")


def targets(rows: list[dict]) -> list[str]:
    """The issue's targets, each judged on every tree it applies to."""
    out = []

    def judge(label: str, value: float | None, ok) -> None:
        if value is None:
            out.append(f"- n/a  {label}: not measured in this run")
        else:
            out.append(f"- {'PASS' if ok(value) else 'FAIL'} {label}: {value:.3g}")

    for r in rows:
        tag = f"{r['tree']}, {r['case']} changed"
        if r["n"] == 100_000 and r["case"] == "all":
            judge(
                f"{tag}: ours / three.js ≤ 0.5",
                ratio(r.get("ours"), r.get("three")),
                lambda v: v <= 0.5,
            )
            judge(
                f"{tag}: baseline / ours ≥ 50",
                ratio(r.get("base"), r.get("ours")),
                lambda v: v >= 50,
            )
        if r["n"] == 100_000 and r["case"] == "1%":
            judge(
                f"{tag}: ours / three.js ≤ 0.1",
                ratio(r.get("ours"), r.get("three")),
                lambda v: v <= 0.1,
            )
        if r["n"] == 1_000_000 and r["case"] == "leaf":
            u = r.get("update")
            judge(
                f"{tag}: update() alone < 0.1 ms",
                None if u is None else u.median_ms,
                lambda v: v < 0.1,
            )
        if r["n"] == 1_000_000 and r["case"] == "all":
            judge(
                f"{tag}: ours / copy floor ≤ 3",
                ratio(r.get("ours"), r.get("floor")),
                lambda v: v <= 3,
            )
    return out or ["- targets are judged on the full run only (100k and 1M trees)"]


def bench_pernode_ours() -> dict[str, float]:
    """Our per-node calls on the tree of bench/pernode.py, microseconds per call."""
    g = SceneGraph()
    parents = pernode.tree_parents()
    g.add_many([f"Obj{i + 1}" for i in range(len(parents))], parents)
    g.update()
    node = g.node(pernode.TIMED_NODE)
    templates = {
        "position": "node.local_position",
        "rotation": "node.local_rotation",
        "euler": "node.local_euler",
        "scale": "node.local_scale",
        "world_matrix": "node.world_matrix",
        "world_position": "node.world_position",
        "fresh_handle": f"g.node({pernode.TIMED_NODE}).world_matrix",
        "after_change": "other.touch(); node.world_matrix",
        "add": "g.add(name, node, position=v, scale=s)",
    }
    other = g.node(len(parents) - 1)  # a leaf in another branch
    names = {"node": node, "g": g, "other": other}
    return pernode.measure(templates, names, after_repeat=g.update)


def bench_pernode_pygfx(python: str | None) -> tuple[dict[str, float], str, str | None]:
    """pygfx's per-node calls through its own interpreter: (timings, version, why not)."""
    if not python:
        return {}, "", "pygfx: skipped (no --pygfx-python or $SGVIEW_PYGFX_PYTHON given)"
    script = HERE / "pygfx_pernode.py"
    try:
        out = subprocess.run(
            [python, str(script)], capture_output=True, text=True, check=True, timeout=600
        )
        data = json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as exc:
        return {}, "", f"pygfx: skipped ({python} could not run {script.name}: {exc})"
    return data["us"], data["pygfx"], None


#: The issue's per-node targets: operation -> (absolute limit in us, pygfx operation and
#: the largest ratio ours / pygfx).
PER_NODE_TARGETS = {
    "set local_position": (1.0, ("set local_position", 0.4)),
    "set local_rotation": (1.0, None),
    "set local_euler": (1.0, None),
    "set local_scale": (1.0, None),
    "read clean world_matrix": (0.5, ("read clean world_matrix", 0.75)),
    "read clean world_position": (0.5, None),
    "add a node with position and scale": (5.0, None),  # issue 36: was ~80 us
}


def pernode_table(ours: dict, pygfx: dict, version: str) -> list[str]:
    head = f"pygfx {version}" if version else "pygfx"
    headings = ("operation", "ours (us/call)", f"{head} (us/call)", "ours / pygfx")
    cells = []
    for op, t in ours.items():
        theirs = pygfx.get(op)
        r = None if theirs is None else t / theirs
        cells.append((op, fmt_num(t), "—" if theirs is None else fmt_num(theirs), fmt_ratio(r)))
    return markdown_table(headings, cells, "lrrr")


def pernode_targets(ours: dict, pygfx: dict, rows: list[dict]) -> list[str]:
    out = []
    for op, (limit, versus) in PER_NODE_TARGETS.items():
        t = ours.get(op)
        if t is not None:
            out.append(f"- {'PASS' if t <= limit else 'FAIL'} {op} ≤ {limit} us: {t:.3g} us")
        if versus is not None:
            theirs, most = pygfx.get(versus[0]), versus[1]
            if t is None or theirs is None:
                out.append(f"- n/a  {op}: ours / pygfx ≤ {most}: pygfx not measured")
            else:
                r = t / theirs
                out.append(
                    f"- {'PASS' if r <= most else 'FAIL'} {op}: ours / pygfx ≤ {most}: {r:.3g}"
                )
    for r in rows:
        if r["n"] == 100_000 and r["case"] == "all":
            v = ratio(r.get("base"), r.get("per_node"))
            tag = f"{r['tree']}: every node set one by one, then update(): baseline / ours ≥ 5"
            if v is None:
                out.append(f"- n/a  {tag}: not measured in this run")
            else:
                out.append(f"- {'PASS' if v >= 5 else 'FAIL'} {tag}: {v:.3g}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small trees only (smoke test)")
    ap.add_argument("--no-three", action="store_true", help="skip three.js")
    ap.add_argument("--no-baseline", action="store_true", help="skip the object-per-node baseline")
    ap.add_argument("--out", type=Path, help="also write the markdown report to this file")
    ap.add_argument(
        "--pygfx-python",
        default=os.environ.get("SGVIEW_PYGFX_PYTHON"),
        help="an interpreter with pygfx installed, for the per-node comparison",
    )
    args = ap.parse_args(argv)

    three = None
    skipped: list[str] = []
    if args.no_three:
        skipped.append("three.js: skipped (--no-three)")
    else:
        three = ThreeJS()
        if three.unavailable:
            skipped.append(f"three.js: skipped ({three.unavailable})")
            print(f"three.js skipped: {three.unavailable}", flush=True)
            three = None
    if args.no_baseline:
        skipped.append("baseline: skipped (--no-baseline)")

    busy_at_start = others_busy_percent()
    rows: list[dict] = []
    builds: list[dict] = []
    notes: list[str] = []
    for name, build in standard_trees(args.quick):
        tree = build()
        print(f"... {name} ({tree.n:,} nodes, {tree.depth:,} levels)", file=sys.stderr, flush=True)
        row_of = {c: {"tree": name, "n": tree.n, "case": c, "k": len(tree.cases[c])} for c in CASES}
        build = {"tree": name, "n": tree.n}
        builds.append(build)
        ours = bench_ours(tree, row_of, build, args.quick)
        build["ours_add"], nodewise = build_node_by_node(tree)
        checks = [("ours node by node", nodewise)]
        if not args.no_baseline:
            checks.append(("baseline", bench_baseline(tree, row_of, build)))
        if three is not None:
            checks.append(("three.js", bench_three(three, tree, row_of, build)))
        for who, w in checks:
            err = np.abs(w - ours).max() / max(1.0, np.abs(ours).max())
            if err > 1e-9:
                notes.append(
                    f"{name}: MISMATCH: last node's world matrix, ours vs {who}: "
                    f"relative error {err:.2g}"
                )
        rows.extend(row_of[c] for c in CASES)
        del tree, row_of
        gc.collect()

    print("... per-node API", file=sys.stderr, flush=True)
    pernode_ours = bench_pernode_ours()
    pernode_pygfx, pygfx_version, pygfx_skipped = bench_pernode_pygfx(args.pygfx_python)
    if pygfx_skipped:
        skipped.append(pygfx_skipped)

    revision = three.revision if three else ""
    report = [
        "## Propagation benchmark",
        "",
        *machine_lines(three.node_version if three else "", revision, busy_at_start),
        "",
        "Medians in milliseconds; each timing sets the changed nodes' positions and runs the "
        "end-of-frame update (ours: `set_locals` + `update()`; three.js: `position.set` + "
        "`scene.updateMatrixWorld()`; baseline: setters + `update_chain()`). "
        "`update() alone` excludes the sets. The copy floor is `np.copyto` of the (N, 4, 4) "
        "float64 world-matrix array into a preallocated one.",
        "",
        *table(rows),
        "",
        "### Targets",
        "",
        *targets(rows),
        *nodewise_targets(builds),
        "",
        "### Per-node API (microseconds per call, median)",
        "",
        "One call on node 9 of a balanced 8-ary tree of 1,000 nodes (it has a subtree), "
        "2,000 calls per repeat with new values each call, `update()` between repeats. "
        "A handle reuses the read-only matrix it handed out while the graph has not "
        "changed; the two last rows show reads that cannot (a new handle each time; a "
        "`touch()` elsewhere in the graph before each read, its cost included). "
        "The per-node setters column of the table above times every node of a tree set "
        "one by one, then `update()`.",
        "",
        *pernode_table(pernode_ours, pernode_pygfx, pygfx_version),
        "",
        *pernode_targets(pernode_ours, pernode_pygfx, rows),
        "",
        "### Build (ms, one run each)",
        "",
        *build_table(builds),
        "",
        "### Notes",
        "",
        *[f"- {s}" for s in skipped],
        *[f"- {s}" for s in notes],
        "- each tree's last node's start-state world matrix is compared across the "
        "implementations (relative tolerance 1e-9); any disagreement is listed above",
    ]
    text = "\n".join(report) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
