"""Skins are decoded and checked: joints, inverse bind matrices, vertex joints and weights."""

from __future__ import annotations

import numpy as np
import pytest
from gltf_rig import write_rig
from scene_helpers import load_error

from viewer.io import load_scene


def test_skin_is_decoded_with_node_ids(tmp_path):
    scene = load_scene(write_rig(tmp_path))
    skinning = scene.skinning
    g = scene.graph
    assert [g.name_of(j) for j in skinning.skins[0].joints] == ["Bone0", "Bone1", "Bone2"]
    (mesh,) = skinning.meshes
    assert g.name_of(mesh.node) == "Skin" and scene.look(mesh.node).mesh == "none"
    joints, weights = skinning.attributes[mesh.mesh]
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-6)
    assert joints.max() <= 2
    g.update()  # at rest every joint matrix is the identity (the bind pose)
    np.testing.assert_allclose(
        skinning.skins[0].matrices(g.world_matrices()), np.tile(np.eye(4), (3, 1, 1)), atol=1e-6
    )


def _prim(doc):
    return doc["meshes"][0]["primitives"][0]["attributes"]


BAD = {
    "joint not a node": (lambda d: d["skins"][0]["joints"].append(99), "'nodes'"),
    "joint outside the scene": (
        lambda d: (d["nodes"].append({"name": "Far"}), d["skins"][0]["joints"].append(5)),
        "joint node 5 is not in the imported scene",
    ),
    "no joints": (lambda d: d["skins"][0].update(joints=[]), "1..1024 nodes"),
    "skin out of range": (lambda d: d["nodes"][4].update(skin=3), "'skins'"),
    "joint index past the skin": (
        lambda d: d["skins"][0].update(joints=[1, 2]),
        "JOINTS_0 names joint 2, the skin has 2",
    ),
    "float joints": (
        lambda d: d["accessors"][_prim(d)["JOINTS_0"]].update(componentType=5126),
        "unsupported componentType",
    ),
    "weights short": (
        lambda d: d["accessors"][_prim(d)["WEIGHTS_0"]].update(count=3),
        "WEIGHTS_0 has 3 items",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_skins_give_one_line(tmp_path, case):
    change, needle = BAD[case]
    message = load_error(write_rig(tmp_path, "bad.gltf", change=change))
    assert needle in message, message
