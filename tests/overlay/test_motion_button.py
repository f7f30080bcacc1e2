"""The motion button says what is true (trial 3): tree10, whose title says "no motion",
read "Motion: on" and S seemed to do nothing. A scene with nothing that moves with time
says so (the button greyed); one with motions, a clip or an `on_frame` callback says
on / off as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from gltf_rig import write_rig
from imgui_bundle import imgui

from viewer.io import load_scene
from viewer.io.generate import default_scene
from viewer.overlay.scene_panel import NO_MOTION

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def labels(d, monkeypatch) -> list[str]:
    drawn: list[str] = []
    button = imgui.button
    monkeypatch.setattr(imgui, "button", lambda label, *a: (drawn.append(label),
                        button(label, *a))[1])  # fmt: skip
    d.frame(2)
    monkeypatch.setattr(imgui, "button", button)
    return [t for t in drawn if t.startswith("Motion")]


def test_a_scene_without_motion_says_so(drive, monkeypatch):
    d = drive(load_scene(SCENES / "tree10.toml"), still=False)
    assert not d.app.session.has_motion
    assert set(labels(d, monkeypatch)) == {NO_MOTION}
    d.app.session.frame_callbacks.append(lambda graph, frame, time: None)  # gets the time
    assert set(labels(d, monkeypatch)) == {"Motion: on"}


@pytest.mark.parametrize("which", ["default", "clip", "collision"])
def test_a_scene_with_motion_says_on_and_off(drive, monkeypatch, tmp_path, which):
    scene = {
        "default": default_scene,
        "clip": lambda: load_scene(write_rig(tmp_path)),
        "collision": lambda: load_scene(SCENES / "collision.toml"),
    }[which]()
    d = drive(scene, still=False)
    assert d.app.session.has_motion
    assert set(labels(d, monkeypatch)) == {"Motion: on"}
    d.press("S")
    assert set(labels(d, monkeypatch)) == {"Motion: off"}
