"""Motions are functions of time; events change the graph on their frame."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import rotation_from_quaternion as rot_matrix

from viewer.content.motion import (
    Motion,
    apply_events,
    apply_motions,
    drop_motions,
    merge_motions,
)
from viewer.content.scene import Event, Scene
from viewer.scene.graph import SceneGraph
from viewer.scene.math import quat_from_axis_angle, quat_multiply


def axis_angle_matrix(axis, degrees) -> np.ndarray:
    return rot_matrix(quat_from_axis_angle(np.array([axis], float), np.array([degrees]))[0])


TILT = (0.0, 0.0, math.sin(math.radians(10)), math.cos(math.radians(10)))


def make_scene():
    g = SceneGraph()
    root = g.add("Root")
    a = g.add("A", parent=root, position=(2.0, 0.0, 0.0), rotation=TILT)
    b = g.add("B", parent=a, position=(0.0, 1.0, 0.0))
    c = g.add("C", parent=root, position=(0.0, 0.0, 3.0), scale=(1.0, 2.0, 1.0))
    d = g.add("D", parent=c, position=(1.0, 1.0, 1.0))
    motions = merge_motions(
        [
            Motion.make("spin", [a.id], [TILT], axis=(0, 1, 0), speed=30.0),
            Motion.make("orbit", [a.id], [(2.0, 0.0, 0.0)], axis=(0, 0, 1), speed=45.0),
            Motion.make(
                "swing", [b.id], [(0, 0, 0, 1)], axis=(1, 0, 0), amplitude=20.0, period=2.0
            ),
            Motion.make(
                "oscillate", [c.id], [(0.0, 0.0, 3.0)], axis=(0, 2, 0), amplitude=0.5, period=4.0
            ),
            Motion.make("pulse", [c.id], [(1.0, 2.0, 1.0)], amplitude=0.25, period=4.0),
            Motion.make(
                "oscillate",
                [d.id],
                [(1.0, 1.0, 1.0)],
                axis=(1, 0, 0),
                amplitude=1.0,
                period=1.0,
                phase=90.0,
            ),
        ]
    )
    return Scene(graph=g, motions=motions)


def locals_of(scene):
    return [
        (n.local_position.tobytes(), n.local_rotation.tobytes(), n.local_scale.tobytes())
        for n in scene.graph
    ]


def test_same_time_gives_identical_values():
    scene = make_scene()
    apply_motions(scene, 1.37)
    first = locals_of(scene)
    apply_motions(scene, 1.37)
    assert locals_of(scene) == first
    apply_motions(scene, 10.0)
    assert locals_of(scene) != first
    apply_motions(scene, 1.37)
    assert locals_of(scene) == first  # nothing accumulated


def test_time_zero_is_the_rest_pose_without_phase():
    scene = make_scene()
    before = [n.local_matrix for n in scene.graph]
    apply_motions(scene, 0.0)
    after = [n.local_matrix for n in scene.graph]
    moved = [
        n.name
        for n, x, y in zip(scene.graph, before, after, strict=True)
        if not np.allclose(x, y, atol=1e-12)
    ]
    assert moved == ["D"]  # the one motion with a phase


def test_spin_turns_about_the_nodes_own_axis():
    scene = make_scene()
    apply_motions(scene, 2.0)  # 60 degrees
    a = scene.graph["A"]
    expected = rot_matrix(TILT) @ axis_angle_matrix((0, 1, 0), 60.0)
    np.testing.assert_allclose(a.local_matrix[:3, :3], expected, atol=1e-12)


def test_orbit_turns_the_position_about_the_parents_origin():
    scene = make_scene()
    apply_motions(scene, 2.0)  # 90 degrees about z
    np.testing.assert_allclose(scene.graph["A"].local_position, (0.0, 2.0, 0.0), atol=1e-12)


def test_swing_oscillation_of_angle():
    scene = make_scene()
    apply_motions(scene, 0.5)  # quarter period: the full amplitude
    expected = axis_angle_matrix((1, 0, 0), 20.0)
    np.testing.assert_allclose(scene.graph["B"].local_matrix[:3, :3], expected, atol=1e-12)


def test_oscillate_and_pulse():
    scene = make_scene()
    apply_motions(scene, 1.0)  # quarter period of 4 s
    c = scene.graph["C"]
    np.testing.assert_allclose(c.local_position, (0.0, 0.5, 3.0), atol=1e-12)  # unit axis
    np.testing.assert_allclose(c.local_scale, (1.25, 2.5, 1.25), atol=1e-12)
    apply_motions(scene, 3.0)  # three quarters
    np.testing.assert_allclose(c.local_position, (0.0, -0.5, 3.0), atol=1e-12)
    np.testing.assert_allclose(c.local_scale, (0.75, 1.5, 0.75), atol=1e-12)


def test_one_set_locals_call_per_kind():
    g = SceneGraph()
    n = 3000
    ids = g.add_many([f"n{i}" for i in range(n)], np.full(n, -1))
    rest_p = np.zeros((n, 3))
    rest_q = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    scene = Scene(
        graph=g,
        motions=merge_motions(
            [
                Motion.make("spin", ids[:1000], rest_q[:1000], speed=10.0),
                Motion.make("spin", ids[1000:2000], rest_q[1000:2000], speed=20.0),
                Motion.make("oscillate", ids[2000:], rest_p[2000:], amplitude=1, period=2),
                Motion.make("pulse", ids, np.ones((n, 3)), amplitude=0.1, period=3),
            ]
        ),
    )
    calls = []
    real = g.set_locals

    def spy(ids, **kwargs):
        calls.append((len(ids), sorted(k for k in kwargs if k != "skip_removed")))
        return real(ids, **kwargs)

    g.set_locals = spy
    apply_motions(scene, 0.3)
    assert sorted(calls) == [(1000, ["positions"]), (2000, ["rotations"]), (3000, ["scales"])]


def test_merge_refuses_two_motions_on_one_channel():
    with pytest.raises(ValueError, match="two motions driving its position"):
        merge_motions(
            [
                Motion.make("orbit", [3], [(1.0, 0.0, 0.0)], speed=1.0),
                Motion.make("oscillate", [3], [(1.0, 0.0, 0.0)], amplitude=1.0, period=1.0),
            ]
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"kind": "spin", "axis": (0, 0, 0), "speed": 1.0},
        {"kind": "pulse", "period": 0.0, "amplitude": 0.1},
        {"kind": "oscillate", "period": -1.0, "amplitude": 0.1},
        {"kind": "spin", "speed": float("nan")},
        {"kind": "wobble"},
    ],
)
def test_invalid_motions(kwargs):
    kind = kwargs.pop("kind")
    rest = [(0, 0, 0, 1)] if kind in ("spin", "wobble") else [(1, 1, 1)]
    with pytest.raises(ValueError):
        Motion.make(kind, [0], rest, **kwargs)


def test_an_axis_whose_squares_overflow_still_gives_a_unit_axis():
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        m = Motion.make("orbit", [0], [(1, 0, 0)], axis=(1e-6, 0.0, 1.3407807929942597e154))
    np.testing.assert_allclose(m.axis, [[0.0, 0.0, 1.0]], rtol=0, atol=1e-15)


def test_drop_motions():
    scene = make_scene()
    a = scene.graph["A"].id
    drop_motions(scene, [a])
    assert all(a not in m.ids for m in scene.motions)
    assert {m.kind for m in scene.motions} == {"swing", "oscillate", "pulse"}


def test_events_apply_on_their_frame_only():
    scene = make_scene()
    scene.events = [
        Event(frame=2, node="B", position=(5.0, 6.0, 7.0)),
        Event(frame=2, node="D", euler=(0.0, 90.0, 0.0), scale=(2.0, 2.0, 2.0)),
        Event(frame=3, node="C", touch=True),
        Event(frame=3, node="Gone", touch=True),
        Event(frame=4, node="B", quaternion=(0.0, 0.0, 1.0, 0.0)),
    ]
    g = scene.graph
    g.update()
    assert apply_events(scene, 1) == []
    applied = apply_events(scene, 2)
    assert [e.node for e in applied] == ["B", "D"]
    np.testing.assert_allclose(g["B"].local_position, (5.0, 6.0, 7.0))
    np.testing.assert_allclose(g["D"].local_matrix[:3, :3] / 2.0, axis_angle_matrix((0, 1, 0), 90),
                               atol=1e-12)  # fmt: skip
    g.update()
    applied = apply_events(scene, 3)
    assert [e.node for e in applied] == ["C"]  # a missing node is skipped
    report = g.update()
    assert g["C"].id in report.local_updated.tolist()
    assert set(report.world_updated.tolist()) == {g["C"].id, g["D"].id}
    apply_events(scene, 4)
    np.testing.assert_allclose(g["B"].local_matrix[:3, :3], axis_angle_matrix((0, 0, 1), 180),
                               atol=1e-12)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    t=st.floats(min_value=-1e4, max_value=1e4, allow_nan=False),
    kind=st.sampled_from(["spin", "swing", "orbit", "oscillate", "pulse"]),
    phase=st.floats(min_value=-360, max_value=360),
)
def test_values_are_pure_functions_of_time(t, kind, phase):
    rest = {"spin": [TILT], "swing": [TILT], "orbit": [(1.0, 2.0, 3.0)],
            "oscillate": [(1.0, 2.0, 3.0)], "pulse": [(1.0, 2.0, 3.0)]}[kind]  # fmt: skip
    m = Motion.make(kind, [0], rest, axis=(1, 2, 3), speed=33.0, amplitude=0.5, period=1.5,
                    phase=phase)  # fmt: skip
    first = m.values(t)
    m.values(t + 17.0)
    assert m.values(t).tobytes() == first.tobytes()
    assert np.all(np.isfinite(first))
    if m.channel == "rotation":
        np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-12)


def test_quat_multiply_matches_matrices():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(5, 4))
    b = rng.normal(size=(5, 4))
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    ab = quat_multiply(a, b)
    for k in range(5):
        np.testing.assert_allclose(rot_matrix(ab[k]), rot_matrix(a[k]) @ rot_matrix(b[k]),
                                   atol=1e-12)  # fmt: skip
