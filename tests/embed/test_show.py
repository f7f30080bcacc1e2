"""`viewer.show` and `viewer.render_image` on a graph built in code, headless.

`on_frame` runs once per simulated frame before the update (not while paused, except for
a step), what it changes is what the frame logs; scripted keys and clicks act as the
keyboard and mouse do; an error in `on_frame` reaches the caller and leaves GL usable.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import viewer

REPO = Path(__file__).resolve().parents[2]
SMALL = (320, 180)
sys.path.insert(0, str(REPO / "docs" / "examples"))  # the graph the chain_touch example shows
from chain_touch import build_chain as chain  # noqa: E402


def glow_pixels(img: np.ndarray) -> tuple[int, int]:
    """(red, orange) pixel counts: the local and the world glow colours."""
    r, g, b = (img[..., k].astype(int) for k in range(3))
    red = (r > 200) & (g < 90) & (b < 80)
    orange = (r > 200) & (g > 100) & (g < 190) & (b < 60)
    return int(red.sum()), int(orange.sum())


def test_importing_viewer_loads_no_gl():
    code = "import sys, viewer; print(sorted(m for m in sys.modules if 'moderngl' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO)  # fmt: skip
    assert out.stdout.strip() == "[]"
    assert callable(viewer.show) and callable(viewer.render_image)
    with pytest.raises(AttributeError):
        viewer.no_such_thing  # noqa: B018


def test_on_frame_runs_before_each_update_and_its_changes_are_logged(egl, capsys):
    calls = []

    def on_frame(graph, frame, t):
        calls.append((frame, t, graph.frame))  # graph.frame: updates done so far
        if frame % 2 == 0:
            graph["Obj4"].touch()

    result = viewer.show(chain(), on_frame=on_frame, headless=True, frames=4, size=SMALL,
                         log=True, overlay=False)  # fmt: skip
    # frame n at t = n / 60, after the layout update and the n - 1 frames before it
    assert calls == [(n, n / 60.0, n) for n in (1, 2, 3, 4)]
    assert result.frames == 4 and result.report.world_updated.size == 2
    assert capsys.readouterr().out.splitlines() == [
        "# frame 2", "*Update Local : Obj4*", "=Update World : Obj4=", "=Update World : Obj5=",
        "# frame 4", "*Update Local : Obj4*", "=Update World : Obj4=", "=Update World : Obj5=",
    ]  # fmt: skip


def test_paused_on_frame_runs_only_for_a_step(egl):
    frames = []
    result = viewer.show(chain(), on_frame=lambda g, f, t: frames.append(f), headless=True,
                         frames=6, size=SMALL, keys="Space@3,.@5")  # fmt: skip
    # redraws 1, 2 simulate; 3 pauses; 5 steps one frame; 4 and 6 stay put
    assert frames == [1, 2, 3] and result.frames == 3


def test_scripted_keys_move_and_touch_the_selection(egl, capsys):
    g = chain()
    before = g["Obj3"].local_position.copy()
    viewer.show(g, headless=True, frames=8, size=SMALL, select="Obj3", log=True,
                keys="L@1-5,T@7")  # fmt: skip
    moved = g["Obj3"].local_position - before
    assert np.allclose(moved, (5 * 0.05, 0, 0))  # held over frames 1-5: five steps
    blocks = capsys.readouterr().out.split("# frame ")[1:]
    assert [int(b.split("\n")[0]) for b in blocks] == [1, 2, 3, 4, 5, 7]
    assert all("*Update Local : Obj3*" in b for b in blocks)


def test_a_scripted_click_selects_like_the_mouse(egl):
    from viewer.embed.api import scene_for
    from viewer.keys.script import parse_clicks
    from viewer.window.runner import RunOptions, run

    def app_for(graph, clicks=()):
        options = RunOptions(size=SMALL, frames=2, samples=0, overlay=False,
                             script=parse_clicks(list(clicks)))  # fmt: skip
        return run(scene_for(graph), options, headless=True)

    g = chain()
    x, y = app_for(g).camera.project(g["Obj4"].world_position, SMALL)[0, :2]
    assert app_for(g, [f"{int(x)},{int(y)}@2"]).session.selected == g["Obj4"].id
    assert app_for(g, ["1,1@2"]).session.selected is None  # the empty corner


def test_an_error_in_on_frame_reaches_the_caller_and_gl_stays_usable(egl, tmp_path):
    def controller(graph, frame, t):
        if frame == 3:
            raise RuntimeError("controller failed")

    trace = tmp_path / "t.json"
    with pytest.raises(RuntimeError, match="controller failed") as info:
        viewer.show(chain(), on_frame=controller, headless=True, frames=10, size=SMALL,
                    trace=trace)  # fmt: skip
    assert "controller" in "".join(traceback.format_tb(info.tb))
    spans = [e["name"] for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"
             and e["cat"] == "frame"]  # fmt: skip
    assert spans == ["frame 1", "frame 2"]  # the trace up to the error is kept
    img = viewer.render_image(chain(), size=SMALL)  # the next run still works
    assert img.shape == (180, 320, 3)


def test_show_writes_what_it_is_asked_for(egl, tmp_path):
    result = viewer.show(chain(), headless=True, frames=3, size=SMALL, meshes={"Obj2": "sphere"},
                         screenshot=tmp_path / "a.png", trace=tmp_path / "t.json",
                         record=tmp_path / "r.gif")  # fmt: skip
    for path in (result.screenshot, result.trace, result.record):
        assert path.is_file() and path.stat().st_size > 0
    assert Image.open(result.screenshot).size == SMALL


def test_bad_arguments_are_refused_before_any_gl():
    with pytest.raises(ValueError, match="frames"):
        viewer.show(chain(), headless=True, frames=0)
    with pytest.raises(ValueError, match="size"):
        viewer.show(chain(), headless=True, size=(0, 10))
    with pytest.raises(KeyError, match="Obj9"):
        viewer.show(chain(), headless=True, select="Obj9")
    with pytest.raises(ValueError, match="unknown key 'Q'"):
        viewer.show(chain(), headless=True, keys="Q@1")


def test_outputs_and_the_display_are_checked_before_any_gl(tmp_path, monkeypatch):
    import viewer.window.runner

    monkeypatch.setattr(viewer.window.runner, "run", lambda *a, **k: pytest.fail("GL started"))
    for name in ("screenshot", "trace"):
        with pytest.raises(ValueError, match=f"{name}=.*is a folder"):
            viewer.show(chain(), headless=True, **{name: tmp_path})
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(viewer.window.runner.WindowError, match="headless=True"):
        viewer.show(chain())


def test_meshes_by_node_name_id_or_callable():
    from viewer.embed.api import DEFAULT_LOOK, scene_for

    g = chain()
    scene = scene_for(g, {g["Obj1"]: "sphere", "Obj2": "none", g["Obj3"].id: viewer.Look("cone")})
    kinds = [scene.look(n.id).mesh for n in g]
    assert kinds == ["sphere", "none", "cone", DEFAULT_LOOK.mesh, DEFAULT_LOOK.mesh]
    scene = scene_for(g, lambda node: "disk" if node.name == "Obj5" else None)
    assert [scene.look(n.id).mesh for n in g] == ["cube"] * 4 + ["disk"]
    with pytest.raises(ValueError, match="teapot"):
        scene_for(g, {"Obj1": "teapot"})
    with pytest.raises(KeyError, match="Obj9"):
        scene_for(g, {"Obj9": "cube"})


def test_render_image_glows_what_changed_since_the_last_update(egl):
    g = chain()
    first = viewer.render_image(g, size=(640, 360), overlay=False)
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8
    assert first.shape == (360, 640, 3)
    assert g.frame == 2  # the layout, then the picture's frame (with nothing to do)
    still = viewer.render_image(g, size=(640, 360))
    g["Obj3"].touch()
    lit = viewer.render_image(g, size=(640, 360))
    red, orange = glow_pixels(lit)
    red0, orange0 = glow_pixels(still)
    assert red > red0 + 300 and orange > orange0 + 600  # Obj3 red; Obj4, Obj5 orange
    assert g.frame == 4 and g.update().empty  # the touch was that picture's frame


def test_render_image_shows_as_png_in_a_notebook(egl):
    img = viewer.render_image(chain(), size=SMALL, overlay=False)
    png = img._repr_png_()
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")), img)
    assert img[:, :, 0]._repr_png_() is None  # a slice is no picture
