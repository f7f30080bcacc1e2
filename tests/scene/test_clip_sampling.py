"""A clip samples its channels in groups (all of one kind at once, viewer/animation/clip.py):
what it gives for random clips (paths, interpolations, shared and own key times, key
counts, channels driving the same node) equals each channel sampled alone by the
specification's reading (tests/anim_oracle.py), the later channel winning a node."""

from __future__ import annotations

import numpy as np
from anim_oracle import oracle_sample
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.animation import Clip
from viewer.animation.clip import Channel

WIDTHS = {"translation": 3, "rotation": 4, "scale": 3}


@st.composite
def clips(draw):
    shared = {n: np.cumsum(np.full(n, 0.25)) for n in (1, 2, 3, 5)}  # key times of many
    channels, keys_of = [], []
    for _ in range(draw(st.integers(1, 24))):
        path = draw(st.sampled_from([*WIDTHS, "weights"]))
        interpolation = draw(st.sampled_from(["STEP", "LINEAR", "CUBICSPLINE"]))
        n = draw(st.sampled_from([2, 3, 5] if interpolation == "CUBICSPLINE" else [1, 2, 3, 5]))
        if draw(st.booleans()):
            times = shared[n].copy()
        else:
            gaps = draw(st.lists(st.floats(0.01, 1.0), min_size=n, max_size=n))
            times = np.cumsum(gaps)
        width = WIDTHS.get(path) or draw(st.integers(1, 3))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))

        def value(rng=rng, width=width, path=path):
            v = rng.uniform(-2, 2, width)
            return v if path != "rotation" or np.linalg.norm(v) > 0.1 else np.eye(4)[3]

        if interpolation == "CUBICSPLINE":
            keys = [(rng.uniform(-1, 1, width), value(), rng.uniform(-1, 1, width)) for _ in
                    range(n)]  # fmt: skip
            values = np.array([np.stack(key) for key in keys])
        else:
            keys = [value() for _ in range(n)]
            values = np.array(keys)
        node = draw(st.integers(0, 6))
        channels.append(Channel(node, path, interpolation, times, values))
        keys_of.append(keys)
    return Clip("random", tuple(channels)), keys_of


def _expected(clip: Clip, keys_of, path: str, t: float) -> dict[int, np.ndarray]:
    out: dict[int, np.ndarray] = {}
    for c, keys in zip(clip.channels, keys_of, strict=True):
        if c.path == path:  # a later channel replaces an earlier one's value
            out[c.node] = oracle_sample(c.times, keys, c.interpolation, t,
                                        rotation=path == "rotation")  # fmt: skip
    return out


def _same(got: np.ndarray, want: np.ndarray, rotation: bool) -> None:
    if rotation and np.dot(got, want) < 0:
        want = -want  # q and -q are the same rotation
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


@settings(max_examples=300, deadline=None)
@given(case=clips(), t=st.floats(-0.5, 6.0))
def test_grouped_sampling_equals_each_channel_alone(case, t):
    clip, keys_of = case
    pose = clip.pose(t)
    for path in WIDTHS:
        want = _expected(clip, keys_of, path, t)
        ids, values = pose.get(path, (np.zeros(0, np.int64), np.zeros((0, 3))))
        assert sorted(ids.tolist()) == sorted(want), path
        for node, value in zip(ids.tolist(), values, strict=True):
            if path == "rotation" and np.linalg.norm(want[node]) < 1e-6:
                continue  # a spline through zero: no rotation to compare
            _same(value, want[node], path == "rotation")
    weights = clip.weights(t)
    want = _expected(clip, keys_of, "weights", t)
    assert sorted(weights) == sorted(want)
    for node, value in weights.items():
        _same(value, want[node], False)


def test_nodes_come_in_the_order_of_their_first_channel():
    times, values = np.array([0.0, 1.0]), np.array([[0.0, 0, 0], [1, 1, 1]])
    order = [5, 2, 5, 9, 2]
    channels = tuple(
        Channel(node, "translation", "LINEAR" if i % 2 else "STEP", times, values * (i + 1))
        for i, node in enumerate(order)
    )
    ids, got = Clip("c", channels).pose(0.5)["translation"]
    assert ids.tolist() == [5, 2, 9]
    np.testing.assert_allclose(got[:, 0], [3 * 0.0, 5 * 0.0, 4 * 0.5])  # later ones won
