"""Fixtures for the notebook widget: an EGL context and jupyter_rfb, else `missing`
(a skip locally, a failure in CI)."""

from __future__ import annotations

import pytest
from needs import missing, need_gl


@pytest.fixture(scope="session")
def egl():
    need_gl().release()


@pytest.fixture(scope="session")
def rfb():
    try:
        import jupyter_rfb  # noqa: F401
    except ImportError as exc:
        missing(f"needs the notebook extra (jupyter_rfb): {exc}")
