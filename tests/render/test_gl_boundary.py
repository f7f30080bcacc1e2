"""Only viewer/render talks to moderngl; the scene core and the loaders never do."""

import re
from pathlib import Path

VIEWER = Path(__file__).resolve().parents[2] / "viewer"
IMPORTS_MODERNGL = re.compile(r"^\s*(import|from)\s+moderngl(\s|\.|$)", re.MULTILINE)


def test_moderngl_is_imported_only_under_viewer_render():
    offenders = [
        str(path.relative_to(VIEWER))
        for path in VIEWER.rglob("*.py")
        if IMPORTS_MODERNGL.search(path.read_text(encoding="utf-8"))
        and path.parent.name != "render"
    ]
    assert offenders == []


def test_the_scene_core_and_loaders_do_not_import_any_gl():
    for package in ("scene", "io"):
        for path in (VIEWER / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "moderngl" not in text and "pyglet" not in text, path
