"""Render-test fixtures: one EGL context per session, skipping cleanly without one."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def gl_ctx():
    from viewer.render.context import ContextError, create_headless_context

    try:
        ctx = create_headless_context("egl")
    except ContextError as exc:
        pytest.skip(f"no headless OpenGL context on this machine: {exc}")
    yield ctx
    ctx.release()
