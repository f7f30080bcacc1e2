"""The world axes' tripod (viewer/render/backdrop.axis_lines): its own look, and off every
node and parent-child line of the scene, also where a link runs along a world axis."""

from __future__ import annotations

import numpy as np
import pytest

from viewer.palette import GLOW_LOCAL, GLOW_WORLD
from viewer.render.backdrop import AXIS_DASHES, axis_lines


def _segment_distance(p0, p1, q0, q1, samples: int = 64) -> float:
    """Smallest distance between two segments, by dense sampling (an independent check)."""
    t = np.linspace(0.0, 1.0, samples)[:, None]
    a = p0 + t * (p1 - p0)
    b = q0 + t * (q1 - q0)
    return float(np.min(np.linalg.norm(a[:, None] - b[None], axis=2)))


@pytest.mark.parametrize("flat", [False, True])
def test_the_tripod_is_dashed_muted_and_clear_of_the_scene(flat):
    # tree10-like: a link from the origin along +X and one along +Y (the old axes ran
    # exactly along such links).
    nodes = np.array([[0, 0, 0], [4, 0, 0], [0, 3, 0], [-2, -2.5, 0]], dtype=np.float64)
    links = [(0, 1), (0, 2), (0, 3)]
    size = float(np.ptp(nodes, axis=0).max())
    positions, colors = axis_lines(nodes, 1.0, flat)
    axes = 2 if flat else 3
    assert positions.shape == (axes * AXIS_DASHES * 2, 3) and colors.shape == (len(positions), 4)
    # Dashed: each dash half of its slot, with gaps between.
    dashes = positions.reshape(-1, 2, 3)
    lengths = np.linalg.norm(dashes[:, 1] - dashes[:, 0], axis=1)
    np.testing.assert_allclose(lengths, 1.5 / (2 * AXIS_DASHES), rtol=1e-6)
    # Not the glow's red or orange.
    for rgb in np.unique(colors[:, :3], axis=0):
        for glow in (GLOW_LOCAL, GLOW_WORLD):
            assert np.abs(rgb - np.asarray(glow)).max() > 0.15
    # Clear of every node and link.
    for a, b in dashes.astype(np.float64):
        for i, j in links:
            assert _segment_distance(a, b, nodes[i], nodes[j]) > 0.09 * size
        assert np.linalg.norm(nodes - a, axis=1).min() > 0.09 * size


def test_an_empty_scene_still_gets_its_tripod_beside_the_origin():
    positions, _ = axis_lines(np.zeros((0, 3)), 1.0, False)
    assert np.isfinite(positions).all() and (positions[0, :2] < 0).all()  # its corner
