"""GLSL programs, loaded from the top-level `shaders/` folder.

The folder is found relative to this package: `<repo>/shaders` in a source checkout, or
`viewer/shaders` inside an installed wheel (see the package-data notes in docs/viewer.md).
The environment variable ``SGVIEW_SHADER_DIR`` overrides it (for trying edited shaders, and
for the tests that feed a broken shader through this loader).

A shader that does not compile raises `ShaderError` with a one-line message naming the
file and the line of the driver's first error (``.../instanced.vert:7: error: ...``); the
command line prints it and exits with status 1.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import moderngl

from viewer.errors import SgviewError
from viewer.text import one_line

_HERE = Path(__file__).resolve().parent
#: Environment variable naming a folder to load the shaders from instead.
SHADER_DIR_ENV = "SGVIEW_SHADER_DIR"


class ShaderError(SgviewError, RuntimeError):
    """A shader file is missing or does not compile.

    `file` and `line` (1-based) say where, when known; the message is one line that
    starts with ``FILE:LINE:``.
    """

    def __init__(self, message: str, *, file: Path | None = None, line: int | None = None):
        self.file = file
        self.line = line
        where = "" if file is None else f"{file}:{line}: " if line else f"{file}: "
        super().__init__(one_line(f"{where}{message}"))


def shader_dir() -> Path:
    """The folder holding the `.vert` / `.frag` files (``$SGVIEW_SHADER_DIR`` if set)."""
    override = os.environ.get(SHADER_DIR_ENV)
    if override:
        path = Path(override)
        if not path.is_dir():
            raise ShaderError(f"{SHADER_DIR_ENV}={override!r} is not a folder")
        return path
    return _default_shader_dir()


@cache
def _default_shader_dir() -> Path:
    candidates = (_HERE.parent.parent / "shaders", _HERE.parent / "shaders")
    for path in candidates:
        if (path / "instanced.vert").is_file():
            return path
    tried = ", ".join(str(p) for p in candidates)
    raise ShaderError(f"shader folder not found; looked in {tried}")


#: Programs whose vertex stage shares another program's fragment stage (the same shading).
SHARED_FRAGMENT = {"skinned": "instanced"}
#: Transform-feedback programs: a vertex stage only, and the outputs it captures (as the
#: file stands; viewer/render/morph.py adds the vertex layout's other attributes).
FEEDBACK = {"morph": ("out_position", "out_normal")}


def program_files(name: str) -> tuple[str, ...]:
    """The vertex and fragment file names of program `name` (only the vertex file for a
    transform-feedback program, see `FEEDBACK`)."""
    if name in FEEDBACK:
        return (f"{name}.vert",)
    return f"{name}.vert", f"{SHARED_FRAGMENT.get(name, name)}.frag"


def source(name: str, stage: str) -> str:
    """The text of `shaders/NAME.STAGE`, e.g. `source("grid", "frag")`."""
    path = shader_dir() / f"{name}.{stage}"
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise ShaderError(f"cannot read the shader ({reason})", file=path) from None


def with_defines(text: str, defines: tuple[str, ...]) -> str:
    """`text` with ``#define NAME`` for each of `defines` after its ``#version`` line, and a
    ``#line`` that keeps the driver's line numbers those of the file."""
    if not defines:
        return text
    first, newline, rest = text.partition("\n")
    lines = "".join(f"#define {d}\n" for d in defines)
    return f"{first}{newline}{lines}#line 2\n{rest}"


def load_program(
    ctx: moderngl.Context,
    name: str,
    *,
    text: str | None = None,
    varyings=None,
    defines: tuple[str, ...] = (),
) -> moderngl.Program:
    """Compile and link `shaders/NAME.vert` + `shaders/NAME.frag` (or the fragment file
    it shares, see `SHARED_FRAGMENT`), with `shaders/NAME.geom` between them if it exists,
    each with ``#define`` of `defines` (a feature set: one program per set).

    Raises `ShaderError` naming the file and line of the first compile error, or both
    files for a link error. A transform-feedback program may be given its vertex `text`
    (the file's, completed by its user) and `varyings`.
    """
    vert = with_defines(source(name, "vert") if text is None else text, defines)
    try:
        if name in FEEDBACK:
            return ctx.program(vertex_shader=vert, varyings=varyings or FEEDBACK[name])
        frag = with_defines(source(SHARED_FRAGMENT.get(name, name), "frag"), defines)
        geom = source(name, "geom") if (shader_dir() / f"{name}.geom").is_file() else None
        if geom is not None:
            geom = with_defines(geom, defines)
        return ctx.program(vertex_shader=vert, geometry_shader=geom, fragment_shader=frag)
    except moderngl.Error as exc:
        raise build_error(name, str(exc)) from None


def load_compute(ctx: moderngl.Context, name: str) -> moderngl.ComputeShader:
    """Compile `shaders/NAME.comp` (needs OpenGL 4.3; see `has_compute`); raises
    `ShaderError` naming the file and line of the first compile error."""
    text = source(name, "comp")
    try:
        return ctx.compute_shader(text)
    except moderngl.Error as exc:
        raise _compute_error(name, str(exc)) from None


def uniform(program: moderngl.Program | moderngl.ComputeShader, name: str) -> moderngl.Uniform:
    """Uniform `name` of `program`: a KeyError where the program has none (the GLSL compiler
    drops unused ones), a TypeError where `name` is a block, an attribute or a varying."""
    member = program[name]
    if not isinstance(member, moderngl.Uniform):
        raise TypeError(f"{name!r} is not a plain uniform of the program")
    return member


def find_uniform(
    program: moderngl.Program | moderngl.ComputeShader, name: str
) -> moderngl.Uniform | None:
    """Uniform `name` of `program`, or None where it has none (the GLSL compiler drops
    unused ones): `Program.get` is one dict lookup, where `name in program` walks every
    member."""
    member = program.get(name, None)
    return member if isinstance(member, moderngl.Uniform) else None


def set_uniform(
    program: moderngl.Program | moderngl.ComputeShader, name: str, value: object
) -> None:
    """Set uniform `name` where `program` has it (`find_uniform`: programs compiled for
    other features lack it): bytes are written as they are, and a list longer than the
    uniform's array is cut to the length the compiler kept."""
    found = find_uniform(program, name)
    if found is None:
        return
    if isinstance(value, bytes):
        found.write(value)
        return
    if isinstance(value, list) and len(value) > found.array_length:
        value = value[: found.array_length]
    found.value = value


def has_compute(ctx: moderngl.Context) -> bool:
    """Whether the context runs compute shaders (OpenGL 4.3 or later)."""
    return ctx.version_code >= 430


def _compute_error(name: str, log: str) -> ShaderError:
    path = shader_dir() / f"{name}.comp"
    for text in (line.strip() for line in log.splitlines()):
        for form in _LINE_FORMS:
            m = form.match(text)
            if m:
                return ShaderError(m.group(2), file=path, line=int(m.group(1)))
    return ShaderError(f"the compute shader does not compile: {log}", file=path)


_STAGE_SUFFIX = {"vertex_shader": "vert", "fragment_shader": "frag", "geometry_shader": "geom"}
# "0:7(1): error: ..." (Mesa), "0(7) : error C0000: ..." (NVIDIA), "ERROR: 0:7: ..." (others)
_LINE_FORMS = (
    re.compile(r"^\s*\d+:(\d+)\(\d+\)\s*:\s*(.*)$"),
    re.compile(r"^\s*\d+\((\d+)\)\s*:\s*(.*)$"),
    re.compile(r"^\s*(?:ERROR|WARNING):\s*\d+:(\d+):\s*(.*)$"),
)


def build_error(name: str, log: str) -> ShaderError:
    """A one-line `ShaderError` from moderngl's compile or link log for program `name`."""
    folder = shader_dir()
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    stage = None
    found = []  # (file, line, text) of each error line
    for text in lines:
        if text in _STAGE_SUFFIX:
            stage = _STAGE_SUFFIX[text]
            continue
        for form in _LINE_FORMS:
            m = form.match(text)
            if m and stage is not None:
                shared = (
                    program_files(name)[0 if stage == "vert" else 1] if stage != "geom" else None
                )
                file = folder / (shared or f"{name}.{stage}")
                found.append((file, int(m.group(1)), m.group(2)))
                break
    errors = [f for f in found if "error" in f[2].lower()] or found
    if errors:
        file, line, text = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return ShaderError(f"{text}{more}", file=file, line=line)
    headers = {*_STAGE_SUFFIX, "Program"}
    detail = next(
        (t for t in lines[1:] if t not in headers and not set(t) <= {"="}), "no log from the driver"
    )
    if lines and "link" in lines[0].lower():
        files = " + ".join(str(folder / f) for f in program_files(name))
        return ShaderError(f"{files}: the program does not link: {detail}")
    return ShaderError(f"shader program {name!r} failed to build: {lines[0] if lines else log}")
