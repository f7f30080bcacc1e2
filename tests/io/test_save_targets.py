"""A save target's suffix picks its writer: a name with no writer (``.usd``, which names
no one format, OpenUSD's without usd-core, or any other) is refused in one line and
nothing is written, never one format under another's name."""

from __future__ import annotations

import pytest

from viewer.cli.main import main
from viewer.io import SceneError, load_scene, save_scene
from viewer.io.bundled import scene_dir
from viewer.io.save import save_target_reason
from viewer.session.opening import save_as

CHAIN5 = str(scene_dir() / "chain5.toml")
NO_WRITER = ["x.usd", "x.txt", "x.TOML.bak", "x"]


@pytest.mark.parametrize("name", NO_WRITER)
def test_save_to_a_suffix_with_no_writer_is_one_line(tmp_path, capsys, name):
    target = tmp_path / name
    assert main([CHAIN5, "--save", str(target)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"sgview: --save {target}: cannot save as ")
    assert "sgview writes .toml, .gltf, .glb" in captured.err
    assert list(tmp_path.iterdir()) == []


def test_without_usd_core_the_usda_refusal_names_the_suffix(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("viewer.io.save.missing_reason", lambda: "usd-core is not installed")
    for name in ("x.usda", "x.usdc", "x.usdz"):
        assert main([CHAIN5, "--save", str(tmp_path / name)]) == 2
        suffix = name[1:]
        assert f"cannot save as {suffix}: usd-core is not installed\n" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["x.toml", "x.gltf", "x.glb", "X.TOML", "x.GLB"])
def test_the_written_suffixes_have_a_writer(name):
    assert save_target_reason(name) is None


@pytest.mark.parametrize("name", ["x.usd", "x.gltf.txt"])
def test_save_as_refuses_before_writing(tmp_path, name):
    scene = load_scene(CHAIN5)
    with pytest.raises(SceneError, match="cannot save as"):
        save_as(scene, tmp_path / name)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["x.usda", "x.glb", "x.json"])
def test_the_toml_writer_writes_toml_names_only(tmp_path, name):
    with pytest.raises(SceneError, match="not saved"):
        save_scene(load_scene(CHAIN5), tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_the_gltf_writer_itself_refuses_another_formats_name(tmp_path):
    """Whoever calls it, the glTF writer writes only under .gltf and .glb names."""
    from viewer.io.gltf_write.export import save_gltf

    scene = load_scene(scene_dir() / "chain5.toml")
    for name in ("x.usda", "x.toml", "x"):
        with pytest.raises(SceneError, match="use .gltf or .glb"):
            save_gltf(scene, tmp_path / name)
        assert not (tmp_path / name).exists()
