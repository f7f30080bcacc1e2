"""Fixtures for the scene-file tests (helpers live in scene_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scene_helpers import write_gltf


@pytest.fixture
def write_scene(tmp_path):
    """write_scene(text, name="scene.toml") -> Path of a scene file in a fresh folder."""

    def write(text: str, name: str = "scene.toml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def make_gltf(tmp_path):
    """make_gltf(form, name=None, folder=None, **build options) -> Path (see write_gltf)."""

    def make(form: str, name: str | None = None, folder: Path | None = None, **options) -> Path:
        return write_gltf(folder or tmp_path, form, name, **options)

    return make
