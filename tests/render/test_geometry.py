"""glTF geometry on screen, checked by pixels at known places: morph targets (default,
node and animated weights), EXT_mesh_gpu_instancing (instances where their TRS says,
re-posed with their node, glowing with it), and the non-triangle primitive modes.
Files built in code (tests/gltf_geometry.py); expected places from the glTF spec."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from gltf_geometry import instanced_quads, mode_mesh, morph_quad
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.animation import apply_animation
from viewer.io import load_scene
from viewer.palette import GLOW_LOCAL
from viewer.render.camera import Camera
from viewer.render.frame_view import FrameViews, ViewSettings
from viewer.render.renderer import Renderer
from viewer.session.session import Session

SIZE = (240, 240)
RED = (255, 0, 0)


class Picture:
    """A renderer of a scene and a camera looking at `center`; `at(x, y, z)` is the
    pixel where that world point lands."""

    def __init__(self, gl_ctx, target, scene, center, radius):
        scene.graph.update()
        self.scene, self.target = scene, target
        self.r = Renderer(gl_ctx, scene)
        self.view = ViewSettings(unlit=True, show_grid=False, show_axes=False, show_links=False)
        self.cam = Camera()
        self.cam.frame(np.asarray(center, float), radius)
        self.shoot()

    def shoot(self):
        view = FrameViews().extract(self.scene.graph, self.view, self.target.fbo, SIZE)
        self.r.draw(view, self.cam)
        self.img = self.target.read()

    def at(self, x, y, z=0.0):
        px, py, _ = self.cam.project([(x, y, z)], SIZE)[0]
        return tuple(int(c) for c in self.img[int(py), int(px)])

    def is_red(self, x, y, z=0.0):
        return self.at(x, y, z) == RED

    def release(self):
        self.r.release()


@pytest.fixture
def picture(gl_ctx, target):
    made = []

    def make(scene, center=(1.5, 0.5, 0.0), radius=2.0):
        made.append(Picture(gl_ctx, target, scene, center, radius))
        return made[-1]

    yield make
    for p in made:
        p.release()


# -- morph targets ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "left"),
    [({"weights": [0.5]}, 1.0), ({"weights": [1.0], "node_weights": [0.0]}, 0.0),
     ({}, 0.0), ({"weights": [0.25]}, 0.5)],
)  # fmt: skip
def test_a_morph_stands_where_its_weights_put_it(picture, tmp_path, kwargs, left):
    """One target moves the unit quad by (2, 0, 0): at weight w it spans x = 2w..2w+1
    (the node's weights win over the mesh's; none: zero)."""
    p = picture(load_scene(morph_quad(tmp_path / "m.gltf", **kwargs)))
    assert p.is_red(left + 0.5, 0.5) and p.is_red(left + 0.1, 0.9)
    assert not p.is_red(left - 0.3, 0.5) and not p.is_red(left + 1.3, 0.5)


def test_a_skinned_mesh_is_morphed_then_skinned(picture, tmp_path):
    """glTF: morph targets apply before skinning. The quad follows its joint at (0, 3, 0)
    with the morph's (1, 0, 0) on top: x = 1..2, y = 3..4."""
    scene = load_scene(morph_quad(tmp_path / "m.gltf", weights=[0.5], bone=(0.0, 3.0, 0.0)))
    p = picture(scene, center=(1.5, 3.5, 0.0))
    assert p.is_red(1.5, 3.5) and not p.is_red(0.5, 3.5) and not p.is_red(1.5, 0.5)
    scene.geometry.set_weights(scene.graph["Morph"].id, [0.0])
    p.r.sync(scene.graph.update())
    p.shoot()
    assert p.is_red(0.5, 3.5) and not p.is_red(1.5, 3.5)


def test_a_weights_channel_morphs_and_says_which_node_changed(picture, tmp_path):
    scene = load_scene(
        morph_quad(tmp_path / "m.gltf", channel=("LINEAR", [0.0, 1.0], [[0.0], [1.0]]))
    )
    p = picture(scene)
    assert p.is_red(0.5, 0.5) and not p.is_red(1.5, 0.5)
    apply_animation(scene, 0.5)
    assert scene.geometry.take_changed() == {0}
    assert scene.geometry.take_changed() == frozenset()  # taken once
    written = p.r.sync(scene.graph.update())
    assert written > 0
    p.shoot()
    assert p.is_red(1.5, 0.5) and not p.is_red(0.5, 0.5)  # halfway: x = 1..2
    assert p.r.sync(scene.graph.update()) == 0  # nothing changed, nothing morphed


def test_the_session_frame_lists_the_nodes_whose_weights_changed(tmp_path):
    scene = load_scene(
        morph_quad(tmp_path / "m.gltf", channel=("STEP", [0.0, 0.04, 1.0], [[0.0], [1.0], [1.0]]))
    )
    session = Session(scene, fixed_step=1 / 60)
    frames = [session.step(1 / 60) for _ in range(5)]
    changed = [f.number for f in frames if f.weights]
    assert changed == [3]  # t = 3/60 is the first frame past the key at 0.04
    assert frames[2].weights == {0} and frames[2].report.executed.size == 0


# -- instancing ---------------------------------------------------------------------------
def test_instances_stand_where_their_trs_says_and_follow_their_node(picture, tmp_path):
    scene = load_scene(
        instanced_quads(tmp_path / "i.gltf", [[-2, 0, 0], [0, 0, 0], [2, 0, 0]], scale=0.5)
    )
    p = picture(scene, center=(0.0, 0.5, 0.0), radius=3.0)
    for x in (-2.0, 0.0, 2.0):  # each instance: a 0.5-wide quad centred at x
        assert p.is_red(x, 0.0) and p.is_red(x + 0.2, 0.2)
    assert not p.is_red(-1.0, 0.0) and not p.is_red(1.0, 0.0) and not p.is_red(0.0, 0.4)
    node = scene.graph["Crowd"]
    node.local_position = (0.0, 1.0, 0.0)
    p.r.sync(scene.graph.update())
    p.shoot()
    for x in (-2.0, 0.0, 2.0):
        assert p.is_red(x, 1.0) and not p.is_red(x, 0.0)
    p.view.glow_on = True  # (as the overlay turns it on)
    p.r.light([node.id])  # its own change, at full strength: all instances take it
    p.shoot()
    glow = tuple(round(255 * c) for c in GLOW_LOCAL)
    for x in (-2.0, 0.0, 2.0):
        assert all(abs(a - b) <= 2 for a, b in zip(p.at(x, 1.0), glow, strict=True))


def test_instances_count_in_the_framing(picture, tmp_path):
    scene = load_scene(instanced_quads(tmp_path / "i.gltf", [[-20, 0, 0], [20, 0, 0]]))
    p = picture(scene)
    center, radius = p.r.bounds.sphere()
    assert radius >= 20.0


# -- primitive modes ----------------------------------------------------------------------
CROSS = [[-1, 0, 0], [1, 0, 0], [0, -1, 0], [0, 1, 0]]


@pytest.mark.parametrize(
    ("mode", "indices", "on", "off"),
    [
        (1, None, [(0.5, 0.0), (0.0, 0.5)], [(0.5, 0.5), (-0.5, -0.5)]),  # LINES: two
        (3, [0, 2, 1], [(-0.5, -0.5), (0.5, -0.5)], [(0.0, 0.5)]),  # LINE_STRIP: open
        (2, [0, 2, 1], [(-0.5, -0.5), (0.5, -0.5), (0.0, 0.0)], [(0.0, 0.5)]),  # LOOP: closed
        (0, None, [(1.0, 0.0), (0.0, -1.0)], [(0.5, 0.0), (0.0, 0.0)]),  # POINTS
    ],
)
def test_lines_and_points_draw_on_their_places(picture, tmp_path, mode, indices, on, off):
    p = picture(load_scene(mode_mesh(tmp_path / "s.gltf", mode, CROSS, indices)),
                center=(0.0, 0.0, 0.0), radius=1.5)  # fmt: skip
    for x, y in on:
        assert _red_near(p, x, y), (x, y)
    for x, y in off:
        assert not _red_near(p, x, y), (x, y)


def _red_near(p, x, y, reach=1):
    """Red within `reach` pixels of where (x, y, 0) lands (lines are one pixel wide)."""
    px, py, _ = p.cam.project([(x, y, 0.0)], SIZE)[0]
    patch = p.img[int(py) - reach : int(py) + reach + 1, int(px) - reach : int(px) + reach + 1]
    return bool(np.any(np.all(patch == RED, axis=-1)))


def test_a_triangle_fan_fills_around_its_first_vertex(picture, tmp_path):
    fan = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [-1, 1, 0]]
    p = picture(load_scene(mode_mesh(tmp_path / "f.gltf", 6, fan)), center=(0, 0.5, 0))
    assert p.is_red(0.8, 0.3) and p.is_red(0.5, 0.8) and p.is_red(-0.3, 0.8)
    assert not p.is_red(-0.8, 0.3)  # outside the last triangle (0,0)-(0,1)-(-1,1)


# -- the morph pass against an oracle -------------------------------------------------------
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_the_morph_pass_matches_the_spec_formula(gl_ctx, data):
    """Random meshes, targets and weight sequences: after each sync the node's morphed
    copy holds base + sum_t w_t * dP_t and normal + sum_t w_t * dN_t (glTF 3.7.2.2),
    whatever weights came before (the pass skips unchanged weights)."""
    from viewer.content.geometry import Geometry, MorphedNode, MorphTargets
    from viewer.content.meshes import from_arrays
    from viewer.render.gpu_mesh import GpuMesh
    from viewer.render.morph import MorphMeshes

    n = data.draw(st.integers(1, 40), "vertices")
    t = data.draw(st.integers(1, 9), "targets")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31), "seed"))
    pos = rng.normal(size=(n, 3)).astype(np.float32)
    nrm = rng.normal(size=(n, 3)).astype(np.float32)
    dp = rng.normal(size=(t, n, 3)).astype(np.float32)
    dn = rng.normal(size=(t, n, 3)).astype(np.float32) if data.draw(st.booleans()) else None
    geometry = Geometry(targets={"m": MorphTargets(dp, dn, np.zeros(t))},
                        morphed=[MorphedNode(7, "m")], weights={7: np.zeros(t)})  # fmt: skip
    gpu = {"m": GpuMesh(gl_ctx, from_arrays(pos, nrm, np.arange(n - n % 3, dtype=np.uint32)))}
    morphs = MorphMeshes(gl_ctx, geometry, gpu)
    try:
        for _ in range(data.draw(st.integers(1, 4), "steps")):
            w = data.draw(st.lists(st.sampled_from([0.0, 0.25, -0.5, 1.0, 2.0]),
                                   min_size=t, max_size=t))  # fmt: skip
            geometry.set_weights(7, w)
            morphs.sync()
            # a vertex: position 3, normal 3, then the rest (meshes.VERTEX_FORMAT)
            got = np.frombuffer(gpu[morphs.kind_of[7]].vbo.read(), np.float32).reshape(n, -1)
            want_p = pos + np.tensordot(np.float32(w), dp, axes=1)
            want_n = nrm + (0 if dn is None else np.tensordot(np.float32(w), dn, axes=1))
            np.testing.assert_allclose(got[:, :3], want_p, atol=1e-4)
            np.testing.assert_allclose(got[:, 3:6], want_n, atol=1e-4)
    finally:
        morphs.release()
        for mesh in gpu.values():
            mesh.release()


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_instances_follow_every_recompute_of_their_node(gl_ctx, data):
    """A chain of nodes, the last one instanced: after random edits anywhere on the chain
    and the renderer's sync, every instance row is world(node) @ local_k (an oracle
    that multiplies the chain's TRS matrices itself)."""
    from viewer.content.geometry import Geometry, InstancedNode
    from viewer.content.scene import Scene
    from viewer.scene import SceneGraph
    from viewer.scene.math import trs_matrices

    g = SceneGraph()
    depth = data.draw(st.integers(1, 4), "depth")
    nodes: list = []
    for k in range(depth):
        nodes.append(g.add(f"n{k}", parent=nodes[-1] if nodes else None))
    ids = [node.id for node in nodes]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31), "seed"))
    count = data.draw(st.integers(1, 6), "instances")
    q = rng.normal(size=(count, 4))
    locals_ = trs_matrices(rng.normal(size=(count, 3)), q / np.linalg.norm(q, axis=1)[:, None],
                           rng.uniform(0.5, 2.0, size=(count, 3)))  # fmt: skip
    scene = Scene(graph=g, mesh_data={"m": (QUAD_F, np.zeros_like(QUAD_F), QUAD_I)})
    scene.geometry = Geometry(instanced=[InstancedNode(ids[-1], "m", (1, 0, 0), locals_)])
    g.update()
    r = Renderer(gl_ctx, scene)
    try:
        for _ in range(data.draw(st.integers(1, 4), "edits")):
            k = data.draw(st.integers(0, depth - 1), "which")
            node = g[f"n{k}"]
            node.local_position = tuple(rng.normal(size=3))
            r.sync(g.update())
            (batch,) = r.gpu_instances.batches
            got = np.frombuffer(batch.matrices.read(), np.float32).reshape(count, 4, 4)
            world = np.eye(4)
            for j in range(depth):
                world = world @ _trs(g[f"n{j}"])
            want = np.transpose(world @ locals_, (0, 2, 1))  # column-major rows
            np.testing.assert_allclose(got, want, atol=1e-4)
    finally:
        r.release()


def test_instances_set_by_an_animation_are_rewritten_and_lit(gl_ctx):
    """An "instances" channel (an animated USD PointInstancer) writes the instance
    matrices (`Geometry.set_instances`), records the node, and the renderer's `light`
    rewrites exactly those rows: world(node) @ the new locals."""
    from viewer.animation.clip import Channel, Clip
    from viewer.animation.player import AnimationPlayer
    from viewer.content.geometry import Geometry, InstancedNode
    from viewer.content.scene import Scene
    from viewer.scene import SceneGraph
    from viewer.scene.math import trs_matrices

    g = SceneGraph()
    node = g.add("scatter", position=(1.0, 2.0, 3.0))
    rng = np.random.default_rng(7)
    q = rng.normal(size=(2, 5, 4))
    keys = trs_matrices(rng.normal(size=(10, 3)), (q / np.linalg.norm(q, axis=2)[..., None])
                        .reshape(-1, 4), np.ones((10, 3))).reshape(2, 5, 4, 4)  # fmt: skip
    scene = Scene(graph=g, mesh_data={"m": (QUAD_F, np.zeros_like(QUAD_F), QUAD_I)})
    scene.geometry = Geometry(instanced=[InstancedNode(node.id, "m", (1, 0, 0),
                                                       keys[0].copy())])  # fmt: skip
    channel = Channel(node.id, "instances", "LINEAR", np.array([0.0, 1.0]), keys.reshape(2, -1))
    scene.animation = AnimationPlayer([Clip("c", (channel,))])
    g.update()
    r = Renderer(gl_ctx, scene)
    try:
        apply_animation(scene, 0.25)
        r.sync(g.update())
        changed = scene.geometry.take_changed()
        assert changed == {node.id}
        r.light(sorted(changed))
        (batch,) = r.gpu_instances.batches
        got = np.frombuffer(batch.matrices.read(), np.float32).reshape(5, 4, 4)
        blend = 0.75 * keys[0] + 0.25 * keys[1]  # LINEAR, a quarter of the way
        want = np.transpose(g.world_matrices()[node.id] @ blend, (0, 2, 1))
        np.testing.assert_allclose(got, want, atol=1e-5)
        apply_animation(scene, 0.25)  # the same pose again: nothing changed
        assert not scene.geometry.take_changed()
    finally:
        r.release()


QUAD_F = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
QUAD_I = np.array([0, 1, 2, 0, 2, 3], np.uint32)


def _trs(node) -> np.ndarray:
    """T R S of a node's local values, written out from the quaternion."""
    x, y, z, w = np.asarray(node.local_rotation, float)
    rot = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    m = np.eye(4)
    m[:3, :3] = rot * np.asarray(node.local_scale, float)
    m[:3, 3] = node.local_position
    return m


def test_a_click_on_an_instance_picks_its_node(picture, tmp_path):
    from viewer.collision.ray import pick

    scene = load_scene(instanced_quads(tmp_path / "i.gltf", [[-2, 0, 0], [2, 0, 0]]))
    p = picture(scene, center=(0.0, 0.0, 0.0), radius=3.0)
    ids, worlds, lo, hi = p.r.bounds.node_boxes()
    crowd = scene.graph["Crowd"].id
    for x in (-2.0, 2.0):
        eye = np.array([x, 0.0, 5.0])
        index, _ = pick(eye, np.array([0.0, 0.0, -1.0]), worlds, lo, hi)
        assert index >= 0 and ids[index] == crowd
    index, _ = pick(np.array([0.0, 0.0, 5.0]), np.array([0.0, 0.0, -1.0]), worlds, lo, hi)
    assert index < 0  # between the instances: nothing


def test_the_morph_pass_copies_whatever_the_vertex_layout_holds(gl_ctx, monkeypatch):
    """The pass writes mesh vertex buffers, so it follows `meshes.VERTEX_FORMAT`: an
    attribute added to the layout is declared and copied through."""
    from viewer.content import meshes
    from viewer.render.morph import morph_program

    monkeypatch.setattr(meshes, "VERTEX_FORMAT", f"{meshes.VERTEX_FORMAT} 2f")
    monkeypatch.setattr(meshes, "VERTEX_ATTRS", (*meshes.VERTEX_ATTRS, "in_extra"))
    prog = morph_program(gl_ctx)
    try:
        assert "in_extra" in prog and "out_extra" in prog and "u_weights" in prog
    finally:
        prog.release()


def test_log_prints_a_weights_line_for_the_frame_it_changed(tmp_path, capsys):
    from viewer.cli.main import main

    channel = ("STEP", [0.0, 0.04, 1.0], [[0.0], [1.0], [1.0]])
    path = morph_quad(tmp_path / "m.gltf", channel=channel)
    assert main([str(path), "--headless", "--frames", "4", "--log", "--size", "64x64"]) == 0
    out = capsys.readouterr().out
    assert out == "# frame 3\n~Weights      : Morph~\n"


def test_instances_of_a_morphed_mesh_share_the_morph(picture, tmp_path):
    path = instanced_quads(tmp_path / "i.gltf", [[-2, 0, 0], [2, 0, 0]], scale=0.5)
    doc = json.loads(path.read_text())
    delta = doc["accessors"][0].copy()  # a target that moves every vertex by (0, 2, 0)
    raw = np.tile(np.float32([0, 2, 0]), (4, 1)).tobytes()
    blob = base64.b64decode(doc["buffers"][0]["uri"].split(",")[1])
    offset = len(blob) + (-len(blob) % 4)
    blob = blob + b"\0" * (offset - len(blob)) + raw
    doc["bufferViews"].append({"buffer": 0, "byteOffset": offset, "byteLength": len(raw)})
    delta.update(bufferView=len(doc["bufferViews"]) - 1)
    doc["accessors"].append(delta)
    prim = doc["meshes"][0]["primitives"][0]
    prim["targets"] = [{"POSITION": len(doc["accessors"]) - 1}]
    doc["meshes"][0]["weights"] = [0.5]  # up by 1 before the instances' 0.5 scale: 0.5
    doc["buffers"][0] = {"byteLength": len(blob), "uri": "data:application/octet-stream;"
                         "base64," + base64.b64encode(blob).decode()}  # fmt: skip
    path.write_text(json.dumps(doc))
    p = picture(load_scene(path), center=(0.0, 0.5, 0.0), radius=3.0)
    for x in (-2.0, 2.0):  # each instance: its quad raised by 0.5 x 1 = 0.5
        assert p.is_red(x, 0.5) and not p.is_red(x, -0.15)
