"""The heat view's counts: steady motion is hot, a one-off change cools off and leaves the
window, and the overlay sends heat instead of glow in the heat view."""

import numpy as np
import pytest

from viewer.overlay.heat import Heat


class Report:
    def __init__(self, ids):
        self.world_updated = np.asarray(ids, dtype=np.int64)


def test_steady_motion_is_hot_and_a_one_off_cools_off():
    heat = Heat(window=10)
    heat.add(Report([0, 5]))  # node 5 once, node 0 every frame
    for _ in range(9):
        heat.add(Report([0]))
    ids, values = heat.values()
    assert dict(zip(ids.tolist(), values.tolist())) == {0: 1.0, 5: pytest.approx(0.1)}
    heat.add(Report([0]))  # node 5's frame leaves the window
    ids, values = heat.values()
    assert ids.tolist() == [0] and values.tolist() == [1.0]


def test_before_the_window_fills_heat_is_of_the_frames_so_far():
    heat = Heat(window=120)
    for _ in range(3):
        heat.add(Report([2]))
    heat.add(Report([]))
    ids, values = heat.values()
    assert ids.tolist() == [2] and values.tolist() == [0.75]


def test_ids_beyond_the_arrays_grow_them():
    heat = Heat(window=4)
    heat.add(Report([1000]))
    assert heat.values()[0].tolist() == [1000]
    heat.clear()
    assert heat.values()[0].size == 0


def test_the_heat_view_sends_each_nodes_heat_to_the_renderer(drive):  # noqa: F811
    from viewer.io import default_scene

    d = drive(default_scene(), glow="heat")  # Obj3, Obj7, Obj9 move every frame
    d.frame(20)
    app = d.app
    assert app.renderer.glow_style == "heat"
    g = app.session.graph
    held = app.renderer.instances.highlight
    for name, heat in (("Obj3", 1.0), ("Obj6", 1.0), ("Obj9", 1.0), ("Obj2", 0.0)):
        assert held[g[name].id] == heat, name
    app.overlay.glow_style = "fill"  # back to the glow: signed strengths again
    app.overlay.push()
    assert held[g["Obj3"].id] < 0 and held[g["Obj6"].id] > 0 and held[g["Obj2"].id] == 0
