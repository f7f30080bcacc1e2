"""The three.js publisher (clients/threejs) in Node against `sgview listen --headless`:
runs its own Node tests (clients/threejs/test), which start the viewer with this Python.
Node's `three` and `ws` come pinned from clients/threejs/package-lock.json (`npm ci`, as
.ci/run does)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from attach_helpers import ROOT
from needs import missing, need_gl

CLIENT = ROOT / "clients" / "threejs"


def test_threejs_publisher_node_tests():
    need_gl().release()
    if shutil.which("node") is None:
        missing("needs Node.js (node) on PATH")
    if not (CLIENT / "node_modules" / "three").is_dir():
        missing("needs clients/threejs/node_modules (cd clients/threejs && npm ci)")
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
