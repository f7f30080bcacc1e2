"""Render-test fixtures: one EGL context per session (without one, a skip; a failure in
CI) and a fresh render target per test."""

from __future__ import annotations

import pytest
from needs import need_gl

from viewer.render.context import Target


@pytest.fixture(scope="session")
def gl_ctx():
    ctx = need_gl()
    yield ctx
    ctx.release()


@pytest.fixture
def target(gl_ctx, request):
    """A render target without multisampling, of the size the test module names (SIZE)."""
    t = Target(gl_ctx, request.module.SIZE, samples=0)
    yield t
    t.release()
