"""The built-in scene is built from the bundled scenes/tree10.toml, not a copy of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from viewer.io import default_scene, load_scene
from viewer.io.generate import DEFAULT_MOTIONS, DEFAULT_TITLE

TREE10 = Path(__file__).resolve().parents[2] / "scenes" / "tree10.toml"


def test_the_default_scene_is_the_bundled_tree_with_gentle_motion():
    built_in, file = default_scene(), load_scene(TREE10)
    assert built_in.title == DEFAULT_TITLE and built_in.events == [] and file.events
    assert built_in.source is None  # not watched: it is not the file as saved
    g, f = built_in.graph, file.graph
    assert [n.name for n in g] == [n.name for n in f]
    np.testing.assert_array_equal(g.parents(), f.parents())
    for mine, theirs in zip(g.local_values(), f.local_values(), strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert built_in.looks == file.looks
    moving = {g.name_of(int(i)): m.kind for m in built_in.motions for i in m.ids}
    assert moving == {name: kind for name, kind, _ in DEFAULT_MOTIONS}


def test_an_edit_of_the_bundled_file_shows_in_the_default_scene(tmp_path, monkeypatch):
    from viewer.io import generate

    edited = TREE10.read_text(encoding="utf-8").replace('name = "Obj10"', 'name = "Leaf"')
    (tmp_path / "tree10.toml").write_text(edited, encoding="utf-8")
    monkeypatch.setattr(generate, "scene_dir", lambda: tmp_path)
    assert "Leaf" in default_scene().graph
