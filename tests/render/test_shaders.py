"""Every GLSL file in shaders/ belongs to a program that compiles and links."""

import pytest

from viewer.render.shaders import load_program, program_files, program_names, shader_dir


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
