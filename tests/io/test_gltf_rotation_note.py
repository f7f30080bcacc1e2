"""A node rotation that is not a unit quaternion loads normalised, as before, with one
note per file naming the first such node: the spec asks for unit quaternions and the
Khronos validator reports ROTATION_NON_UNIT past |length - 1| > 0.00769."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from viewer.io import load_scene
from viewer.io.gltf_read.scene import UNIT_TOLERANCE, read_gltf

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "gltf-validator-corpus"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/gltf-validator-corpus")


def _gltf(tmp_path: Path, rotations: list, names: list | None = None) -> Path:
    nodes = [{"rotation": r} for r in rotations]
    for node, name in zip(nodes, names or [], strict=False):
        node["name"] = name
    doc = {
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "nodes": nodes,
    }
    path = tmp_path / "rotations.gltf"
    path.write_text(json.dumps(doc))
    return path


def _rotation_notes(notes: list[str]) -> list[str]:
    return [note for note in notes if "unit quaternion" in note]


def test_one_note_names_the_first_node_and_counts_the_others(tmp_path):
    path = _gltf(
        tmp_path,
        [[0, 0, 0, 1], [1e300, 0, 0, 0], [0, 2, 0, 0], [1e200, 1e200, 0, 0]],
        ["fine", "X", "Y", "Z"],
    )
    model = read_gltf(path)
    assert _rotation_notes(model.notes) == [
        f"{path}: node 'X' (and 2 more): rotation is not a unit quaternion (length 1e+300); "
        "normalised"
    ]
    expected = [[0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0], [0.5**0.5, 0.5**0.5, 0, 0]]
    np.testing.assert_allclose(model.rotations, expected, rtol=1e-15)
    scene = load_scene(path)  # the scene carries it to stderr and the panel
    assert scene.animation is not None
    assert _rotation_notes(scene.animation.notes) == _rotation_notes(model.notes)


def test_the_first_node_is_the_first_in_the_file_not_in_the_tree(tmp_path):
    doc = {
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [1]}],  # node 1 is the root; its child node 0 comes later
        "nodes": [
            {"name": "child", "rotation": [0, 0, 0, 3]},
            {"name": "root", "rotation": [0, 0, 0, 0.5], "children": [0]},
        ],
    }
    path = tmp_path / "order.gltf"
    path.write_text(json.dumps(doc))
    (note,) = _rotation_notes(read_gltf(path).notes)
    assert "node 'child' (and 1 more)" in note and "(length 3)" in note


def test_a_length_past_the_float_limit_is_said_so(tmp_path):
    (note,) = _rotation_notes(read_gltf(_gltf(tmp_path, [[1.5e308, 1.5e308, 0, 0]], ["B"])).notes)
    assert "node 'B': rotation is not a unit quaternion (length over 1.8e308)" in note


@pytest.mark.parametrize("off", [0.0, 1e-6, 0.005, -0.0075])
def test_within_the_validators_bound_no_note(tmp_path, off):
    model = read_gltf(_gltf(tmp_path, [[0, 0, 0, 1 + off], [0, 0, 0, 1]]))
    assert _rotation_notes(model.notes) == []


@pytest.mark.parametrize("off", [0.008, -0.008, 0.5])
def test_past_the_validators_bound_a_note(tmp_path, off):
    model = read_gltf(_gltf(tmp_path, [[0, 0, 0, 1 + off]], ["N"]))
    (note,) = _rotation_notes(model.notes)
    assert f"node 'N': rotation is not a unit quaternion (length {1 + off:.6g})" in note
    assert UNIT_TOLERANCE == 0.00769


def test_the_validator_corpus_file_gets_the_note():
    path = CORPUS / "base" / "data" / "node" / "rotation_non_unit.gltf"
    if not path.is_file():
        pytest.skip(f"no validator corpus at {CORPUS}")
    report = json.loads(path.with_name(path.name + ".report.json").read_text())
    codes = {m["code"]: m["pointer"] for m in report["issues"]["messages"]}
    assert codes["ROTATION_NON_UNIT"] == "/nodes/0/rotation"
    (note,) = _rotation_notes(read_gltf(path).notes)
    assert "node 'node0': rotation is not a unit quaternion (length 2)" in note
