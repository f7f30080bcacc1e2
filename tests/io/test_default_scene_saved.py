"""A saved copy of the built-in default scene is that file's scene, not the default: its
title is written without the note "(the default scene; tree10 is it still)", in .toml
and glTF, from the window's Save as and from --save, and the panel stops saying it once
saved (the fourth and fifth newcomer trials reopened a copy that claimed to be the
default scene)."""

from __future__ import annotations

import pytest

from viewer.cli.main import main
from viewer.io import SceneError, default_scene, load_scene
from viewer.io.generate import DEFAULT_TITLE
from viewer.session.messages import Messages
from viewer.session.opening import SceneFiles, save_as

PLAIN = "Ten-node tree with motion"


@pytest.mark.parametrize("name", ["copy.toml", "copy.glb", "copy.gltf"])
def test_save_as_of_the_default_scene_titles_the_copy_without_the_note(tmp_path, name):
    scene = default_scene()
    assert scene.title == DEFAULT_TITLE and DEFAULT_TITLE.startswith(PLAIN)
    save_as(scene, tmp_path / name)
    assert scene.title == PLAIN  # the scene on show is now that file's: no claim left
    assert load_scene(tmp_path / name).title == PLAIN


def test_a_failed_save_leaves_the_title_as_it_was(tmp_path):
    scene = default_scene()
    with pytest.raises(SceneError):  # no such folder
        save_as(scene, tmp_path / "missing" / "copy.toml")
    assert scene.title == DEFAULT_TITLE


def test_the_window_save_and_the_command_line_save_write_the_plain_title(tmp_path):
    scene = default_scene()
    files = SceneFiles(scene, {}, Messages())  # the window's Ctrl+S / Save as
    assert files.save(scene, tmp_path / "window.toml")
    assert load_scene(tmp_path / "window.toml").title == PLAIN
    assert main(["--headless", "--frames", "1", "--save", str(tmp_path / "cli.toml")]) == 0
    assert load_scene(tmp_path / "cli.toml").title == PLAIN


def test_another_title_is_kept_whole(tmp_path):
    scene = default_scene()
    scene.title = "My tree (the default scene is elsewhere)"
    save_as(scene, tmp_path / "mine.toml")
    assert load_scene(tmp_path / "mine.toml").title == "My tree (the default scene is elsewhere)"
