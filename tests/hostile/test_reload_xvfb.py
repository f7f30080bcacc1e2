"""Live reload under Xvfb with real saves (issue 26): saves that used to end the viewer
with a traceback (a singular inverse bind matrix, an animation whose values explode along
a chain, a scene without the node a --touch names) keep it running on the last good
scene with one line on stderr; the next good save is shown."""

from __future__ import annotations

import time

from hostile_gltf import SINGULAR_BINDS, write_chain
from test_window_xvfb import PATIENCE, display  # noqa: F401
from window_process import Viewer


def test_broken_skins_and_animations_saved_live_keep_the_viewer_running(display, tmp_path):  # noqa: F811
    path = write_chain(tmp_path, "live.gltf", depth=3, skin=True, animated_scale=2.0, title="Good")
    with Viewer(display, tmp_path, [path, "--size", "320x240"]) as viewer:

        def tried(count: int) -> None:
            """Each bad save is written only once the one before was tried (a loaded
            machine may not look at the file between two quick saves)."""
            end = time.monotonic() + PATIENCE
            while viewer.err.count("reload failed") < count:
                assert time.monotonic() < end, f"timed out waiting for reload failure {count}"
                time.sleep(0.2)

        viewer.wait_title("Good")
        write_chain(tmp_path, "live.gltf", depth=3, skin=True, title="Singular",
                    inverse_bind=SINGULAR_BINDS["rank 3"])  # fmt: skip
        tried(1)
        viewer.hold_title("Good")
        write_chain(tmp_path, "live.gltf", depth=40, animated_scale=1e9, title="Exploding")
        tried(2)
        viewer.hold_title("Good")
        write_chain(tmp_path, "live.gltf", depth=4, skin=True, title="Recovered")
        viewer.wait_title("Recovered")
        assert viewer.quit() == 0
        out, err = viewer.out, viewer.err
        assert "Traceback" not in err and "Warning" not in err, err
        failed = [ln for ln in err.splitlines() if "reload failed" in ln]
        assert len(failed) == 2, err
        assert "inverse bind matrix" in failed[0] and "world scale" in failed[1]
        assert out.count("reloaded") == 1


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
    with Viewer(display, tmp_path, [path, "--size", "320x240", *touches]) as viewer:
        viewer.wait_title("With B")
        path.write_text(_toml("Without B", "A"))
        viewer.wait_title("Without B")
        time.sleep(2.0)  # frames go on past some of the dropped touches' frames
        assert viewer.proc.poll() is None
        assert viewer.quit() == 0
        err = viewer.err
        assert "Traceback" not in err, err
        notes = [ln for ln in err.splitlines() if "touch of 'B'" in ln]
        assert notes and all(n.startswith("sgview: note: dropped") for n in notes), err
