"""Live reload in a real window (Xvfb): saving the scene file swaps the scene, a broken,
truncated or deleted file keeps the last good scene on screen, the next good save
recovers, and the viewer never crashes."""

from __future__ import annotations

import os
import subprocess
import time

from test_window_xvfb import (  # noqa: F401
    PATIENCE,
    REPO,
    _sgview_command,
    _wait_for,
    _x,
    display,
    window_id,
)

SCENE = """[scene]
title = "{title}"

[[node]]
name = "Box"
mesh = "cube"
color = "#4c72b0"
"""


def _title(disp, wid):
    return _x(disp, "xdotool", "getwindowname", wid)


def _wait_title(disp, wid, text):
    return _wait_for(lambda: text in _title(disp, wid), 10, f"the title to show {text!r}")


def _hold(disp, wid, text, seconds=1.5):
    """The title keeps showing `text` for a while (the bad save was not taken)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        assert text in _title(disp, wid)
        time.sleep(0.2)


def test_saving_reloads_and_bad_saves_keep_the_last_good_scene(display, tmp_path):  # noqa: F811
    path = tmp_path / "live.toml"
    path.write_text(SCENE.format(title="First version"))
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [*_sgview_command(), str(path), "--size", "320x240"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wid = window_id(display)
        _wait_title(display, wid, "First version")

        path.write_text(SCENE.format(title="Second version"))
        _wait_title(display, wid, "Second version")

        path.write_text('[scene]\ntitle = "Broken\n')  # a syntax error
        _hold(display, wid, "Second version")
        path.write_text(SCENE.format(title="Truncated")[:40])  # half-written
        _hold(display, wid, "Second version")
        path.unlink()  # deleted while watched
        _hold(display, wid, "Second version")

        path.write_text(SCENE.format(title="Recovered"))
        _wait_title(display, wid, "Recovered")

        _x(display, "xdotool", "windowfocus", "--sync", wid)
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert proc.wait(timeout=PATIENCE) == 0
        out, err = proc.stdout.read(), proc.stderr.read()
        assert out.count("reloaded") == 2
        assert err.count("reload failed, keeping the last good scene") == 3, err
        assert "live.toml" in err and "deleted" in err
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
