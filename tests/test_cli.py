"""The `sgview` command: headless runs, --log, --touch, --dump-world, errors in one line.

Most runs call `viewer.cli.main.main` in-process (small frames, EGL); two go through a real
subprocess to check the entry point and the exit status as a user sees them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from example_graphs import LOG_A_OBJ3, LOG_A_OBJ4, LOG_B_OBJ2_OBJ5
from needs import need_gl, need_tools
from PIL import Image

from viewer.cli.main import main

REPO = Path(__file__).resolve().parents[1]
CHAIN5 = str(REPO / "scenes" / "chain5.toml")
TREE10 = str(REPO / "scenes" / "tree10.toml")
SMALL = ["--size", "160x90"]


@pytest.fixture(scope="module", autouse=True)
def _need_egl():
    need_gl().release()


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.endswith("\n") and err.count("\n") == 1, f"expected one line, got {err!r}"
    assert err.startswith("sgview: ")
    return err


# -- --log and --touch reproduce docs/semantics.md to the letter ----------------------------------
def test_log_example_a(capsys):
    assert main([CHAIN5, "--headless", "--still", "--log", *SMALL,
                 "--frames", "2", "--touch", "Obj3", "--touch", "Obj4@2"]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines() == [
        "# frame 1",
        *LOG_A_OBJ3,
        "# frame 2",
        *LOG_A_OBJ4,
    ]


def test_log_example_b_two_touches_in_one_frame(capsys):
    assert main([TREE10, "--headless", "--still", "--log", *SMALL,
                 "--touch", "Obj2", "--touch", "Obj5"]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines() == ["# frame 1", *LOG_B_OBJ2_OBJ5]


def test_log_is_silent_for_frames_without_change_and_follows_scene_events(capsys):
    # chain5.toml touches Obj3 at frame 30; with --still nothing else happens.
    assert main([CHAIN5, "--headless", "--still", "--log", *SMALL, "--frames", "30"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# frame 30" and out[1] == "*Update Local : Obj3*" and len(out) == 5


# -- images --------------------------------------------------------------------------------
def test_headless_screenshot_has_the_size_and_the_same_pixels_every_time(tmp_path):
    shots = []
    for name in ("a.png", "b.png"):
        path = tmp_path / name
        assert main([TREE10, "--headless", "--frames", "3", "--size", "200x120",
                     "--screenshot", str(path)]) == 0  # fmt: skip
        shots.append(np.asarray(Image.open(path).convert("RGB")))
    assert shots[0].shape == (120, 200, 3)
    assert np.array_equal(shots[0], shots[1])
    assert shots[0].std() > 5  # not a blank image


def test_motion_moves_the_picture_and_still_stops_it(tmp_path):
    def shot(name, *extra):  # the default scene: the ten-node tree with gentle motion
        path = tmp_path / name  # no overlay: its panels show the frame number
        main(["--headless", *SMALL, "--no-overlay", "--screenshot", str(path), *extra])
        return np.asarray(Image.open(path).convert("RGB")).astype(int)

    first, later = shot("1.png", "--frames", "1"), shot("40.png", "--frames", "40")
    still = shot("40s.png", "--frames", "40", "--still")
    assert np.abs(first - later).sum() > 0
    assert np.abs(shot("1s.png", "--frames", "1", "--still") - still).sum() == 0


def _gif_delays(path):
    with Image.open(path) as gif:
        delays = []
        for k in range(gif.n_frames):
            gif.seek(k)
            delays.append(gif.info["duration"])
        return gif.size, delays


def test_record_gif_keeps_every_second_frame_with_exact_timing(tmp_path):
    path = tmp_path / "out.gif"
    assert main(["--headless", "--frames", "6", *SMALL, "--record", str(path)]) == 0
    size, delays = _gif_delays(path)
    assert size == (160, 90) and delays == [30, 40, 30]  # 3 frames at 30/s: 100 ms
    # A still scene: pillow folds identical frames into one, keeping the total time.
    assert main([TREE10, "--headless", "--frames", "6", *SMALL, "--record", str(path)]) == 0
    assert sum(_gif_delays(path)[1]) == 100


def test_record_mp4_through_ffmpeg(tmp_path):
    need_tools("ffmpeg")
    path = tmp_path / "out.mp4"
    assert main([TREE10, "--headless", "--frames", "3", *SMALL, "--record", str(path)]) == 0
    assert path.stat().st_size > 500


def test_record_mp4_without_a_system_ffmpeg(tmp_path, monkeypatch):
    pytest.importorskip("imageio_ffmpeg")
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing to find on the PATH
    path = tmp_path / "out.mp4"
    assert main([TREE10, "--headless", "--frames", "3", *SMALL, "--record", str(path)]) == 0
    assert path.stat().st_size > 500


# -- --dump-world --------------------------------------------------------------------------
def test_dump_world_matches_the_core_after_the_same_frames(tmp_path):
    from viewer.content.motion import apply_events, apply_motions
    from viewer.io import load_scene

    path = tmp_path / "world.json"
    assert main([TREE10, "--headless", "--frames", "5", *SMALL, "--dump-world", str(path)]) == 0
    dumped = json.loads(path.read_text())
    scene = load_scene(TREE10)
    g = scene.graph
    g.update()
    for frame in range(1, 6):
        apply_events(scene, frame)
        apply_motions(scene, frame / 60)
        g.update()
    assert list(dumped) == [n.name for n in g]
    for node in g:
        np.testing.assert_allclose(dumped[node.name], node.world_matrix, rtol=0, atol=1e-12)


# -- generated and default scenes ----------------------------------------------------------
def test_generated_and_default_scenes_run(tmp_path):
    assert main(["--generate", "balanced:50", "--headless", *SMALL]) == 0
    assert main(["--headless", *SMALL, "--screenshot", str(tmp_path / "d.png")]) == 0


# -- errors: one line, exit status 2 -------------------------------------------------------
def test_no_display_says_so_and_names_the_headless_command(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main([TREE10]) == 2
    err = _one_line_error(capsys)
    assert "no display" in err and "--headless" in err
    assert "sgview SCENE" in err


def test_listen_without_a_display_names_the_headless_listen(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["listen", "127.0.0.1:0"]) == 2
    err = _one_line_error(capsys)
    assert "no display" in err and "sgview listen --headless" in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["no/such/scene.toml"], "no/such/scene.toml"),
        ([TREE10, "--touch", "Nobody"], "Nobody"),
        ([TREE10, "--touch", "Obj2@5", "--frames", "3"], "Obj2@5"),
        ([TREE10, "--record", "out.avi"], ".mp4 or .gif"),
        ([TREE10, "--generate", "chain:3"], "not both"),
        (["--generate", "nonsense"], "nonsense"),
        # the option the user gave is named, not "--keys/--click" (trial 3)
        ([TREE10, "--keys", "Q@3"], "sgview: --keys: unknown key 'Q'"),
        ([TREE10, "--click", "10,x@3"], "sgview: --click: "),
        ([TREE10, "--keys", "L@9", "--frames", "5"], "sgview: --keys: frame 9 is after"),
        ([TREE10, "--click", "1,1@9", "--frames", "5"], "sgview: --click: frame 9 is after"),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys, argv, needle):
    assert main([*argv, "--headless"]) == 2
    assert needle in _one_line_error(capsys)


@pytest.mark.parametrize(
    ("flag", "given", "meant"),
    [("--touch", "obj2", "Obj2"), ("--select", "OBJ10", "Obj10"), ("--touch", "Ojb7", "Obj7")],
)
def test_a_misspelt_node_name_gets_the_likely_one(capsys, flag, given, meant):
    assert main([TREE10, flag, given, "--headless"]) == 2
    assert _one_line_error(capsys).endswith(f"; did you mean '{meant}'?\n")


def test_closest_name_stays_quiet_when_nothing_is_close():
    from viewer.text import FUZZY_NAMES_MAX, closest_name

    assert closest_name("Nobody", ["Obj1", "Obj2"]) is None
    many = [f"Node{i}" for i in range(FUZZY_NAMES_MAX + 1)]
    assert closest_name("node7", many) == "Node7"  # a case slip is found in any scene
    assert closest_name("Nodf7", many) is None  # no fuzzy search over a huge one


def test_broken_scene_file_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[node]]\nname = "A"\nposition = [1, 2]\n')
    assert main([str(bad), "--headless"]) == 2
    assert "bad.toml" in _one_line_error(capsys)


def test_help_lists_every_key(capsys):
    from viewer.keys.controls import KEY_HELP, MOUSE_HELP

    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for key, what in KEY_HELP + MOUSE_HELP:
        assert key in out and what in out


# -- as a user runs it -----------------------------------------------------------------------
def _sgview(*args, env_drop=(), cwd=None):
    env = {k: v for k, v in os.environ.items() if k not in env_drop}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-m", "viewer", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_subprocess_headless_run_and_no_display_message(tmp_path):
    done = _sgview(TREE10, "--headless", "--frames", "2", *SMALL, "--screenshot", "s.png",
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Done, it says where the picture went (on stderr: stdout is for --log).
    assert (tmp_path / "s.png").exists() and done.stderr == "sgview: screenshot saved: s.png\n"
    done = _sgview(TREE10, env_drop=("DISPLAY", "WAYLAND_DISPLAY"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "sgview" in done.stderr and "--headless" in done.stderr
    assert "Traceback" not in done.stderr


def test_readme_lists_every_key():
    from viewer.keys.controls import KEY_HELP, MOUSE_HELP

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for key, what in KEY_HELP + MOUSE_HELP:
        assert f"| {key} | {what} |" in readme, key
