"""Texts issue 34's newcomer trial found cut off at the default 1280x720: the Animation
section's line about a stopped motion, the Edit section's copy of a long refusal (cut in
its middle), the tree's drag tooltip. Each is read whole: no text item ends past the
right edge it is drawn in (`ClipCheck`), and the refusal is read in full (on one line
cut at its end, whole in its tooltip: test_steady_panel.py). (The drag
tooltip is a window of its own, sized to its text: the trial's screenshot shows it whole.)"""

from __future__ import annotations

from pathlib import Path

import app_driver
from gltf_rig import write_rig
from imgui_bundle import imgui
from test_layout_fits import ClipCheck
from test_steady_panel import read_whole

from viewer.io import load_scene
from viewer.session.commands import Reparent, SetField

SIZE = (1280, 720)
SCENES = Path(__file__).resolve().parents[2] / "scenes"


def test_the_stopped_motion_line_of_a_clip_is_not_cut_off(drive, monkeypatch, tmp_path):
    monkeypatch.setattr(app_driver, "SIZE", SIZE)
    d = drive(load_scene(write_rig(tmp_path)), still=True)  # motion stopped: the clip waits
    d.frame(2)
    check = ClipCheck(monkeypatch)
    shown: list[str] = []
    for name in ("text_colored", "text_wrapped"):
        call = getattr(imgui, name)
        monkeypatch.setattr(imgui, name, lambda *a, _c=call: (shown.append(a[-1]), _c(*a))[1])
    d.frame(2)
    assert any("the clip waits" in text for text in shown)  # the line is drawn
    assert check.cut == [], check.cut


def test_the_edit_section_shows_a_long_refusal_whole(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", SIZE)
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame(2)
    session = d.app.session
    graph = session.graph
    session.editing.run(SetField(graph["Obj5"].id, "local_scale", (1.85, 1.0, 1.0)))
    session.editing.run(SetField(graph["Obj3"].id, "local_euler", (0.0, -81.8, 0.0)))
    session.editing.run(Reparent(graph["Obj3"].id, graph["Obj5"].id))  # needs shear: refused
    refusal = session.messages.edit
    assert refusal is not None and "shear" in refusal and len(refusal) > 200
    d.app.overlay.panel.scene.edit.open_next = True
    d.frame(2)
    check = ClipCheck(monkeypatch)
    d.frame(2)
    assert check.cut == [], check.cut
    # One line (a wrapped one pushed the fields down, trial 3), cut at its end, never in
    # its middle, and read whole in its tooltip.
    line, tip = read_whole(d, d.app.overlay.panel.scene.edit.message_rect,
                           refusal[:20])  # fmt: skip
    assert tip == refusal and refusal.startswith(line[:-3])
