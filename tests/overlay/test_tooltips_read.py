"""Every tooltip of the panels reads as a sentence with no word said twice in a row (the
second newcomer trial read "keep world pose on drop on drop: ..."). The test walks the
tooltips as the panels draw them: every item counts as hovered, every section is open,
at the window sizes the docs name, and each tooltip text is recorded and read."""

from __future__ import annotations

import re

import app_driver
import pytest
from imgui_bundle import imgui
from overlay_helpers import tree10

from viewer.embed.api import scene_for

#: A word, or a few, said twice in a row ("on drop on drop").
REPEATED = re.compile(r"\b([a-z][\w']*(?:\s+[\w']+){0,3})\s+\1\b", re.IGNORECASE)
LONG = "b_RightUpperArm_and_a_very_long_joint_name_026"


def repeated_words(text: str) -> list[str]:
    """The word runs of `text` said twice in a row."""
    return [m.group(0) for m in REPEATED.finditer(text)]


def test_the_reader_finds_repeats():
    assert repeated_words("keep world pose on drop on drop: drag a row") == ["on drop on drop"]
    assert repeated_words("the the row") == ["the the"]
    assert repeated_words("frame 1: 1 local, 10 world") == []
    assert repeated_words("drag a row onto a row, or its edge") == []


@pytest.mark.parametrize("size", [(1280, 720), (800, 450), (640, 360)])
def test_no_tooltip_repeats_a_word(drive, monkeypatch, size):
    monkeypatch.setattr(app_driver, "SIZE", size)
    graph = tree10()
    graph.add(LONG, "Obj8")  # a name shortened in the tree: its tooltip too
    scene = scene_for(graph)
    d = drive(scene, still=True, touches={2: ["Obj2"]})
    d.run(3)
    d.app.session.select(scene.graph[LONG].id)
    monkeypatch.setattr("viewer.overlay.panel.panels_folded", lambda width: (False, False))
    tips: list[str] = []
    header = imgui.collapsing_header

    def opened(*args, **kwargs):  # every section open: all of its tooltips drawn
        imgui.set_next_item_open(True, imgui.Cond_.always)
        return header(*args, **kwargs)

    monkeypatch.setattr(imgui, "collapsing_header", opened)
    monkeypatch.setattr(imgui, "is_item_hovered", lambda *args, **kwargs: True)
    monkeypatch.setattr(imgui, "set_tooltip", lambda text, *args: tips.append(str(text)))
    d.frame(3)
    seen = set(tips)
    assert len(seen) >= 15, sorted(seen)  # the panels' tooltips were walked
    assert any(t.startswith("keep world pose on drop: ") for t in seen)  # the trial's
    bad = {t: repeated_words(t) for t in seen if repeated_words(t)}
    assert bad == {}
