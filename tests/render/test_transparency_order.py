"""The back-to-front order of blended parts (viewer/render/transparency.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.render.transparency import back_to_front

points = st.lists(st.tuples(*[st.floats(-100, 100, allow_nan=False)] * 3), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(points, st.tuples(*[st.floats(-50, 50, allow_nan=False)] * 3))
def test_perspective_order_is_farthest_first(centres, eye):
    centres, eye = np.array(centres), np.array(eye)
    order = back_to_front(centres, eye, None)
    assert sorted(order.tolist()) == list(range(len(centres)))
    dist = np.linalg.norm(centres[order] - eye, axis=1)
    assert np.all(np.diff(dist) <= 1e-9)


def test_orthographic_order_is_by_depth_along_the_view():
    centres = np.array([[0.0, 0.0, 5.0], [9.0, 9.0, -3.0], [0.0, -4.0, 0.0]])
    forward = np.array([0.0, 0.0, -1.0])  # looking down -Z: z = -3 is the farthest
    assert back_to_front(centres, np.zeros(3), forward).tolist() == [1, 2, 0]
