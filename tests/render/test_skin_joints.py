"""The joints of a skin show over the skinned mesh that covers them, in their glow colour.

The rig's bones lie inside its cylinder, so without the joint markers the moving joints
themselves would not show (the mesh around them glows by its weights: test_skin_glow.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_rig.py

from gltf_rig import write_rig  # noqa: E402

from viewer.animation import apply_animation  # noqa: E402
from viewer.io import load_scene  # noqa: E402
from viewer.palette import GLOW_LOCAL, GLOW_WORLD  # noqa: E402
from viewer.render.camera import Camera  # noqa: E402
from viewer.render.frame_view import FrameViews, ViewSettings  # noqa: E402
from viewer.render.joints import NEUTRAL, joint_colors  # noqa: E402
from viewer.render.renderer import Renderer  # noqa: E402

SIZE = (240, 240)
MAGENTA = [1.0, 0.0, 1.0, 1.0]
T_MOVING = 0.35  # Bend: Bone0 and Bone1 rotate, Bone1 scales


def _camera() -> Camera:
    cam = Camera()
    cam.frame(np.zeros(3), 3.0)
    return cam


def _red(img: np.ndarray) -> np.ndarray:
    return (img[..., 0] > 200) & (img[..., 1] < 90) & (img[..., 2] < 90)


def _magenta(img: np.ndarray) -> np.ndarray:
    return (img[..., 0] > 200) & (img[..., 1] < 60) & (img[..., 2] > 200)


def _pose_at(scene, t: float) -> None:
    """Put the rig in the Bend clip's pose at clip time `t` (as a scrub does)."""
    scene.animation.scrub(t)
    apply_animation(scene, 0.0, running=False)


def _draw(renderer: Renderer, target, links: bool = True, view=None) -> np.ndarray:
    """The picture unlit, without grid and axes (`view`: its glow settings)."""
    view = view if view is not None else ViewSettings()
    view.unlit = True
    view.show_grid = view.show_axes = False
    view.show_links = links
    renderer.draw(FrameViews().extract(renderer.graph, view, target.fbo, SIZE), _camera())
    return target.read().astype(int)


def _glow() -> ViewSettings:
    """The glow on show, as the overlay turns it on (the last frame synced glows)."""
    return ViewSettings(glow_on=True)


def _pixel(scene, name: str) -> tuple[int, int]:
    x, y, _depth = _camera().project(scene.graph[name].world_position[None], SIZE)[0]
    return int(round(y)), int(round(x))


def _near(mask: np.ndarray, row: int, col: int, r: int = 2) -> int:
    return int(mask[row - r : row + r + 1, col - r : col + r + 1].sum())


def test_a_moving_joint_glows_red_over_the_mesh_that_covers_it(gl_ctx, target, tmp_path):
    scene = load_scene(write_rig(tmp_path, color=MAGENTA))
    scene.graph.update()
    r = Renderer(gl_ctx, scene)
    _pose_at(scene, T_MOVING)
    report = scene.graph.update()
    assert scene.graph["Bone1"].id in np.asarray(report.local_updated)
    r.sync(report)
    view = _glow()
    row, col = _pixel(scene, "Bone1")
    view.glow_on = False  # the mesh's own glow aside (it glows too: test_skin_glow.py)
    covered = _draw(r, target, links=False, view=view)
    assert _near(_magenta(covered), row, col) == 25  # the mesh hides the joint ...
    assert not _red(covered).any()
    view.glow_on = True
    shown = _draw(r, target, view=view)
    assert _near(_red(shown), row, col) >= 9  # ... whose marker is drawn over it, red
    view.glow_style = "heat"  # the heat view colours nodes by heat: joints stay neutral
    assert not _red(_draw(r, target, view=view)).any()
    r.release()


def test_no_glow_on_the_joints_while_the_animation_is_paused(gl_ctx, target, tmp_path):
    scene = load_scene(write_rig(tmp_path, color=MAGENTA))
    _pose_at(scene, T_MOVING)
    scene.graph.update()
    r = Renderer(gl_ctx, scene)
    apply_animation(scene, T_MOVING + 1 / 60, running=False)  # paused: nothing changes
    report = scene.graph.update()
    assert len(report.local_updated) == 0
    r.sync(report)
    img = _draw(r, target, view=_glow())
    assert not _red(img).any()
    row, col = _pixel(scene, "Bone1")
    neutral = (np.abs(img[..., :3] - 255 * np.asarray(NEUTRAL[:3])) < 40).all(axis=-1)
    assert _near(neutral, row, col) >= 9  # the joint is still drawn, neutral
    r.release()


def test_joint_colours_follow_the_sign_and_strength_of_the_glow():
    colors = joint_colors(np.array([-1.0, 1.0, 0.0, -0.5]))
    np.testing.assert_allclose(colors[0, :3], GLOW_LOCAL, atol=1e-6)
    np.testing.assert_allclose(colors[1, :3], GLOW_WORLD, atol=1e-6)
    np.testing.assert_allclose(colors[2], NEUTRAL, atol=1e-6)
    np.testing.assert_allclose(colors[3, :3], (np.add(GLOW_LOCAL, NEUTRAL[:3])) / 2, atol=1e-6)


def test_markers_follow_the_posed_model_not_the_joints_scale():
    """An armature scaled by 100 over a mesh whose inverse binds undo it (as exporters
    write models in centimetres) is a model of the mesh's own size: the markers are a
    fixed share of that size, not 100 times larger."""
    from viewer.animation.skin import Skin, SkinnedMesh, Skinning
    from viewer.render.joints import MARKER_FRACTION, skin_spans

    pos = np.array([[0.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]], np.float32)
    worlds = np.stack([np.eye(4)] * 3)
    for k, scale in ((1, 100.0), (2, 100.0)):
        worlds[k, :3, :3] *= scale
    skin = Skin(np.array([1, 2]), np.linalg.inv(worlds[[1, 2]]))  # joint matrices = I
    skinning = Skinning(
        skins=[skin], meshes=[SkinnedMesh(0, "m", 0, (1.0, 1.0, 1.0))],
        attributes={"m": (np.zeros((3, 4), np.uint16),
                          np.tile([1.0, 0.0, 0.0, 0.0], (3, 1)).astype(np.float32))},
    )  # fmt: skip
    span = skin_spans(skinning, {"m": (pos, None, None)}, worlds)[0]
    assert span == pytest.approx(np.linalg.norm([1.0, 2.0, 0.0]))  # the mesh's own box
    assert MARKER_FRACTION * span < 0.05  # a few hundredths of a 2-unit model
