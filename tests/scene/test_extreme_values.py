"""Finite but extreme inputs to the core API: refused cleanly or stored finite, never
truncated, wrapped or turned into NaN (issue 12, class 1)."""

import math
import warnings

import numpy as np
import pytest

# Imported here, not in the test: moderngl-window imports PyGLM's old module name, whose
# warning the project's filter ignores, but inside the fixture's "error" filter it failed
# the test when this file ran alone (first import of glm).
from moderngl_window.context.headless import Keys

from viewer.content.motion import MAX_TIME, Motion
from viewer.scene.graph import SceneGraph


@pytest.fixture(autouse=True)
def _no_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_a_huge_quaternion_is_normalised_not_zeroed():
    g = SceneGraph()
    node = g.add("A", rotation=(1e300, 0, 0, 0))
    assert node.local_rotation.tolist() == [1.0, 0.0, 0.0, 0.0]
    ids = g.add_many(["B"], [-1], rotations=np.array([[0, 1e308, 0, 1e308]]))
    q = g.node(ids[0]).local_rotation
    assert np.allclose(q, [0, math.sqrt(0.5), 0, math.sqrt(0.5)])


@pytest.mark.parametrize(
    "call",
    [
        lambda g: g.add("B", position=[1j, 0, 0]),
        lambda g: g.add("B", position=np.array([1 + 0j, 0, 0])),
        lambda g: g.add_many(["B"], [-1], positions=np.ones((1, 3), dtype=complex)),
        lambda g: g.set_locals([0], scales=np.ones((1, 3), dtype=np.complex64)),
    ],
)
def test_complex_values_are_refused_not_truncated(call):
    g = SceneGraph()
    g.add("A")
    before = g.node(0).local_position.copy()
    with pytest.raises(ValueError):
        call(g)
    assert len(g) == 1 and g.node(0).local_position.tolist() == before.tolist()


def test_a_uint64_parent_id_does_not_wrap_to_a_root():
    g = SceneGraph()
    g.add("A")
    with pytest.raises(ValueError, match="out of range"):
        g.add_many(["B"], np.array([2**64 - 1], dtype=np.uint64))
    with pytest.raises(ValueError, match="out of range"):
        g.set_locals(np.array([2**64 - 1], dtype=np.uint64), positions=[[0, 0, 0]])
    assert len(g) == 1


def test_name_of_a_negative_id_is_an_error_not_the_last_name():
    g = SceneGraph()
    g.add("A")
    g.add("B")
    with pytest.raises(KeyError):
        g.name_of(-1)
    assert g.name_of(1) == "B"


def test_world_setters_under_a_near_singular_parent_store_nothing_non_finite():
    g = SceneGraph()
    parent = g.add("P", scale=(1e-300, 1e-300, 1e-300))
    child = g.add("C", parent)
    for field, value in (("world_position", (1e300, 0, 0)), ("lossy_scale", (1e10, 1, 1))):
        try:
            setattr(child, field, value)
        except ValueError as err:
            assert "'C'" in str(err)
        for stored in (child.local_position, child.local_rotation, child.local_scale):
            assert np.isfinite(stored).all()
    child.world_rotation = (0, 0, 0, 1)
    assert np.isfinite(child.local_rotation).all()


def test_translate_cannot_overflow_to_infinity():
    g = SceneGraph()
    node = g.add("A", position=(1.7e308, 0, 0))
    with pytest.raises(ValueError, match="overflow"):
        node.translate((1.7e308, 0, 0))
    assert node.local_position.tolist() == [1.7e308, 0, 0]


def test_motion_time_is_bounded_and_values_stay_finite_inside_the_bound():
    m = Motion.make("spin", [0], np.array([[0.0, 0.0, 0.0, 1.0]]), speed=1e6, phase=1e6)
    for t in (0.0, MAX_TIME, -MAX_TIME):
        assert np.isfinite(m.values(t)).all()
    for t in (MAX_TIME * 2, math.inf, math.nan):
        with pytest.raises(ValueError, match="motion time"):
            m.values(t)
    pulse = Motion.make("pulse", [0], np.ones((1, 3)), amplitude=0.99, period=1e-3)
    assert np.isfinite(pulse.values(MAX_TIME)).all()


def test_zooming_out_without_end_keeps_the_camera_finite():
    from types import SimpleNamespace

    from viewer.render.camera import Camera
    from viewer.window.input import WindowInput

    viewer = SimpleNamespace(overlay=None, camera=Camera(), wnd=SimpleNamespace(keys=Keys))
    window_input = WindowInput(viewer)
    for _ in range(50):
        window_input.mouse_scroll(0.0, -1e6)  # a million wheel notches out, each time
    vp = viewer.camera.view_projection((64, 48)).astype(np.float32)
    assert np.isfinite(vp).all() and viewer.camera.distance <= 1e14
