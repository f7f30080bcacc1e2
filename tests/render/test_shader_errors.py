"""A broken shader or a failing GL call: the file and line in one message, exit status 1.

The broken shaders go through the real loader: the shader folder is copied, one file is
damaged, and ``SGVIEW_SHADER_DIR`` points the viewer at the copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import moderngl
import pytest

from viewer.cli.main import main
from viewer.render.shaders import SHADER_DIR_ENV, ShaderError, load_program, shader_dir

REPO = Path(__file__).resolve().parents[2]
TREE10 = str(REPO / "scenes" / "tree10.toml")
BAD_LINE = 15  # the line the damage goes on (1-based)


@pytest.fixture
def broken_dir(tmp_path):
    """A copy of the shader folder whose instanced.vert has a syntax error on BAD_LINE."""
    folder = tmp_path / "shaders"
    shutil.copytree(shader_dir(), folder)
    path = folder / "instanced.vert"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines.insert(BAD_LINE - 1, "this is not GLSL;")
    path.write_text("\n".join(lines), encoding="utf-8")
    return folder


def test_compile_error_names_the_file_and_line(gl_ctx, broken_dir, monkeypatch):
    monkeypatch.setenv(SHADER_DIR_ENV, str(broken_dir))
    with pytest.raises(ShaderError) as err:
        load_program(gl_ctx, "instanced")
    file = broken_dir / "instanced.vert"
    assert err.value.file == file and err.value.line == BAD_LINE
    message = str(err.value)
    assert message.startswith(f"{file}:{BAD_LINE}: ") and "\n" not in message
    assert "error" in message


def test_link_error_names_both_files(gl_ctx, tmp_path, monkeypatch):
    (tmp_path / "pair.vert").write_text(
        "#version 330 core\nin vec3 a;\nout vec3 v_x;\n"
        "void main() { v_x = a; gl_Position = vec4(a, 1.0); }\n"
    )
    (tmp_path / "pair.frag").write_text(  # the varying's type differs: each compiles alone
        "#version 330 core\nin vec4 v_x;\nout vec4 c;\nvoid main() { c = v_x; }\n"
    )
    monkeypatch.setenv(SHADER_DIR_ENV, str(tmp_path))
    with pytest.raises(ShaderError) as err:
        load_program(gl_ctx, "pair")
    message = str(err.value)
    assert "\n" not in message
    assert str(tmp_path / "pair.vert") in message and str(tmp_path / "pair.frag") in message
    assert "does not link" in message and "v_x" in message


def test_a_missing_shader_folder_or_file_is_one_line(gl_ctx, tmp_path, monkeypatch):
    monkeypatch.setenv(SHADER_DIR_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(ShaderError, match="is not a folder"):
        shader_dir()
    monkeypatch.setenv(SHADER_DIR_ENV, str(tmp_path))
    with pytest.raises(ShaderError) as err:
        load_program(gl_ctx, "instanced")
    assert str(err.value).startswith(f"{tmp_path / 'instanced.vert'}: cannot read the shader")


def test_sgview_exits_1_with_one_line_naming_the_shader(gl_ctx, broken_dir, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), SHADER_DIR_ENV: str(broken_dir)}
    done = subprocess.run(
        [sys.executable, "-m", "viewer", TREE10, "--headless", "--size", "64x48"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"sgview: {broken_dir / 'instanced.vert'}:{BAD_LINE}: ")


def test_a_gl_error_while_running_exits_1_with_one_line(gl_ctx, monkeypatch, capsys):
    from viewer.render.renderer import Renderer

    def failing_draw(self, *args, **kwargs):
        raise moderngl.Error("GL_OUT_OF_MEMORY\nwhile drawing the instances")

    monkeypatch.setattr(Renderer, "draw", failing_draw)
    assert main([TREE10, "--headless", "--size", "64x48"]) == 1
    err = capsys.readouterr().err
    assert err == "sgview: OpenGL error: GL_OUT_OF_MEMORY while drawing the instances\n"
