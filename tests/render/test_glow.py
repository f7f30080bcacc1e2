"""The glow's stamps, without GL: which nodes light up in which colour, how the glow fades
with the clock (and stays while it stands), the lit lines, the heat, a picked frame."""

from __future__ import annotations

import example_graphs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from render_helpers import FakeReport

from viewer.render.glow import (
    FOLLOWED,
    HEAT_SECONDS,
    NONE,
    OWN,
    STILL_FOLLOWED,
    STILL_OWN,
    Glow,
)
from viewer.scene import SceneGraph

DT = 1.0 / 60.0


def tree10():
    return example_graphs.tree10(offset=(0.0, 0.0, 0.0))


def touched(g, *names):
    for name in names:
        g.touch(g[name])
    return g.update()


def ids(g, *names):
    return np.array([g[n].id for n in names])


def named(g, lit, values):
    return dict(zip((g.name_of(i) for i in lit.tolist()), values.tolist()))


def test_own_change_glows_red_and_followers_orange():
    g = tree10()
    glow = Glow()
    glow.record(touched(g, "Obj2"), g.parents(), DT)
    assert named(g, *glow.glowing()) == {"Obj2": -1.0, "Obj5": 1.0, "Obj8": 1.0, "Obj9": 1.0}
    assert glow.kinds(ids(g, "Obj2", "Obj8", "Obj3")).tolist() == [-1, 1, 0]
    codes = glow.stamp_rows(ids(g, "Obj2", "Obj8", "Obj3"))[:, 1]
    assert np.floor(codes).tolist() == [OWN, FOLLOWED, NONE]


def test_two_changes_in_one_frame_both_glow_red():
    g = tree10()
    glow = Glow()
    glow.record(touched(g, "Obj2", "Obj5"), g.parents(), DT)
    assert glow.kinds(ids(g, "Obj2", "Obj5", "Obj8", "Obj9")).tolist() == [-1, -1, 1, 1]


def test_lines_light_up_along_the_propagation_path_only():
    g = tree10()
    glow = Glow()
    glow.record(touched(g, "Obj2"), g.parents(), DT)
    children, strength = glow.links()
    # Obj2 -> Obj5, Obj5 -> Obj8, Obj5 -> Obj9; not Obj1 -> Obj2 (Obj1 was not recomputed).
    assert sorted(g.name_of(i) for i in children.tolist()) == ["Obj5", "Obj8", "Obj9"]
    assert np.all(strength == 1.0)


def test_glow_fades_with_the_clock_and_stays_while_it_stands():
    g = tree10()
    glow = Glow(fade=0.5)
    glow.record(touched(g, "Obj4"), g.parents(), DT)
    obj4, obj7 = ids(g, "Obj4", "Obj7")
    stamps = glow.stamp_rows([obj4, obj7]).copy()
    for _ in range(15):  # a quarter second: half way
        glow.record(g.update(), g.parents(), DT)
    assert glow.signed([obj4]) == pytest.approx([-0.5], abs=1e-5)
    glow.record(g.update(), g.parents(), 0.0)  # paused (a step of no time): no change
    assert glow.signed([obj4]) == pytest.approx([-0.5], abs=1e-5)
    assert (glow.stamp_rows([obj4, obj7]) == stamps).all()  # the GPU's copy is still good
    for _ in range(15):
        glow.record(g.update(), g.parents(), DT)
    assert glow.signed([obj4, obj7]).tolist() == [0.0, 0.0]
    assert glow.glowing()[0].size == 0 and glow.links()[0].size == 0


def test_fade_is_adjustable_and_a_new_change_relights():
    g = tree10()
    glow = Glow(fade=2.0)
    glow.record(touched(g, "Obj3"), g.parents(), DT)
    for _ in range(60):
        glow.record(g.update(), g.parents(), DT)
    assert glow.signed(ids(g, "Obj3")) == pytest.approx([-0.5], abs=1e-5)
    glow.record(touched(g, "Obj6"), g.parents(), DT)  # Obj6 changed itself: red, full
    assert glow.signed(ids(g, "Obj6")).tolist() == [-1.0]
    assert glow.kinds(ids(g, "Obj3")).tolist() == [-1]  # still fading from its own change
    glow.fade = 0.0  # a glow lasts one frame
    assert named(g, *glow.glowing()) == {"Obj6": -1.0, "Obj10": 1.0}
    glow.record(g.update(), g.parents(), DT)
    assert glow.glowing()[0].size == 0


def test_a_frame_without_change_lights_nothing():
    g = tree10()
    glow = Glow()
    glow.record(g.update(), g.parents(), DT)
    assert glow.glowing()[0].size == 0 and (glow.stamp_rows(ids(g, "Obj1"))[:, 1] == 0).all()


def test_a_picked_frame_shows_at_full_strength_until_let_go():
    g = tree10()
    glow = Glow(fade=0.5)
    picked = touched(g, "Obj5")
    glow.record(picked, g.parents(), DT)
    glow.record(touched(g, "Obj4"), g.parents(), DT)
    for _ in range(60):  # long faded
        glow.record(g.update(), g.parents(), DT)
    glow.set_still(picked, g.parents())
    assert glow.kinds(ids(g, "Obj5", "Obj8", "Obj2", "Obj4")).tolist() == [-1, 1, 0, 0]
    codes = np.floor(glow.stamp_rows(ids(g, "Obj5", "Obj8", "Obj4"))[:, 1]).tolist()
    assert codes == [STILL_OWN, STILL_FOLLOWED, NONE]
    assert sorted(g.name_of(i) for i in glow.links()[0].tolist()) == ["Obj8", "Obj9"]
    glow.set_still(None, g.parents())
    assert glow.glowing()[0].size == 0


def test_steady_motion_is_hot_a_one_off_cools_off_and_heat_needs_no_rewrite():
    glow = Glow()
    parents = np.full(6, -1)
    glow.record(FakeReport([0, 5]), parents, DT)  # node 5 once, node 0 every frame
    assert glow.heat([0, 5]).tolist() == pytest.approx([1.0, 1.0])  # of the time so far
    for _ in range(119):
        glow.record(FakeReport([0]), parents, DT)
    hot, cooled = glow.heat([0, 5])
    assert hot == pytest.approx(1.0) and cooled < 0.02
    stamp5 = glow.stamp_rows([5]).copy()
    for frame in range(600):  # ten seconds: half the frames recompute node 1
        glow.record(FakeReport([0, 1] if frame % 2 else [0]), parents, DT)
    assert glow.heat([0, 1]).tolist() == pytest.approx([1.0, 0.5], abs=0.02)
    assert glow.heat([5])[0] < 1e-3 and (glow.stamp_rows([5]) == stamp5).all()


def test_ids_beyond_the_arrays_grow_them():
    glow = Glow()
    glow.record(FakeReport([1000]), np.full(1001, -1), DT)
    assert glow.glowing()[0].tolist() == [1000]
    assert glow.kinds([5000]).tolist() == [0]


def test_a_node_lit_without_a_report_glows_red_with_no_line():
    g = tree10()
    glow = Glow()
    glow.record(touched(g, "Obj3"), g.parents(), DT)  # Obj3 red, Obj6 and Obj10 orange
    glow.light(ids(g, "Obj6", "Obj4"))  # e.g. their morph weights changed this frame
    assert named(g, *glow.glowing()) == {"Obj3": -1.0, "Obj6": -1.0, "Obj10": 1.0, "Obj4": -1.0}
    assert sorted(g.name_of(i) for i in glow.links()[0].tolist()) == ["Obj10", "Obj6"]
    assert np.floor(glow.stamp_rows(ids(g, "Obj4"))[:, 1]).tolist() == [OWN]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_glow_counts_kept_per_frame_match_a_walk_over_the_glowing_nodes(data):
    """`glowing_count` and `lit_line_count` (kept as frames are recorded, no walk) equal
    the counts of `glowing()` and `links()` (which walk the recent frames' nodes) after
    any sequence of touches, weight lights, fade changes, still frames and marks; with a
    counted mask, only those nodes count."""
    g = SceneGraph()
    for i in range(data.draw(st.integers(1, 30))):
        parent = data.draw(st.integers(-1, i - 1))
        g.add(f"n{i}", parent=None if parent < 0 else g.node(parent), position=(0.0, 1.0, 0.0))
    g.update()
    glow = Glow(fade=data.draw(st.sampled_from([0.0, 0.05, 0.5])))
    alive = np.asarray(g.alive_ids(), dtype=np.int64)
    counted = None
    for _ in range(data.draw(st.integers(1, 25))):
        step = data.draw(st.sampled_from(["touch", "light", "idle", "mask", "still", "pending"]))
        if step == "mask":
            counted = np.asarray(data.draw(st.lists(st.booleans(), min_size=len(alive),
                                                    max_size=len(alive))), dtype=bool)  # fmt: skip
            glow.count_drawn(counted)
            continue
        if step == "still":
            report = g.update()
            glow.set_still(report if data.draw(st.booleans()) else None, g.parents())
            continue
        if step == "pending":
            picks = alive[: data.draw(st.integers(0, len(alive)))]
            glow.set_pending(picks[::2], picks[1::2])
            continue
        if step in ("touch", "light"):
            for node_id in data.draw(st.lists(st.sampled_from(alive.tolist()), max_size=4)):
                g.touch(g.node(int(node_id)))
        report = g.update()
        glow.record(report, g.parents(), data.draw(st.sampled_from([0.0, DT, 0.2])))
        if step == "light":
            glow.light(alive[: data.draw(st.integers(0, len(alive)))])
        lit, _ = glow.glowing()
        weights = np.ones(len(lit)) if counted is None else counted[lit].astype(float)
        assert glow.glowing_count() == int(weights.sum())
        if not glow.still:
            assert glow.lit_line_count() == glow.links()[0].size


class ReferenceStamps:
    """The stamps by the glow's contract, one node at a time (an oracle for `Glow`'s
    vectorised bookkeeping): time, own change or followed, heat, and the lines' times."""

    def __init__(self) -> None:
        self.now, self.time, self.own, self.heat, self.line = 0.0, {}, {}, {}, {}

    def record(self, report, parents, dt) -> None:
        self.now += max(dt, 0.0)
        world = report.world_updated.tolist()
        for i in world:
            age = self.now - self.time.get(i, -np.inf)
            self.heat[i] = self.heat.get(i, 0.0) * np.exp(-age / HEAT_SECONDS) + (
                1.0 - np.exp(-max(dt, 0.0) / HEAT_SECONDS)
            )
            self.time[i], self.own[i] = self.now, False
        for i in report.local_updated.tolist():
            self.time[i], self.own[i] = self.now, True
        recomputed = set(world)
        for i in world:
            if parents[i] >= 0 and parents[i] in recomputed:
                self.line[i] = self.now

    def rows(self, ids) -> tuple[np.ndarray, np.ndarray]:
        stamps = [(self.time.get(i, -3.0e38), (OWN if self.own[i] else FOLLOWED)
                   + min(self.heat.get(i, 0.0), 0.999)) if i in self.time else (-3.0e38, NONE)
                  for i in ids.tolist()]  # fmt: skip
        lines = [self.line.get(i, -3.0e38) for i in ids.tolist()]
        return np.array(stamps, dtype=np.float32).reshape(-1, 2), np.array(lines, np.float32)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_stamps_uploaded_after_a_frame_match_a_node_by_node_reference(data):
    """The rows the renderer uploads after a frame (`stamp_rows` / `link_rows` of the
    frame's nodes, made from what `record` computed) and the same rows gathered in
    another order equal a node-by-node reference, over random trees, edits and clocks."""
    g = SceneGraph()
    for i in range(data.draw(st.integers(1, 25))):
        parent = data.draw(st.integers(-1, i - 1))
        g.add(f"n{i}", parent=None if parent < 0 else g.node(parent), position=(0.0, 1.0, 0.0))
    glow, reference = Glow(), ReferenceStamps()
    alive = np.asarray(g.alive_ids(), dtype=np.int64)
    for _ in range(data.draw(st.integers(1, 12))):
        for node_id in data.draw(st.lists(st.sampled_from(alive.tolist()), max_size=4)):
            if data.draw(st.booleans()):
                g.touch(g.node(int(node_id)))
            else:
                g.node(int(node_id)).local_position = (data.draw(st.floats(-2, 2)), 0.0, 0.0)
        report = g.update()
        dt = data.draw(st.sampled_from([0.0, DT, 0.2, 1.5]))
        glow.record(report, g.parents(), dt)
        reference.record(report, np.asarray(g.parents()), dt)
        world = report.world_updated
        expected_stamps, expected_lines = reference.rows(world)
        np.testing.assert_allclose(glow.stamp_rows(world), expected_stamps, rtol=1e-6)
        np.testing.assert_allclose(glow.link_rows(world), expected_lines, rtol=1e-6)
        everyone = alive[::-1]  # another order: gathered by id
        expected_stamps, expected_lines = reference.rows(everyone)
        np.testing.assert_allclose(glow.stamp_rows(everyone), expected_stamps, rtol=1e-6)
        np.testing.assert_allclose(glow.link_rows(everyone), expected_lines, rtol=1e-6)
