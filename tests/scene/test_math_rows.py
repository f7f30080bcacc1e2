"""The row forms of the Euler conversions (`quats_to_eulers`, `quats_from_eulers`, what
the TOML writer uses for many nodes at once) agree with the one-node forms row by row."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from viewer.scene.math import quat_from_euler, quat_to_euler, quats_from_eulers, quats_to_eulers

FINITE = st.floats(-1.0, 1.0, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 8), st.just(4)), elements=FINITE))
def test_quats_to_eulers_is_quat_to_euler_on_each_row(raw):
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    q = np.where(norms > 1e-3, raw / np.where(norms > 1e-3, norms, 1.0), [0.0, 0.0, 0.0, 1.0])
    rows = quats_to_eulers(q)
    for k in range(len(q)):
        np.testing.assert_allclose(rows[k], quat_to_euler(q[k]), rtol=0, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 8), st.just(3)),
              elements=st.floats(-720.0, 720.0, allow_nan=False)))  # fmt: skip
def test_quats_from_eulers_is_quat_from_euler_on_each_row(euler):
    rows = quats_from_eulers(euler)
    for k in range(len(euler)):
        np.testing.assert_allclose(rows[k], quat_from_euler(euler[k]), rtol=0, atol=1e-15)
