"""The generated scenes, bit for bit, against the generator as it was before its layouts
were made cheaper at a million nodes (issue 31.5, commit c4eafe9's layouts, kept below
as the oracle): the same names, parents, order of ids, local values, world matrices,
looks, motions and camera, exactly, for every kind at any size.

Its layouts built every per-node array in full (a ring position computed per node, an
identity quaternion and unit scale per node, normalised by the graph); the generator now
repeats the eight ring places and lets the graph fill in identity rotations and scales.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import generate_scene
from viewer.io.generate import BRANCHING, DEPTH_COLORS, SEED, frame_camera
from viewer.scene.graph import SceneGraph


def _quat_y(degrees: np.ndarray) -> np.ndarray:
    half = np.radians(degrees) * 0.5
    q = np.zeros((np.size(half), 4))
    q[:, 1] = np.sin(half)
    q[:, 3] = np.cos(half)
    return q


def old_layout(kind: str, n: int):
    """(parents, positions, rotations, scales) as the old generator made them."""
    if kind == "chain":
        per_turn = max(12, int(round(np.sqrt(n))))
        parents = np.arange(-1, n - 1, dtype=np.int64)
        positions = np.tile([0.8, 1.2 / per_turn, 0.0], (n, 1))
        positions[0] = 0.0
        return parents, positions, _quat_y(np.full(n, 360.0 / per_turn)), np.ones((n, 3))
    if kind == "balanced":
        ids = np.arange(n, dtype=np.int64)
        parents = (ids - 1) // BRANCHING
        parents[0] = -1
        angle = 2.0 * np.pi * ((ids - 1) % BRANCHING + 0.5) / BRANCHING
        positions = np.stack([3.0 * np.cos(angle), np.full(n, -2.5), 3.0 * np.sin(angle)], axis=1)
        positions[0] = 0.0
        scales = np.full((n, 3), 0.4)
        scales[0] = 1.0
        return parents, positions, np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)), scales
    rng = np.random.default_rng(SEED)
    ids = np.arange(n, dtype=np.int64)
    parents = np.floor(rng.random(n) * ids).astype(np.int64)
    parents[0] = -1
    angle = rng.random(n) * 2.0 * np.pi
    radius = 0.8 + 0.6 * rng.random(n)
    positions = np.stack(
        [radius * np.cos(angle), 0.6 + 0.4 * rng.random(n), radius * np.sin(angle)], axis=1
    )
    positions[0] = 0.0
    rotations = _quat_y(rng.random(n) * 360.0)
    rotations[0] = (0.0, 0.0, 0.0, 1.0)
    return parents, positions, rotations, np.ones((n, 3))


def old_depths(parents: np.ndarray) -> np.ndarray:
    """Each node's depth as the old generator worked it out (pointer jumping)."""
    depth = (parents >= 0).astype(np.int64)
    jump = parents.copy()
    while (live := jump >= 0).any():
        target = jump[live]
        depth[live] += depth[target]
        jump[live] = jump[target]
    return depth


def first_of_depth(depth: np.ndarray) -> np.ndarray:
    """By depth: the first node of that depth (the nodes of a level share one Look)."""
    first = np.full(int(depth.max()) + 1, -1)
    for node, d in enumerate(depth.tolist()):
        if first[d] < 0:
            first[d] = node
    return first


def check_exact(kind: str, n: int) -> None:
    scene = generate_scene(f"{kind}:{n}")
    parents, positions, rotations, scales = old_layout(kind, n)
    old = SceneGraph()
    old.add_many([f"Obj{i}" for i in range(1, n + 1)], parents, positions=positions,
                 rotations=rotations, scales=scales)  # fmt: skip
    g = scene.graph
    assert np.array_equal(g.alive_ids(), old.alive_ids())  # the same ids in the same order
    assert [g.name_of(i) for i in range(n)] == [f"Obj{i}" for i in range(1, n + 1)]
    assert np.array_equal(g.parents(), old.parents())
    for got, expected in zip(g.local_values(), old.local_values(), strict=True):
        assert got.tobytes() == expected.tobytes()  # bit for bit
    assert g.world_matrices().tobytes() == old.world_matrices().tobytes()
    # What the old generator derived from its arrays: the looks by depth (its pointer
    # jumping), the camera on the origins, the motions' rest values.
    depth = old_depths(parents)
    cube = {"chain": 0.45, "balanced": 0.6, "random": 0.4}[kind]
    grow = 0.55 / 0.4 if kind == "balanced" else 1.0
    for node, d in zip(first_of_depth(depth).tolist(), range(int(depth.max()) + 1), strict=True):
        look = scene.looks[node]  # the old generator's Look of depth d, exactly
        assert (look.mesh, look.size, look.color) == (
            "cube",
            (cube * grow**d,) * 3,
            DEPTH_COLORS[d % len(DEPTH_COLORS)],
        )
    assert [id(scene.looks[i]) for i in range(n)] == [id(scene.looks[int(k)]) for k in
                                                      first_of_depth(depth)[depth]]  # fmt: skip
    camera = frame_camera(old.world_matrices()[:, :3, 3], margin=cube)
    assert (scene.camera.position, scene.camera.target) == (camera.position, camera.target)
    by_channel = {"position": positions, "rotation": rotations, "scale": scales}
    assert scene.motions
    for motion in scene.motions:
        expected = np.ascontiguousarray(by_channel[motion.channel][motion.ids], np.float64)
        assert np.ascontiguousarray(motion.rest, np.float64).tobytes() == expected.tobytes()


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["chain", "balanced", "random"]), st.integers(1, 3000))
def test_a_generated_scene_is_the_old_generator_s_bit_for_bit(kind, n):
    check_exact(kind, n)


def test_the_million_node_balanced_tree_is_the_old_generator_s_bit_for_bit():
    """The size the issue launches, where numpy's wide loops and their tails differ."""
    check_exact("balanced", 1_000_000)
