"""Floating-point drift: a chain that spins for a long time, and the two measures of drift.

Shared by `bench/soak.py --drift` (100,000 frames) and tests/scene/test_drift.py (20,000).
Every link spins about its own axis; some also orbit or pulse. Scales are uniform, so
every world matrix is a rotation times a scale and can be checked for orthogonality.
"""

from __future__ import annotations

import numpy as np

from viewer.content.motion import CHANNELS

LINKS = 40


def spinning_chain_toml(links: int = LINKS) -> str:
    rng = np.random.default_rng(7)
    out = []
    for k in range(links):
        axis = rng.normal(size=3)
        speed = float(rng.uniform(-400, 400))
        motion = f"spin = {{ axis = {axis.tolist()}, speed = {speed}, phase = {k * 17} }}"
        if k % 3 == 1:
            motion += f", orbit = {{ speed = {speed / 3}, axis = [0, 1, 0] }}"
        if k % 5 == 2:
            motion += ", pulse = { amplitude = 0.2, period = 1.7 }"
        out.append(
            f'[[node]]\nname = "L{k}"\n'
            + (f'parent = "L{k - 1}"\n' if k else "")
            + f"position = [0.5, 0.1, 0]\nscale = {0.99 if k % 2 else 1.01}\n"
            + f"rotation = {rng.uniform(-180, 180, size=3).tolist()}\n"
            + f"motion = {{ {motion} }}\n"
        )
    return "\n".join(out)


def orthogonality_error(worlds: np.ndarray) -> float:
    """max over matrices of |R^T R / s^2 - I| with s^2 the mean squared column length."""
    r = worlds[:, :3, :3]
    gram = np.einsum("nji,njk->nik", r, r)
    s2 = np.trace(gram, axis1=1, axis2=2) / 3.0
    return float(np.abs(gram / s2[:, None, None] - np.eye(3)).max())


def rotation_norm_error(scene, t: float) -> float:
    errors = [0.0]
    for m in scene.motions:
        if CHANNELS[m.kind] == "rotation":
            q = m.values(t)
            errors.append(float(np.abs(np.linalg.norm(q, axis=1) - 1.0).max()))
    return max(errors)
