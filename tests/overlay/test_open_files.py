"""Opening files in the running viewer (issue 24, items 5 and 6): a file dropped on the
window (through moderngl-window's drop callback) opens, a bad one leaves the scene on
show with one line in the panel, Ctrl+S writes the edited scene back through the
format's writer."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from viewer.io import load_scene
from viewer.io.gltf_write.export import save_gltf
from viewer.session.commands import SetField

REPO = Path(__file__).resolve().parents[2]
TREE10 = REPO / "scenes" / "tree10.toml"


def drop(d, *paths) -> None:
    """Files dropped on the window, as the window library reports them."""
    d.window.files_dropped_event_func(10, 10, [str(p) for p in paths])
    d.frame()


def test_a_dropped_scene_opens_and_joins_the_recent_list(drive, tmp_path):
    d = drive(load_scene(TREE10), still=True)
    d.frame(2)
    glb = tmp_path / "tree.glb"
    save_gltf(load_scene(TREE10), glb)
    old_graph = d.app.session.graph
    drop(d, tmp_path / "notes.txt", glb)  # the first scene file among them
    session = d.app.session
    assert session.graph is not old_graph and session.messages.open is None
    assert session.scene.source == glb and session.files.recent.paths[0] == glb.resolve()
    np.testing.assert_allclose(
        session.graph["Obj9"].world_matrix, load_scene(glb).graph["Obj9"].world_matrix, atol=1e-12
    )
    assert "Obj9" in dict(d.app.overlay.panel.scene.tree.tree_drawn)


def test_an_opened_file_clears_the_old_scenes_edit_line(drive, tmp_path):
    """The Edit section's line spoke of the old scene's steps: gone with its history."""
    d = drive(load_scene(TREE10), still=True)
    d.frame(2)
    session = d.app.session
    session.editing.run(SetField(session.graph["Obj3"].id, "local_euler", (0.0, 0.0, 30.0)))
    assert session.messages.edit == "rotate Obj3 to (0, 0, 30)°"
    glb = tmp_path / "tree.glb"
    save_gltf(load_scene(TREE10), glb)
    drop(d, glb)
    assert session.scene.source == glb
    assert session.messages.edit is None and session.editing.history.labels() == ([], [])


def test_an_opened_file_starts_the_timeline_afresh(drive, tmp_path):
    """The opened scene's frames count from 1 again: the timeline holds only them (it read
    'frames 638 to 19 of 706' with the old scene's frames before the new ones)."""
    d = drive(load_scene(TREE10), still=True)
    d.frame(40)
    glb = tmp_path / "tree.glb"
    save_gltf(load_scene(TREE10), glb)
    drop(d, glb)
    d.frame(5)
    frames = d.app.overlay.timeline.records()["frame"].tolist()
    assert frames == sorted(frames) and frames[-1] == d.app.session.frame <= 6, frames


def test_a_bad_file_keeps_the_scene_and_says_why_in_one_line(drive, tmp_path, capsys):
    d = drive(load_scene(TREE10), still=True)
    d.frame(2)
    bad = tmp_path / "bad.toml"
    bad.write_text("[scene\ntitle = 1\n")
    graph = d.app.session.graph
    for path in (bad, tmp_path / "missing.glb", tmp_path / "notes.txt"):
        drop(d, path)
        error = d.app.session.messages.open
        assert d.app.session.graph is graph
        assert error is not None and "\n" not in error and path.name in error
    assert "Traceback" not in capsys.readouterr().err


def test_ctrl_s_writes_the_edit_back_to_its_own_file(drive, tmp_path):
    for name in ("tree10.toml", "tree10.glb"):
        path = tmp_path / name
        if name.endswith(".toml"):
            shutil.copy(TREE10, path)
        else:
            save_gltf(load_scene(TREE10), path)
        d = drive(load_scene(path), still=True)
        d.frame(2)
        session = d.app.session
        session.editing.run(SetField(session.graph["Obj5"].id, "local_position", (1.5, -2.0, 0.25)))
        keys = d.window.keys
        mods = type("Mods", (), {"ctrl": True, "shift": False, "alt": False})()
        d.app.on_key_event(keys.S, keys.ACTION_PRESS, mods)
        assert session.messages.edit.startswith("saved"), session.messages.edit
        assert session.motion_on is False  # Ctrl+S is not S
        again = load_scene(path).graph
        np.testing.assert_array_equal(again["Obj5"].local_position, (1.5, -2.0, 0.25))
        np.testing.assert_allclose(
            again["Obj9"].world_matrix, session.graph["Obj9"].world_matrix, atol=1e-12
        )
        d.frame(3)
        assert (
            session.files.watcher is not None and session.files.watcher.poll() is None
        )  # no reload


class PickedDialog:
    """A stand-in for portable-file-dialogs' open_file: ready at once, `picked` chosen."""

    def __init__(self, picked):
        self.picked = picked

    def ready(self, timeout=0):
        return True

    def result(self):
        return self.picked


def test_the_dialog_and_the_recent_list_open_through_the_open_action(drive, tmp_path):
    from viewer.window.file_dialog import OpenDialog

    d = drive(load_scene(TREE10), still=True)
    d.frame(2)
    glb = tmp_path / "tree.glb"
    save_gltf(load_scene(TREE10), glb)
    dialog = d.app.input.dialog()
    dialog._dialog = PickedDialog([str(glb)])  # the user picked the file
    d.frame()
    assert d.app.session.scene.source == glb
    dialog._dialog = PickedDialog([])  # cancelled: nothing happens
    graph = d.app.session.graph
    d.frame()
    assert d.app.session.graph is graph
    d.app.session.files.request_open(TREE10)  # a click in the recent list
    d.frame()
    assert d.app.session.scene.source == TREE10
    assert [p.name for p in d.app.session.files.recent.paths[:2]] == ["tree10.toml", "tree.glb"]
    assert isinstance(dialog, OpenDialog)


def test_ctrl_o_without_a_dialog_program_says_so(drive, monkeypatch):
    """Without the overlay there is no in-window browser to fall back on (with it:
    test_file_browser.py): the panel-less run says why in one line."""
    import viewer.window.file_dialog as fd

    monkeypatch.setattr(fd.shutil, "which", lambda name: None)
    monkeypatch.setattr(fd.sys, "platform", "linux")
    d = drive(load_scene(TREE10), still=True, overlay=False)
    d.frame()
    graph = d.app.session.graph
    keys = d.window.keys
    mods = type("Mods", (), {"ctrl": True, "shift": False, "alt": False})()
    d.app.on_key_event(keys.O, keys.ACTION_PRESS, mods)
    assert "no file dialog" in d.app.session.messages.open
    d.frame()
    assert d.app.session.graph is graph


def test_ctrl_s_keeps_the_bundled_scenes_as_shipped(drive, tmp_path):
    d = drive(load_scene(TREE10), still=True)
    d.frame()
    before = TREE10.read_bytes()
    assert not d.app.session.save()
    assert "bundled" in d.app.session.messages.edit
    assert TREE10.read_bytes() == before
    assert d.app.session.save(tmp_path / "mine.toml")  # a path of one's own: saved
    assert load_scene(tmp_path / "mine.toml").graph["Obj9"].name == "Obj9"


def test_the_save_as_field_follows_the_scene_on_show(drive, tmp_path):
    """Opened another file: "Save as" offers that file, not the one shown before (which
    a click would overwrite with the new scene)."""
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    shutil.copy(TREE10, first)
    shutil.copy(TREE10, second)
    d = drive(load_scene(first), still=True)
    edit = d.app.overlay.panel.scene.edit
    edit.open_next = True
    d.frame(2)
    assert edit.save_path == str(first)
    drop(d, second)
    d.frame(2)
    assert d.app.session.scene.source == second
    assert edit.save_path == str(second)


def test_save_as_never_offers_a_bundled_scene_s_own_file(drive):
    """A bundled scene (Ctrl+S refuses it): "Save as" offers its name in the working
    folder, so one click cannot overwrite the file sgview ships."""
    d = drive(load_scene(TREE10), still=True)
    edit = d.app.overlay.panel.scene.edit
    edit.open_next = True
    d.frame(2)
    assert edit.save_path == "tree10.toml"
    assert not d.app.session.save()  # Ctrl+S: refused, in one line
    assert "bundled" in d.app.session.messages.edit
