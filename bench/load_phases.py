"""Loading at scale: from launch to the first frame of a generated scene, phase by phase.

    python bench/load_phases.py [--spec balanced:1000000] [--repeats 3] [--size 1280x720]
                                [--against REV]

Each repeat launches ``python -m viewer --generate SPEC --headless --frames 1`` in a fresh
process (as `sgview` would be launched) through a small wrapper that stamps the wall
clock at the start of each phase: the imports, generating the scene, the app's set-up
(the scene's shapes `SceneBounds`, the renderer's build, the overlay, the camera framed
on the scene), the first frame's draw, the exit. Times are seconds from the launch,
medians over the repeats; "ready" is when the first frame starts drawing (on a GPU the
draw itself takes milliseconds; on llvmpipe drawing a million cubes takes tens of
seconds of software rasterising, shown apart). Target (issue 31.5): ready within 3 s at
1M nodes.

``--against REV`` also launches the code of git revision REV (unpacked with ``git
archive`` into a temporary folder), alternating with this tree's launches in the same
run, and prints its table and the ratios (this tree / REV) of the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE)]

from benchutil import machine_lines, markdown_table, others_busy_percent  # noqa: E402

#: Run in the child: wrap the phases' entry points with wall-clock stamps, then run sgview.
CHILD = r"""
import json, resource, sys, time
stamps = []
def stamp(name):
    use = resource.getrusage(resource.RUSAGE_SELF)
    stamps.append((name, time.time(), time.process_time(), use.ru_utime, use.ru_minflt / 1e3))
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

#: What each stamp reads, in order: wall seconds from the launch, the process's CPU
#: seconds (user + system), its user CPU seconds alone, and the thousands of page faults
#: it took (first touches of memory: on this virtual machine each costs system time that
#: swings with the host's load, so user time and faults say more than CPU time does).
CLOCKS = ("wall", "CPU", "user CPU", "faults (k)")
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


def launch_once(spec: str, size: str, root: Path = REPO) -> tuple[dict[str, float], ...]:
    """One launch of the code under `root`: per clock of `CLOCKS`, each stamp's reading
    (the first of a name) from the launch."""
    argv = ["--generate", spec, "--headless", "--frames", "1", "--size", size]
    start = time.time()
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=root, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(root)})  # fmt: skip
    lines = [line for line in done.stderr.splitlines() if line.startswith("PHASES ")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"launch failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    clocks: tuple[dict[str, float], ...] = tuple({"launch": 0.0} for _ in CLOCKS)
    for name, at, *used in json.loads(lines[-1][len("PHASES ") :]):
        for clock, value in zip(clocks, (at - start, *used), strict=True):
            clock.setdefault(name, value)
    return clocks


def unpack_revision(rev: str, into: Path) -> Path:
    """The files of git revision `rev` of this repository, unpacked under `into`."""
    archive = into / "rev.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(REPO), "archive", rev], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def warm_up(root: Path) -> None:
    """Compile (or load) the core's numba loops of the code under `root` into numba's
    cache, as its first launch after an install does in the background, so that the
    timed launches load them as every later launch does."""
    subprocess.run([sys.executable, "-m", "viewer.scene.coldstart"], cwd=root, check=True,
                   env={**os.environ, "PYTHONPATH": str(root)})  # fmt: skip


def medians(runs: list, clock: int) -> list[float | None]:
    """Per column, the median span over `runs` on `clock` (an index into `CLOCKS`)."""
    out = []
    for _label, a, b in COLUMNS:
        spans = [
            run[clock][b] - run[clock][a] for run in runs if a in run[clock] and b in run[clock]
        ]
        out.append(statistics.median(spans) if spans else None)
    return out


def table(title: str, runs: list, against: list | None = None) -> list[str]:
    """A markdown table of `runs`' medians, wall and CPU; with `against` (the old code's
    runs) a ratio row per clock as well."""
    rows = []
    for k, clock in enumerate(CLOCKS):
        ours = medians(runs, k)
        digits = 0 if clock.startswith("faults") else 2
        rows.append([clock, *("n/a" if v is None else f"{v:.{digits}f}" for v in ours)])
        if against is not None:
            theirs = medians(against, k)
            ratios = ("n/a" if a is None or not b else f"{a / b:.2f}x"
                      for a, b in zip(ours, theirs, strict=True))  # fmt: skip
            rows.append([f"{clock} ratio", *ratios])
    return [title, "", *markdown_table(["clock", *(c[0] for c in COLUMNS)], rows,
                                       "l" + "r" * len(COLUMNS)), ""]  # fmt: skip


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="balanced:1000000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--against", metavar="REV", help="also launch git revision REV")
    args = parser.parse_args(argv)
    busy = others_busy_percent()
    with tempfile.TemporaryDirectory(prefix="sgview-load-") as tmp:
        old_root = unpack_revision(args.against, Path(tmp)) if args.against else None
        for root in (REPO, old_root) if old_root is not None else (REPO,):
            warm_up(root)
        runs, old_runs = [], []
        for _ in range(args.repeats):  # alternating, so both see the same machine
            runs.append(launch_once(args.spec, args.size))
            if old_root is not None:
                old_runs.append(launch_once(args.spec, args.size, old_root))
    lines = [f"## Launch to first frame: `--generate {args.spec}`", "",
             f"Seconds, medians of {args.repeats} launches (wall time, and the process's "
             "CPU time, which other jobs on shared cores disturb less; the CPU time of the "
             "imports counts from the interpreter's start):", ""]  # fmt: skip
    if old_root is None:
        lines += table("This tree:", runs)
    else:
        lines += table(f"This tree (ratio: this tree / `{args.against}`):", runs, old_runs)
        lines += table(f"`{args.against}`, launched in turn with this tree:", old_runs)
    lines += [line for line in machine_lines(busy_at_start=busy) if not line.startswith("- node")]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
