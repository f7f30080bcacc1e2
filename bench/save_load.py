"""Saving and loading at size, and the memory a node costs (issue 36).

    .venv/bin/python bench/save_load.py [--nodes N] [--repeats K] [--quick]
        [--only toml|glb] [--against DIR]

For `--nodes` (default 1,000,000; `--quick`: 20,000) it generates ``chain:N`` once, then
times, each run in a fresh process so its peak memory (ru_maxrss) is its own:

- ``sgview --generate chain:N --save x.toml`` and ``--save x.glb`` (generation included,
  as a user runs it), and ``load_scene`` of each file written; the .glb also read the
  old way (``load-json``: ``json.loads`` and node dicts, msgspec's column-wise nodes off);

(``--only toml`` or ``--only glb``: that format's steps alone, and nothing after them)
and prints a markdown table of median seconds and peak MB over `--repeats` runs, with
the baseline each child measures beside its step: the raw file I/O (writing the saved
file's bytes again, or reading the file's bytes) as a ratio, and the peak memory the
child had before the step (its imports); then the issue's targets (each within 10 s; a
million-node glTF load at most 1 GB); then the peak of 1.5 N animated nodes
(``random:1.5N`` with a spin on every node, ten frames; target: 1.5M nodes within 2 GB).
Then the memory per node of the core, measured with tracemalloc over ``add_many`` of N
nodes (the arrays at their grown capacity, the names and the name index), next to the
bytes per node of each core array by its dtype and
width. ``--against DIR`` also times each step with the code of another checkout (for
example ``git worktree add /tmp/main main``), its runs taking turns with this tree's, and
prints its seconds and this tree's over them (the machine's load then weighs on both).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from benchutil import machine_lines, markdown_table  # noqa: E402

#: One timed step in a child process: prints {"seconds": s, "peak_mb": m}.
_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
what, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
from pathlib import Path
from viewer.cli.main import main
from viewer.io import SceneError, load_scene
if what == "load-json":  # the glTF reader's old way (json.loads, dicts), as a baseline
    import viewer.io.gltf_read.data as gltf_data
    gltf_data.fast_parse = lambda text: None
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0, c0 = time.perf_counter(), time.process_time()
if what == "save":
    code = main(["--generate", f"chain:{{n}}", "--save", path, "--max-nodes", str(max(n, 2))])
    assert code == 0, code
else:
    try:
        scene = load_scene(path, max_nodes=max(n, 2), max_buffer_bytes=1 << 31,
                           max_json_bytes=1 << 30)
    except SceneError as exc:  # a cap the loader keeps (the TOML file size): say which
        print(json.dumps({{"error": str(exc)}}))
        raise SystemExit(0)
    assert len(scene.graph) == n
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t1 = time.perf_counter()  # the baseline: the file's bytes, read (and written again)
data = Path(path).read_bytes()
if what == "save":
    Path(path + ".copy").write_bytes(data)
io_seconds = time.perf_counter() - t1
print(json.dumps({{"seconds": seconds, "peak_mb": peak, "before_mb": before,
                  "io_seconds": io_seconds, "cpu": cpu}}))
"""

#: 1.5 N animated nodes in a child: ``random:M`` with a spin on every node, ten frames of
#: motions and ``update()``; prints the median frame, one ``np.copyto`` of the world
#: matrices (the baseline) and the peak.
_ANIMATE = r"""
import json, resource, statistics, sys, time
import numpy as np
sys.path.insert(0, {root!r})
from viewer.content.motion import Motion, apply_motions
from viewer.io.generate import generate_scene
m = int(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
scene = generate_scene(f"random:{{m}}")
graph = scene.graph
ids = graph.alive_ids()
driven = [x.ids for x in scene.motions if x.channel == "rotation"]
spun = np.setdiff1d(ids, np.concatenate(driven))  # one rotation motion per node
rest = graph.local_values()[1][spun]
scene.motions.append(Motion.make("spin", spun, rest, axis=(0, 1, 0), speed=30.0))
frames = []
for frame in range(1, 11):
    t0 = time.perf_counter()
    apply_motions(scene, frame / 60)
    graph.update()
    frames.append(time.perf_counter() - t0)
world = graph.world_matrices()
copy = world.copy()  # its pages touched: the copy timed below is memory speed
t0 = time.perf_counter()
np.copyto(copy, world)
baseline = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"frame_seconds": statistics.median(frames[1:]), "baseline": baseline,
                  "peak_mb": peak, "before_mb": before, "animated": int(spun.size)}}))
"""

#: The core's per-node arrays (viewer/scene/arrays.py): name -> (dtype, width).
CORE_ARRAYS = {
    "pos": (np.float64, 3), "rot": (np.float64, 4), "scl": (np.float64, 3),
    "local": (np.float64, 16), "world": (np.float64, 16),
    "parent, first_child, last_child, next_sib, prev_sib": (np.int64, 5),
    "slot, size, depth, order, cause": (np.int64, 5), "version": (np.int64, 1),
    "flags": (np.uint8, 1), "alive": (np.bool_, 1),
}  # fmt: skip


def child(what: str, path: Path, n: int, root: Path = ROOT) -> dict:
    code = _CHILD.format(root=str(root))
    out = subprocess.run([sys.executable, "-c", code, what, str(path), str(n)],
                         capture_output=True, text=True, check=True, timeout=900)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def animated(m: int) -> dict:
    code = _ANIMATE.format(root=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, str(m)],
                         capture_output=True, text=True, check=True, timeout=900)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def core_bytes_per_node(n: int) -> float:
    """Bytes tracemalloc sees per node after ``add_many`` of `n` named nodes."""
    from viewer.scene import SceneGraph

    names = [f"Node{i}" for i in range(n)]  # made before: the names' strings are counted
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    g = SceneGraph()
    g.add_many(names, np.arange(-1, n - 1))
    g.update()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return used / n


def app_bytes_per_node(n: int) -> dict[str, float] | None:
    """Bytes per node the running app keeps beyond the core (renderer, then renderer and
    overlay; CPU side, tracemalloc) on ``random:n``, two headless frames; None: no GL."""
    from viewer.io.generate import generate_scene
    from viewer.window.run_options import RunOptions
    from viewer.window.runner import run

    out = {}
    for label, overlay in (("renderer", False), ("renderer + overlay", True)):
        scene = generate_scene(f"random:{n}")
        scene.graph.update()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        try:
            app = run(scene, RunOptions(size=(160, 120), frames=2, overlay=overlay),
                      headless=True)  # fmt: skip
        except Exception:  # no OpenGL here: the row says so
            tracemalloc.stop()
            return None
        out[label] = (tracemalloc.get_traced_memory()[0] - base) / n
        tracemalloc.stop()
        del app
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="20,000 nodes, one run each")
    ap.add_argument("--only", choices=("toml", "glb"), help="one format's steps alone")
    ap.add_argument("--against", type=Path, help="another checkout, timed in turn")
    args = ap.parse_args(argv)
    n, repeats = (20_000, 1) if args.quick else (args.nodes, args.repeats)
    rows, refused, against = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in ("toml", "glb") if args.only is None else (args.only,):
            path = Path(tmp) / f"chain.{suffix}"
            for what in ("save", "load", *(("load-json",) if suffix == "glb" else ())):
                runs, others = [], []
                for _ in range(repeats):  # in turn, so that both see the same load
                    runs.append(child(what, path, n))
                    if args.against is not None and "error" not in runs[-1]:
                        other = Path(tmp) / f"against.{suffix}"  # the same file to load
                        if what.startswith("load"):
                            other.write_bytes(path.read_bytes())
                        others.append(child(what, other, n, args.against.resolve()))
                if "error" in runs[0]:
                    refused.append(f"- {what} .{suffix}: refused: {runs[0]['error']}")
                    continue
                seconds = statistics.median(r["seconds"] for r in runs)
                peak = statistics.median(r["peak_mb"] for r in runs)
                ratio = statistics.median(r["seconds"] / r["io_seconds"] for r in runs)
                before = statistics.median(r["before_mb"] for r in runs)
                cpu = statistics.median(r["cpu"] for r in runs)
                rows.append((f"{what} .{suffix}", seconds, peak, ratio, before, cpu))
                if others and "error" not in others[0]:
                    theirs = statistics.median(r["seconds"] for r in others)
                    their_cpu = statistics.median(r["cpu"] for r in others)
                    their_peak = statistics.median(r["peak_mb"] for r in others)
                    against.append((f"{what} .{suffix}", f"{theirs:.2f}", f"{seconds:.2f}",
                                    f"{seconds / theirs:.2f}", f"{their_cpu:.2f}", f"{cpu:.2f}",
                                    f"{cpu / their_cpu:.2f}", f"{their_peak:,.0f}"))  # fmt: skip
                elif others:
                    against.append((f"{what} .{suffix}", "refused", f"{seconds:.2f}", "", "",
                                    f"{cpu:.2f}", "", ""))  # fmt: skip
    lines = [f"# Saving and loading chain:{n:,} (median of {repeats})", ""]
    lines += markdown_table(
        ("step", "seconds", "CPU s", "x raw file I/O", "peak MB", "MB before the step",
         "peak B/node"),
        [(s, f"{t:.2f}", f"{c:.2f}", f"{r:,.0f}", f"{m:,.0f}", f"{b:,.0f}",
          f"{(m - b) * 2**20 / n:,.0f}") for s, t, m, r, b, c in rows], "lrrrrrr")  # fmt: skip
    lines += refused
    if against:
        lines += ["", f"Against {args.against} (its runs taking turns with this tree's):", ""]
        lines += markdown_table(
            ("step", "against s", "this tree s", "this / against", "against CPU s",
             "this tree CPU s", "CPU this / against", "against peak MB"),
            against, "lrrrrrrr")  # fmt: skip
    lines += ["", f"Targets (issue 36, for 1,000,000 nodes; this run: {n:,}):"]
    for step, seconds, _peak, _ratio, _before, cpu in rows:
        if step.startswith("load-json"):  # the baseline, not a target
            continue
        lines.append(f"- {'PASS' if seconds <= 10 else 'FAIL'} {step} within 10 s: {seconds:.2f} s"
                     f" (CPU {cpu:.2f} s)")  # fmt: skip
    lines.append("- (CPU: the step's processor time; wall time beyond it waited for the cores)")
    for step, _seconds, peak, *_ in rows:
        if step == "load .glb":
            lines.append(f"- {'PASS' if peak <= 1024 else 'FAIL'} load .glb peak at most 1 GB: "
                         f"{peak:,.0f} MB")  # fmt: skip
    if args.only is not None:  # the steps alone: no animation, no memory per node
        print("\n".join([*lines, "", *machine_lines()]))
        return 0
    m = n * 3 // 2
    anim = animated(m)
    lines += ["", f"# {m:,} animated nodes (random:{m:,}, a spin on every node, 10 frames)", ""]
    lines += markdown_table(
        ("frame (median)", "x one np.copyto of the world matrices", "peak MB", "peak B/node"),
        [(f"{anim['frame_seconds']:.3f} s", f"{anim['frame_seconds'] / anim['baseline']:,.0f}",
          f"{anim['peak_mb']:,.0f}", f"{(anim['peak_mb'] - anim['before_mb']) * 2**20 / m:,.0f}")],
        "rrrr")  # fmt: skip
    lines.append(f"- {'PASS' if anim['peak_mb'] <= 2048 else 'FAIL'} {m:,} animated nodes "
                 f"peak at most 2 GB (target for 1.5M): {anim['peak_mb']:,.0f} MB")  # fmt: skip
    per_node = core_bytes_per_node(min(n, 200_000))
    cells = [(name, np.dtype(dtype).name, width, np.dtype(dtype).itemsize * width)
             for name, (dtype, width) in CORE_ARRAYS.items()]  # fmt: skip
    total = sum(c[3] for c in cells)
    lines += ["", "# Core memory per node", ""]
    lines += markdown_table(("array", "dtype", "width", "bytes per node"), cells, "llrr")
    lines += ["", f"- arrays: {total} bytes per node at capacity (capacity grows by doubling: "
              f"up to {2 * total} per live node just after a growth)",
              f"- measured (tracemalloc, add_many of {min(n, 200_000):,} named nodes, then "
              f"update): {per_node:.0f} bytes per node, names and name index included"]  # fmt: skip
    app = app_bytes_per_node(min(n, 50_000))
    for label, value in (app or {}).items():
        lines.append(f"- {label} (CPU side, tracemalloc, random:{min(n, 50_000):,}, two "
                     f"headless frames): {value:.0f} bytes per node beyond the core")  # fmt: skip
    if app is None:
        lines.append("- renderer and overlay: not measured (no OpenGL context here)")
    lines += ["", *machine_lines()]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
