"""The glow, without GL: which nodes light up in which colour, how it fades, what is sent."""

from __future__ import annotations

import numpy as np
import pytest
from overlay_helpers import touched, tree10

from viewer.overlay.highlight import Highlight, Mirror

DT = 1.0 / 60.0


def ids(g, *names):
    return [g[n].id for n in names]


def test_local_glows_red_and_world_only_orange():
    g = tree10()
    h = Highlight()
    h.apply(touched(g, "Obj2"), g.parents())
    lit, values = h.signed_values()
    got = dict(zip((g.name_of(i) for i in lit.tolist()), values.tolist()))
    assert got == {"Obj2": -1.0, "Obj5": 1.0, "Obj8": 1.0, "Obj9": 1.0}
    assert h.kind_of(g["Obj2"].id) == -1 and h.kind_of(g["Obj8"].id) == 1
    assert h.kind_of(g["Obj3"].id) == 0


def test_two_changes_in_one_frame_both_glow_red():
    g = tree10()
    h = Highlight()
    h.apply(touched(g, "Obj2", "Obj5"), g.parents())
    assert [h.kind_of(i) for i in ids(g, "Obj2", "Obj5", "Obj8", "Obj9")] == [-1, -1, 1, 1]


def test_lines_light_up_along_the_propagation_path_only():
    g = tree10()
    h = Highlight()
    h.apply(touched(g, "Obj2"), g.parents())
    children, strength = h.links()
    # Obj2 -> Obj5, Obj5 -> Obj8, Obj5 -> Obj9; not Obj1 -> Obj2 (Obj1 was not recomputed).
    assert sorted(g.name_of(i) for i in children.tolist()) == ["Obj5", "Obj8", "Obj9"]
    assert np.all(strength == 1.0)


def test_glow_fades_over_the_fade_time_and_stays_while_paused():
    g = tree10()
    h = Highlight(fade=0.5)
    h.apply(touched(g, "Obj4"), g.parents())
    obj4 = g["Obj4"].id
    for _ in range(15):  # a quarter second: half way
        h.advance(DT)
    assert h.level[obj4] == pytest.approx(0.5, abs=1e-5)
    h.advance(0.0)  # paused: nothing moves
    assert h.level[obj4] == pytest.approx(0.5, abs=1e-5)
    for _ in range(15):
        h.advance(DT)
    assert h.level[obj4] == 0.0 and h.link[g["Obj7"].id] == 0.0
    assert h.active.size == 0 and h.signed_values()[0].size == 0


def test_fade_is_adjustable_and_a_new_change_relights():
    g = tree10()
    h = Highlight(fade=2.0)
    h.apply(touched(g, "Obj3"), g.parents())
    for _ in range(60):
        h.advance(DT)
    assert h.level[g["Obj3"].id] == pytest.approx(0.5, abs=1e-5)
    h.apply(touched(g, "Obj6"), g.parents())  # Obj6 now changed itself: red, full
    assert h.kind_of(g["Obj6"].id) == -1 and h.level[g["Obj6"].id] == 1.0
    assert h.kind_of(g["Obj3"].id) == -1  # still fading from its own change


def test_a_frame_without_change_lights_nothing():
    g = tree10()
    h = Highlight()
    h.apply(g.update(), g.parents())
    assert h.active.size == 0


def test_still_picture_of_a_report_does_not_fade():
    g = tree10()
    still = Highlight.of_report(touched(g, "Obj5"), g.parents())
    still.advance(10.0)  # never called by the overlay, but harmless: fade 0 -> one frame
    assert still.active.size == 0
    still = Highlight.of_report(touched(g, "Obj5"), g.parents())
    assert [still.kind_of(i) for i in ids(g, "Obj5", "Obj8", "Obj2")] == [-1, 1, 0]


def test_mirror_sends_changes_and_zeros_once():
    m = Mirror()
    out = m.update([3, 1], [0.5, -1.0])
    assert out[0].tolist() == [1, 3] and out[1].tolist() == [-1.0, 0.5]
    out = m.update([1, 3], [-1.0, 0.25])  # only 3 changed
    assert out[0].tolist() == [3] and out[1].tolist() == [0.25]
    out = m.update([3], [0.25])  # 1 went out: written as 0
    assert out[0].tolist() == [1] and out[1].tolist() == [0.0]
    out = m.update([], [])
    assert out[0].tolist() == [3] and out[1].tolist() == [0.0]
    assert m.update([], [])[0].size == 0  # nothing left to say
