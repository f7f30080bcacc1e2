"""Names at scale: finding where names go looks at every node, so it is done again only
when something it depends on changed; a still view redraws the same names without looking
at the nodes (and a moved camera or an edit looks again)."""

from __future__ import annotations

from viewer.io import generate_scene


def test_a_still_view_places_its_names_once(drive, monkeypatch):
    d = drive(generate_scene("balanced:400"), still=True)
    d.app.overlay.show_names = True
    d.frame()
    bounds = d.app.renderer.bounds
    calls = []
    real = bounds.label_spheres

    def counted(ids):
        # the selected node's gizmo asks for that node's sphere alone (its size): no placing
        selected = d.app.session.selected
        if not (selected is not None and list(ids) == [selected]):
            calls.append(len(ids))
        return real(ids)

    monkeypatch.setattr(bounds, "label_spheres", counted)
    d.frame(3)
    first = list(d.app.overlay.names_drawn)
    assert calls == [] and first  # the same names, from the kept placement
    d.app.camera.orbit(20, 0)
    d.frame()
    assert len(calls) == 1  # the camera moved: placed again, once
    d.app.session.select(d.app.session.graph["Obj3"].id)
    d.frame(2)
    assert len(calls) == 2 and d.app.overlay.names_drawn[0][0] == "Obj3"  # selected first
