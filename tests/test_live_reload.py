"""Live reload in a real window (Xvfb): saving the scene file swaps the scene, a broken,
truncated or deleted file keeps the last good scene on screen, the next good save
recovers, and the viewer never crashes."""

from __future__ import annotations

from test_window_xvfb import display  # noqa: F401
from window_process import Viewer

SCENE = """[scene]
title = "{title}"

[[node]]
name = "Box"
mesh = "cube"
color = "#4c72b0"
"""


def test_saving_reloads_and_bad_saves_keep_the_last_good_scene(display, tmp_path):  # noqa: F811
    path = tmp_path / "live.toml"
    path.write_text(SCENE.format(title="First version"))
    with Viewer(display, tmp_path, [path, "--size", "320x240"]) as viewer:
        viewer.wait_title("First version")

        path.write_text(SCENE.format(title="Second version"))
        viewer.wait_title("Second version")

        path.write_text('[scene]\ntitle = "Broken\n')  # a syntax error
        viewer.hold_title("Second version")
        path.write_text(SCENE.format(title="Truncated")[:40])  # half-written
        viewer.hold_title("Second version")
        path.unlink()  # deleted while watched
        viewer.hold_title("Second version")

        path.write_text(SCENE.format(title="Recovered"))
        viewer.wait_title("Recovered")

        assert viewer.quit() == 0
        out, err = viewer.out, viewer.err
        assert out.count("reloaded") == 2
        assert err.count("reload failed, keeping the last good scene") == 3, err
        assert "live.toml" in err and "deleted" in err
        assert "Traceback" not in err
