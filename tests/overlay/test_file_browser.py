"""Open anywhere (issue 34, item 2): with no zenity or kdialog on PATH, Ctrl+O opens the
in-window file browser in the folder of the scene on show; a path typed there (after
Ctrl+A, which selects the prefilled folder) opens with Enter; it lists folders and scene
files only; Esc closes it without quitting and, while it is open, no key reaches the
scene."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from moderngl_window.context.base import KeyModifiers
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


def test_keys_typed_at_once_after_ctrl_o_reach_the_path_field(drive, tmp_path, monkeypatch):
    """At a few frames per second a person's Ctrl+O, Ctrl+A, path and Enter all arrive
    before the browser has drawn its field: they wait for it (Ctrl+A was lost, so the path
    was appended to the prefilled folder), and none reaches the scene."""
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))  # no zenity, no kdialog
    shutil.copy(SCENES / "tree10.toml", tmp_path / "tree10.toml")
    other = tmp_path / "sub" / "chain5.toml"
    other.parent.mkdir()
    shutil.copy(SCENES / "chain5.toml", other)
    d = drive(load_scene(tmp_path / "tree10.toml"), still=True)
    d.frame(2)
    session, keys = d.app.session, d.window.keys
    session.select(session.graph["Obj2"].id)
    ctrl, plain = KeyModifiers(), KeyModifiers()
    ctrl.ctrl = True

    def tap(code, mods):
        d.app.on_key_event(code, keys.ACTION_PRESS, mods)
        d.app.on_key_event(code, keys.ACTION_RELEASE, mods)

    d.app.on_key_event(keys.LEFT_CTRL, keys.ACTION_PRESS, ctrl)
    tap(keys.O, ctrl)
    tap(keys.A, ctrl)
    d.app.on_key_event(keys.LEFT_CTRL, keys.ACTION_RELEASE, ctrl)
    tap(keys.L, plain)  # would move Obj2 if it reached the scene
    for ch in str(other):
        d.app.on_unicode_char_entered(ch)
    tap(keys.ENTER, plain)
    d.frame(6)
    assert session.scene.source == other, session.scene.source
    fresh = load_scene(other).graph["Obj2"].local_position
    np.testing.assert_array_equal(session.graph["Obj2"].local_position, fresh)
    assert not d.app.overlay.browser.shown


def test_esc_closes_the_browser_and_does_not_quit(drive, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame(2)
    key(d, "O", ctrl=True)
    assert d.app.overlay.browser.shown
    key(d, "ESCAPE")
    assert not d.app.overlay.browser.shown and not d.app.wnd.is_closing


def test_a_typed_folder_is_shown_and_the_listing_has_only_folders_and_scene_files(tmp_path):
    for name in ("b.glb", "C.gltf", "notes.txt", ".hidden.toml", "x.usda"):
        (tmp_path / name).write_text("")
    (tmp_path / "a.toml").write_text("[[node]]\nname = 'a'\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / ".git").mkdir()
    suffixes = listed_suffixes((".toml", ".gltf", ".glb"))
    folders, files, why = listing(tmp_path, suffixes)
    usd = ["x.usda"] if USD_SUFFIXES[0] in suffixes else []
    assert (folders, why) == (["sub"], None)
    assert files == sorted(["a.toml", "b.glb", "C.gltf", *usd], key=str.lower)
    assert listing(tmp_path / "missing", (".toml",))[2].startswith("cannot list")


def test_a_double_click_on_a_folder_enters_it_and_opens_nothing(drive, tmp_path, monkeypatch):
    """The second click of a double-click on a folder lands on the file that took the
    folder's row in the new listing: it selects nothing and opens nothing."""
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))  # no zenity, no kdialog
    inner = tmp_path / "a"
    inner.mkdir()
    shutil.copy(SCENES / "chain5.toml", inner / "chain5.toml")
    shutil.copy(SCENES / "tree10.toml", tmp_path / "tree10.toml")
    d = drive(load_scene(tmp_path / "tree10.toml"), still=True)
    d.frame(2)
    session, ov = d.app.session, d.app.overlay
    key(d, "O", ctrl=True)
    d.frame()
    (x0, y0), (x1, y1) = (lambda r: ((r[0].x, r[0].y), (r[1].x, r[1].y)))(ov.browser.rows["a/"])
    x, y = (x0 + x1) / 2, (y0 + y1) / 2
    app = d.app
    app.on_mouse_position_event(int(x), int(y), 0, 0)
    d.frame()
    app.on_mouse_press_event(int(x), int(y), 1)  # two clicks within a frame or two, as
    d.frame()  # a hand makes a double-click: the first enters the folder
    app.on_mouse_release_event(int(x), int(y), 1)
    app.on_mouse_press_event(int(x), int(y), 1)
    d.frame()
    app.on_mouse_release_event(int(x), int(y), 1)
    d.frame(3)
    assert ov.browser.shown and ov.browser.folder == inner.resolve()
    assert session.scene.source == tmp_path / "tree10.toml"  # nothing opened
    (f0, f1) = ov.browser.rows["chain5.toml"]
    fx, fy = (f0.x + f1.x) / 2, (f0.y + f1.y) / 2
    d.frame(40)  # past ImGui's double-click time: the next two clicks are a new double
    for _ in range(2):  # a double-click on the file itself opens it
        app.on_mouse_press_event(int(fx), int(fy), 1)
        d.frame()
        app.on_mouse_release_event(int(fx), int(fy), 1)
        d.frame()
    d.frame(2)
    assert session.scene.source == inner / "chain5.toml"


def test_a_quick_double_click_opens_a_file_at_four_frames_per_second(drive, tmp_path, monkeypatch):
    """ImGui hands a click's press and release to separate frames and times a double
    click by frame time: at 4 frames per second two quick clicks on a file came 0.5 s
    apart, over its 0.3 s, and never opened it (the third newcomer trial)."""
    from viewer.overlay.overlay import double_click_time

    assert double_click_time(1 / 60) == 0.3 and double_click_time(0.25) == 1.0
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))  # no zenity, no kdialog
    shutil.copy(SCENES / "tree10.toml", tmp_path / "tree10.toml")
    shutil.copy(SCENES / "chain5.toml", tmp_path / "chain5.toml")
    d = drive(load_scene(tmp_path / "tree10.toml"), still=True)
    d.frame(2)
    session, ov, app = d.app.session, d.app.overlay, d.app
    key(d, "O", ctrl=True)
    d.frame()
    (f0, f1) = ov.browser.rows["chain5.toml"]
    x, y = int((f0.x + f1.x) / 2), int((f0.y + f1.y) / 2)
    ov.deterministic = False  # frames timed as they come: a quarter of a second each

    def slow_frame():
        app.on_render(0.0, 0.25)

    app.on_mouse_position_event(x, y, 0, 0)
    slow_frame()
    app.on_mouse_press_event(x, y, 1)  # two clicks within a tenth of a second: all four
    app.on_mouse_release_event(x, y, 1)  # events before the next frame
    app.on_mouse_press_event(x, y, 1)
    app.on_mouse_release_event(x, y, 1)
    for _ in range(6):
        slow_frame()
    assert session.scene.source == tmp_path / "chain5.toml"


def test_a_toml_is_listed_only_when_it_starts_like_a_scene(tmp_path, monkeypatch):
    """Trial 3: pyproject.toml was listed as a scene. Each scene table counts, also
    after comments; a file is read for its first few KB only, and past a number of
    files per listing the rest are listed unread (a folder of thousands stays quick)."""
    import viewer.overlay.file_browser as browser

    scenes = {
        "s.toml": "[scene]\ntitle = 'x'\n",
        "n.toml": "# comment\n\n  [[ node ]]\nname = 'a'\n",
        "c.toml": "[camera.orbit]\ndistance = 3\n",
        "i.toml": "[[include]]\nfile = 'x.glb'\n",
        "late.toml": "#" * 100 + "\n[[event]]\n",
    }
    others = {
        "pyproject.toml": "[build-system]\nrequires = []\n[project]\nname = 'x'\n",
        "empty.toml": "",
        "far.toml": "# padding\n" * 1000 + "[[node]]\nname = 'a'\n",  # past the bytes read
        "nodes.toml": "[tool.node]\nx = 1\n",
    }
    for name, text in {**scenes, **others}.items():
        (tmp_path / name).write_text(text)
    assert listing(tmp_path, (".toml",))[1] == sorted(scenes, key=str.lower)
    many = tmp_path / "many"
    many.mkdir()
    for k in range(5):
        (many / f"settings{k}.toml").write_text("[tool]\n")
    monkeypatch.setattr(browser, "SNIFF_FILES", 2)  # two are read and left out
    assert len(listing(many, (".toml",))[1]) == 3


def test_a_file_that_is_no_scene_says_why_on_one_line(drive, tmp_path, monkeypatch, capsys):
    """Trial 3: opening pyproject.toml from the browser gave an eight-line red message
    that pushed the panel's buttons and tree out of a small window. One line now, the
    rows stay where they were, and the whole message is on stderr."""
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    (tmp_path / "pyproject.toml").write_text(
        "[build-system]\nrequires = ['setuptools']\n[project]\nname = 'a-long-project-name'\n"
    )
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame(2)
    session, ov = d.app.session, d.app.overlay
    scene_panel = ov.panel.scene
    rows = {k: rect[0].y for k, rect in scene_panel.tree.row_rects.items()}
    key(d, "O", ctrl=True)
    key(d, "A", ctrl=True)
    for ch in str(tmp_path / "pyproject.toml"):
        d.app.on_unicode_char_entered(ch)
    d.frame()
    key(d, "ENTER")
    d.frame(2)
    assert session.messages.open is not None and "build-system" in session.messages.open
    low, high = scene_panel.status_rect
    assert high.y - low.y <= 1.5 * 13  # one line (the font is 13 pixels)
    assert {k: rect[0].y for k, rect in scene_panel.tree.row_rects.items()} == rows
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "build-system" in err[0] and str(tmp_path) in err[0]


def test_build_artefacts_are_left_out_of_the_listing(tmp_path):
    """`pip install .` leaves build/ and *.egg-info beside pyproject.toml: not listed; a
    folder named build elsewhere (no Python project around it) is."""
    for name in ("build", "dist", "sgview.egg-info", "__pycache__", "scenes"):
        (tmp_path / name).mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert listing(tmp_path, (".toml",))[0] == ["scenes"]
    (tmp_path / "pyproject.toml").unlink()
    assert listing(tmp_path, (".toml",))[0] == ["build", "dist", "scenes"]
