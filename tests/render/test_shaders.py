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
