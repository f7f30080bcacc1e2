"""Every way a native scene file can be wrong gives one SceneError naming file, line,
node and field."""

from __future__ import annotations

import pytest

from viewer.io import SceneError, load_scene

GOOD_NODE = '[[node]]\nname = "Obj1"\n'

# (case id, file text, node, field, line, words the message must contain)
CASES = [
    ("unknown key", GOOD_NODE + 'colour = "#ffffff"\n', "Obj1", "colour", 3,
     "unknown key 'colour'"),
    ("unknown top-level key", "[scen]\ntitle = 'x'\n", None, "scen", 1, "unknown key 'scen'"),
    ("unknown parent", GOOD_NODE + 'parent = "Obj0"\n', "Obj1", "parent", 3,
     "unknown parent 'Obj0'"),
    ("own parent", GOOD_NODE + 'parent = "Obj1"\n', "Obj1", "parent", 3, "its own parent"),
    ("cycle", '[[node]]\nname = "A"\nparent = "C"\n\n[[node]]\nname = "B"\nparent = "A"\n\n'
              '[[node]]\nname = "C"\nparent = "B"\n', "A", "parent", 3, "cycle: A -> C -> B -> A"),
    ("cycle of long names", '[[node]]\nname = "Alpha"\nparent = "Beta"\n\n[[node]]\n'
     'name = "Beta"\nparent = "Alpha"\n', "Alpha", "parent", 3, "cycle: Alpha -> Beta -> Alpha"),
    ("duplicate name", GOOD_NODE + "\n" + GOOD_NODE, "Obj1", "name", 5, "duplicate name"),
    ("missing name", "[[node]]\nposition = [0, 0, 0]\n", None, "name", 1, "needs a name"),
    ("short vector", GOOD_NODE + "position = [1, 2]\n", "Obj1", "position", 3,
     "expected 3 numbers, got 2"),
    ("long vector", GOOD_NODE + "scale = [1, 2, 3, 4]\n", "Obj1", "scale", 3,
     "expected 3 numbers, got 4"),
    ("not a number", GOOD_NODE + 'position = [1, "two", 3]\n', "Obj1", "position", 3,
     "item 1 is a string ('two')"),
    ("boolean", GOOD_NODE + "position = [1, true, 3]\n", "Obj1", "position", 3, "a boolean"),
    ("nan", GOOD_NODE + "position = [1, nan, 3]\n", "Obj1", "position", 3, "finite"),
    ("inf", GOOD_NODE + "rotation = [0, -inf, 0]\n", "Obj1", "rotation", 3, "finite"),
    ("vector is a string", GOOD_NODE + 'position = "0 0 0"\n', "Obj1", "position", 3,
     "expected 3 numbers, got a string"),
    ("rotation and quaternion", GOOD_NODE + "rotation = [0, 0, 0]\nquaternion = [0, 0, 0, 1]\n",
     "Obj1", "quaternion", 4, "not both"),
    ("zero quaternion", GOOD_NODE + "quaternion = [0, 0, 0, 0]\n", "Obj1", "quaternion", 3,
     "non-zero quaternion"),
    ("zero scale", GOOD_NODE + "scale = [1, 0, 1]\n", "Obj1", "scale", 3, "non-zero"),
    ("unknown mesh", GOOD_NODE + 'mesh = "teapot"\n', "Obj1", "mesh", 3, "unknown mesh 'teapot'"),
    ("missing gltf", GOOD_NODE + 'mesh = "gone.gltf"\n', "Obj1", "mesh", 3,
     "missing glTF file 'gone.gltf'"),
    ("bad colour", GOOD_NODE + 'color = "red"\n', "Obj1", "color", 3, "expected a colour"),
    ("colour out of range", GOOD_NODE + "color = [0, 2, 0]\n", "Obj1", "color", 3, "0..1"),
    ("bad size", GOOD_NODE + "size = [1, -1, 1]\n", "Obj1", "size", 3, "positive"),
    ("name not a string", "[[node]]\nname = 3\n", None, "name", 2, "expected a string"),
    ("unknown motion", GOOD_NODE + "motion = { wobble = { speed = 1 } }\n", "Obj1",
     "motion.wobble", 3, "unknown key 'wobble'"),
    ("motion missing speed", GOOD_NODE + "motion = { spin = { axis = [0, 1, 0] } }\n", "Obj1",
     "motion.spin.speed", 3, "spin needs 'speed'"),
    ("motion zero axis", GOOD_NODE + "motion = { spin = { axis = [0, 0, 0], speed = 3 } }\n",
     "Obj1", "motion.spin.axis", 3, "non-zero axis"),
    ("motion bad period", GOOD_NODE + "[node.motion.oscillate]\namplitude = 1\nperiod = 0\n",
     "Obj1", "motion.oscillate.period", 5, "positive number of seconds"),
    ("two position motions", GOOD_NODE + "motion = { orbit = { speed = 1 }, oscillate = "
     "{ amplitude = 1, period = 1 } }\n", "Obj1", "motion.oscillate", 3, "keep one"),
    ("pulse too large", GOOD_NODE + "motion = { pulse = { amplitude = 1.5, period = 1 } }\n",
     "Obj1", "motion.pulse.amplitude", 3, "at most 0.99"),
    ("node as a table", '[node]\nname = "x"\n', None, "node", 1, "[[node]]"),
    ("camera projection", '[camera]\nprojection = "fisheye"\n', None, "projection", 2,
     "'perspective' or 'orthographic'"),
    ("camera fov", "[camera]\nfov = 190\n", None, "fov", 2, "between 0 and 180"),
    ("event unknown node", GOOD_NODE + '\n[[event]]\nframe = 3\ntouch = "Obj9"\n', None, "touch",
     6, "unknown node 'Obj9'"),
    ("event frame", GOOD_NODE + '\n[[event]]\nframe = 0\ntouch = "Obj1"\n', None, "frame", 5,
     "at least 1"),
    ("event both", GOOD_NODE + '\n[[event]]\nframe = 1\ntouch = "Obj1"\nset = { node = "Obj1", '
     "position = [0, 0, 0] }\n", None, "touch", 6, "exactly one"),
    ("event set short", GOOD_NODE + '\n[[event]]\nframe = 1\nset = { node = "Obj1", '
     "position = [0, 0] }\n", None, "set.position", 6, "expected 3 numbers, got 2"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "node", "field", "line", "words"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_error_names_file_line_node_and_field(write_scene, text, node, field, line, words):
    path = write_scene(text)
    with pytest.raises(SceneError) as info:
        load_scene(path)
    err = info.value
    message = str(err)
    assert isinstance(err, ValueError)
    assert "\n" not in message
    assert err.file == str(path)
    assert message.startswith(f"{path}:{line}: ")
    assert err.line == line
    assert err.node == node
    assert err.field == field
    assert f"field '{field}'" in message
    if node is not None:
        assert f"node '{node}'" in message
    assert words in message


def test_message_format_matches_the_documented_example(write_scene):
    text = "\n".join(
        [GOOD_NODE, '[[node]]\nname = "Obj2"\n', '[[node]]\nname = "Obj3"\nposition = [1, 2]\n']
    )
    path = write_scene(text, name="bad.toml")
    with pytest.raises(SceneError) as info:
        load_scene(path)
    assert str(info.value) == (
        f"{path}:9: node 'Obj3', field 'position': expected 3 numbers, got 2"
    )


def test_field_in_a_sub_table_gets_its_own_line(write_scene):
    text = GOOD_NODE + "\n[node.motion.spin]\naxis = [0, 1, 0]\nspeed = 'fast'\n"
    with pytest.raises(SceneError) as info:
        load_scene(write_scene(text))
    assert info.value.line == 6
    assert info.value.field == "motion.spin.speed"


def test_parent_defined_later_is_fine(write_scene):
    scene = load_scene(write_scene('[[node]]\nname = "B"\nparent = "A"\n\n[[node]]\nname = "A"\n'))
    assert [n.name for n in scene.graph] == ["A", "B"]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("[[node]]\nname = 'a'\nposition = [0, 0\n", 4, "invalid TOML"),
        ("[[node]]\nname = \n", 2, "invalid TOML"),
        ("a = 1\na = 2\n", 2, "invalid TOML"),
        ('[[node]]\nname = "unterminated\n', 2, "invalid TOML"),
    ],
)
def test_toml_syntax_errors_keep_their_line(write_scene, text, line, words):
    with pytest.raises(SceneError) as info:
        load_scene(write_scene(text))
    assert info.value.line == line
    assert words in str(info.value)


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'[[node]]\nname = "caf\xe9"\n')
    with pytest.raises(SceneError) as info:
        load_scene(path)
    assert info.value.line == 2
    assert "UTF-8" in str(info.value)


def test_deep_nesting(write_scene):
    with pytest.raises(SceneError, match="nested too deeply"):
        load_scene(write_scene("a = " + "[" * 50_000))


def test_huge_integer(write_scene):
    with pytest.raises(SceneError):
        load_scene(write_scene(GOOD_NODE + "position = [1" + "0" * 5000 + ", 0, 0]\n"))


def test_too_large_float_value(write_scene):
    with pytest.raises(SceneError, match="expected finite numbers, item 0 is inf"):
        load_scene(write_scene(GOOD_NODE + "position = [1e400, 0, 0]\n"))


@pytest.mark.parametrize("name", ["missing.toml", "dir.toml", "scene.txt", "noext"])
def test_file_problems(tmp_path, name):
    (tmp_path / "dir.toml").mkdir()
    (tmp_path / "scene.txt").write_text("")
    (tmp_path / "noext").write_text("")
    with pytest.raises(SceneError) as info:
        load_scene(tmp_path / name)
    assert info.value.file == str(tmp_path / name)


def test_a_folder_is_named_as_one(tmp_path):
    (tmp_path / "models").mkdir()
    with pytest.raises(SceneError, match="a folder, not a scene file"):
        load_scene(tmp_path / "models")


def test_not_a_path():
    with pytest.raises(SceneError):
        load_scene(None)  # type: ignore[arg-type]
