"""save_scene writes the native format; loading it back gives the same scene."""

from __future__ import annotations

import numpy as np
import pytest
from scene_helpers import SCENE_FILES, SCENES

from viewer.content.motion import apply_motions
from viewer.io import SceneError, default_scene, generate_scene, load_scene, save_scene


def assert_same_scene(a, b, atol=1e-12):
    assert [(n.name, n.parent.name if n.parent else None) for n in a.graph] == [
        (n.name, n.parent.name if n.parent else None) for n in b.graph
    ]
    for na, nb in zip(a.graph, b.graph, strict=True):
        np.testing.assert_allclose(na.world_matrix, nb.world_matrix, atol=atol, err_msg=na.name)
        la, lb = a.look(na.id), b.look(nb.id)
        assert la.mesh == lb.mesh
        np.testing.assert_allclose(la.size, lb.size)
        np.testing.assert_allclose(la.color, lb.color)
    assert a.title == b.title
    assert a.camera == b.camera
    assert [(e.frame, e.node, e.touch, e.position, e.euler, e.quaternion, e.scale)
            for e in a.events] == [(e.frame, e.node, e.touch, e.position, e.euler, e.quaternion,
                                    e.scale) for e in b.events]  # fmt: skip
    assert motion_table(a) == motion_table(b)


def motion_table(scene):
    rows = {}
    for m in scene.motions:
        for k, node_id in enumerate(m.ids.tolist()):
            name = scene.graph.node(node_id).name
            rows[(name, m.kind)] = tuple(
                np.round(np.concatenate([m.axis[k], [m.speed[k], m.amplitude[k], m.period[k],
                                         m.phase[k]], m.rest[k]]), 12).tolist()
            )  # fmt: skip
    return rows


@pytest.mark.parametrize("path", SCENE_FILES, ids=[p.stem for p in SCENE_FILES])
def test_round_trip_every_scene(path, tmp_path):
    scene = load_scene(path)
    out = tmp_path / "out.toml"
    save_scene(scene, out)
    again = load_scene(out)
    assert_same_scene(scene, again)
    # and saving again gives the same text
    out2 = tmp_path / "out2.toml"
    save_scene(again, out2)
    assert out2.read_text() == out.read_text()


@pytest.mark.parametrize("spec", ["chain:40", "balanced:200", "random:150"])
def test_round_trip_generated(spec, tmp_path):
    scene = generate_scene(spec)
    out = tmp_path / "gen.toml"
    save_scene(scene, out)
    assert_same_scene(scene, load_scene(out), atol=1e-9)


def test_round_trip_default(tmp_path):
    scene = default_scene()
    save_scene(scene, tmp_path / "d.toml")
    again = load_scene(tmp_path / "d.toml")
    # The copy is titled without the built-in's note (tests/io/test_default_scene_saved.py);
    # everything else comes back as it was.
    assert again.title == "Ten-node tree with motion" != scene.title
    scene.title = again.title
    assert_same_scene(scene, again)


def test_euler_angles_stay_readable(tmp_path):
    save_scene(load_scene(SCENES / "chain5.toml"), tmp_path / "c.toml")
    text = (tmp_path / "c.toml").read_text()
    assert "rotation = [0, 0, 12]" in text
    assert "quaternion" not in text


def test_moving_channels_are_saved_at_rest(tmp_path):
    scene = load_scene(SCENES / "solar_system.toml")
    apply_motions(scene, 12.5)
    save_scene(scene, tmp_path / "s.toml")
    again = load_scene(tmp_path / "s.toml")
    assert_same_scene(load_scene(SCENES / "solar_system.toml"), again)
    apply_motions(again, 12.5)
    for a, b in zip(scene.graph, again.graph, strict=True):
        np.testing.assert_allclose(a.world_matrix, b.world_matrix, atol=1e-9)


def test_local_edits_are_saved(tmp_path):
    scene = load_scene(SCENES / "tree10.toml")
    node = scene.graph["Obj6"]
    node.local_position = (0.25, -3.0, 1.5)
    node.local_rotation = (0.1, 0.2, 0.3, 0.9273618495495703)
    node.local_scale = (1.0, 2.0, 0.5)
    save_scene(scene, tmp_path / "t.toml")
    assert_same_scene(scene, load_scene(tmp_path / "t.toml"))


@pytest.mark.parametrize(
    "name", ['quote"d', "back\\slash", "tab\there", "ünïcødé ✓", "new\nline", "del\x7f", "#1"]
)
def test_odd_names_survive(write_scene, tmp_path, name):
    from viewer.io.save import _str

    path = write_scene(
        f"[[node]]\nname = {_str(name)}\n[[node]]\nname = 'b'\nparent = {_str(name)}\n"
    )
    scene = load_scene(path)
    save_scene(scene, tmp_path / "odd.toml")
    again = load_scene(tmp_path / "odd.toml")
    assert [n.name for n in again.graph] == [name, "b"]


def test_unwritable_target_gives_scene_error(tmp_path):
    with pytest.raises(SceneError):
        save_scene(default_scene(), tmp_path / "no" / "such" / "dir" / "x.toml")


@pytest.mark.parametrize("name", ["a\0b.toml", "a\0b.glb", "dir/\0.gltf"])
def test_a_save_to_a_name_no_system_takes_is_one_line(tmp_path, name):
    from viewer.session.session import Session

    session = Session(load_scene(SCENES / "tree10.toml"))
    assert not session.save(str(tmp_path / name))
    message = session.messages.edit
    assert "cannot write the file" in message and "\\x00" in message and "\n" not in message
