"""Every button in the panels has a tooltip: the panels are drawn with each section open
(the run controls, the timeline's buttons, the replay, Totals, Edit, the file browser,
a glTF clip's Animation section), every ImGui button drawn is recorded, and those not
drawn through `widgets.button` (the button that shows its tooltip on hover) are listed.
The buttons named in the check must be among those seen, so it cannot pass by seeing
none."""

from __future__ import annotations

import sys
from pathlib import Path

import app_driver
import pytest
from imgui_bundle import imgui
from overlay_helpers import tree10

from viewer.embed.api import scene_for
from viewer.overlay import widgets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # gltf_rig
from gltf_rig import write_rig  # noqa: E402

from viewer.io import load_scene  # noqa: E402

#: Buttons that must be seen, each with a tooltip (the trial found the first seven
#: without one).
NAMED = (
    "Pause",
    "Step",
    "Touch",
    "|<",
    "< event",
    "event >",
    "live",
    "back to live",
    "stop replay (V)",
    "reset totals",
    "Undo (Ctrl+Z)",
    "Redo (Ctrl+Shift+Z)",
    "Delete",
    "Save as",
    "Open",
    "Up",
    "Pause##clip",
)


@pytest.fixture
def recorded(monkeypatch):
    """(every button label ImGui drew, the (label, tooltip) pairs `widgets.button` drew)."""
    drawn: list[str] = []
    for name in ("button", "small_button"):
        real = getattr(imgui, name)

        def record(label, *args, _real=real, **kwargs):
            drawn.append(label)
            return _real(label, *args, **kwargs)

        monkeypatch.setattr(imgui, name, record)
    tipped: list[tuple[str, str]] = []
    monkeypatch.setattr(widgets, "buttons_seen", tipped)
    return drawn, tipped


def _panels_open(d, tmp_path: Path) -> None:
    """Draw the panels with a node selected, its Edit section open, Totals open, a frame
    picked and replayed, and the file browser listing a folder."""
    d.frame(3)
    session = d.app.session
    session.select(int(session.graph.alive_ids()[1]))
    scene = d.app.overlay.panel.scene
    scene.edit.open_next = True
    d.frame(2)
    d.press("SPACE")
    d.frame()
    d.press("T")
    d.frame()
    d.press("SPACE")  # running again: Pause is drawn
    d.frame(3)
    d.press("V")  # a slow replay: the frame pinned, "stop replay (V)" and "back to live"
    d.frame(2)
    assert d.app.overlay.replay.active
    (tmp_path / "a.toml").write_text("", encoding="utf-8")
    d.app.overlay.browser.start(tmp_path, (".toml",))
    d.frame(2)


def test_every_button_drawn_has_a_tooltip(drive, monkeypatch, recorded, tmp_path):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 1000))  # Totals opens at this height
    drawn, tipped = recorded
    d = drive(scene_for(tree10()))
    _panels_open(d, tmp_path)
    rig = drive(load_scene(write_rig(tmp_path)))  # a glTF clip: the Animation section
    rig.frame(3)

    labels = set(drawn)
    assert labels, "no button was drawn: the check saw nothing"
    missing = sorted(labels - {label for label, _ in tipped})
    assert missing == [], f"buttons without a tooltip: {missing}"
    assert all(tip.strip() for _, tip in tipped)
    unseen = [label for label in NAMED if label not in labels]
    assert unseen == [], f"buttons the check did not see: {unseen}"
