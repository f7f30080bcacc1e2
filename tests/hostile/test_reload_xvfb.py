"""Live reload under Xvfb with real saves (issue 26): saves that used to end the viewer
with a traceback (a singular inverse bind matrix, an animation whose values explode along
a chain, a scene without the node a --touch names) keep it running on the last good
scene with one line on stderr; the next good save is shown."""

from __future__ import annotations

import os
import subprocess
import threading
import time

from hostile_gltf import SINGULAR_BINDS, write_chain
from test_live_reload import _hold, _wait_title
from test_window_xvfb import PATIENCE, REPO, _sgview_command, _x, display, window_id  # noqa: F401


def _start(display, path, *extra):  # noqa: F811
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [*_sgview_command(), str(path), "--size", "320x240", *extra],
        cwd=path.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _quit(display, proc, wid):  # noqa: F811
    _x(display, "xdotool", "windowfocus", "--sync", wid)
    _x(display, "xdotool", "key", "--window", wid, "Escape")
    assert proc.wait(timeout=PATIENCE) == 0
    return proc.stdout.read(), proc.stderr.read()


def test_broken_skins_and_animations_saved_live_keep_the_viewer_running(display, tmp_path):  # noqa: F811
    path = write_chain(tmp_path, "live.gltf", depth=3, skin=True, animated_scale=2.0, title="Good")
    proc = _start(display, path)
    # stderr read as it comes: each bad save is written only once the one before was
    # tried (a loaded machine may not look at the file between two quick saves)
    err_lines: list[str] = []
    reader = threading.Thread(target=lambda: err_lines.extend(iter(proc.stderr.readline, "")))
    reader.start()

    def tried(count: int) -> None:
        end = time.monotonic() + PATIENCE
        while sum("reload failed" in ln for ln in list(err_lines)) < count:
            assert time.monotonic() < end, f"timed out waiting for reload failure {count}"
            time.sleep(0.2)

    try:
        wid = window_id(display)
        _wait_title(display, wid, "Good")
        write_chain(tmp_path, "live.gltf", depth=3, skin=True, title="Singular",
                    inverse_bind=SINGULAR_BINDS["rank 3"])  # fmt: skip
        tried(1)
        _hold(display, wid, "Good")
        write_chain(tmp_path, "live.gltf", depth=40, animated_scale=1e9, title="Exploding")
        tried(2)
        _hold(display, wid, "Good")
        write_chain(tmp_path, "live.gltf", depth=4, skin=True, title="Recovered")
        _wait_title(display, wid, "Recovered")
        _x(display, "xdotool", "windowfocus", "--sync", wid)
        _x(display, "xdotool", "key", "--window", wid, "Escape")
        assert proc.wait(timeout=PATIENCE) == 0
        reader.join(timeout=PATIENCE)
        out, err = proc.stdout.read(), "".join(err_lines)
        assert "Traceback" not in err and "Warning" not in err, err
        failed = [ln for ln in err.splitlines() if "reload failed" in ln]
        assert len(failed) == 2, err
        assert "inverse bind matrix" in failed[0] and "world scale" in failed[1]
        assert out.count("reloaded") == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


SCENE = """[scene]
title = "{title}"
{nodes}"""


def _toml(title, *names):
    return SCENE.format(title=title, nodes="".join(f'\n[[node]]\nname = "{n}"\n' for n in names))


def test_a_save_without_the_touched_node_drops_the_touch_with_a_note(display, tmp_path):  # noqa: F811
    path = tmp_path / "touch.toml"
    path.write_text(_toml("With B", "A", "B"))
    # touches every half second: some before the reload, some dropped, some reached after
    touches = [f"--touch=B@{f}" for f in range(30, 1200, 30)]
    proc = _start(display, path, *touches)
    try:
        wid = window_id(display)
        _wait_title(display, wid, "With B")
        path.write_text(_toml("Without B", "A"))
        _wait_title(display, wid, "Without B")
        time.sleep(2.0)  # frames go on past some of the dropped touches' frames
        assert proc.poll() is None
        out, err = _quit(display, proc, wid)
        assert "Traceback" not in err, err
        notes = [ln for ln in err.splitlines() if "touch of 'B'" in ln]
        assert notes and all(n.startswith("sgview: note: dropped") for n in notes), err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
