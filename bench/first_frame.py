"""First-frame benchmark: how long the very first launch takes against a later one.

    .venv/bin/python bench/first_frame.py [--fresh-venv DIR] [--python PY] [--repeats 3]

Each launch is ``PY -m viewer --headless --frames 1`` on the built-in scene at 1280x720,
run in a fresh process from an empty folder and timed from start to exit (an upper bound
of launch-to-first-frame: the exit adds the GL teardown). The core's compiled loops live
in numba's disk cache, so:

- cold: an empty cache, as on the first launch after an install (``NUMBA_CACHE_DIR`` set
  to a new empty folder; with ``--fresh-venv`` the very first launch of a brand-new
  install counts too, with no such variable);
- warm: the same cache after the background compile of a cold launch has filled it;
- cold, no twins: an empty cache with ``SGVIEW_COLDSTART=off`` (compile everything
  before the first frame: the behaviour before `viewer.scene.coldstart`).

``--fresh-venv DIR`` first makes a venv in DIR and installs this checkout into it (not
editable: the package is copied, so its cache starts empty). Targets (issue 14): cold at
most 1.5 x warm, and the first frame within 3 s of launch.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAUNCH = ["-m", "viewer", "--headless", "--frames", "1", "--size", "1280x720"]
READY = ["-c", "from viewer.scene.coldstart import compiled_ready; print(compiled_ready())"]


def launch(python: str, env: dict[str, str], args=LAUNCH) -> tuple[float, str]:
    """Seconds from start to exit of one launch in an empty folder; its stderr."""
    with tempfile.TemporaryDirectory() as work:
        start = time.perf_counter()
        done = subprocess.run([python, *args], cwd=work, env=env, capture_output=True, text=True)
        took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"launch failed: {done.stderr.strip()}")
    return took, done.stderr


def wait_until_compiled(python: str, env: dict[str, str], limit_s: float = 300) -> float:
    """Poll until the background compile has filled the cache; seconds waited."""
    start = time.perf_counter()
    neutral = tempfile.gettempdir()  # not a checkout: `python -c` imports from its folder
    while True:
        done = subprocess.run(
            [python, *READY], env=env, capture_output=True, text=True, cwd=neutral
        )
        if done.stdout.strip() == "True":
            return time.perf_counter() - start
        if time.perf_counter() - start > limit_s:
            raise SystemExit("the background compile did not finish")
        time.sleep(1.0)


def fresh_venv(folder: Path) -> str:
    """A new venv in `folder` with this checkout installed (copied, not editable)."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = str(folder / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", str(REPO)], check=True)
    return python


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter with sgview")
    parser.add_argument("--fresh-venv", type=Path, metavar="DIR", help="install into DIR first")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    base = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
    python = args.python
    lines = []
    if args.fresh_venv is not None:
        python = fresh_venv(args.fresh_venv)
        took, err = launch(python, base)
        wait_until_compiled(python, base)
        lines.append(f"very first launch of the new install: {took:.2f} s")
        lines.append(f"  its stderr: {err.strip() or '(nothing)'}")
    else:
        base["PYTHONPATH"] = str(REPO)

    cold, warm, old = [], [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as cache:
            env = {**base, "NUMBA_CACHE_DIR": cache}
            cold.append(launch(python, env)[0])
            wait_until_compiled(python, env)
            warm.append(launch(python, env)[0])
        with tempfile.TemporaryDirectory() as cache:
            env = {**base, "NUMBA_CACHE_DIR": cache, "SGVIEW_COLDSTART": "off"}
            old.append(launch(python, env)[0])

    def row(name: str, times: list[float]) -> str:
        runs = ", ".join(f"{t:.2f}" for t in times)
        return f"| {name} | {statistics.median(times):.2f} | {runs} |"

    ratio = statistics.median(cold) / statistics.median(warm)
    lines += [
        "",
        f"launch to exit after frame 1, default scene, 1280x720 headless ({args.repeats} runs)",
        "",
        "| launch | median s | runs s |",
        "|---|---|---|",
        row("cold (empty cache)", cold),
        row("warm", warm),
        row("cold, SGVIEW_COLDSTART=off", old),
        "",
        f"cold / warm = {ratio:.2f} (target <= 1.5): {'PASS' if ratio <= 1.5 else 'FAIL'}",
        f"cold first frame {max(cold):.2f} s at worst (target <= 3 s): "
        f"{'PASS' if max(cold) <= 3.0 else 'FAIL'}",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
