"""Overlay test fixtures: headless runs skip cleanly without an EGL context (fail in CI);
`drive` runs an app frame by frame; `edit_open` one with a node's Edit section open."""

from __future__ import annotations

import app_driver
import pytest
from app_driver import Driver
from needs import need_gl
from overlay_helpers import tree10

from viewer.embed.api import scene_for


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


@pytest.fixture
def edit_open(drive, monkeypatch):
    """`edit_open(size)`: tree10 held still in a window of `size`, Obj5 selected and the
    Edit section open; returns (driver, session, Obj5, edit section)."""

    def make(size: tuple[int, int]):
        monkeypatch.setattr(app_driver, "SIZE", size)
        d = drive(scene_for(tree10()), still=True)
        d.frame(2)
        session = d.app.session
        node = session.graph["Obj5"]
        session.select(node.id)
        edit = d.app.overlay.panel.scene.edit
        edit.open_next = True
        d.frame(3)
        return d, session, node, edit

    return make
