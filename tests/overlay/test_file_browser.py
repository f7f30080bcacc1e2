"""Open anywhere (issue 34, item 2): with no zenity or kdialog on PATH, Ctrl+O opens the
in-window file browser in the folder of the scene on show; a path typed there (after
Ctrl+A, which selects the prefilled folder) opens with Enter; it lists folders and scene
files only; Esc closes it without quitting and, while it is open, no key reaches the
scene."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from test_fields_keyboard import key

from viewer.io.loader import load_scene
from viewer.overlay.file_browser import USD_SUFFIXES, listed_suffixes, listing

SCENES = Path(__file__).resolve().parents[2] / "scenes"


def test_ctrl_o_without_a_system_dialog_opens_the_browser_and_a_typed_path(
    drive, tmp_path, monkeypatch
):
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))  # no zenity, no kdialog
    here = tmp_path / "here"
    here.mkdir()
    shutil.copy(SCENES / "tree10.toml", here / "tree10.toml")
    shutil.copy(SCENES / "chain5.toml", tmp_path / "chain5.toml")
    d = drive(load_scene(here / "tree10.toml"), still=True)
    d.frame(2)
    session, ov = d.app.session, d.app.overlay
    session.select(session.graph["Obj2"].id)
    before = session.graph["Obj2"].local_position.copy()
    key(d, "O", ctrl=True)
    assert ov.browser.shown and session.messages.open is None
    assert ov.browser.folder == here.resolve()  # the folder of the scene on show
    key(d, "L")  # the browser owns the keyboard: L moves nothing
    key(d, "A", ctrl=True)  # selects the prefilled folder: typing replaces it
    for ch in str(tmp_path / "chain5.toml"):
        d.app.on_unicode_char_entered(ch)
    d.frame()
    np.testing.assert_array_equal(session.graph["Obj2"].local_position, before)
    key(d, "ENTER")
    d.frame()
    assert not ov.browser.shown
    assert session.scene.source == tmp_path / "chain5.toml"
    assert [p.name for p in session.files.recent.paths][:1] == ["chain5.toml"]
    assert not d.app.wnd.is_closing


def test_esc_closes_the_browser_and_does_not_quit(drive, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame(2)
    key(d, "O", ctrl=True)
    assert d.app.overlay.browser.shown
    key(d, "ESCAPE")
    assert not d.app.overlay.browser.shown and not d.app.wnd.is_closing


def test_a_typed_folder_is_shown_and_the_listing_has_only_folders_and_scene_files(tmp_path):
    for name in ("b.glb", "a.toml", "C.gltf", "notes.txt", ".hidden.toml", "x.usda"):
        (tmp_path / name).write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / ".git").mkdir()
    suffixes = listed_suffixes((".toml", ".gltf", ".glb"))
    folders, files, why = listing(tmp_path, suffixes)
    usd = ["x.usda"] if USD_SUFFIXES[0] in suffixes else []
    assert (folders, why) == (["sub"], None)
    assert files == sorted(["a.toml", "b.glb", "C.gltf", *usd], key=str.lower)
    assert listing(tmp_path / "missing", (".toml",))[2].startswith("cannot list")
