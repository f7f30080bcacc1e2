"""A skinned mesh glows where its joints were recomputed (issue 34, item 7): the rig's
cylinder follows three bones in a chain; touching the middle bone lights the part of the
mesh its two upper joints move, in the glow's colours, and the bottom, which the lowest
(clean) joint moves, only by the weights its vertices give the middle bone; the glow
fades as the nodes' glow does, and a picked frame (still glow) lights it again."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_rig.py

from gltf_rig import write_rig  # noqa: E402

from viewer.io import load_scene  # noqa: E402
from viewer.render.camera import Camera  # noqa: E402
from viewer.render.frame_view import FrameViews, ViewSettings  # noqa: E402
from viewer.render.lights import Lighting  # noqa: E402
from viewer.render.renderer import Renderer  # noqa: E402

SIZE = (200, 200)
MAGENTA = [1.0, 0.0, 1.0, 1.0]


def _double_sided(doc: dict) -> None:
    doc["materials"][0]["doubleSided"] = True


#: The picture as the overlay shows it: glow on; no grid, axes, lines or joint markers.
VIEW = ViewSettings(show_grid=False, show_axes=False, show_links=False, show_joints=False,
                    glow_on=True)  # fmt: skip


def _draw(r, target) -> np.ndarray:
    cam = Camera()
    cam.frame(np.zeros(3), 3.0)
    r.draw(FrameViews().extract(r.graph, VIEW, target.fbo, SIZE), cam)
    return target.read().astype(int)


def test_touching_a_joint_lights_the_mesh_it_moves(gl_ctx, target, tmp_path):
    scene = load_scene(write_rig(tmp_path, color=MAGENTA, change=_double_sided))
    scene.animation.pick(None)
    g = scene.graph
    g.update()
    r = Renderer(gl_ctx, scene, Lighting(environment="none"))  # the key light: a dim magenta
    r.sync(g.update(), 1.0)  # a quiet frame: nothing glows
    before = _draw(r, target)
    mesh = (before[..., 0] > 60) & (before[..., 2] > 60)
    rows = np.flatnonzero(mesh.any(axis=1))
    assert rows.size > 40
    g.touch(g["Bone1"])
    report = g.update()
    assert {g.name_of(i) for i in report.world_updated.tolist()} == {"Bone1", "Bone2"}
    r.sync(report, 0.0)
    lit = _draw(r, target)
    change = np.abs(lit - before).max(axis=2) * mesh
    changed = (change > 20) & mesh
    top, bottom = rows[0], rows[-1]
    span = bottom - top
    upper = change[top : top + span // 3][mesh[top : top + span // 3]]
    lower = change[bottom - span // 12 : bottom + 1][mesh[bottom - span // 12 : bottom + 1]]
    assert (upper > 20).mean() > 0.9  # the part Bone1 and Bone2 move glows
    # the bottom rim follows the clean Bone0 alone, the rows above it partly Bone1: the
    # glow there is weak, by the vertex weights
    assert lower.mean() < 0.35 * upper.mean(), (lower.mean(), upper.mean())
    # redder where lit: the glow's red / orange over the magenta
    assert (lit[..., 1][changed] > before[..., 1][changed]).mean() > 0.9
    r.sync(g.update(), 2.0)  # the glow has faded: as before
    assert (np.abs(_draw(r, target) - before).max(axis=2) > 20).sum() == 0
    r.show_still(report, g.parents())  # the frame picked on the timeline: lit again
    assert ((np.abs(_draw(r, target) - before).max(axis=2) > 20) & mesh).sum() > 50
    r.release()
