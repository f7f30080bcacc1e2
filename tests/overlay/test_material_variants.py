"""The scene panel's "Material variants" section: a glTF file's KHR_materials_variants
listed, a click on one draws its materials (the primitive it maps turns that colour)."""

from __future__ import annotations

import sys
from pathlib import Path

from imgui_bundle import imgui

sys.path.insert(0, str(Path(__file__).parents[1] / "render"))

from test_material_extensions import _variants_file  # noqa: E402

from viewer.io import load_scene  # noqa: E402


def test_the_panel_lists_the_variants_and_a_click_switches_them(drive, monkeypatch, tmp_path):
    real_header, real_radio = imgui.collapsing_header, imgui.radio_button
    shown: list[str] = []
    wanted = {"label": None}

    def header(label, *a, **k):
        return real_header(label, *a, **k) or label == "Material variants"

    def radio(label, active, *a, **k):
        if "##variant" in label:
            shown.append(label.split("##")[0])
        return real_radio(label, active, *a, **k) or label.split("##")[0] == wanted["label"]

    monkeypatch.setattr(imgui, "collapsing_header", header)
    monkeypatch.setattr(imgui, "radio_button", radio)
    d = drive(load_scene(_variants_file(tmp_path)), still=True)
    d.frame()
    assert shown[:3] == ["the file's default", "Blue", "Red"], shown
    renderer = d.app.renderer
    assert renderer.variant is None
    centre = d.pixel(d.frame(), "Q")
    assert centre[1] > 200 and centre[0] < 60, centre  # green: the file's default
    wanted["label"] = "Red"
    d.frame(2)
    assert renderer.variant == "Red"
    wanted["label"] = None
    centre = d.pixel(d.frame(), "Q")
    assert centre[0] > 200 and centre[1] < 60, centre
