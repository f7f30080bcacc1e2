"""The overlay's pure parts (counters, timeline records, panel model, labels) load no GL and
no ImGui, so they can be tested and reused without a context."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

OVERLAY = Path(__file__).resolve().parents[2] / "viewer" / "overlay"
PURE = ("__init__.py", "stats.py", "timeline_records.py", "model.py", "labels.py")
GUI = re.compile(
    r"^\s*(import|from)\s+(moderngl|moderngl_window|glcontext|imgui_bundle|pyglet)\b", re.M
)


def test_pure_sources_import_no_gl_or_imgui():
    offenders = [name for name in PURE if GUI.search((OVERLAY / name).read_text())]
    assert offenders == []


def test_importing_the_pure_parts_loads_no_gl_module():
    code = (
        "import sys, viewer.overlay, viewer.overlay.model, viewer.overlay.labels; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'moderngl', 'moderngl_window', 'glcontext', 'imgui_bundle', 'pyglet'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=OVERLAY.parents[1],
    )  # fmt: skip
    assert out.stdout.strip() == "[]"
