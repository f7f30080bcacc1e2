"""Names are data in files too (docs/api.md, "Names"; docs/scene-format.md): any text a
UTF-8 file can hold, blanks, controls, bidi overrides, quotes, backslashes and code
points this Python does not know included, is saved and loaded back exactly, as TOML and
as glTF (.gltf and .glb)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer.content.scene import Look, Scene
from viewer.io import load_scene, save_scene
from viewer.io.gltf_write.export import save_gltf
from viewer.scene.graph import SceneGraph

#: Any text without lone surrogates (which no UTF-8 file can hold: the saver refuses
#: them in one line, tests/hostile/test_save_round_trip.py).
FILE_NAME = st.text(min_size=1, max_size=12)
ODD = [
    " ",
    "\t",
    "Robot \U0001fae8",
    "no\xa0break",
    "bad\x1b[31mname",
    "bidi\u202eoverride",
    'q"\\x',
    "a\u2028b",
]
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _scene(names: list[str]) -> Scene:
    graph = SceneGraph()
    for k, name in enumerate(names):
        graph.add(name, None if k == 0 else names[k // 2], position=(k, 0.0, 0.0))
    return Scene(graph=graph, title="names", looks={n.id: Look() for n in graph})


def _tree(scene: Scene) -> list[tuple[str, str | None]]:
    return [(n.name, n.parent.name if n.parent else None) for n in scene.graph]


@pytest.mark.parametrize("suffix", [".toml", ".gltf", ".glb"])
def test_the_issue_names_round_trip(tmp_path, suffix):
    scene = _scene(ODD)
    path = tmp_path / f"odd{suffix}"
    (save_scene if suffix == ".toml" else save_gltf)(scene, path)
    assert _tree(load_scene(path)) == _tree(scene)


@SETTINGS
@given(names=st.lists(FILE_NAME, min_size=1, max_size=6, unique=True))
def test_any_name_round_trips_through_toml_and_gltf(tmp_path_factory, names):
    scene = _scene(names)
    folder = tmp_path_factory.mktemp("names")
    save_scene(scene, folder / "s.toml")
    assert _tree(load_scene(folder / "s.toml")) == _tree(scene)
    save_gltf(scene, folder / "s.glb")
    assert _tree(load_scene(folder / "s.glb")) == _tree(scene)
