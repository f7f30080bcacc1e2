"""The core stays free of GL: viewer/scene imports no GL or UI library; and the seams
between the other packages stay narrow (who may import whom)."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

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


def _viewer_imports(path: Path) -> set[str]:
    """The viewer modules a source file imports (absolute and relative)."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(SCENE.parents[1]).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.add(base)
    return {name for name in found if name.split(".")[0] == "viewer"}


@pytest.mark.parametrize(
    ("source", "forbidden"),
    [
        ("viewer/palette.py", "viewer"),  # colours for everyone: depends on nothing
        ("viewer/timing.py", "viewer.render"),
        ("viewer/render/camera.py", "viewer.collision"),
        ("viewer/overlay/panel.py", "viewer.render"),
    ],
)
def test_narrow_seams(source, forbidden):
    imports = _viewer_imports(SCENE.parents[1] / source)
    assert not [m for m in imports if m == forbidden or m.startswith(forbidden + ".")]
