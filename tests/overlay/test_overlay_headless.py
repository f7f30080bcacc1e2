"""Headless screenshots after each touch of docs/semantics.md examples A and B.

The nodes in the frame report glow at their projected positions (red: local recomputed,
orange: world only), every other node keeps its own (cool) colour, the lines on the
propagation path glow, and the panel shows the report: the tree's L / W / E flags and the
log text of the report, to the letter.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from viewer.io import load_scene
from viewer.window.runner import RunOptions, run

REPO = Path(__file__).resolve().parents[2]
SIZE = (800, 400)


def glow_of(rgb) -> str:
    """ "red", "orange" or "none" for a pixel colour."""
    r, g, b = (int(v) for v in rgb)
    if r >= 170 and g <= 90 and b <= 80:
        return "red"
    if r >= 170 and 100 <= g <= 200 and b <= 90:
        return "orange"
    assert not (r > g + 40 and r > b + 40), f"a warm colour {rgb} that is not a glow"
    return "none"


def shoot(tmp_path, scene_name, touches, frames, overlay=True):
    """Run the scene headless (no scripted events, no motion); return (app, image)."""
    scene = load_scene(REPO / "scenes" / scene_name)
    scene.events = []
    shot = tmp_path / "shot.png"
    options = RunOptions(
        size=SIZE, frames=frames, still=True, touches=touches, screenshot=shot,
        samples=0, overlay=overlay,
    )  # fmt: skip
    app = run(scene, options, headless=True)
    return app, np.asarray(Image.open(shot).convert("RGB"))


def sample(img, xy) -> np.ndarray:
    """Median colour of the 5x5 pixels around continuous pixel position `xy`."""
    x, y = int(xy[0]), int(xy[1])
    patch = img[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3)
    return np.median(patch, axis=0)


def node_pixels(app):
    g = app.session.graph
    ids = g.alive_ids()
    px = app.camera.project(g.world_matrices()[ids, :3, 3], SIZE)
    return {g.name_of(int(i)): px[k, :2] for k, i in enumerate(ids.tolist())}


CASES = [
    # (scene, {frame: [names]}, frames, red, orange): docs/semantics.md examples A and B
    ("chain5.toml", {1: ["Obj3"]}, 1, {"Obj3"}, {"Obj4", "Obj5"}),
    # touch(Obj4) half a second later: Obj3's glow has faded out by then
    ("chain5.toml", {1: ["Obj3"], 32: ["Obj4"]}, 32, {"Obj4"}, {"Obj5"}),
    ("tree10.toml", {2: ["Obj2"]}, 2, {"Obj2"}, {"Obj5", "Obj8", "Obj9"}),
    ("tree10.toml", {1: ["Obj3"]}, 1, {"Obj3"}, {"Obj6", "Obj10"}),
    ("tree10.toml", {1: ["Obj4"]}, 1, {"Obj4"}, {"Obj7"}),
    ("tree10.toml", {1: ["Obj5"]}, 1, {"Obj5"}, {"Obj8", "Obj9"}),
    ("tree10.toml", {1: ["Obj2", "Obj5"]}, 1, {"Obj2", "Obj5"}, {"Obj8", "Obj9"}),
]


@pytest.mark.parametrize(("scene", "touches", "frames", "red", "orange"), CASES)
def test_report_glows_at_the_nodes_and_fills_the_panel(
    egl, tmp_path, scene, touches, frames, red, orange
):
    app, img = shoot(tmp_path, scene, touches, frames)
    report = app.session.last_report
    seen = {name: glow_of(sample(img, xy)) for name, xy in node_pixels(app).items()}
    expected = {name: "red" if name in red else "orange" if name in orange else "none"
                for name in seen}  # fmt: skip
    assert seen == expected

    panel = app.overlay.panel
    assert panel.frames.log.block_of(frames) == report.log_lines()
    flags = dict(panel.scene.tree.tree_drawn)
    assert set(flags) == set(seen)  # every node listed (the tree starts open)
    for name in seen:
        want = "L W E" if name in red else ". W E" if name in orange else ". . ."
        assert flags[name] == want, name


def test_lines_on_the_propagation_path_glow(egl, tmp_path):
    app, img = shoot(tmp_path, "tree10.toml", {1: ["Obj2"]}, 1)
    px = node_pixels(app)

    def middle(a, b):
        return (px[a] + px[b]) / 2.0

    for parent, child in (("Obj2", "Obj5"), ("Obj5", "Obj8"), ("Obj5", "Obj9")):
        assert glow_of(sample(img, middle(parent, child))) == "orange", (parent, child)
    for parent, child in (("Obj1", "Obj2"), ("Obj1", "Obj3"), ("Obj3", "Obj6")):
        assert glow_of(sample(img, middle(parent, child))) == "none", (parent, child)


def test_glowing_nodes_have_a_halo(egl, tmp_path):
    app, img = shoot(tmp_path, "tree10.toml", {1: ["Obj4"]}, 1)
    x, y = node_pixels(app)["Obj7"]
    # Walk right from Obj7's centre to its edge: the first background pixel is the halo.
    row = img[int(y)]
    kinds = [glow_of(row[int(x) + k]) for k in range(0, 60)]
    edge = kinds.index("none") if "none" in kinds else None
    assert edge is not None and edge > 3
    halo = row[int(x) + edge - 2 : int(x) + edge + 4].astype(int)
    assert (halo[:, 0] > 200).any()  # bright warm rim pixels around the node


def test_no_overlay_draws_no_glow_and_no_panel(egl, tmp_path):
    app, img = shoot(tmp_path, "tree10.toml", {1: ["Obj2"]}, 1, overlay=False)
    assert app.overlay is None
    for name, xy in node_pixels(app).items():
        assert glow_of(sample(img, xy)) == "none", name
    assert app.camera.shift_x == 0.0


def test_no_imgui_ini_is_written(egl, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shoot(tmp_path, "tree10.toml", {1: ["Obj2"]}, 1)
    assert not list(tmp_path.glob("*.ini"))
