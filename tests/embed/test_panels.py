"""Notebooks and embedding (issue 23, item 7): ``panels=False`` keeps the glow and the
names and leaves the panels out, and a narrow picture folds the panels so that the 3D
view keeps most of it."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import viewer
from viewer.embed.args import ArgumentError
from viewer.scene import SceneGraph


def node_mask(img: np.ndarray) -> np.ndarray:
    """Pixels of the default blue cubes, lit or shaded (the scene's own colour)."""
    r, g, b = (img[..., k].astype(int) for k in range(3))
    return (b > 90) & (b > r + 40) & (b > g + 15)


def glow_mask(img: np.ndarray) -> np.ndarray:
    r, g, b = (img[..., k].astype(int) for k in range(3))
    return (r > 180) & (b < 80) & (g < 190)


def spread(mask: np.ndarray) -> tuple[float, float]:
    """Share of the width and of the height between the first and last masked pixel."""
    ys, xs = np.nonzero(mask)
    h, w = mask.shape
    return (xs.max() - xs.min() + 1) / w, (ys.max() - ys.min() + 1) / h


def fan() -> SceneGraph:
    """A two-level tree spread over a square in the view plane."""
    g = SceneGraph()
    g.add("Root", position=(0.0, 2.0, 0.0))
    for k, x in enumerate((-3.0, 0.0, 3.0)):
        g.add(f"Arm{k}", parent="Root", position=(x, -2.0, 0.0))
        g.add(f"Hand{k}", parent=f"Arm{k}", position=(0.0, -2.0, 0.0))
    return g


def touched(name: str = "Arm0") -> SceneGraph:
    g = fan()
    g.update()
    g.touch(name)
    return g


def test_render_image_at_320x180_without_panels_is_mostly_scene(egl):
    bare = viewer.render_image(touched(), size=(320, 180), overlay=False)
    img = viewer.render_image(touched(), size=(320, 180), panels=False)
    assert img.shape == (180, 320, 3)
    # The scene fills the picture as it does with no overlay at all: the same framing,
    # no room kept for panels (the names only, at the right, take a little).
    width, height = spread(node_mask(img) | glow_mask(img))
    bare_width, bare_height = spread(node_mask(bare))
    assert width >= 0.45 and height >= 0.6
    assert width == pytest.approx(bare_width, abs=0.12)
    assert height == pytest.approx(bare_height, abs=0.12)
    # ... with the glow of the touch (red Arm0, orange Hand0) and the names.
    assert glow_mask(img).sum() > 100
    assert not np.array_equal(img, viewer.render_image(touched(), size=(320, 180)))


def test_render_image_at_640x360_with_panels_keeps_most_of_the_picture_for_the_view(egl):
    img = viewer.render_image(touched(), size=(640, 360))
    free = viewer.render_image(touched(), size=(640, 360), panels=False)
    width, height = spread(node_mask(img) | glow_mask(img))
    free_width, free_height = spread(node_mask(free) | glow_mask(free))
    assert width >= 0.6 * free_width and width >= 0.3  # not a strip between two panels
    assert height >= 0.7 * free_height
    assert not np.array_equal(img[:, :150], free[:, :150])  # the tree panel is there
    assert glow_mask(img[:, 200:]).sum() > 100  # the glow in the view beside it


def test_render_image_at_320x180_with_panels_folds_them(egl):
    img = viewer.render_image(touched(), size=(320, 180))
    free = viewer.render_image(touched(), size=(320, 180), panels=False)
    # Both panels folded to their title bars along the top: below them, the picture is
    # the same scene, framed the same way.
    assert np.abs(img[40:].astype(int) - free[40:].astype(int)).mean() < 4.0
    assert np.abs(img[:18].astype(int) - free[:18].astype(int)).mean() > 10.0


def touch_arm(graph, frame, t):
    graph.touch("Arm2")


def test_show_takes_panels_false(egl, tmp_path):
    out = tmp_path / "shot.png"
    result = viewer.show(fan(), headless=True, panels=False, size=(480, 270), screenshot=out,
                         on_frame=touch_arm)  # fmt: skip
    assert result.frames == 1 and out.exists()
    shot = np.asarray(Image.open(out).convert("RGB"))
    with_panels = tmp_path / "panels.png"
    viewer.show(fan(), headless=True, size=(480, 270), screenshot=with_panels, on_frame=touch_arm)
    panels = np.asarray(Image.open(with_panels).convert("RGB"))
    assert glow_mask(shot).sum() > 100
    assert not np.array_equal(shot[:, :100], panels[:, :100])
    assert node_mask(shot[:, :180]).sum() > 100  # the scene where the tree panel would be


def test_panels_must_be_true_or_false():
    with pytest.raises(ArgumentError, match="panels"):
        viewer.render_image(fan(), panels="no")
    with pytest.raises(ArgumentError, match="panels"):
        viewer.show(fan(), headless=True, panels=0)
