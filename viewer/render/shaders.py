"""GLSL programs, loaded from the top-level `shaders/` folder.

The folder is found relative to this package: `<repo>/shaders` in a source checkout, or
`viewer/shaders` inside an installed wheel (see the package-data notes in docs/viewer.md).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import moderngl

_HERE = Path(__file__).resolve().parent


class ShaderError(RuntimeError):
    """A shader file is missing or does not compile."""


@cache
def shader_dir() -> Path:
    """The folder holding the `.vert` / `.frag` files."""
    candidates = (_HERE.parent.parent / "shaders", _HERE.parent / "shaders")
    for path in candidates:
        if (path / "instanced.vert").is_file():
            return path
    tried = ", ".join(str(p) for p in candidates)
    raise ShaderError(f"shader folder not found; looked in {tried}")


def program_names() -> list[str]:
    """Names of all programs: every `NAME.vert` that has a matching `NAME.frag`."""
    folder = shader_dir()
    return sorted(p.stem for p in folder.glob("*.vert") if (folder / f"{p.stem}.frag").is_file())


def source(name: str, stage: str) -> str:
    """The text of `shaders/NAME.STAGE`, e.g. `source("grid", "frag")`."""
    path = shader_dir() / f"{name}.{stage}"
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ShaderError(f"cannot read shader {path}: {exc}") from exc


def load_program(ctx: moderngl.Context, name: str) -> moderngl.Program:
    """Compile and link `shaders/NAME.vert` + `shaders/NAME.frag`."""
    try:
        return ctx.program(vertex_shader=source(name, "vert"), fragment_shader=source(name, "frag"))
    except moderngl.Error as exc:
        raise ShaderError(f"shader program {name!r} failed to build: {exc}") from exc
