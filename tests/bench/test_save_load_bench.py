"""bench/save_load.py runs in its quick mode, so that it cannot rot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_save_load_bench_quick():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "save_load.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    steps = [line.split("|")[1].strip() for line in done.stdout.splitlines()
             if line.startswith(("| save", "| load"))]  # fmt: skip
    assert steps == ["save .toml", "load .toml", "save .glb", "load .glb", "load-json .glb"], (
        done.stdout
    )  # load-json: the glTF reader's old way, the baseline of the .glb load
    assert "| **arrays together**" not in done.stdout  # the doc's total row is not printed
    assert "arrays: 426 bytes per node" in done.stdout
    assert "30,000 animated nodes peak at most 2 GB" in done.stdout
