"""The collision demo's logic (no GL): keys move and turn, M switches motion, the test
used matches the rectangle's angle, and the hit frame is where the geometry says."""

from pathlib import Path

import numpy as np
import pytest

from viewer.collision import disk_vs_rect
from viewer.collision.demo import MOVE_STEP, REVOLVE_MOVE_STEP, CollisionDemo
from viewer.content.motion import apply_motions
from viewer.io import SceneError, load_scene
from viewer.io.toml_scene import parse_scene_text
from viewer.session.session import Session

SCENE = Path(__file__).parents[1] / "scenes" / "collision.toml"


@pytest.fixture
def demo():
    scene = load_scene(SCENE)
    scene.graph.update()
    return CollisionDemo(scene)


def test_the_scene_is_the_contract(demo):
    r = demo.read()
    assert r.radius == pytest.approx(1.0) and (r.width, r.height) == pytest.approx((6, 2))
    np.testing.assert_allclose(demo.rect.world_position, [0, 5, 0])
    assert demo.rect.parent.name == "Pivot"  # a child: its axes come from its world matrix
    assert r.test == "axis-aligned" and not r.hit


def test_holding_l_hits_exactly_when_the_geometry_says(demo):
    # Predict from the contract alone: the disk's x after k steps, then the first hit.
    x, k = -8.0, 0
    while not disk_vs_rect((x, 5.0), 1.0, (0.0, 5.0), 6.0, 2.0):
        x += MOVE_STEP
        k += 1
    for frame in range(1, k + 1):
        demo.move_disk(1, 0)
        demo.scene.graph.update()
        assert demo.read().hit == (frame == k), frame


def test_turning_switches_between_the_two_tests(demo):
    for degrees in range(1, 181):
        demo.turn_rect(+1)
        demo.scene.graph.update()
        r = demo.read()
        expected = "axis-aligned" if degrees % 90 == 0 else "oriented"
        assert r.test == expected, degrees
        if degrees == 90:
            assert (r.width, r.height) == pytest.approx((2, 6))  # swapped at odd multiples
        if degrees == 180:
            assert (r.width, r.height) == pytest.approx((6, 2))


def test_oriented_test_sees_the_turned_rectangle(demo):
    demo.disk.world_position = (2.1, 7.9, 0)  # 0.9 above the unturned top edge
    demo.scene.graph.update()
    assert not demo.read().hit
    for _ in range(30):
        demo.turn_rect(+1)
    demo.scene.graph.update()
    r = demo.read()
    assert r.test == "oriented" and r.hit  # the top-right corner rises into the disk


def test_m_swaps_the_rectangles_motion_and_the_disk_step(demo):
    scene = demo.scene
    assert demo.move_step == MOVE_STEP
    apply_motions(scene, 1.5)
    scene.graph.update()
    assert demo.rect.world_position[0] != 0 and demo.rect.parent.local_euler[2] == 0
    assert demo.switch_mode() == "revolve" and demo.move_step == REVOLVE_MOVE_STEP
    apply_motions(scene, 1.5)
    scene.graph.update()
    assert demo.rect.parent.local_euler[2] == pytest.approx(30.0)  # 20 deg/s for 1.5 s
    assert demo.switch_mode() == "oscillate"


def test_collision_table_errors_name_the_field():
    text = SCENE.read_text().replace('rect = "Rect"', 'rect = "Nope"')
    with pytest.raises(SceneError, match=r"\[collision\].*'rect'.*unknown node 'Nope'"):
        parse_scene_text(text, "c.toml")
    text = SCENE.read_text().replace('revolve = "Pivot"', 'spin = "Pivot"')
    with pytest.raises(SceneError, match="unknown key 'spin'"):
        parse_scene_text(text, "c.toml")


@pytest.mark.parametrize("degrees", [0, 90, 180, 270])
def test_the_reading_pairs_s_and_t_with_the_size_the_test_used(demo, degrees):
    """At multiples of 90 degrees the axis-aligned test runs with the size along world X
    and Y; the s and t shown with it are the disk's offsets along X and Y, so that the
    overlap is |s| <= width / 2 + r and |t| <= height / 2 + r read off the panel."""
    for _ in range(degrees):
        demo.turn_rect(+1)
    demo.disk.world_position = (0.5, 5.0 + 2.5, 0.0)  # above the centre by 2.5
    demo.scene.graph.update()
    r = demo.read()
    assert r.test == "axis-aligned"
    assert (r.s, r.t) == pytest.approx((0.5, 2.5))
    swapped = degrees % 180 == 90
    assert (r.width, r.height) == pytest.approx((2, 6) if swapped else (6, 2))
    # Upright (height 2) the disk is 2.5 above the centre: beyond 1 + 1; on its side
    # (height 6) within 3 + 1.
    assert r.hit == swapped
    assert r.hit == (abs(r.s) <= r.width / 2 + r.radius and abs(r.t) <= r.height / 2 + r.radius)


def motion_summary(scene) -> list:
    graph = scene.graph
    return sorted(
        (m.kind, [graph.name_of(int(i)) for i in m.ids], m.rest.round(12).tolist(),
         m.phase.round(12).tolist())
        for m in scene.motions
    )  # fmt: skip


def test_ctrl_s_in_the_collision_demo_writes_both_modes_motions_as_authored(tmp_path):
    """The demo swaps the scene's motions for the current mode's (M), re-anchored where
    the rectangle is: a save writes the file's own motions, both modes, at t = 0."""
    authored = load_scene(SCENE)
    session = Session(load_scene(SCENE), fixed_step=1 / 60)
    for _ in range(30):
        session.advance(1 / 60)
    session.switch_collision_mode()  # M: revolve
    session.advance(1 / 60)
    out = tmp_path / "saved.toml"
    assert session.save(out), session.messages.edit
    saved = load_scene(out)
    assert motion_summary(saved) == motion_summary(authored)
    assert session.collision.mode == "revolve"  # the demo on show is as it was
    session.advance(1 / 60)
