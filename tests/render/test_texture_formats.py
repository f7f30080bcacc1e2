"""A quad textured through each texture extension (KTX2 Basis ETC1S and UASTC, KTX2
RGBA8, WebP, AVIF: tests/gltf_textures.py) is drawn in the texture's colours, the right
way up."""

from __future__ import annotations

import os

import numpy as np
import pytest
from gltf_textures import BLUE, GREEN, RED, WHITE, textured_quad
from PIL import Image
from render_helpers import draw

from viewer.io import load_scene
from viewer.render.camera import Camera
from viewer.render.frame_view import ViewSettings
from viewer.render.renderer import Renderer

SIZE = (160, 160)


def _render(gl_ctx, target, path):
    scene = load_scene(path)
    scene.graph.update()
    r = Renderer(gl_ctx, scene)
    view = ViewSettings(unlit=True, show_grid=False, show_axes=False, show_links=False)
    cam = Camera()
    cam.frame(np.array([1.0, 1.0, 0.0]), 1.2)
    draw(r, target.fbo, cam, SIZE, view)
    img = target.read()
    r.release()
    return img, cam


@pytest.mark.parametrize("kind", ["etc1s", "uastc", "rgba8", "webp", "avif"])
def test_each_format_draws_its_colours_the_right_way_up(gl_ctx, target, tmp_path, kind):
    img, cam = _render(gl_ctx, target, textured_quad(tmp_path / "t.gltf", kind))
    if os.environ.get("SGVIEW_KEEP_RENDER"):  # to look at one
        Image.fromarray(img[..., :3]).save(tmp_path.parent / f"texture_{kind}.png")
    for (x, y), want in (((0.5, 1.5), RED), ((1.5, 1.5), GREEN), ((0.5, 0.5), BLUE),
                         ((1.5, 0.5), WHITE)):  # fmt: skip
        px, py, _ = cam.project([(x, y, 0.0)], SIZE)[0]
        got = img[int(py), int(px), :3].astype(int)
        assert np.abs(got - want).max() <= 6, (kind, (x, y), got)
