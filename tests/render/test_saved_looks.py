"""A bundled scene and its `--save`d .glb, drawn through one camera, show the same picture:
the same colours (the built-in shading's display values against the glTF pass's linear
factor encoded to sRGB) and the same surfaces (flat shapes seen from behind included).

Drawn unlit, so that the two passes' lighting models (Blinn-Phong for built-in meshes,
the glTF BRDF for glTF meshes) do not enter: what remains is the colour each pass starts
from and which faces it draws.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from render_helpers import draw

from viewer.io import load_scene
from viewer.io.gltf_write.export import save_gltf
from viewer.render.camera import Camera
from viewer.render.frame_view import ViewSettings
from viewer.render.renderer import Renderer

SIZE = (320, 180)
SCENES = sorted((Path(__file__).resolve().parents[2] / "scenes").glob("*.toml"))
#: Pixels allowed to differ by more than one level: edges, where the two meshes' float32
#: vertices (scaled in the file, by the instance matrix in the scene) round differently.
EDGE_SHARE = 0.01


def _picture(gl_ctx, target, scene, camera) -> np.ndarray:
    scene.graph.update()
    r = Renderer(gl_ctx, scene)
    view = ViewSettings(unlit=True, show_grid=False, show_axes=False, show_links=False)
    draw(r, target.fbo, camera, SIZE, view)
    img = target.read().astype(np.int16)
    r.release()
    return img


@pytest.mark.parametrize("side", ["front", "opposite"])
@pytest.mark.parametrize("path", SCENES, ids=[p.stem for p in SCENES])
def test_a_saved_scene_draws_as_the_scene(gl_ctx, target, path, tmp_path, side):
    """Through the framing camera, and from the opposite side (below the scene, where
    the back faces of the flat shapes face the eye)."""
    scene = load_scene(path)
    scene.graph.update()
    at = np.array([n.world_matrix[:3, 3] for n in scene.graph])
    centre = (at.min(axis=0) + at.max(axis=0)) / 2
    camera = Camera()
    camera.frame(centre, float(np.linalg.norm(at - centre, axis=1).max()) + 1.0)
    if side == "opposite":
        camera.look_from(2 * centre - camera.eye, centre)
    save_gltf(scene, tmp_path / "a.glb")
    toml = _picture(gl_ctx, target, scene, camera)
    glb = _picture(gl_ctx, target, load_scene(tmp_path / "a.glb"), camera)
    covered = (toml != toml[0, 0]).any(axis=2)
    assert covered.mean() > 0.02  # the scene is in the picture
    off = np.abs(toml - glb).max(axis=2) > 1
    assert off.mean() <= EDGE_SHARE, f"{off.sum()} pixels differ, of {covered.sum()} drawn"


def test_rings_seen_from_behind_are_drawn(gl_ctx, target, tmp_path):
    """A disk seen from its back (-Z): the built-in shading draws it, and so must the glTF
    file (doubleSided)."""
    toml = tmp_path / "ring.toml"
    toml.write_text('[[node]]\nname = "ring"\nmesh = "disk"\nsize = 2\ncolor = "#8c9bb5"\n')
    scene = load_scene(toml)
    save_gltf(scene, tmp_path / "ring.glb")
    camera = Camera()
    camera.look_from((0.0, 0.0, -4.0), (0.0, 0.0, 0.0))
    for loaded in (scene, load_scene(tmp_path / "ring.glb")):
        img = _picture(gl_ctx, target, loaded, camera)
        centre = img[SIZE[1] // 2, SIZE[0] // 2]
        np.testing.assert_allclose(centre[:3], (0x8C, 0x9B, 0xB5), atol=1)
