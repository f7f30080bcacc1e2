"""The 1 %-changed frame with the compiled glow loops against the numpy path, paired.

    python bench/glow_loops_paired.py [--nodes 1000000] [--frames 30]

One scene (`bench/render.py`'s balanced tree of cubes, 1 % of the nodes given new
rotations per changed frame, three idle frames after each, GL draws skipped), one
renderer, one process: the changed frames take the two paths by turns, the compiled loops
of `viewer/render/glow_loops.py` and the numpy path (the code before them, which still
runs while the first run compiles them), so machine load drifts over both alike. Both
paths leave the same state (tests/render/test_glow_loops.py), so each frame starts where
the other left off. Per path: medians of this thread's CPU time of `update()`, of
`Renderer.sync`, of the frame view and draw, and of the per-frame ratio of the renderer's
CPU (sync + view + draw) to that frame's `update()` (target <= 1.0, issue 31).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from benchutil import machine_lines, markdown_table, others_busy_percent, paused_gc  # noqa: E402
from render import Case, draws_skipped  # noqa: E402

from viewer.render import glow_loops  # noqa: E402
from viewer.render.context import Target, create_headless_context  # noqa: E402

PATHS = ("numpy path", "compiled loops")


def _frame(case: Case, target: Target, changed: bool) -> dict[str, float]:
    """This thread's CPU ms of one frame's update, sync and view + draw."""
    with paused_gc():
        if changed:
            case.change()
        c0 = time.thread_time()
        report = case.graph.update()
        c1 = time.thread_time()
        case.renderer.sync(report, 1 / 60)
        c2 = time.thread_time()
        case.api.draw(target.fbo, case.camera, target.size)
        c3 = time.thread_time()
    ms = 1000.0
    return {"update": ms * (c1 - c0), "sync": ms * (c2 - c1), "draw": ms * (c3 - c2),
            "ratio": (c3 - c1) / max(c1 - c0, 1e-9)}  # fmt: skip


def run(nodes: int, frames: int) -> list[dict]:
    ctx = create_headless_context()
    case = Case(ctx, nodes)
    target = Target(ctx, (64, 64), samples=0)
    real = glow_loops.serving
    glow_loops.exercise()
    times: dict[str, list[dict]] = {path: [] for path in PATHS}
    try:
        with draws_skipped():
            for k in range(4 + 2 * frames):  # 4 warm-up frames, then the paths by turns
                path = PATHS[k % 2]
                glow_loops.serving = (lambda on: lambda: on)(path == PATHS[1])
                changed = _frame(case, target, changed=True)
                glow_loops.serving = real
                for _ in range(3):  # the glow fades over the idle frames' clock
                    _frame(case, target, changed=False)
                if k >= 4:
                    times[path].append(changed)
    finally:
        glow_loops.serving = real
        target.release()
        case.release()
    rows = []
    for path in PATHS:
        frames_of = times[path]
        row = {key: float(np.median([f[key] for f in frames_of])) for key in frames_of[0]}
        rows.append({"path": path, "frames": len(frames_of), **row})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--frames", type=int, default=30, help="changed frames per path")
    args = parser.parse_args(argv)
    busy = others_busy_percent()
    rows = run(args.nodes, args.frames)
    print(f"{args.nodes:,} nodes, 1 % changed, draws skipped; thread CPU ms, medians:\n")
    header = ["path", "frames", "update", "sync", "view + draw", "renderer / update"]
    cells = [[r["path"], str(r["frames"]), f"{r['update']:.2f}", f"{r['sync']:.2f}",
              f"{r['draw']:.2f}", f"{r['ratio']:.2f}"] for r in rows]  # fmt: skip
    print("\n".join(markdown_table(header, cells, "lrrrrr")))
    ratio = rows[1]["ratio"]
    verdict = "PASS" if ratio <= 1.0 else "FAIL"
    print(f"\n- {verdict}: compiled loops, renderer CPU {ratio:.2f}x that frame's update()"
          f" (target <= 1.0); numpy path {rows[0]['ratio']:.2f}x")  # fmt: skip
    machine = machine_lines(busy_at_start=busy)
    print("\n".join(line for line in machine if not line.startswith("- node")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
