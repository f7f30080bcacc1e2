"""Overlay test fixtures: headless runs skip cleanly without an EGL context (fail in CI);
`drive` runs an app frame by frame."""

from __future__ import annotations

import pytest
from app_driver import Driver
from needs import need_gl


@pytest.fixture(scope="session")
def egl():
    need_gl().release()


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
