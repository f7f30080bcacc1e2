"""Live reload through the session, headless (no window, no Xvfb): a bad save keeps the
last good scene and puts its error on the panel; the next good save swaps the scene in
and clears the error; one save is one reload however often the frame loop polls."""

from __future__ import annotations

import io
from pathlib import Path

from viewer.frames.runner import swap
from viewer.io import SceneWatcher, load_scene
from viewer.overlay.model import reload_note
from viewer.session.session import Session

SCENE = """[scene]
title = "{title}"

[[node]]
name = "Box"
mesh = "cube"
"""


def _swap(session, prepare=None):
    """One redraw's scene swap without a window (`viewer.frames.runner.swap`): the scene
    swapped in, or None; `prepare` stands for the window's GPU set-up of the candidate."""
    swapped = swap(session, prepare or (lambda scene: None))
    return None if swapped is None else swapped.candidate.scene


class Clock:
    """The watcher's clock, moved by hand past its interval."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _session(tmp_path: Path):
    path = tmp_path / "live.toml"
    path.write_text(SCENE.format(title="First"), encoding="utf-8")
    scene = load_scene(path)
    out, err = io.StringIO(), io.StringIO()
    session = Session(scene, out=out, err=err)
    clock = Clock()
    session.files.watcher = SceneWatcher(path, clock=clock, seen=scene.source_stamp)
    return session, path, clock, out, err


def _save(path: Path, clock: Clock, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    clock.t += 1.0  # past the watcher's interval


def _poll(session: Session, clock: Clock, times: int = 1):
    """What `_swap` returned over `times` frames a second apart."""
    got = []
    for _ in range(times):
        got.append(_swap(session))
        clock.t += 1.0
    return got


def _settled(session: Session, clock: Clock):
    """The first look after a save only notes the change; the next one reads it."""
    first, second = _poll(session, clock, 2)
    assert first is None
    return second


def test_a_good_save_clears_the_reload_error_on_the_panel(tmp_path):
    session, path, clock, out, err = _session(tmp_path)
    first = session.scene
    assert reload_note(session.messages.reload) is None

    _save(path, clock, '[scene]\ntitle = "Broken\n')
    assert _settled(session, clock) is None
    assert session.scene is first  # the last good scene stays
    note = reload_note(session.messages.reload)
    assert note is not None and note.startswith("reload failed, showing the last good scene")
    assert "live.toml" in note

    _save(path, clock, SCENE.format(title="Second version"))
    new = _settled(session, clock)
    assert new is session.scene and new.title == "Second version"
    assert session.messages.reload is None and reload_note(session.messages.reload) is None
    assert out.getvalue().count("reloaded") == 1
    assert err.getvalue().count("reload failed") == 1


def test_a_deleted_file_shows_until_it_comes_back(tmp_path):
    session, path, clock, _out, _err = _session(tmp_path)
    path.unlink()
    clock.t += 1.0
    assert _settled(session, clock) is None
    assert "deleted" in reload_note(session.messages.reload)
    _save(path, clock, SCENE.format(title="Back"))
    assert _settled(session, clock).title == "Back"
    assert reload_note(session.messages.reload) is None


def test_one_save_is_one_reload(tmp_path):
    """No reload storm: after a save (good or bad), later polls find nothing new."""
    session, path, clock, out, err = _session(tmp_path)
    _save(path, clock, SCENE.format(title="Second"))
    got = _poll(session, clock, 20)
    assert got[0] is None and got[1] is not None and got[2:] == [None] * 18
    assert out.getvalue().count("reloaded") == 1
    _save(path, clock, "[scene\n")
    assert _poll(session, clock, 20) == [None] * 20
    assert err.getvalue().count("reload failed") == 1
    assert session.scene.title == "Second"


def test_a_save_under_a_bare_name_says_the_folder_it_went_to(tmp_path, monkeypatch):
    """Save as my-tree.toml writes into the folder sgview was started from: the line
    names that folder (the third trial could not tell where the file went)."""
    session, _path, _clock, _out, _err = _session(tmp_path)
    elsewhere = tmp_path / "started-here"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert session.files.save(session.scene, "my-tree.toml")
    assert (elsewhere / "my-tree.toml").is_file()
    assert session.messages.edit == f"saved {elsewhere / 'my-tree.toml'}"
