"""The examples in docs/scene-format.md load as documented."""

from __future__ import annotations

import re

from scene_helpers import REPO, write_gltf

from viewer.io import SceneError, load_scene

DOC = (REPO / "docs" / "scene-format.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```toml\n(.*?)```", DOC, re.S)


def test_the_full_example_loads(tmp_path):
    write_gltf(tmp_path / "models", "glb", "robot.glb")
    path = tmp_path / "example.toml"
    path.write_text(BLOCKS[0], encoding="utf-8")
    scene = load_scene(path)
    g = scene.graph
    assert [n.name for n in g][:3] == ["Obj1", "Obj2", "Robot"]
    assert g["Robot/Hand"].parent.name == "Robot/Arm"
    assert g["Obj2"].parent.name == "Obj1"
    assert [m.kind for m in scene.motions] == ["spin"]
    assert [(e.frame, e.touch) for e in scene.events] == [(30, True), (90, False)]
    assert scene.camera.position == (0.0, 4.0, 12.0)


def test_the_include_example_loads(tmp_path):
    write_gltf(tmp_path / "models", "glb", "robot.glb")
    path = tmp_path / "inc.toml"
    include = next(b for b in BLOCKS if "[[include]]" in b and "[[node]]" not in b)
    path.write_text('[[node]]\nname = "Obj1"\n' + include, encoding="utf-8")
    assert "Obj1/Body" in load_scene(path).graph


def test_the_documented_error_messages_have_the_documented_shape():
    lines = re.findall(r"^scenes/bad\.toml:\d+: .*$", DOC, re.M)
    assert lines
    for line in lines:
        assert re.match(r"scenes/bad\.toml:\d+: (node '[^']+', field '[^']+': |invalid TOML)", line)


def test_scene_error_is_a_value_error():
    assert issubclass(SceneError, ValueError)


def test_the_range_table_is_the_one_the_loader_checks():
    from viewer.io.ranges import RANGES

    section = DOC.split("## Accepted numbers", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| .* \| (\S+) to (\S+) \|$", section, re.M)
    assert {name: (float(low), float(high)) for name, low, high in rows} == {
        name: (r.low, r.high) for name, r in RANGES.items()
    }


def test_the_documented_toml_limits_are_the_checked_ones():
    from viewer.io.toml_precheck import (
        MAX_ANY_SHAPE_BYTES,
        MAX_KEY_PARTS,
        MAX_NESTING,
        MAX_TOML_BYTES,
        MIN_BYTES_PER_VALUE,
    )

    text = " ".join(DOC.split())
    assert f"more than **{MAX_KEY_PARTS} parts**" in text
    assert f"more than **{MAX_NESTING} levels**" in text
    assert f"larger than **{MAX_TOML_BYTES >> 20} MB** is refused" in text
    assert f"larger than **{MAX_ANY_SHAPE_BYTES >> 20} MB** must also average" in text
    assert f"at least **{MIN_BYTES_PER_VALUE} bytes per value**" in text
