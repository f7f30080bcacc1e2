"""GPU skinning against a CPU reference written from the glTF rules, and what it uploads.

The reference skins the rig's cylinder on the CPU (each vertex: the weighted sum of
world(joint) @ inverseBind(joint) @ p) and draws the result as an ordinary mesh; the GPU's
skinned picture must cover the same pixels to within one pixel.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))  # tests/gltf_rig.py

from gltf_rig import cylinder, write_rig  # noqa: E402

from viewer.animation import apply_animation  # noqa: E402
from viewer.content.scene import Look, Scene  # noqa: E402
from viewer.io import load_scene  # noqa: E402
from viewer.render.camera import Camera  # noqa: E402
from viewer.render.frame_view import FrameViews, ViewSettings  # noqa: E402
from viewer.render.renderer import Renderer  # noqa: E402
from viewer.render.skins import load_skinned_program  # noqa: E402
from viewer.scene import SceneGraph  # noqa: E402

SIZE = (200, 200)
MAGENTA = [1.0, 0.0, 1.0, 1.0]


def _camera() -> Camera:
    cam = Camera()
    cam.frame(np.zeros(3), 3.0)
    return cam


def _mask(gl_ctx, target, scene) -> np.ndarray:
    r = Renderer(gl_ctx, scene)
    _draw(r, target, ViewSettings(unlit=True))
    img = target.read().astype(int)
    r.release()
    return (img[..., 0] > 200) & (img[..., 1] < 60) & (img[..., 2] > 200)


def _draw(r: Renderer, target, view: ViewSettings) -> None:
    """Draw the model alone (no grid, axes or lines) with `view`'s other settings."""
    view.show_grid = view.show_axes = view.show_links = False
    r.draw(FrameViews().extract(r.graph, view, target.fbo, SIZE), _camera())


def _two_sided(doc: dict) -> None:
    """The cylinder is open: seen from both sides like the reference, which has no
    material (glTF culls the back faces of a material that is not double-sided)."""
    doc["materials"][0]["doubleSided"] = True


def _rig(tmp_path, t: float | None, **options) -> Scene:
    options.setdefault("change", _two_sided)
    scene = load_scene(write_rig(tmp_path, color=MAGENTA, **options))
    scene.graph.update()
    if t is not None:
        apply_animation(scene, t)
        scene.graph.update()
    return scene


def _reference(positions: np.ndarray, normals, indices) -> Scene:
    g = SceneGraph()
    g.add("Reference")
    scene = Scene(graph=g, looks={0: Look(mesh="ref", color=tuple(MAGENTA[:3]))})
    scene.mesh_data["ref"] = (positions.astype(np.float32), normals, indices.astype(np.uint32))
    g.update()
    return scene


def _cpu_skinned(scene: Scene, weight_mode="float") -> np.ndarray:
    """The spec's skinning of the rig's cylinder, from the graph's world matrices."""
    pos, _nrm, _idx, joints, weights = cylinder(np.uint8, weight_mode)
    weights = weights.astype(np.float64)
    if weight_mode != "float":
        weights /= np.iinfo(np.uint8 if weight_mode == "u8" else np.uint16).max
    weights /= weights.sum(axis=1, keepdims=True)
    bones = [scene.graph[name].world_matrix for name in ("Bone0", "Bone1", "Bone2")]
    inverse_bind = [np.eye(4) for _ in range(3)]
    for k in range(3):
        inverse_bind[k][1, 3] = -(k - 1.5)
    homogeneous = np.hstack([pos.astype(np.float64), np.ones((len(pos), 1))])
    out = np.zeros((len(pos), 4))
    for v in range(len(pos)):
        for k in range(4):
            j = joints[v, k]
            out[v] += weights[v, k] * (bones[j] @ inverse_bind[j] @ homogeneous[v])
    return out[:, :3]


def _within_a_pixel(a: np.ndarray, b: np.ndarray) -> bool:
    def grow(m):
        g = m.copy()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                g |= np.roll(np.roll(m, dy, 0), dx, 1)
        return g

    return bool(not (a & ~grow(b)).any() and not (b & ~grow(a)).any())


@pytest.mark.parametrize("weights", ["float", "u8", "u16"])
@pytest.mark.parametrize("t", [0.35, 0.9])
def test_gpu_skinning_matches_the_cpu_reference_within_a_pixel(gl_ctx, target, tmp_path, t,
                                                                 weights):  # fmt: skip
    joints = np.uint16 if weights == "u16" else np.uint8
    scene = _rig(tmp_path, t, weights=weights, joints=joints)
    gpu = _mask(gl_ctx, target, scene)
    pos, nrm, idx, _j, _w = cylinder()
    cpu = _mask(gl_ctx, target, _reference(_cpu_skinned(scene, weights), nrm, idx))
    assert gpu.sum() > 300 and cpu.sum() > 300
    assert _within_a_pixel(gpu, cpu), (gpu ^ cpu).sum()


def test_rest_pose_is_the_bind_pose_and_moving_joints_move_the_mesh(gl_ctx, target, tmp_path):
    rest = _rig(tmp_path, None)
    rest.animation.pick(None)
    pos, nrm, idx, _j, _w = cylinder()
    undeformed = _mask(gl_ctx, target, _reference(pos, nrm, idx))
    assert _within_a_pixel(_mask(gl_ctx, target, rest), undeformed)
    early, late = (_mask(gl_ctx, target, _rig(tmp_path, t)) for t in (0.35, 0.9))
    assert (early ^ late).sum() > 100  # the joints moved between the two times
    # the mesh node's own transform (translation 5, 5, 5) plays no part
    assert np.allclose(rest.graph["Skin"].world_position, (5.0, 3.5, 5.0))


def test_joint_matrices_are_uploaded_only_when_joints_were_recomputed(gl_ctx, tmp_path):
    scene = _rig(tmp_path, None)
    g = scene.graph
    r = Renderer(gl_ctx, scene)
    skin_bytes = 3 * 64  # three joints, one float32 4x4 matrix each
    g.touch(g["Skin"])  # not a joint
    assert r.sync(g.update()) >= 0 and r.skins.bytes_last == 0
    g["Bone2"].local_position = (0.1, 1.0, 0.0)
    r.sync(g.update())
    assert r.skins.bytes_last == skin_bytes
    assert r.bytes_last == r.instances.bytes_last + skin_bytes
    assert r.sync(g.update()) == 0 and r.skins.bytes_last == 0  # nothing changed
    np.testing.assert_allclose(
        scene.skinning.skins[0].matrices(g.world_matrices())[2][:3, 3], (0.1, 0.0, 0.0),
        atol=1e-12,
    )  # fmt: skip
    r.release()


def test_the_skinned_program_compiles(gl_ctx):
    prog = load_skinned_program(gl_ctx)
    assert "u_joints" in prog and "in_weights" in prog
    prog.release()


def test_a_blended_skinned_mesh_is_mixed_with_what_lies_behind(gl_ctx, target, tmp_path):
    def opaque(doc):  # unlit: the base colour as is
        _two_sided(doc)
        doc["materials"][0]["extensions"] = {"KHR_materials_unlit": {}}
        doc["extensionsUsed"] = ["KHR_materials_unlit"]

    def blend(doc):
        opaque(doc)
        doc["materials"][0]["alphaMode"] = "BLEND"
        doc["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"] = [1.0, 0.0, 1.0, 0.5]

    def picture(change):
        scene = _rig(tmp_path, None, change=change)
        scene.animation.pick(None)
        r = Renderer(gl_ctx, scene)
        _draw(r, target, ViewSettings())
        img = target.read().astype(int)
        r.release()
        return img

    opaque, blended = picture(opaque), picture(blend)
    # the rest pose: the cylinder stands upright through the picture's centre
    cx, cy = SIZE[0] // 2, SIZE[1] // 2
    magenta = opaque[cy, cx]
    background = opaque[5, cx]  # above the cylinder's top: the backdrop
    mixed = blended[cy, cx]
    assert magenta[0] > 200 and magenta[1] < 60 and magenta[2] > 200, magenta
    # front and back walls of the open cylinder, each at alpha 0.5: 3/4 magenta, 1/4 backdrop
    expected = 0.75 * np.array([255, 0, 255]) + 0.25 * background
    assert np.all(np.abs(mixed - expected) <= 12), (mixed, expected)
