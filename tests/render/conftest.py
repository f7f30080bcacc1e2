"""Render-test fixtures: one EGL context per session; without one, a skip (a failure in CI)."""

from __future__ import annotations

import pytest
from needs import need_gl


@pytest.fixture(scope="session")
def gl_ctx():
    ctx = need_gl()
    yield ctx
    ctx.release()
