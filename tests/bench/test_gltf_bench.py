"""bench/gltf_load.py runs in its quick mode, so that it cannot rot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gltf_load_bench_quick():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "gltf_load.py"), "--quick", "--skip-old"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| random tree")]
    assert len(rows) == 1 and "10,000 nodes" in rows[0]
