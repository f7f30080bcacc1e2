"""Overlay test fixtures: headless runs skip cleanly without an EGL context; `drive` runs
an app frame by frame."""

from __future__ import annotations

import pytest
from app_driver import Driver


@pytest.fixture(scope="session")
def egl():
    from viewer.render.context import ContextError, create_headless_context

    try:
        create_headless_context("egl").release()
    except ContextError as exc:
        pytest.skip(f"no headless OpenGL context on this machine: {exc}")


@pytest.fixture
def drive(egl):
    """`drive(scene, **run_options)`: a `Driver`, closed after the test."""
    drivers = []

    def make(scene, **options):
        drivers.append(Driver(scene, **options))
        return drivers[-1]

    yield make
    for d in drivers:
        d.close()
