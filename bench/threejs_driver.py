"""Runs bench/threejs/bench.mjs on a tree: installs three.js with npm, hands over raw arrays.

The trees travel as raw little-endian files rather than being regenerated in JavaScript, so
three.js gets exactly the parents, start values and changed ids that our core gets. three is
installed once into a cache folder (`$SGVIEW_BENCH_CACHE`, default ~/.cache/sgview-bench) and
reused; where node or npm is missing or the install fails, `ThreeJS.unavailable` says why and
the benchmark skips that column.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from treegen import Tree

THREE_VERSION = "0.187.0"
BENCH_MJS = Path(__file__).resolve().parent / "threejs" / "bench.mjs"


def _cache_dir() -> Path:
    base = os.environ.get("SGVIEW_BENCH_CACHE") or Path.home() / ".cache" / "sgview-bench"
    return Path(base) / f"three-{THREE_VERSION}"


def case_file(case: str) -> str:
    """File name of a case's ids ("1%" is not a friendly file name)."""
    return f"ids_{'pct1' if case == '1%' else case}.i32"


class ThreeJS:
    """The three.js runner; `unavailable` is None when it can run, else the reason it can't."""

    def __init__(self) -> None:
        self.unavailable: str | None = None
        self.node_version = ""
        self.revision = ""  # three.REVISION, known after the first run
        self.dir: Path | None = None
        node, npm = shutil.which("node"), shutil.which("npm")
        if not node or not npm:
            self.unavailable = f"{'node' if not node else 'npm'} not found on PATH"
            return
        self.node = node
        self.node_version = subprocess.run(
            [node, "--version"], capture_output=True, text=True
        ).stdout.strip()
        self.dir = self._install(npm)

    def _install(self, npm: str) -> Path | None:
        target = _cache_dir()
        if (target / "node_modules" / "three" / "package.json").exists():
            return target
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError:
            target = Path(tempfile.mkdtemp(prefix="sgview-bench-three-"))
        (target / "package.json").write_text('{"name": "sgview-bench-three", "private": true}\n')
        cmd = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--fetch-timeout=60000",
            "--fetch-retries=1",
            f"three@{THREE_VERSION}",
        ]
        try:
            res = subprocess.run(cmd, cwd=target, capture_output=True, text=True, timeout=180)
        except subprocess.TimeoutExpired:
            self.unavailable = "npm install three timed out after 180 s"
            return None
        if res.returncode != 0:
            last = (res.stderr.strip().splitlines() or ["(no message)"])[-1]
            self.unavailable = f"npm install three@{THREE_VERSION} failed: {last}"
            return None
        return target

    def run(self, tree: Tree, warmup: int, repeats: int) -> dict:
        """Build `tree` in three.js and time each case; returns bench.mjs's JSON."""
        with tempfile.TemporaryDirectory(prefix="sgview-bench-") as tmp:
            d = Path(tmp)
            tree.parents.astype("<i4").tofile(d / "parents.i32")
            tree.positions.astype("<f8").tofile(d / "positions.f64")
            tree.rotations.astype("<f8").tofile(d / "rotations.f64")
            tree.scales.astype("<f8").tofile(d / "scales.f64")
            for case, ids in tree.cases.items():
                ids.astype("<i4").tofile(d / case_file(case))
            spec = {
                "dir": str(d),
                "n": tree.n,
                "warmup": warmup,
                "repeats": repeats,
                "cases": {c: len(ids) for c, ids in tree.cases.items()},
            }
            (d / "spec.json").write_text(json.dumps(spec))
            # Object3D is ~1 kB; a million of them need more than node's default heap.
            cmd = [
                self.node,
                "--max-old-space-size=12288",
                str(BENCH_MJS),
                str(self.dir),
                str(d / "spec.json"),
            ]
            res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"bench.mjs failed on {tree.name}: {res.stderr.strip()[-500:]}")
        out = json.loads(res.stdout.strip().splitlines()[-1])
        out["check"]["world"] = np.array(out["check"]["world"]).reshape(4, 4).T  # column-major
        return out
