"""The depth pre-pass (`SurfacePass.draw_opaque`) and the culled glTF batches: the same
pixels with and without, on glTF materials (masked, blended, single-sided, morphed,
instanced) and on a crowd of overlapping glowing cubes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_looks.py

from gltf_looks import Doc, quad, showcase  # noqa: E402
from gltf_rig import FLOAT  # noqa: E402
from render_helpers import draw, light  # noqa: E402
from test_culling import grid_scene  # noqa: E402

from viewer.io import load_scene  # noqa: E402
from viewer.render import Camera, Renderer  # noqa: E402
from viewer.render.frame_view import ViewSettings  # noqa: E402

SIZE = (160, 120)


def pictures(renderer, target, camera, settings, variants) -> list[np.ndarray]:
    """One picture per (depth_prepass, culling enabled) of `variants`."""
    out = []
    for prepass, culled in variants:
        renderer.depth_prepass = prepass
        renderer.culler.enabled = culled and renderer.culler.available
        draw(renderer, target.fbo, camera, target.size, settings)
        out.append(target.read().copy())
    return out


def framed(renderer) -> Camera:
    camera = Camera()
    renderer.bounds.frame_camera(camera)
    return camera


def test_the_prepass_keeps_the_gltf_showcase(gl_ctx, target, tmp_path):
    scene = load_scene(showcase(tmp_path / "showcase.gltf"))
    scene.graph.update()
    renderer = Renderer(gl_ctx, scene)
    shown = ViewSettings(glow_on=True)
    light(renderer, {1: -1.0, 3: 0.6}, shown)
    on, off = pictures(renderer, target, framed(renderer), shown, [(True, True), (False, True)])
    assert (on == off).all()
    assert len(np.unique(on.reshape(-1, 4), axis=0)) > 100  # a picture, not a blank
    renderer.release()


def test_overlapping_glowing_cubes_shade_the_same_after_the_prepass(gl_ctx, target):
    renderer = Renderer(gl_ctx, grid_scene(("cube", "sphere")))
    shown = ViewSettings(glow_on=True)
    light(renderer, {3: -1.0, 50: 0.5, 77: 1.0}, shown)
    camera = Camera()
    camera.look_from((-4.0, 1.0, -4.0), (20.0, 0.0, 20.0))  # low: cubes behind cubes
    camera.extent = 40.0
    for style in ("fill", "rim", "heat"):
        shown.glow_style = style
        # culled or not, the prepass changes no pixel (culling turns the far cubes into
        # sprites: their picture is test_culling's)
        for culled in (True, False):
            on, off = pictures(renderer, target, camera, shown, [(True, culled), (False, culled)])
            assert (on == off).all(), (style, culled)
    renderer.release()


def test_a_culled_batch_of_masked_single_sided_instances(gl_ctx, target, tmp_path):
    """100 instances of a glTF quad, alpha-masked, single-sided, overlapping: one culled
    batch drawn part by part; culling and the prepass change no pixel."""
    d = Doc()
    texels = np.full((2, 2, 4), 255, np.uint8)
    texels[:, 0, 3] = 30  # the left half cut out
    tex = d.image(texels, {"magFilter": 9728, "minFilter": 9728})
    material = {"pbrMetallicRoughness": {"baseColorTexture": {"index": tex},
                                         "baseColorFactor": [0.2, 0.8, 0.4, 1.0]},
                "alphaMode": "MASK", "alphaCutoff": 0.5}  # fmt: skip
    spots = [[0.7 * (k % 10), 0.5 * (k // 10), -0.6 * (k % 7)] for k in range(100)]
    turns = [[0.0, float(np.sin(0.3 * k)), 0.0, float(np.cos(0.3 * k))] for k in range(100)]
    attrs = {
        "TRANSLATION": d.vec3(spots),
        "ROTATION": d.blob.add(np.asarray(turns, np.float32), FLOAT, "VEC4"),
    }
    d.node("Quads", mesh=d.mesh(quad(), material),
           extensions={"EXT_mesh_gpu_instancing": {"attributes": attrs}})  # fmt: skip
    d.doc.setdefault("extensionsUsed", []).append("EXT_mesh_gpu_instancing")
    scene = load_scene(d.write(tmp_path / "quads.gltf"))
    scene.graph.update()
    renderer = Renderer(gl_ctx, scene)
    assert len(renderer.culler.culled) == 1  # the instanced node's batch
    camera = Camera()
    camera.look_from((1.0, 1.0, 3.0), (1.5, 1.0, 0.0))  # close to a corner: some out of view
    camera.extent = 10.0
    shown = ViewSettings()
    images = pictures(renderer, target, camera, shown,
                      [(True, True), (False, True), (True, False), (False, False)])  # fmt: skip
    rows, full, _sprites = renderer.culler.drawn()
    assert 0 < full < rows
    for image in images[1:]:
        assert (image == images[0]).all()
    renderer.release()
