"""Timing, machine description and markdown tables shared by the benchmark scripts.

Medians of repeated runs after warm-up runs, timed with `time.perf_counter`, with Python's
cyclic garbage collector paused inside the timed region (as `timeit` does) so that a
collection triggered by one implementation's allocations is not billed to a timing.
"""

from __future__ import annotations

import gc
import os
import platform
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass
class Timing:
    """Median and all repeats of one measurement, in milliseconds."""

    median_ms: float
    times_ms: list[float]

    @property
    def repeats(self) -> int:
        return len(self.times_ms)


def measure(
    run: Callable[[int], float],
    warmup: int = 2,
    min_repeats: int = 5,
    max_repeats: int = 51,
    budget_s: float = 1.0,
    step0: int = 0,
) -> Timing:
    """Call `run(step)` `warmup` times untimed, then repeat until `min_repeats` runs are done
    and either `max_repeats` are done or `budget_s` seconds have gone by.

    `run` receives a step number that grows with every call (starting after `step0`), so it
    can write values that differ from the previous call's, and returns the seconds it timed
    itself (so that preparing its inputs stays outside the measurement).
    """
    step = step0
    for _ in range(warmup):
        step += 1
        run(step)
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < min_repeats or (
        len(times) < max_repeats and time.perf_counter() - start < budget_s
    ):
        step += 1
        times.append(run(step) * 1e3)
    return Timing(statistics.median(times), times)


class paused_gc:
    """Context manager: no cyclic garbage collection inside (restored on exit)."""

    def __enter__(self) -> None:
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc) -> None:
        if self.was_enabled:
            gc.enable()


def markdown_table(
    headings: Sequence[str], rows: Iterable[Sequence[object]], align: str
) -> list[str]:
    """The lines of a markdown table: the headings, the alignment row (one letter per
    column in `align`: "l" left, "r" right), then one line per row of cells."""
    if len(align) != len(headings):
        raise ValueError(f"{len(headings)} headings but alignment {align!r}")
    marks = {"l": "---", "r": "--:"}
    lines = ["| " + " | ".join(headings) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return lines


def timed(fn: Callable[[], object]) -> float:
    """Seconds `fn()` takes, with the garbage collector paused."""
    with paused_gc():
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or what `platform` knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def others_busy_percent(seconds: float = 1.0) -> float | None:
    """CPU use of the whole machine over `seconds` while this process sleeps, in percent.

    The benchmark is idle meanwhile, so this is other work sharing the cores (None where
    /proc/stat is not available).
    """

    def sample() -> tuple[int, int]:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]  # total, idle + iowait

    try:
        t0, i0 = sample()
        time.sleep(seconds)
        t1, i1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return 100.0 * (1 - (i1 - i0) / max(1, t1 - t0))


def machine_lines(node_version: str = "", three_version: str = "", busy_at_start=None) -> list[str]:
    """Markdown bullet lines describing the machine, the software versions and the load."""
    try:
        import numba

        numba_version = numba.__version__
    except ImportError:
        numba_version = "not installed"
    blas_env = (
        ", ".join(
            f"{k}={os.environ[k]}"
            for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
            if k in os.environ
        )
        or "none set"
    )
    busy = [b for b in (busy_at_start, others_busy_percent()) if b is not None]
    load = " and ".join(f"{b:.0f} %" for b in busy) or "unknown"
    return [
        f"- CPU: {cpu_model()}, {os.cpu_count()} logical cores ({platform.machine()}), "
        f"{platform.system()} {platform.release()}",
        f"- Python {platform.python_version()}, numpy {np.__version__}, numba {numba_version}",
        f"- OpenBLAS environment: {blas_env}",
        f"- node {node_version or 'n/a'}, three.js "
        + (f"r{three_version}" if three_version else "n/a"),
        f"- other work on the machine (CPU use sampled for 1 s at start and at end): {load}"
        + (" — the cores were shared; timings are noisy" if any(b > 10 for b in busy) else ""),
    ]
