"""The generated trees against a plain node-by-node reference (issue 31.5: generating a
million nodes is vectorised; what it builds must stay what the layouts say).

The reference below builds each layout one node at a time in plain Python from the
module docs' description (chain: a helix of steps along the parent's x axis turned about
y; balanced: eight children fanned out on a ring below their parent at 0.4 times its
scale; random: each node hangs from a uniformly drawn earlier node, from the fixed seed's
draws), walks up the tree for depths and multiplies matrices along each node's path for
its world position; the generated scene must match it node for node: names, parents,
local values, looks (one per depth), world positions and the camera that frames them.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import generate_scene
from viewer.io.generate import BRANCHING, DEPTH_COLORS, SEED, frame_camera


def _quat_y(degrees: float) -> tuple[float, float, float, float]:
    half = math.radians(degrees) / 2.0
    return (0.0, math.sin(half), 0.0, math.cos(half))


def reference_layout(kind: str, n: int):
    """(parents, positions, rotations, scales) as lists, one node at a time."""
    parents, positions, rotations, scales = [], [], [], []
    if kind == "chain":
        per_turn = max(12, int(round(math.sqrt(n))))
        for i in range(n):
            parents.append(i - 1)
            positions.append((0.0, 0.0, 0.0) if i == 0 else (0.8, 1.2 / per_turn, 0.0))
            rotations.append(_quat_y(360.0 / per_turn))
            scales.append((1.0, 1.0, 1.0))
    elif kind == "balanced":
        for i in range(n):
            parents.append(-1 if i == 0 else (i - 1) // BRANCHING)
            angle = 2.0 * math.pi * ((i - 1) % BRANCHING + 0.5) / BRANCHING
            positions.append((0.0, 0.0, 0.0) if i == 0
                             else (3.0 * math.cos(angle), -2.5, 3.0 * math.sin(angle)))  # fmt: skip
            rotations.append((0.0, 0.0, 0.0, 1.0))
            scales.append((1.0, 1.0, 1.0) if i == 0 else (0.4, 0.4, 0.4))
    else:  # random: the seed's draws, in the order the layout makes them
        rng = np.random.default_rng(SEED)
        up, angle, radius, height, turn = (rng.random(n) for _ in range(5))
        for i in range(n):
            parents.append(-1 if i == 0 else int(math.floor(up[i] * i)))
            a, r, h = angle[i] * 2.0 * math.pi, 0.8 + 0.6 * radius[i], 0.6 + 0.4 * height[i]
            positions.append((0.0, 0.0, 0.0) if i == 0
                             else (r * math.cos(a), h, r * math.sin(a)))  # fmt: skip
            rotations.append((0.0, 0.0, 0.0, 1.0) if i == 0 else _quat_y(turn[i] * 360.0))
            scales.append((1.0, 1.0, 1.0))
    return parents, positions, rotations, scales


def _local_matrix(position, rotation, scale) -> np.ndarray:
    x, y, z, w = rotation
    r = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])  # fmt: skip
    m = np.eye(4)
    m[:3, :3] = r * np.asarray(scale)[None, :]
    m[:3, 3] = position
    return m


def reference_worlds(parents, positions, rotations, scales) -> list[np.ndarray]:
    """Each node's world position: the product of the local matrices along its path."""
    out = []
    for i in range(len(parents)):
        m, j = np.eye(4), i
        while j >= 0:
            m = _local_matrix(positions[j], rotations[j], scales[j]) @ m
            j = parents[j]
        out.append(m[:3, 3])
    return out


def reference_depth(parents, i: int) -> int:
    depth = 0
    while parents[i] >= 0:
        i, depth = parents[i], depth + 1
    return depth


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["chain", "balanced", "random"]), st.integers(1, 120))
def test_a_generated_tree_is_the_reference_node_for_node(kind, n):
    scene = generate_scene(f"{kind}:{n}")
    g = scene.graph
    parents, positions, rotations, scales = reference_layout(kind, n)
    ids = np.asarray(g.alive_ids(), dtype=np.int64)
    assert sorted(ids.tolist()) == list(range(n))  # a fresh graph: ids 0..n-1, as made
    assert [g.name_of(i) for i in range(n)] == [f"Obj{i + 1}" for i in range(n)]
    assert np.asarray(g.parents()).tolist() == parents
    pos, rot, scl = g.local_values()
    np.testing.assert_allclose(pos, positions, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(rot, rotations, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(scl, scales, rtol=1e-12, atol=1e-12)
    cube = {"chain": 0.45, "balanced": 0.6, "random": 0.4}[kind]
    grow = 0.55 / 0.4 if kind == "balanced" else 1.0
    for i in range(n):
        d = reference_depth(parents, i)
        look = scene.looks[i]
        assert look.mesh == "cube" and look.color == DEPTH_COLORS[d % len(DEPTH_COLORS)]
        np.testing.assert_allclose(look.size, (cube * grow**d,) * 3, rtol=1e-12)
    worlds = np.array(reference_worlds(parents, positions, rotations, scales))
    np.testing.assert_allclose(g.world_matrices()[:, :3, 3], worlds, rtol=1e-9, atol=1e-9)
    expected = frame_camera(worlds, margin=cube)
    np.testing.assert_allclose(scene.camera.position, expected.position, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(scene.camera.target, expected.target, rtol=1e-9, atol=1e-9)
    assert scene.camera.fov == expected.fov
