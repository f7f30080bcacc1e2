"""Loading at scale: from launch to the first frame of a generated scene, phase by phase.

    python bench/load_phases.py [--spec balanced:1000000] [--repeats 3] [--size 1280x720]

Each repeat launches ``python -m viewer --generate SPEC --headless --frames 1`` in a fresh
process (as `sgview` would be launched) through a small wrapper that stamps the wall
clock at the start of each phase: the imports, generating the scene, the app's set-up
(the scene's shapes `SceneBounds`, the renderer's build, the overlay, the camera framed
on the scene), the first frame's draw, the exit. Times are seconds from the launch,
medians over the repeats; "ready" is when the first frame starts drawing (on a GPU the
draw itself takes milliseconds; on llvmpipe drawing a million cubes takes tens of
seconds of software rasterising, shown apart). Target (issue 31.5): ready within 3 s at
1M nodes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE)]

from benchutil import machine_lines, markdown_table, others_busy_percent  # noqa: E402

#: Run in the child: wrap the phases' entry points with wall-clock stamps, then run sgview.
CHILD = r"""
import json, sys, time
stamps = []
def stamp(name):
    stamps.append((name, time.time(), time.process_time()))
def timed(owner, attr, name):
    real = getattr(owner, attr)
    def wrapper(*args, **kwargs):
        stamp(name + " begins")
        try:
            return real(*args, **kwargs)
        finally:
            stamp(name + " ends")
    setattr(owner, attr, wrapper)
import viewer.cli.main as cli
import viewer.io as io
import viewer.window.app as app
from viewer.overlay.overlay import Overlay
stamp("imported")
timed(io, "generate_scene", "generate")
timed(app.SgviewApp, "__init__", "app")
timed(app, "SceneBounds", "bounds")
timed(app, "Renderer", "renderer")
timed(Overlay, "__init__", "overlay")
timed(app.SgviewApp, "_apply_camera_spec", "camera")
timed(app.SgviewApp, "draw", "draw")
status = cli.main(sys.argv[1:])
stamp("exit")
print("PHASES " + json.dumps(stamps), file=sys.stderr)
sys.exit(status)
"""

#: (label, from stamp, to stamp) of the table's columns.
COLUMNS = (
    ("imports", "launch", "imported"),
    ("generate", "generate begins", "generate ends"),
    ("scene shapes", "bounds begins", "bounds ends"),
    ("renderer build", "renderer begins", "renderer ends"),
    ("overlay", "overlay begins", "overlay ends"),
    ("camera", "camera begins", "camera ends"),
    ("ready (launch to first draw)", "launch", "draw begins"),
    ("first draw", "draw begins", "draw ends"),
)


def launch_once(spec: str, size: str) -> tuple[dict[str, float], dict[str, float]]:
    """One launch: each stamp's seconds from the launch (the first of a name), in wall
    time and in the process's CPU time."""
    argv = ["--generate", spec, "--headless", "--frames", "1", "--size", size]
    start = time.time()
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=REPO, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    lines = [line for line in done.stderr.splitlines() if line.startswith("PHASES ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"launch failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    wall, cpu = {"launch": 0.0}, {"launch": 0.0}
    for name, at, used in json.loads(lines[-1][len("PHASES ") :]):
        wall.setdefault(name, at - start)
        cpu.setdefault(name, used)
    return wall, cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="balanced:1000000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args(argv)
    busy = others_busy_percent()
    runs = [launch_once(args.spec, args.size) for _ in range(args.repeats)]
    rows = []
    for k, clock in enumerate(("wall", "CPU")):
        cells = [clock]
        for _label, a, b in COLUMNS:
            spans = [run[k][b] - run[k][a] for run in runs if a in run[k] and b in run[k]]
            cells.append(f"{statistics.median(spans):.2f}" if spans else "n/a")
        rows.append(cells)
    lines = [f"## Launch to first frame: `--generate {args.spec}`", "",
             f"Seconds, medians of {args.repeats} launches (wall time, and the process's "
             "CPU time, which other jobs on shared cores disturb less; the CPU time of the "
             "imports counts from the interpreter's start):", "",
             *markdown_table(["clock", *(c[0] for c in COLUMNS)], rows,
                             "l" + "r" * len(COLUMNS)), ""]  # fmt: skip
    lines += [line for line in machine_lines(busy_at_start=busy) if not line.startswith("- node")]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
