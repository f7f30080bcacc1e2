"""The core stays free of GL: viewer/scene imports no GL or UI library."""

import re
import subprocess
import sys
from pathlib import Path

SCENE = Path(__file__).parents[1] / "viewer" / "scene"
GL = re.compile(r"^\s*(import|from)\s+(moderngl|moderngl_window|glcontext|imgui|pyglet)\b", re.M)


def test_no_gl_import_in_the_core_sources():
    offenders = [p.name for p in SCENE.glob("*.py") if GL.search(p.read_text())]
    assert offenders == []


def test_importing_the_core_loads_no_gl_module():
    code = (
        "import sys, viewer.scene; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'moderngl', 'moderngl_window', 'glcontext', 'imgui_bundle', 'pyglet'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=SCENE.parents[1],
    )
    assert out.stdout.strip() == "[]"
