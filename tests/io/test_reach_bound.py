"""The world-reach check's shortcut (`ranges._surely_within`, a bound over all nodes at
once) never changes its answer: on random hierarchies, near the world box and far
inside it, the check with the shortcut says what the path-by-path check alone says."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.content.scene import Look, Scene
from viewer.io import ranges
from viewer.scene import SceneGraph


@st.composite
def scenes(draw) -> Scene:
    n = draw(st.integers(1, 30))
    parents = np.array([-1] + [draw(st.integers(-1, i - 1)) for i in range(1, n)])
    reach = draw(st.sampled_from([1.0, 1e6, 1e10, 1e11, 3e11, 6e11, 1e12]))  # near the box
    coordinates = st.one_of(st.floats(-1, 1), st.sampled_from([0.0, -0.5, 0.9, 1.0]))
    positions = np.array(draw(st.lists(coordinates, min_size=3 * n, max_size=3 * n)))
    scales = np.array(draw(st.lists(st.sampled_from([0.1, 0.5, 1.0, 2.0, 10.0, 1e3]),
                                    min_size=3 * n, max_size=3 * n)))  # fmt: skip
    graph = SceneGraph()
    ids = graph.add_many([f"N{i}" for i in range(n)], parents,
                         positions=positions.reshape(n, 3) * reach,
                         scales=scales.reshape(n, 3))  # fmt: skip
    scene = Scene(graph=graph)
    size = draw(st.sampled_from([0.5, 1.0, 1e6]))
    scene.looks = {int(i): Look("cube", (size,) * 3) for i in ids}
    return scene


@settings(max_examples=300, deadline=None)
@given(scenes())
def test_the_shortcut_gives_the_path_by_path_answer(scene):
    quick = ranges.world_reach_reason(scene)
    original = ranges._surely_within
    ranges._surely_within = lambda *a: False
    try:
        walked = ranges.world_reach_reason(scene)
    finally:
        ranges._surely_within = original
    assert quick == walked
