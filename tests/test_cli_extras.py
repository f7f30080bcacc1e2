"""--version, --list-scenes, and opening a bundled scene by name."""

import os
import subprocess
import sys
from pathlib import Path

from viewer import __version__
from viewer.io.bundled import bundled_scenes, resolve

REPO = Path(__file__).resolve().parents[1]


def sgview(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # this checkout, from any folder
    return subprocess.run([sys.executable, "-m", "viewer", *args], capture_output=True,
                          text=True, cwd=cwd or REPO, timeout=120, env=env)  # fmt: skip


def test_version():
    done = sgview("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"sgview {__version__}"


def test_list_scenes_names_each_bundled_scene_with_its_title():
    done = sgview("--list-scenes")
    assert done.returncode == 0
    scenes = bundled_scenes()
    assert {name for name, _, _ in scenes} == {
        "chain5", "tree10", "three_objects", "collision", "solar_system", "robot_arm"
    }  # fmt: skip
    for name, title, _ in scenes:
        assert f"{name}" in done.stdout and title in done.stdout


def test_a_bundled_scene_opens_by_name_from_any_folder(tmp_path):
    assert resolve("tree10") == REPO / "scenes" / "tree10.toml"
    assert resolve("no_such_scene") == Path("no_such_scene")
    done = sgview("chain5", "--headless", "--frames", "1", "--still", "--touch", "Obj4",
                  "--log", "--no-overlay", "--size", "64x48", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "# frame 1", "*Update Local : Obj4*", "=Update World : Obj4=", "=Update World : Obj5="
    ]  # fmt: skip


def test_a_misspelt_scene_name_suggests_the_closest_bundled_scene():
    from viewer.io.bundled import closest_scene

    assert closest_scene("solar_sytem") == "solar_system"
    assert closest_scene("scenes/Tree1.toml") == "tree10"
    assert closest_scene("quaternion") is None


def test_an_unknown_scene_is_reported_before_the_display_check(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(REPO)
    for given, hint in (("solar_sytem", "'solar_system'"), ("nothing_alike_at_all", "")):
        done = subprocess.run([sys.executable, "-m", "viewer", given], capture_output=True,
                              text=True, cwd=tmp_path, timeout=120, env=env)  # fmt: skip
        assert done.returncode == 2
        err = done.stderr
        assert err.count("\n") == 1 and "Traceback" not in err
        assert f"named {given!r}" in err and "--list-scenes" in err and "display" not in err
        assert (f"did you mean {hint}?" in err) == bool(hint)


def test_a_reader_that_stops_early_ends_the_run_quietly():
    """`sgview ... --log | head -1`: the closed pipe is not an error."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "viewer", "solar_system", "--headless", "--frames", "60", "--log"],
        cwd=Path(__file__).resolve().parents[1], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    assert first == b"# frame 1\n"
    assert b"Broken pipe" not in err and b"Traceback" not in err
