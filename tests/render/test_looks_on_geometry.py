"""Materials on the geometry features together, checked by pixels at known places: an
alpha-masked, textured mesh that is morphed and GPU-instanced, with a line primitive
of another material in the same mesh, and blended instances over an opaque backdrop.
Expected colours and places from the glTF spec (unlit rendering: plain colours)."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from gltf_geometry import Doc, mode_mesh
from test_geometry import SIZE, Picture

from viewer.io import load_scene

__all__ = ["SIZE"]  # the render fixtures read the module's SIZE

RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)
#: The morph target moves every vertex up by 2; the mesh's weight 0.5 moves it up by 1.
LIFT = 1.0
INSTANCES_X = (-2.0, 2.0)


def _png(pixels) -> str:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(np.asarray(pixels, np.uint8)).save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _instancing(doc: Doc, xs, y: float = 0.0) -> dict:
    t = np.array([[x, y, 0.0] for x in xs], np.float32)
    return {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": doc.accessor(t)}}}


def _material(doc: Doc, pbr: dict, **fields) -> int:
    return doc.add("materials", {"pbrMetallicRoughness": pbr, **fields})


def _plain_mesh(doc: Doc, pos, idx, material: int) -> int:
    prim = {"attributes": {"POSITION": doc.accessor(pos.astype(np.float32))},
            "indices": doc.accessor(idx), "material": material}  # fmt: skip
    return doc.add("meshes", {"primitives": [prim]})


def combined(path):
    """Node "Leaves": a mesh of two primitives, both morphed up by `LIFT` and drawn
    once per instance at x in `INSTANCES_X`: a unit quad centred on the origin, MASK,
    textured with a 2 x 1 image (left texel opaque green, right texel transparent), and a
    blue unlit line from (-0.4, 0.3) to (0.4, 0.3) just in front of it. Node "Glass":
    half-transparent white BLEND quads, instanced at the same x, at y = -1.5. Node
    "Backdrop": an opaque red quad behind everything (z = -1)."""
    doc = Doc()
    quad = np.array([[-0.5, -0.5, 0], [0.5, -0.5, 0], [0.5, 0.5, 0], [-0.5, 0.5, 0]], np.float32)
    uv = np.array([[0, 1], [1, 1], [1, 0], [0, 0]], np.float32)
    idx = np.array([0, 1, 2, 0, 2, 3], np.uint16)
    doc.doc["images"] = [{"uri": _png([[[0, 255, 0, 255], [255, 255, 255, 0]]])}]
    doc.doc["samplers"] = [{"magFilter": 9728, "minFilter": 9728}]
    doc.doc["textures"] = [{"source": 0, "sampler": 0}]
    leaf = _material(doc, {"baseColorTexture": {"index": 0}}, alphaMode="MASK", alphaCutoff=0.5)
    line = _material(doc, {"baseColorFactor": [0, 0, 1, 1]},
                     extensions={"KHR_materials_unlit": {}})  # fmt: skip
    glass = _material(doc, {"baseColorFactor": [1, 1, 1, 0.5]}, alphaMode="BLEND")
    red = _material(doc, {"baseColorFactor": [1, 0, 0, 1]})
    up = np.tile(np.float32([0, 2, 0]), (4, 1))
    seg = np.array([[-0.4, 0.3, 0.05], [0.4, 0.3, 0.05]], np.float32)
    doc.add("meshes", {"weights": [0.5], "primitives": [
        {"attributes": {"POSITION": doc.accessor(quad), "TEXCOORD_0": doc.accessor(uv)},
         "indices": doc.accessor(idx), "material": leaf,
         "targets": [{"POSITION": doc.accessor(up)}]},
        {"attributes": {"POSITION": doc.accessor(seg)}, "mode": 1, "material": line,
         "targets": [{"POSITION": doc.accessor(up[:2])}]},
    ]})  # fmt: skip
    _plain_mesh(doc, quad, idx, glass)
    _plain_mesh(doc, quad * np.float32([10, 8, 1]) + np.float32([0, 0, -1]), idx, red)
    doc.add("nodes", {"name": "Leaves", "mesh": 0, "extensions": _instancing(doc, INSTANCES_X)})
    doc.add("nodes", {"name": "Glass", "mesh": 1,
                      "extensions": _instancing(doc, INSTANCES_X, -1.5)})  # fmt: skip
    doc.add("nodes", {"name": "Backdrop", "mesh": 2})
    doc.doc["extensionsUsed"] = ["EXT_mesh_gpu_instancing", "KHR_materials_unlit"]
    return doc.write(path)


@pytest.fixture
def shot(gl_ctx, target, tmp_path):
    p = Picture(gl_ctx, target, load_scene(combined(tmp_path / "c.gltf")), (0.0, 0.0, 0.0), 3.5)
    yield p
    p.release()


@pytest.mark.parametrize("x", INSTANCES_X)
def test_a_masked_textured_morphed_instance_is_cut_out_where_its_texture_is_clear(shot, x):
    # the opaque texel's half, lifted by the morph: green; the clear half: the backdrop
    assert shot.at(x - 0.25, LIFT - 0.2) == GREEN
    assert shot.at(x + 0.25, LIFT - 0.2) == RED
    # nothing is left where the quad stood before the morph
    assert shot.at(x - 0.25, -0.3) == RED


@pytest.mark.parametrize("x", INSTANCES_X)
def test_the_line_primitive_keeps_its_own_material_and_morph(shot, x):
    px, py, _ = shot.cam.project([(x, 0.3 + LIFT, 0.05)], SIZE)[0]
    near = shot.img[int(py) - 2 : int(py) + 3, int(px) - 2 : int(px) + 3].reshape(-1, 3)
    assert any(tuple(int(c) for c in rgb) == BLUE for rgb in near)


@pytest.mark.parametrize("x", INSTANCES_X)
def test_blended_instances_mix_with_what_is_behind(shot, x):
    r, g, b = shot.at(x, -1.5)
    assert r > 200 and 40 < g < 230 and abs(g - b) <= 2, (r, g, b)


@pytest.mark.parametrize("mode", [0, 1])
def test_lines_and_points_without_normals_show_their_material_colour_unlit(
    gl_ctx, target, tmp_path, mode
):
    """With the lighting on, a red LINES or POINTS primitive without NORMAL is drawn in
    exactly its base colour (no surface to light), wherever the light comes from."""
    cross = [[-1, 0, 0], [1, 0, 0], [0, -1, 0], [0, 1, 0]]
    scene = load_scene(mode_mesh(tmp_path / "s.gltf", mode, cross))
    p = Picture(gl_ctx, target, scene, (0.0, 0.0, 0.0), 1.5)
    try:
        p.view.unlit = False
        p.shoot()
        px, py, _ = p.cam.project([(1.0, 0.0, 0.0) if mode == 0 else (0.5, 0.0, 0.0)], SIZE)[0]
        patch = p.img[int(py) - 1 : int(py) + 2, int(px) - 1 : int(px) + 2].reshape(-1, 3)
        assert any(tuple(int(c) for c in rgb) == RED for rgb in patch)
    finally:
        p.release()


def test_an_instanced_node_is_drawn_so_it_is_named_and_linked(gl_ctx, target, tmp_path):
    """A GPU-instanced node has no look of its own but draws its instances: it is not a
    quiet node (quiet.py), unlike an empty node beside it."""
    path = combined(tmp_path / "c.gltf")
    doc = json.loads(path.read_text())
    doc["nodes"].append({"name": "Empty"})
    path.write_text(json.dumps(doc))
    scene = load_scene(path)
    ids = {node.name: node.id for node in scene.graph}
    p = Picture(gl_ctx, target, scene, (0.0, 0.0, 0.0), 3.5)
    try:
        speaks = p.r.speaks(np.array([ids["Leaves"], ids["Glass"], ids["Empty"]]))
        assert speaks.tolist() == [True, True, False]
    finally:
        p.release()
