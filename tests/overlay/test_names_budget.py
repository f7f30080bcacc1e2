"""Names at scale (issue 31, item 4): a node drawn smaller than a few pixels gets no name
unless it is selected or glowing, and at most `NAME_BUDGET` names are placed, the most
important first (selected, glowing, then the nearest)."""

from __future__ import annotations

import numpy as np

from viewer.io import generate_scene
from viewer.overlay import labels

SPEC, LAST = "balanced:20000", "Obj20000"  # the deepest level's cubes are specks


def placed(d, glowing=None):
    """`place_named` as the overlay calls it, and each placed node's projected radius."""
    app, size = d.app, tuple(d.app.wnd.buffer_size)
    vp, right = app.camera.view_projection(size), app.camera.view_matrix()[0, :3]
    ids = np.asarray(app.session.graph.peek.alive_ids(), dtype=np.int64)
    bounds = app.renderer.bounds
    ids, centres, index, _ = labels.place_named(ids, app.renderer.speaks, app.session.selected,
                                                bounds.label_spheres, vp, size, right,
                                                glowing)  # fmt: skip
    radii = bounds.label_spheres(ids[index])[1]
    reach = labels.project(centres[index], radii, vp, size, right)[3]
    return ids[index], reach


def test_specks_go_unnamed_and_the_names_stay_within_the_budget(drive):
    d = drive(generate_scene(SPEC), still=True)
    d.app.overlay.show_names = True
    d.frame()
    ids, reach = placed(d)
    assert 0 < len(ids) <= labels.NAME_BUDGET
    assert (reach >= labels.MIN_NAME_PX).all()  # nothing named is a speck
    last = d.app.session.graph[LAST].id
    assert last not in ids.tolist()
    assert len(d.app.overlay.names_drawn) <= labels.MAX_NAMES
    speck = placed(d, glowing=np.array([last]))[0]
    assert speck[0] == last and len(speck) <= labels.NAME_BUDGET  # glowing: named first


def test_a_touched_speck_keeps_its_name_in_the_view(drive):
    d = drive(generate_scene(SPEC), still=True, touches={2: [LAST]})
    d.app.overlay.show_names = True
    d.frame()
    assert LAST not in dict(d.app.overlay.names_drawn)
    d.frame()  # frame 2: the deepest leaf changes its own value and glows red
    assert d.app.renderer.glow.kind_of(d.app.session.graph[LAST].id) == -1
    assert LAST in dict(d.app.overlay.names_drawn)
    assert len(d.app.overlay.names_drawn) <= labels.MAX_NAMES
    d.frame(60)  # the glow has faded: a speck again, unnamed
    assert LAST not in dict(d.app.overlay.names_drawn)
