"""A spinning node's Euler angles stay continuous in the inspector (issue 34, item 7):
the triple shown is, of those that make the same rotation, the one nearest the triple
shown a frame before. Checked with hypothesis against the rotation itself."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from viewer.overlay.model import continuous_euler, readable_euler, readable_quaternion
from viewer.scene.math import quat_from_euler, quat_to_euler, quat_to_matrix3

angle = st.floats(-720.0, 720.0, allow_nan=False)
triple = st.tuples(angle, angle, angle).map(np.array)


def rotation(euler) -> np.ndarray:
    return quat_to_matrix3(quat_from_euler(np.asarray(euler, dtype=np.float64)))


@settings(max_examples=300, deadline=None)
@given(previous=triple, current=triple)
def test_the_chosen_triple_makes_the_same_rotation_and_is_no_farther(previous, current):
    chosen = continuous_euler(previous, current)
    np.testing.assert_allclose(rotation(chosen), rotation(current), atol=1e-9)
    wrapped = current - 360.0 * np.round((current - previous) / 360.0)
    assert np.abs(chosen - previous).sum() <= np.abs(wrapped - previous).sum() + 1e-9


@settings(max_examples=100, deadline=None)
@given(
    start=st.tuples(st.floats(-170, 170), st.floats(-80, 80), st.floats(-170, 170)),
    axis=st.integers(0, 2),
    step=st.floats(0.5, 3.0),
)
# Passes 6e-5 degrees from 90, where a pitch snapped to 90 (at a sine of 1 - 1e-12) was
# off by 1.07e-6.
@example(start=(0.0, 6.103515625e-05, 0.0), axis=1, step=1.0)
def test_a_spin_reads_as_smooth_angles(start, axis, step):
    """A node turned a little every frame about one of its axes: the angles read back
    through the core's quaternion (which jumps between equivalent triples) and shown
    continuously change by less than a few degrees a frame, where the canonical ones
    may jump by 180 or 360."""
    euler = np.array(start, dtype=np.float64)
    shown = quat_to_euler(quat_from_euler(euler))
    for _ in range(240):
        euler[axis] += step
        canonical = quat_to_euler(quat_from_euler(euler))
        nxt = continuous_euler(shown, canonical)
        # The same rotation as the triple it was given (compared with `euler` itself, the
        # arcsine's loss near gimbal lock, ~1e-8, would count against the choice).
        np.testing.assert_allclose(rotation(nxt), rotation(canonical), atol=1e-9)
        np.testing.assert_allclose(rotation(nxt), rotation(euler), atol=1e-6)
        if abs(((euler[1] + 90.0) % 180.0) - 90.0) < 85.0:  # away from gimbal lock
            assert np.abs(nxt - shown).max() < 4 * step + 1.0, (shown, nxt, canonical)
        shown = nxt


@settings(max_examples=200, deadline=None)
@given(current=triple)
def test_a_readable_triple_is_the_same_rotation_nearest_no_rotation(current):
    """A node shown for the first time: of the equivalent triples, the one nearest
    (0, 0, 0); a 106.8 degree turn about y reads (0, 106.8, 0), not (180, 73.2, 180)."""
    shown = readable_euler(current)
    np.testing.assert_allclose(rotation(shown), rotation(current), atol=1e-9)
    assert np.all(np.abs(shown) <= 180.0 + 1e-9)
    other = np.array([shown[0] + 180.0, 180.0 - shown[1], shown[2] + 180.0])
    other -= 360.0 * np.round(other / 360.0)
    assert np.abs(shown).sum() <= np.abs(other).sum() + 1e-9


def test_a_turn_about_y_past_90_degrees_reads_as_itself():
    canonical = quat_to_euler(quat_from_euler(np.array([0.0, 106.8, 0.0])))
    np.testing.assert_allclose(canonical, [180.0, 73.2, 180.0], atol=1e-9)  # the arcsine's
    np.testing.assert_allclose(readable_euler(canonical), [0.0, 106.8, 0.0], atol=1e-9)
    q = np.array([0.0, -0.047, 0.0, -0.999])
    np.testing.assert_array_equal(readable_quaternion(q), -q)
    np.testing.assert_array_equal(readable_quaternion(-q), -q)
