"""The heat view in the app: steady motion is hot, still nodes cold, from the same stamps
the glow uses (the renderer's `Glow.heat`, what the shader computes)."""

import pytest


def test_the_heat_view_colours_by_the_renderers_heat(drive):
    from viewer.io import default_scene

    d = drive(default_scene(), glow="heat")  # Obj3, Obj7, Obj9 move every frame
    d.frame(20)
    app = d.app
    assert app.settings.glow_style == "heat"
    g = app.session.graph
    heat = app.renderer.glow.heat([g[n].id for n in ("Obj3", "Obj6", "Obj9", "Obj2")])
    assert heat.tolist() == pytest.approx([1.0, 1.0, 1.0, 0.0])
    app.overlay.glow_style = "fill"  # back to the glow: what the last frame recomputed
    kinds = app.renderer.glow.kinds([g[n].id for n in ("Obj3", "Obj6", "Obj2")]).tolist()
    assert kinds == [-1, 1, 0]
