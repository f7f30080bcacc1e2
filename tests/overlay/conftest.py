"""Overlay test fixtures: headless runs skip cleanly without an EGL context (fail in CI)."""

from __future__ import annotations

import pytest
from needs import need_gl


@pytest.fixture(scope="session")
def egl():
    need_gl().release()
