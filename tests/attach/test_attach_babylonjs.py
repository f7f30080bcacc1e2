"""The Babylon.js publisher (clients/babylonjs) in Node against `sgview listen --headless`:
runs its own Node tests (clients/babylonjs/test), which start the viewer with this Python
and compare its --log and --dump-world, frame by frame, with what Babylon's NullEngine
reports (its observables and cached world matrices). Node's `@babylonjs/core` and `ws`
come pinned from clients/babylonjs/package-lock.json (`npm ci` there)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from attach_helpers import ROOT
from needs import missing, need_gl

CLIENT = ROOT / "clients" / "babylonjs"


def test_babylonjs_publisher_node_tests():
    need_gl().release()
    if shutil.which("node") is None:
        missing("needs Node.js (node) on PATH")
    if not (CLIENT / "node_modules" / "@babylonjs" / "core").is_dir():
        missing("needs clients/babylonjs/node_modules (cd clients/babylonjs && npm ci)")
    env = dict(os.environ, SGVIEW_PYTHON=sys.executable, PYTHONPATH=str(ROOT))
    run = subprocess.run(
        ["node", "--test", "test/"],
        cwd=CLIENT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# pass 5" in run.stdout and "# fail 0" in run.stdout
