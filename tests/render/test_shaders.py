"""Every GLSL file in shaders/ belongs to a program that compiles and links."""

import pytest

from viewer.render.shaders import load_program, program_files, shader_dir


def program_names() -> list[str]:
    """Every `NAME.vert` of the shader folder whose fragment file (`program_files`) exists."""
    folder = shader_dir()
    return sorted(
        p.stem for p in folder.glob("*.vert") if (folder / program_files(p.stem)[-1]).is_file()
    )


def test_every_shader_file_belongs_to_a_program():
    files = sorted(p.name for p in shader_dir().iterdir() if p.suffix in (".vert", ".frag"))
    paired = sorted({f for n in program_names() for f in program_files(n)})
    assert files == paired, f"shader files without a partner: {set(files) ^ set(paired)}"
    assert {"instanced", "lines", "links", "grid", "background", "skinned"} <= set(program_names())


@pytest.mark.parametrize("name", program_names())
def test_program_compiles_and_links(gl_ctx, name):
    prog = load_program(gl_ctx, name)
    assert prog.glo > 0
    prog.release()


def test_shader_folder_is_the_top_level_one():
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    assert shader_dir() == repo / "shaders"


def test_every_compute_shader_compiles(gl_ctx):
    """shaders/*.comp (the upload scatter) compile where compute shaders run (GL 4.3)."""
    from viewer.render.shaders import has_compute, load_compute

    names = sorted(p.stem for p in shader_dir().glob("*.comp"))
    assert {"scatter_rows", "scatter_slots"} <= set(names)
    if not has_compute(gl_ctx):
        pytest.skip("no compute shaders (OpenGL < 4.3)")
    for name in names:
        load_compute(gl_ctx, name).release()


def test_a_broken_compute_shader_names_its_file_and_line(gl_ctx, tmp_path, monkeypatch):
    from viewer.render.shaders import SHADER_DIR_ENV, ShaderError, has_compute, load_compute

    if not has_compute(gl_ctx):
        pytest.skip("no compute shaders (OpenGL < 4.3)")
    for path in shader_dir().iterdir():
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    broken = tmp_path / "scatter_slots.comp"
    lines = broken.read_text(encoding="utf-8").splitlines()
    lines[-2] += " not glsl"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv(SHADER_DIR_ENV, str(tmp_path))
    with pytest.raises(ShaderError) as err:
        load_compute(gl_ctx, "scatter_slots")
    assert str(err.value).startswith(f"{broken}:{len(lines) - 1}:"), str(err.value)
