"""What `--trace` costs a headless run: the same frames with and without it.

    .venv/bin/python bench/trace_cost.py [--scene balanced:100000] [--frames 30] [--repeats 3]

Each repeat generates the scene afresh (untimed) and times `viewer.window.runner.run`
headless (EGL, 1280x720, fixed 1/60 s step, overlay on) for `--frames` redraws, once
without a trace (the baseline, measured in the same process and interleaved) and once
with `--trace` to a temporary file. Prints the medians in seconds and the ratio
trace / baseline. Target (issue 34): at most 1.2; the trace records the run as it goes
without it (a headless frame nobody sees is not drawn, with or without the trace).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from viewer.io import generate_scene  # noqa: E402
from viewer.window.runner import RunOptions, run  # noqa: E402

TARGET_RATIO = 1.2


def one_run(spec: str, frames: int, trace: Path | None) -> float:
    """Seconds of one headless run of `frames` redraws of a fresh `spec` scene."""
    scene = generate_scene(spec)
    options = RunOptions(frames=frames, trace=trace)
    start = time.perf_counter()
    run(scene, options, headless=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default="balanced:100000")
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    one_run(args.scene, 2, None)  # warm-up: compiled loops, shaders, driver
    plain, traced = [], []
    with tempfile.TemporaryDirectory() as work:
        for i in range(args.repeats):
            plain.append(one_run(args.scene, args.frames, None))
            traced.append(one_run(args.scene, args.frames, Path(work) / f"t{i}.json"))
    base, with_trace = statistics.median(plain), statistics.median(traced)
    ratio = with_trace / base
    print(f"{args.scene}, {args.frames} headless frames, median of {args.repeats}:")
    print(f"  without --trace  {base:8.2f} s   ({', '.join(f'{t:.2f}' for t in plain)})")
    print(f"  with --trace     {with_trace:8.2f} s   ({', '.join(f'{t:.2f}' for t in traced)})")
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(f"  ratio {ratio:.2f} (target at most {TARGET_RATIO}): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
