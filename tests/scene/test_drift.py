"""Floating-point drift: long runs of spinning motion keep rotations unit and worlds rigid.

Motions compute each value from the time (``angle = speed * t + phase``), never by
multiplying the previous frame's rotation by a small step, so nothing accumulates. This
runs 20,000 frames (5.6 minutes of scene time at 60 frames/s) of a 40-link chain in which
every link spins about its own axis, some also orbit and pulse, and checks every 500
frames that

- every motion's rotation is a unit quaternion before the core normalises it,
- every world matrix is orthogonal up to scale (the scales are uniform, so
  ``W[:3,:3]^T W[:3,:3] = s^2 I``),

and at the end that the world matrices are bit-identical to a fresh scene's evaluated
once at the same time. ``python bench/soak.py --drift`` runs the 100,000-frame version.
"""

from __future__ import annotations

import numpy as np
from bench_modules import load_bench

from viewer.content.motion import apply_motions
from viewer.io.toml_scene import parse_scene_text

drift = load_bench("drift")

FRAMES = 20_000
CHECK_EVERY = 500


def test_long_spinning_run_stays_unit_and_orthogonal():
    text = drift.spinning_chain_toml()
    scene = parse_scene_text(text)
    graph = scene.graph
    ids = graph.alive_ids()
    worst_q = worst_w = 0.0
    for frame in range(1, FRAMES + 1):
        t = frame / 60.0
        apply_motions(scene, t)
        graph.update()
        if frame % CHECK_EVERY == 0:
            worst_q = max(worst_q, drift.rotation_norm_error(scene, t))
            worst_w = max(worst_w, drift.orthogonality_error(graph.world_matrices()[ids]))
            stored = np.array([graph.node(int(i)).local_rotation for i in ids])
            assert np.abs(np.linalg.norm(stored, axis=1) - 1.0).max() < 1e-14
    assert worst_q < 1e-14, worst_q
    assert worst_w < 1e-12, worst_w

    fresh = parse_scene_text(text)
    apply_motions(fresh, FRAMES / 60.0)
    fresh.graph.update()
    last = graph.world_matrices()[ids]
    assert np.array_equal(last, fresh.graph.world_matrices()[ids])  # nothing accumulated


def test_the_checks_see_drift_when_there_is_some():
    """The measure is not blind: a rotation built by repeated multiplication (what the
    motions avoid) leaves the unit sphere measurably after the same number of steps."""
    step = np.array([np.sin(0.01), 0.0, 0.0, np.cos(0.01)])
    q = np.array([0.0, 0.0, 0.0, 1.0])
    x1, y1, z1, w1 = step
    for _ in range(FRAMES):
        x0, y0, z0, w0 = q
        q = np.array(
            [
                w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1,
                w0 * y1 - x0 * z1 + y0 * w1 + z0 * x1,
                w0 * z1 + x0 * y1 - y0 * x1 + z0 * w1,
                w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1,
            ]
        )
    assert abs(np.linalg.norm(q) - 1.0) > 1e-14
