"""`sgview model.glb` plays the file's animation on the headless clock; `--animation`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "io"))  # scene_helpers (trs_matrix)

from anim_oracle import f32, oracle_sample  # noqa: E402
from gltf_rig import BEND_CHANNELS, WAVE_CHANNELS, rig_document, write_rig  # noqa: E402
from scene_helpers import trs_matrix  # noqa: E402

from viewer.cli.main import main  # noqa: E402

SMALL = ["--size", "96x64", "--no-overlay"]
PARENT = {"Bone0": "Rig", "Bone1": "Bone0", "Bone2": "Bone1", "Skin": "Rig"}


@pytest.fixture(scope="module", autouse=True)
def _need_egl():
    from viewer.render.context import ContextError, create_headless_context

    try:
        create_headless_context("egl").release()
    except ContextError as exc:
        pytest.skip(f"no headless OpenGL context on this machine: {exc}")


def spec_worlds(channels, t: float | None) -> dict[str, np.ndarray]:
    """World matrices from the specification's sampling of `channels` at t (None: rest)."""
    doc, _ = rig_document()
    worlds = {}
    for node in doc["nodes"]:
        name = node["name"]
        trs = {"translation": node.get("translation", [0, 0, 0]), "rotation": [0, 0, 0, 1],
               "scale": [1, 1, 1]}  # fmt: skip
        for cname, path, interpolation, times, values in channels if t is not None else ():
            if cname == name:
                cubic = interpolation == "CUBICSPLINE"
                keys = [tuple(f32(p) for p in k) if cubic else f32(k) for k in values]
                trs[path] = oracle_sample(f32(times), keys, interpolation, t,
                                          rotation=path == "rotation")  # fmt: skip
        local = trs_matrix(trs["translation"], trs["rotation"], trs["scale"])
        worlds[name] = local if name == "Rig" else worlds[PARENT[name]] @ local
    return worlds


def _run(tmp_path, frames: int, *extra) -> dict:
    model = write_rig(tmp_path)
    out = tmp_path / "world.json"
    assert main([str(model), "--headless", "--frames", str(frames), *SMALL,
                 "--dump-world", str(out), *extra]) == 0  # fmt: skip
    return {k: np.array(v) for k, v in json.loads(out.read_text()).items()}


@pytest.mark.parametrize("frames", [1, 20, 45, 80])
def test_dump_world_after_n_frames_is_the_specification_at_n_over_60(tmp_path, frames):
    dumped = _run(tmp_path, frames)
    expected = spec_worlds(BEND_CHANNELS, (frames / 60) % 1.25)  # Bend lasts 1.25 s, loops
    assert list(dumped) == list(expected)
    for name, world in expected.items():
        np.testing.assert_allclose(dumped[name], world, rtol=0, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("choice", ["Wave", "1"])
def test_animation_by_name_or_index(tmp_path, choice):
    dumped = _run(tmp_path, 20, "--animation", choice)
    for name, world in spec_worlds(WAVE_CHANNELS, 20 / 60).items():
        np.testing.assert_allclose(dumped[name], world, rtol=0, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("frames", [15, 45])
def test_a_picked_clip_poses_frame_n_at_n_over_60_like_the_default(tmp_path, frames):
    # Wave steps at 0.25 s (and loops at 0.5 s): frames 15 and 45 show the key only at N/60
    dumped = _run(tmp_path, frames, "--animation", "Wave")
    for name, world in spec_worlds(WAVE_CHANNELS, (frames / 60) % 0.5).items():
        np.testing.assert_allclose(dumped[name], world, rtol=0, atol=1e-6, err_msg=name)


def test_animation_none_and_still_keep_the_rest_pose(tmp_path):
    for extra in (["--animation", "none"], ["--still"]):
        dumped = _run(tmp_path, 10, *extra)
        for name, world in spec_worlds([], None).items():
            np.testing.assert_allclose(dumped[name], world, rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("choice", ["Run", "2", "-1"])
def test_unknown_animation_is_one_line_and_status_2(tmp_path, capsys, choice):
    model = write_rig(tmp_path)
    assert main([str(model), "--headless", *SMALL, "--animation", choice]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such animation" in err and "0: 'Bend'" in err


def test_weight_channels_without_morph_targets_are_noted_once_on_stderr(tmp_path, capsys):
    model = write_rig(tmp_path, weights_channel=True)  # its mesh has no morph targets
    assert main([str(model), "--headless", "--frames", "2", *SMALL]) == 0
    err = capsys.readouterr().err
    assert err.count("weights channels on nodes without morph targets") == 1
    assert err.count("\n") == 1
