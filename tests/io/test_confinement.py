"""A scene or glTF file cannot make the loader read a file outside its own folder.

A model is planted outside the scene's folder, then reached every way a file can name it:
``../``, an absolute path, a symbolic link to the file, a symbolic link to its folder, and
from inside a glTF file (buffer and image URIs). Each is refused with a `SceneError`, no
node of the planted model appears, and an audit hook proves the planted files were never
opened (``open`` is an audited event; `Path.read_bytes` goes through it).
"""

from __future__ import annotations

import os
import sys

import pytest
from scene_helpers import build_gltf, write_gltf

from viewer.io import SceneError, load_scene

_opened: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    if _opened is not None and event == "open" and isinstance(args[0], str | bytes | os.PathLike):
        _opened.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)  # cannot be removed; does nothing unless a test is recording


@pytest.fixture
def opened():
    """Records the path of every file opened during the test."""
    global _opened
    _opened = []
    try:
        yield _opened
    finally:
        _opened = None


@pytest.fixture
def planted(tmp_path):
    """(scene folder, outside folder): a valid model `secret.glb` with its own nodes, and
    `secret.bin` / `secret.png`, all outside the scene folder."""
    outside = tmp_path / "outside"
    write_gltf(outside, "glb", "secret.glb")
    _gltf, blob = build_gltf()
    (outside / "secret.bin").write_bytes(blob)
    (outside / "secret.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    inside = tmp_path / "scenes"
    inside.mkdir()
    return inside, outside


def _never_opened(opened: list[str], outside) -> None:
    leaked = [p for p in opened if os.path.realpath(p).startswith(str(outside.resolve()))]
    assert leaked == [], f"files outside the folder were opened: {leaked}"


def _refused(path, opened, outside) -> SceneError:
    with pytest.raises(SceneError) as err:
        load_scene(path)
    _never_opened(opened, outside)
    assert "refused" in str(err.value), str(err.value)
    return err.value


@pytest.mark.parametrize("form", ["mesh", "include"])
@pytest.mark.parametrize("how", ["dotdot", "nested_dotdot", "absolute", "file_link", "dir_link"])
def test_a_scene_cannot_include_a_model_outside_its_folder(planted, opened, form, how):
    inside, outside = planted
    target = {
        "dotdot": "../outside/secret.glb",
        "nested_dotdot": "models/../../outside/secret.glb",
        "absolute": str(outside / "secret.glb"),
        "file_link": "link.glb",
        "dir_link": "models/secret.glb",
    }[how]
    (inside / "models").mkdir()
    if how == "file_link":
        (inside / "link.glb").symlink_to(outside / "secret.glb")
    if how == "dir_link":
        (inside / "models").rmdir()
        (inside / "models").symlink_to(outside, target_is_directory=True)
    if form == "mesh":
        text = f'[[node]]\nname = "Host"\nmesh = "{target}"\n'
    else:
        text = f'[[include]]\nfile = "{target}"\n'
    path = inside / "scene.toml"
    path.write_text(text)
    err = _refused(path, opened, outside)
    assert err.file == str(path) and err.field in ("mesh", "file")


@pytest.mark.parametrize(
    "uri",
    ["../outside/secret.bin", "%2E%2E/outside/secret.bin", "link.bin", "linked/secret.bin",
     "ABSOLUTE", "file://ABSOLUTE"],
)  # fmt: skip
@pytest.mark.parametrize("kind", ["buffer", "image"])
def test_a_gltf_cannot_read_a_file_outside_its_folder(planted, opened, uri, kind):
    inside, outside = planted
    uri = uri.replace("ABSOLUTE", str(outside / "secret.bin"))
    (inside / "link.bin").symlink_to(outside / "secret.bin")
    (inside / "link.png").symlink_to(outside / "secret.png")
    (inside / "linked").symlink_to(outside, target_is_directory=True)
    gltf, blob = build_gltf()
    if kind == "buffer":
        gltf.buffers[0].uri = uri
    else:
        import pygltflib

        (inside / "model.bin").write_bytes(blob)
        gltf.buffers[0].uri = "model.bin"
        gltf.images = [pygltflib.Image(uri=uri.replace(".bin", ".png"))]
    path = inside / "model.gltf"
    path.write_text(gltf.gltf_to_json())
    _refused(path, opened, outside)


def test_models_below_the_folder_are_fine(planted, opened):
    inside, outside = planted
    write_gltf(inside / "models", "bin", "robot.gltf")
    path = inside / "scene.toml"
    path.write_text('[[node]]\nname = "Host"\nmesh = "models/robot.gltf"\n')
    assert "Host/Body" in load_scene(path).graph
    _never_opened(opened, outside)
    assert any(p.endswith("robot.bin") for p in opened)  # the hook does see reads
