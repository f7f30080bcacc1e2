"""Memory growth of long runs (issue 26): peak RSS of ``sgview --headless`` at two run
lengths, for --trace, --record x.gif and --record x.mp4, extrapolated to one hour at 60
frames a second. Run: ``.venv/bin/python bench/growth.py [--nodes 3000] [--frames 300 1200]``.

The peak resident size of the sgview process is read from the kernel (``os.wait4``); the
growth per frame is (peak at the longer run - peak at the shorter) / (frame difference).
ffmpeg (a separate process) is not counted: it streams to its file with its own bounded
buffers.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOUR_FRAMES = 60 * 60 * 60


def peak_rss_mb(args: list[str]) -> float:
    proc = subprocess.Popen([sys.executable, "-m", "viewer", *args], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"sgview {' '.join(args)} failed: {err}")
    return usage.ru_maxrss / 1024  # kB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=3000)
    parser.add_argument("--frames", type=int, nargs=2, default=(300, 1200))
    opts = parser.parse_args()
    short, long = opts.frames
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra in (("plain", []), ("--trace", ["--trace", f"{tmp}/t.json"]),
                             ("--record gif", ["--record", f"{tmp}/r.gif"]),
                             ("--record mp4", ["--record", f"{tmp}/r.mp4"])):  # fmt: skip
            base = ["--generate", f"balanced:{opts.nodes}", "--headless", "--size", "320x180",
                    *extra]  # fmt: skip
            a = peak_rss_mb([*base, "--frames", str(short)])
            b = peak_rss_mb([*base, "--frames", str(long)])
            per_frame = (b - a) * 1024 / (long - short)
            hour = a + per_frame * (HOUR_FRAMES - short) / 1024
            print(
                f"{label:14s} peak RSS {a:7.1f} MB at {short} frames, {b:7.1f} MB at {long}: "
                f"{per_frame:6.1f} kB/frame, one hour at 60 fps -> {hour:8.0f} MB"
            )


if __name__ == "__main__":
    main()
