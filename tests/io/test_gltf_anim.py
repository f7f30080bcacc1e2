"""glTF animations: decoding, every interpolation mode against an independent sampler
written from the specification (tests/anim_oracle.py), playing on the scene clock, and
the frame report's local flags on exactly the animated nodes."""

from __future__ import annotations

import numpy as np
import pytest
from anim_oracle import f32, oracle_sample
from gltf_rig import BEND_CHANNELS, WAVE_CHANNELS, data_uri, rig_document, write_rig
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scene_helpers import load_error, trs_matrix

from viewer.animation import AnimationPlayer, Clip, apply_animation, sample
from viewer.animation.clip import Channel
from viewer.io import load_scene

TIMES = [-0.5, 0.0, 0.05, 0.1, 0.3, 0.299, 0.5, 0.55, 0.6, 0.61, 0.7, 0.9, 1.0, 1.1, 1.25, 2.0]


def _keys(interpolation, values):
    if interpolation == "CUBICSPLINE":
        return [tuple(f32(part) for part in key) for key in values]
    return [f32(v) for v in values]


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    return load_scene(write_rig(tmp_path_factory.mktemp("rig"), "rig.glb"))


def test_clips_and_channels_are_decoded(rig):
    player = rig.animation
    assert player.names == ["Bend", "Wave"] and player.index == 0 and player.playing
    bend = player.clips[0]
    got = [(rig.graph.name_of(c.node), c.path, c.interpolation) for c in bend.channels]
    assert got == [(n, p, i) for n, p, i, _t, _v in BEND_CHANNELS]
    assert bend.duration == pytest.approx(1.25)


@pytest.mark.parametrize("k", range(len(BEND_CHANNELS) + len(WAVE_CHANNELS)))
def test_every_channel_matches_the_specification(rig, k):
    player = rig.animation
    clip, j = (player.clips[0], k) if k < len(BEND_CHANNELS) else (player.clips[1], k - 5)
    name, path, interpolation, times, values = (BEND_CHANNELS + WAVE_CHANNELS)[k]
    channel = clip.channels[j]
    for t in TIMES:
        expected = oracle_sample(f32(times), _keys(interpolation, values), interpolation, t,
                                 rotation=path == "rotation")  # fmt: skip
        np.testing.assert_allclose(channel.at(t), expected, rtol=0, atol=1e-9, err_msg=f"{t=}")


# ------------------------------------------------------------------ random samplers
def _quat(draw):
    q = np.array(draw(st.lists(st.floats(-1, 1), min_size=4, max_size=4)))
    return q if np.linalg.norm(q) > 0.1 else np.array([0.0, 0.0, 0.0, 1.0])


@st.composite
def samplers(draw):
    interpolation = draw(st.sampled_from(["STEP", "LINEAR", "CUBICSPLINE"]))
    rotation = draw(st.booleans())
    n = draw(st.integers(2 if interpolation == "CUBICSPLINE" else 1, 6))
    gaps = draw(st.lists(st.floats(0.01, 2.0), min_size=n, max_size=n))
    times = np.cumsum(gaps) - gaps[0] + draw(st.floats(0, 1))
    width = 4 if rotation else 3

    def value():
        if rotation:
            return _quat(draw)
        return np.array(draw(st.lists(st.floats(-100, 100), min_size=3, max_size=3)))

    def tangent():
        return np.array(draw(st.lists(st.floats(-5, 5), min_size=width, max_size=width)))

    if interpolation == "CUBICSPLINE":
        keys = [(tangent(), value(), tangent()) for _ in range(n)]
        values = np.array([np.stack(key) for key in keys])
    else:
        keys = [value() for _ in range(n)]
        values = np.array(keys)
    t = draw(st.floats(float(times[0]) - 1, float(times[-1]) + 1))
    return interpolation, rotation, times, keys, values, t


@settings(max_examples=400, deadline=None)
@given(case=samplers())
def test_random_samplers_match_the_specification(case):
    interpolation, rotation, times, keys, values, t = case
    got = sample(times, values, interpolation, t, rotation=rotation)
    expected = oracle_sample(times, keys, interpolation, t, rotation=rotation)
    if rotation and interpolation == "CUBICSPLINE" and np.linalg.norm(expected) < 1e-6:
        return  # the spline passed through zero: no rotation to compare
    if rotation:  # q and -q are the same rotation
        expected = expected if np.dot(got, expected) >= 0 else -expected
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-7)


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.floats(1e-4, 3.0), min_size=2, max_size=8),
    start=st.floats(0.0, 100.0),
    rotation=st.booleans(),
)
def test_step_at_exact_float32_key_times(gaps, start, rotation):
    """STEP holds a key's value from that key's time on (the specification: "the
    animated values remain constant to the output of the first keyframe, until the next
    keyframe"). Key times come from float32 accessors, so ``t`` equal to a key time is
    the float32 value itself: there the key's own value counts, one float64 step before
    it the previous key's."""
    times = f32(start + np.cumsum(gaps))
    assume(np.all(np.diff(times) > 0))
    width = 4 if rotation else 3
    values = np.zeros((len(times), width))
    values[:, 0] = np.arange(1, len(times) + 1)  # distinct keys, also once normalised
    values[:, -1] = 1.0
    for k, key in enumerate(times):
        got = sample(times, values, "STEP", float(key), rotation=rotation)
        np.testing.assert_allclose(got, _unit(values[k], rotation), err_msg=f"at key {k}")
        before = float(np.nextafter(key, -np.inf))
        got = sample(times, values, "STEP", before, rotation=rotation)
        np.testing.assert_allclose(got, _unit(values[max(k - 1, 0)], rotation),
                                   err_msg=f"just before key {k}")  # fmt: skip


def _unit(v, rotation):
    return v / np.linalg.norm(v) if rotation else v


def test_step_channels_of_a_file_switch_at_their_key_times(rig):
    """The rig's STEP channels, read from its float32 accessors, at exactly their key
    times (0.25 is a float32 number; 0.3 is not, so its key lies at float32(0.3))."""
    wave = rig.animation.clips[1].channels[0]
    quats = [f32(q) for q in WAVE_CHANNELS[0][4]]
    for t, q in ((0.0, quats[0]), (0.25, quats[1]), (float(np.nextafter(0.25, 0)), quats[0])):
        np.testing.assert_allclose(wave.at(t), q / np.linalg.norm(q), rtol=0, atol=1e-12)
    bone2 = rig.animation.clips[0].channels[2]
    assert bone2.interpolation == "STEP"
    key = float(np.float32(0.3))
    np.testing.assert_allclose(bone2.at(key), f32([0.2, 1.0, 0.0]), rtol=0, atol=0)
    np.testing.assert_allclose(bone2.at(0.3), f32([0.0, 1.0, 0.0]), rtol=0, atol=0)  # before it


# ------------------------------------------------------------------ playing
def _oracle_locals(t: float, clip_channels) -> dict[tuple[str, str], np.ndarray]:
    out = {}
    for name, path, interpolation, times, values in clip_channels:
        keys = _keys(interpolation, values)
        rotation = path == "rotation"
        out[(name, path)] = oracle_sample(f32(times), keys, interpolation, t, rotation=rotation)
    return out


def _oracle_worlds(t: float) -> dict[str, np.ndarray]:
    """World matrices of the rig's bones with Bend at clip time t, from the oracle alone."""
    doc, _blob = rig_document()
    values = _oracle_locals(t, BEND_CHANNELS)
    worlds = {}
    parent = {"Bone0": "Rig", "Bone1": "Bone0", "Bone2": "Bone1", "Skin": "Rig"}
    for node in doc["nodes"]:
        name = node["name"]
        trs = {"translation": node.get("translation", [0, 0, 0]), "rotation": [0, 0, 0, 1],
               "scale": [1, 1, 1]}  # fmt: skip
        for path in trs:
            if (name, path) in values:
                trs[path] = values[(name, path)]
        local = trs_matrix(trs["translation"], trs["rotation"], trs["scale"])
        worlds[name] = local if name == "Rig" else worlds[parent[name]] @ local
    return worlds


def test_headless_frames_follow_the_scene_clock(tmp_path):
    scene = load_scene(write_rig(tmp_path))
    g = scene.graph
    g.update()
    bend = scene.animation.clips[0]
    field = {"translation": "local_position", "rotation": "local_rotation", "scale": "local_scale"}
    before = {c.node: [] for c in bend.channels}  # the rest pose, as the graph holds it
    for c in bend.channels:
        before[c.node].append(np.asarray(getattr(g.node(c.node), field[c.path])))
    for frame in range(1, 91):  # 1.5 s: past the clip's 1.25 s, so it loops once
        t = frame / 60
        apply_animation(scene, t)
        report = g.update()
        clip_t = t % 1.25
        worlds = _oracle_worlds(clip_t)
        for name, world in worlds.items():
            np.testing.assert_allclose(g[name].world_matrix, world, rtol=0, atol=1e-9,
                                       err_msg=f"{name} at frame {frame}")  # fmt: skip
        # the local flags: exactly the animated nodes whose values changed this frame
        now = {c.node: [] for c in bend.channels}
        for c in bend.channels:
            now[c.node].append(c.at(clip_t))
        changed = {
            node for node, vals in now.items()
            if any(not np.array_equal(a, b) for a, b in zip(vals, before[node], strict=True))
        }  # fmt: skip
        assert set(report.local_updated.tolist()) == changed, frame
        before = now


def test_pause_scrub_pick_and_none(tmp_path):
    scene = load_scene(write_rig(tmp_path))
    g = scene.graph
    g.update()
    player = scene.animation
    apply_animation(scene, 0.1)
    g.update()
    player.pause()
    apply_animation(scene, 0.2)
    assert g.update().empty and player.time == pytest.approx(0.1)
    player.scrub(0.6)  # applied once while paused
    apply_animation(scene, 0.3)
    g.update()
    np.testing.assert_allclose(g["Bone2"].world_matrix, _oracle_worlds(0.6)["Bone2"], atol=1e-9)
    player.play()
    apply_animation(scene, 0.4)  # continues from 0.6 ...
    apply_animation(scene, 0.45)  # ... at the clock's pace
    assert player.time == pytest.approx(0.65)
    player.pick("Wave")
    assert (player.index, player.time, player.playing) == (1, 0.0, True)
    g.update()
    player.pick(None)
    apply_animation(scene, 0.5)
    assert g.update().empty
    with pytest.raises(KeyError):
        player.pick("Run")
    with pytest.raises(IndexError):
        player.pick(2)


def test_a_player_without_clips_does_nothing():
    player = AnimationPlayer([Clip("empty")])
    assert player.clip_time == 0.0 and player.names == ["empty"]
    assert AnimationPlayer().current is None


def test_weight_channels_of_nodes_without_morph_targets_are_skipped_with_a_note(tmp_path):
    scene = load_scene(write_rig(tmp_path, weights_channel=True))
    notes = scene.animation.notes
    assert len(notes) == 1, notes
    assert "1 animation channel(s) skipped: weights channels on nodes without morph" in notes[0]
    assert len(scene.animation.clips[0].channels) == len(BEND_CHANNELS)


def test_clips_follow_an_include_under_a_node(tmp_path):
    write_rig(tmp_path)
    path = tmp_path / "s.toml"
    path.write_text('[[node]]\nname = "Holder"\nposition = [1, 0, 0]\nmesh = "rig.glb"\n')
    scene = load_scene(path)
    bend = scene.animation.clips[0]
    assert {scene.graph.name_of(c.node) for c in bend.channels} == {
        "Holder/Bone0", "Holder/Bone1", "Holder/Bone2"}  # fmt: skip


# ------------------------------------------------------------------ bad animations
def _sampler(doc, k=0):
    return doc["animations"][0]["samplers"][k]


def _set_view(doc, accessor, values):
    """Point `accessor` at new float32 values in a fresh data-URI buffer."""
    raw = np.asarray(values, np.float32).tobytes()
    doc["buffers"].append({"byteLength": len(raw), "uri": data_uri(raw)})
    doc["bufferViews"].append({"buffer": len(doc["buffers"]) - 1, "byteLength": len(raw)})
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[doc["accessors"][accessor]["type"]]
    doc["accessors"][accessor].update(bufferView=len(doc["bufferViews"]) - 1, byteOffset=0,
                                      count=len(values) // width)  # fmt: skip


BAD = {
    "interpolation": (lambda d: _sampler(d).update(interpolation="BEZIER"), "interpolation"),
    "path": (lambda d: d["animations"][0]["channels"][0]["target"].update(path="color"),
             "target path"),
    "sampler index": (lambda d: d["animations"][0]["channels"][0].update(sampler=99),
                      "samplers of animation 0"),
    "node index": (lambda d: d["animations"][0]["channels"][0]["target"].update(node=99),
                   "'nodes'"),
    "decreasing times": (lambda d: _set_view(d, _sampler(d)["input"], [0.0, 0.6, 0.5]),
                         "must not decrease"),
    "negative time": (lambda d: _set_view(d, _sampler(d)["input"], [-1.0, 0.6, 0.7]),
                      "finite seconds"),
    "nan value": (lambda d: _set_view(d, _sampler(d, 2)["output"], [0, 1, 0, 0, 1, float("nan"),
                                                                    0, 1, 0]), "finite"),
    "huge value": (lambda d: _set_view(d, _sampler(d, 2)["output"], [0, 1, 0, 0, 1e30, 0,
                                                                     0, 1, 0]), "within"),
    "wrong count": (lambda d: _set_view(d, _sampler(d, 2)["output"], [0, 1, 0, 0, 1, 0]),
                    "expected 3 output values"),
    "zero quaternion": (lambda d: _set_view(d, _sampler(d)["output"], [0] * 12),
                        "zero quaternion"),
    "one cubic key": (lambda d: (_set_view(d, _sampler(d, 1)["input"], [0.5]),
                                 _set_view(d, _sampler(d, 1)["output"], [0.0] * 12)),
                      "two keys"),
    "channels not a list": (lambda d: d["animations"][0].update(channels=3), "channels must"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_animations_give_one_line(tmp_path, case):
    change, needle = BAD[case]
    message = load_error(write_rig(tmp_path, "bad.gltf", change=change))
    assert needle in message, message


def test_channel_repr_is_cheap():
    c = Channel(0, "scale", "STEP", np.array([0.0]), np.ones((1, 3)))
    assert np.array_equal(c.at(5.0), [1.0, 1.0, 1.0])
