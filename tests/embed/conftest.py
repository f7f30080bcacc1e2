"""Fixtures for `viewer.show`, `viewer.render_image`, scripts and traces: headless runs
skip cleanly without an EGL context."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def egl():
    from viewer.render.context import ContextError, create_headless_context

    try:
        create_headless_context("egl").release()
    except ContextError as exc:
        pytest.skip(f"no headless OpenGL context on this machine: {exc}")
