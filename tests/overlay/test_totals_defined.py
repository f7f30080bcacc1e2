"""The Totals section says what its two counts count, where they are read: one line under
them defines the naive method's products (every world matrix from scratch, every frame:
one product per ancestor of each node, so a fixed number a frame for the scene) and the
products done (the cached method: one per recomputed node that has a parent), with this
scene's number; getting-started.md quotes the line as the window shows it."""

from __future__ import annotations

import re
from pathlib import Path

import app_driver

from viewer.io.generate import default_scene
from viewer.overlay.stats import totals_definition

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _depth(graph, node) -> int:
    depth = 0
    while node.parent is not None:
        node, depth = node.parent, depth + 1
    return depth


def test_the_totals_define_naive_and_done_for_this_scene(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 1000))  # Totals open
    scene = default_scene()
    d = drive(scene)
    d.run(5)
    d.frame(2)
    ancestors = sum(_depth(scene.graph, n) for n in scene.graph)  # the naive method's count
    assert ancestors == 18
    note = d.app.overlay.panel.frames.totals_note
    assert note == totals_definition(ancestors)
    assert "18 a frame in this scene" in note
    assert d.app.overlay.timeline.last.stats.naive_products == ancestors


def test_getting_started_quotes_the_line_as_shown():
    page = (DOCS / "getting-started.md").read_text()
    quoted = re.search(r"says what the two count: `(.*?)`", page, re.S)
    assert quoted, "getting-started.md quotes the Totals' line"
    assert " ".join(quoted[1].split()) == totals_definition(18)
