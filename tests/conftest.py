"""Shared test set-up: numpy raises on floating-point trouble, hypothesis profiles."""

import os
import sys
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))  # tests/oracle.py

np.seterr(all="raise", under="ignore")  # underflow to 0 is harmless here

settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_sessionstart(session):
    """Compile (or load) the core's loops once, before any test: a test that runs the
    command line then finds numba's cache warm, as it is on every launch but the first
    (tests/scene/test_coldstart.py covers the first one)."""
    from viewer.scene.coldstart import exercise

    exercise()
