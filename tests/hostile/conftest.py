"""Hostile input, round three (issue 26): helpers live in tests/hostile_gltf.py."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def egl():
    """A headless OpenGL context can be made here (else the test skips, or fails in CI)."""
    from needs import need_gl

    need_gl().release()
