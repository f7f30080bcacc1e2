"""Every import between the viewer's packages follows docs/architecture.md's table.

The table (between the ``layering`` markers) lists each unit (a package or a top-level
module of `viewer`), the units it may import, and whether it may use GL or windowing
libraries. This test reads the table from the doc, so the doc and the rule cannot drift,
and checks every import statement of every module, including imports inside functions.
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
VIEWER = ROOT / "viewer"
DOC = ROOT / "docs" / "architecture.md"
GL_LIBS = {"moderngl", "moderngl_window", "glcontext", "imgui_bundle", "imgui", "pyglet"}


def _table() -> dict[str, tuple[set[str], bool]]:
    """unit -> (units it may import, GL allowed), from the doc's layering table."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- layering -->(.*?)<!-- /layering -->", text, re.S)
    assert block, "docs/architecture.md has no layering table"
    rows = {}
    for line in block.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        units = re.findall(r"`([\w.]+)`", cells[0])
        allowed = set(re.findall(r"`([\w.]+)`", cells[1]))
        gl = cells[2].lower().startswith("yes")
        for unit in units:
            rows[unit] = (allowed, gl)
    return rows


TABLE = _table()


def _unit_of(module: str) -> str | None:
    """'viewer.io.loader' -> 'viewer.io'; 'viewer.app' -> 'viewer.app'; 'viewer' -> 'viewer'."""
    parts = module.split(".")
    if parts[0] != "viewer":
        return None
    return ".".join(parts[:2])


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[str]:
    """Absolute names of everything `path` imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path.parent)
    if path.name != "__init__.py":
        package = _module_name(path).rpartition(".")[0]
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base)
                names.append(f"{prefix}.{node.module}" if node.module else prefix)
            else:
                names.append(node.module)
    return names


SOURCES = sorted(p for p in VIEWER.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_unit_of_the_viewer_has_a_row():
    units = {_unit_of(_module_name(p)) for p in SOURCES} - {None}
    assert units <= set(TABLE), f"missing rows: {sorted(units - set(TABLE))}"
    assert set(TABLE) <= units, f"rows for units that do not exist: {sorted(set(TABLE) - units)}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_table(path):
    unit = _unit_of(_module_name(path))
    allowed, gl = TABLE[unit]
    bad = []
    for name in _imports(path):
        target = _unit_of(name)
        if target is not None and target != unit and target not in allowed:
            bad.append(name)
        if not gl and name.split(".")[0] in GL_LIBS:
            bad.append(name)
    assert bad == [], f"{unit} may not import {bad} (docs/architecture.md, layering)"


@pytest.mark.parametrize("unit", sorted(u for u, (_, gl) in TABLE.items() if not gl))
def test_importing_a_gl_free_unit_loads_no_gl_module(unit):
    """Transitively too: what a GL-free unit pulls in at import time has no GL."""
    code = (
        f"import sys, {unit}; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(GL_LIBS)!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]"
