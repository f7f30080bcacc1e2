"""Soak benchmark: long headless runs must stay flat in memory and frame time.

    .venv/bin/python bench/soak.py [--frames 20000] [--size 320x180] [--samples 0] [--only NAME]
    .venv/bin/python bench/soak.py --drift [--drift-frames 100000]

Soak: the viewer's own frame loop (`viewer.window.runner.run`, headless EGL, fixed 1/60 s step,
overlay on as by default) runs `--frames` frames of

- ``solar``: scenes/solar_system.toml (18 nodes, spins and orbits), and
- ``balanced10k``: ``generate_scene("balanced:10000")`` (10,000 nodes; its generated
  motions move a handful of subtrees every frame).

Each scene runs in a fresh Python process, so its memory is its own. A wrapper around
`SgviewApp.on_render` stamps the start of every frame (frame time = the
gap between two starts, which includes the GPU: headless `swap_buffers` waits for it with
`ctx.finish()`) and reads the resident set size from /proc/self/statm. With W = frames/20
(1,000 for the default 20,000):

- memory PASS: resident memory at the end within 5 % of the memory after frame W;
- time PASS: median frame time of the last W frames within 10 % of frames W+1..2W.

Drift (`--drift`, no GL): the core alone runs `--drift-frames` frames of the same two scenes
and of a 40-link chain in which every link spins (as tests/scene/test_drift.py, which runs
20,000 frames in CI), checking every 1,000 frames that the motions' rotations are unit
quaternions and the world matrices orthogonal up to scale, and at the end that the worlds
equal a fresh scene evaluated once at the last frame's time (nothing accumulated).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO)]

from benchutil import machine_lines, markdown_table  # noqa: E402
from drift import LINKS, orthogonality_error, rotation_norm_error, spinning_chain_toml  # noqa: E402

from viewer.content.motion import apply_motions  # noqa: E402
from viewer.io import generate_scene, load_scene  # noqa: E402
from viewer.io.toml_scene import parse_scene_text  # noqa: E402
from viewer.scene.math import quat_multiply  # noqa: E402

MEMORY_TOLERANCE = 0.05
TIME_TOLERANCE = 0.10
PAGE = os.sysconf("SC_PAGE_SIZE")


def scenes():
    return {
        "solar": lambda: load_scene(REPO / "scenes" / "solar_system.toml"),
        "balanced10k": lambda: generate_scene("balanced:10000"),
    }


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


# ---------------------------------------------------------------------------- soak
def soak(name: str, frames: int, size: tuple[int, int], samples: int) -> dict:
    """Run `frames` headless frames of scene `name`; return the measurements."""
    from viewer.window.app import SgviewApp
    from viewer.window.runner import RunOptions, run

    window = max(1, frames // 20)
    starts = np.zeros(frames + 1)
    rss = {}
    objects = {}
    real = SgviewApp.on_render

    def on_render(self, t, dt):
        n = self.frame  # frames finished before this one
        starts[n] = time.perf_counter()
        if n in (window, frames - 1) or n % window == 0:
            rss[n] = rss_bytes()
            if n in (window, frames - 1):
                objects[n] = len(gc.get_objects())
        real(self, t, dt)

    scene = scenes()[name]()
    nodes = len(scene.graph)
    SgviewApp.on_render = on_render
    try:
        begin = time.perf_counter()
        run(scene, RunOptions(size=size, frames=frames, samples=samples), headless=True)
        wall = time.perf_counter() - begin
    finally:
        SgviewApp.on_render = real
    gaps = np.diff(starts[:frames]) * 1e3  # gaps[i]: frame i+1, in ms (the last is open)
    second = statistics.median(gaps[window : 2 * window])
    last = statistics.median(gaps[-window:])
    mem_ref, mem_end = rss[window], rss[frames - 1]
    return {
        "name": name,
        "nodes": nodes,
        "frames": frames,
        "window": window,
        "wall_s": wall,
        "mem_ref": mem_ref,
        "mem_end": mem_end,
        "mem_growth": mem_end / mem_ref - 1.0,
        "obj_ref": objects[window],
        "obj_end": objects[frames - 1],
        "ms_second": second,
        "ms_last": last,
        "time_ratio": last / second,
        "rss_trace": sorted(rss.items()),
        "block_ms": [
            float(statistics.median(gaps[i : i + window])) for i in range(0, frames - 1, window)
        ],
    }


def soak_table(results: list[dict], size, samples) -> list[str]:
    w = results[0]["window"]
    headings = (
        "scene",
        "nodes",
        f"RSS after frame {w:,} (MB)",
        "RSS at the end (MB)",
        "growth",
        f"frame ms, frames {w + 1:,}-{2 * w:,}",
        f"frame ms, last {w:,}",
        "ratio",
        "Python objects (frame W -> end)",
        "memory",
        "time",
    )
    return [
        f"{results[0]['frames']:,} frames per scene at {size[0]}x{size[1]}, {samples}x MSAA, "
        f"overlay on; W = {w:,}",
        "",
        *markdown_table(headings, [_soak_row(r) for r in results], "lrrrrrrrrll"),
    ]


def _soak_row(r: dict) -> tuple:
    mem_ok = abs(r["mem_growth"]) <= MEMORY_TOLERANCE
    time_ok = abs(r["time_ratio"] - 1.0) <= TIME_TOLERANCE
    return (
        r["name"],
        f"{r['nodes']:,}",
        f"{r['mem_ref'] / 2**20:.1f}",
        f"{r['mem_end'] / 2**20:.1f}",
        f"{100 * r['mem_growth']:+.2f} %",
        f"{r['ms_second']:.3f}",
        f"{r['ms_last']:.3f}",
        f"{r['time_ratio']:.3f}",
        f"{r['obj_ref']:,} -> {r['obj_end']:,}",
        "PASS" if mem_ok else "FAIL",
        "PASS" if time_ok else "FAIL",
    )


def trace_lines(results: list[dict]) -> list[str]:
    out = []
    for r in results:
        mem = ", ".join(f"{v / 2**20:.0f}" for _, v in r["rss_trace"])
        ms = ", ".join(f"{v:.2f}" for v in r["block_ms"])
        out.append(f"- {r['name']}: RSS (MB) every {r['window']:,} frames: {mem}")
        out.append(f"- {r['name']}: median frame ms per {r['window']:,} frames: {ms}")
    return out


# ---------------------------------------------------------------------------- drift
def spinning_chain(links: int = LINKS):
    return parse_scene_text(spinning_chain_toml(links), "<spinning chain>")


def drift(name: str, make, frames: int) -> dict:
    scene = make()
    graph = scene.graph
    ids = graph.alive_ids()
    worst_q = worst_w = 0.0
    begin = time.perf_counter()
    for frame in range(1, frames + 1):
        t = frame / 60.0
        apply_motions(scene, t)
        graph.update()
        if frame % 1000 == 0 or frame == frames:
            worst_q = max(worst_q, rotation_norm_error(scene, t))
            worst_w = max(worst_w, orthogonality_error(graph.world_matrices()[ids]))
    wall = time.perf_counter() - begin
    fresh = make()
    apply_motions(fresh, frames / 60.0)
    fresh.graph.update()
    diff = np.abs(graph.world_matrices()[ids] - fresh.graph.world_matrices()[ids]).max()
    return {"name": name, "nodes": len(ids), "q": worst_q, "w": worst_w, "diff": diff,
            "wall": wall}  # fmt: skip


def accumulated_error(frames: int, degrees_per_frame: float) -> float:
    """|norm - 1| of a rotation built by multiplying a per-frame step `frames` times: what
    integrating the angle frame by frame would drift to (the motions do not do this)."""
    half = np.radians(degrees_per_frame) / 2
    step = np.array([[np.sin(half), 0.0, 0.0, np.cos(half)]])
    q = np.array([[0.0, 0.0, 0.0, 1.0]])
    for _ in range(frames):
        q = quat_multiply(q, step)
    return float(abs(np.linalg.norm(q) - 1.0))


def drift_report(frames: int) -> list[str]:
    makers = {**scenes(), "spinning chain (40 links)": spinning_chain}
    rows = [drift(name, make, frames) for name, make in makers.items()]
    lines = [
        f"{frames:,} frames at 1/60 s (t up to {frames / 60:,.0f} s), core only (no GL); "
        "worst value over checks every 1,000 frames",
        "",
        "| scene | nodes | max abs(norm(q) - 1) | max orthogonality error | final worlds vs fresh "
        "| wall s | unit | orthogonal | no accumulation |",
        "|---|--:|--:|--:|--:|--:|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['nodes']:,} | {r['q']:.2e} | {r['w']:.2e} | {r['diff']:.1e} "
            f"| {r['wall']:.1f} | {'PASS' if r['q'] < 1e-12 else 'FAIL'} "
            f"| {'PASS' if r['w'] < 1e-12 else 'FAIL'} "
            f"| {'PASS' if r['diff'] == 0 else 'FAIL'} |"
        )
    acc = accumulated_error(frames, 400 / 60)
    lines += [
        "",
        f"For comparison, a quaternion multiplied by a 6.7-degree step {frames:,} times "
        f"(integrating instead of evaluating) is off the unit sphere by {acc:.1e}.",
    ]
    return lines


# ---------------------------------------------------------------------------- main
def _size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    return int(w), int(h)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=20_000, help="frames per scene")
    parser.add_argument("--size", type=_size, default=(320, 180), help="WxH (default 320x180)")
    parser.add_argument("--samples", type=int, default=4, help="MSAA samples (default 4)")
    parser.add_argument("--only", choices=sorted(scenes()), help="one scene only")
    parser.add_argument("--trace", action="store_true", help="print RSS and ms per W frames")
    parser.add_argument("--drift", action="store_true", help="the drift check instead")
    parser.add_argument("--drift-frames", type=int, default=100_000)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # a child run
    args = parser.parse_args(argv)
    if args.json:
        result = soak(args.only, args.frames, args.size, args.samples)
        print(json.dumps(result, default=float))
        return 0
    print(*machine_lines(), sep="\n")
    print()
    if args.drift:
        lines = drift_report(args.drift_frames)
        print(*lines, sep="\n")
        return 0 if "FAIL" not in "\n".join(lines) else 1
    if args.frames < 60:
        parser.error("--frames must be at least 60")
    names = [args.only] if args.only else list(scenes())
    results = []
    for name in names:
        print(f"soaking {name} ...", file=sys.stderr, flush=True)
        size = f"{args.size[0]}x{args.size[1]}"
        child = [sys.executable, __file__, "--json", "--only", name, "--frames",
                 str(args.frames), "--size", size, "--samples", str(args.samples)]  # fmt: skip
        done = subprocess.run(child, capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    lines = soak_table(results, args.size, args.samples)
    print(*lines, sep="\n")
    print()
    print(*[f"- {r['name']}: {r['wall_s']:.0f} s wall" for r in results], sep="\n")
    if args.trace:
        print(*trace_lines(results), sep="\n")
    return 0 if "FAIL" not in "\n".join(lines) else 1


if __name__ == "__main__":
    sys.exit(main())
