"""Output files (--screenshot, --record, --dump-world, --trace, --save) that cannot be written are
refused up front: exit status 2, one line naming the flag, before the scene is loaded or a
frame is drawn (issue 12, class 2). A write that still fails later is one line too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import viewer.io
import viewer.window.runner
from viewer.cli.main import main
from viewer.text import MAX_MESSAGE

REPO = Path(__file__).resolve().parents[1]
CHAIN5 = str(REPO / "scenes" / "chain5.toml")
FLAGS = {
    "--screenshot": "out.png",
    "--record": "out.gif",
    "--dump-world": "world.json",
    "--trace": "trace.json",
    "--save": "out.toml",
}


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> dict[str, Path]:
    """One folder holding every kind of bad target, and a good one."""
    root = tmp_path_factory.mktemp("outputs")
    (root / "a folder").mkdir()
    (root / "plain.txt").write_text("x")
    os.mkfifo(root / "pipe")
    (root / "dangling").symlink_to(root / "nowhere" / "x")
    return {
        "a folder": root / "a folder",
        "under a file": root / "plain.txt" / "x",
        "a pipe": root / "pipe",
        "a device": Path("/dev/null"),
        "a broken link": root / "dangling",
        "a name too long": root / ("n" * 300),
        "a control character": root / "plain.txt" / "bad\x1b[2J\x07\nname",
        "good": root / "new" / "deeper",
    }


def run_cli(argv, monkeypatch, capsys) -> tuple[int, str, bool]:
    """main(argv) with loading and rendering replaced by markers: (status, stderr, whether
    any work started)."""
    started = []
    monkeypatch.setattr(viewer.window.runner, "run", lambda *a, **k: started.append("run"))
    real_load = viewer.io.load_scene
    monkeypatch.setattr(
        viewer.io, "load_scene", lambda *a, **k: started.append("load") or real_load(*a, **k)
    )
    status = main(argv)
    return status, capsys.readouterr().err, bool(started)


BAD_KINDS = [
    "a folder",
    "under a file",
    "a pipe",
    "a device",
    "a broken link",
    "a name too long",
    "a control character",
]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(flag=st.sampled_from(sorted(FLAGS)), kind=st.sampled_from(BAD_KINDS), deeper=st.booleans())
def test_an_unwritable_output_is_refused_before_any_work(
    places, monkeypatch, capsys, flag, kind, deeper
):
    target = places[kind]
    if kind == "a control character" or (deeper and kind == "under a file"):
        target = target / FLAGS[flag]
    argv = [CHAIN5, "--headless", flag, str(target)]
    status, err, started = run_cli(argv, monkeypatch, capsys)
    assert status == 2, err
    assert not started, "the scene was loaded or rendered before the refusal"
    assert err.count("\n") == 1 and err.startswith(f"sgview: {flag} "), repr(err)
    line = err[:-1]
    assert line.isprintable() and len(line) <= MAX_MESSAGE + 20, repr(line)


def test_a_good_output_path_starts_the_run(places, monkeypatch, capsys):
    for flag, name in FLAGS.items():
        status, err, started = run_cli(
            [CHAIN5, "--headless", flag, str(places["good"] / name)], monkeypatch, capsys
        )
        assert started and err == "", err
        if flag == "--save":
            assert status == 0 and (places["good"] / name).is_file()


def test_a_write_that_fails_later_is_one_line(monkeypatch, capsys, tmp_path):
    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device", str(tmp_path / "out.png"))

    monkeypatch.setattr(viewer.window.runner, "run", fail)
    status = main([CHAIN5, "--headless", "--screenshot", str(tmp_path / "out.png")])
    err = capsys.readouterr().err
    assert status == 1
    assert err == f"sgview: cannot write {tmp_path / 'out.png'}: No space left on device\n"


def test_a_screenshot_is_a_png(tmp_path, capsys):
    assert main([CHAIN5, "--headless", "--screenshot", str(tmp_path / "shot.jpg")]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"sgview: --screenshot {tmp_path / 'shot.jpg'}: expected a .png file "
        "(screenshots are PNG images)\n"
    )


@pytest.mark.parametrize("name", ["scene.toml", "scene.glb"])
def test_saved_files_get_the_usual_permissions(tmp_path, name):
    """Written whole through a temporary file, but readable as a plain open() makes it."""
    mask = os.umask(0o022)
    try:
        assert main([CHAIN5, "--save", str(tmp_path / name)]) == 0
    finally:
        os.umask(mask)
    assert (tmp_path / name).stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary left behind


def test_save_says_what_it_wrote_as_every_message_does(tmp_path, capsys):
    assert main([CHAIN5, "--save", str(tmp_path / "out.toml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"sgview: saved 'Obj1-Obj5 chain (example A)' (5 nodes) to {tmp_path / 'out.toml'}"
    ]


def test_an_argument_mistake_is_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        main([CHAIN5, "--headless", "--frames", "0"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "sgview: argument --frames: expected a positive whole number, got '0' "
        "(sgview --help lists the options)\n"
    )
