"""Caps instead of exhaustion: node count, glTF sizes, and includes that cannot nest."""

from __future__ import annotations

import json
import os

import pytest
from bounded import bounded_load, memory_traced
from scene_helpers import MODEL_NODES, build_gltf, write_gltf

from viewer.cli.main import main
from viewer.io import SceneError, generate_scene, load_scene
from viewer.io import toml_scene as toml_scene_module
from viewer.io._build import UniqueNames
from viewer.io.limits import MAX_BUFFER_BYTES, MAX_NODES

N_MODEL = len(MODEL_NODES)


def nodes_text(n: int) -> str:
    return "".join(f'[[node]]\nname = "N{k}"\n' for k in range(n))


# ------------------------------------------------------------------ node count
def test_defaults_are_generous():
    assert MAX_NODES == 2_000_000 and MAX_BUFFER_BYTES == 256 * 2**20


def test_toml_node_cap(write_scene):
    path = write_scene(nodes_text(11))
    assert len(load_scene(path, max_nodes=11).graph) == 11
    with pytest.raises(SceneError) as err:
        load_scene(path, max_nodes=10)
    assert err.value.file == str(path)
    assert "11 nodes, over the limit of 10 (--max-nodes 10)" in str(err.value)


def test_gltf_node_cap(make_gltf):
    path = make_gltf("glb")
    assert len(load_scene(path, max_nodes=N_MODEL).graph) == N_MODEL
    with pytest.raises(SceneError, match="the glTF file has 4 nodes, over the limit of 3"):
        load_scene(path, max_nodes=N_MODEL - 1)


def test_included_nodes_count_towards_the_cap(make_gltf, write_scene):
    make_gltf("glb")
    text = nodes_text(2).replace('name = "N0"\n', 'name = "N0"\nmesh = "model.glb"\n')
    text += '[[include]]\nfile = "model.glb"\n'
    path = write_scene(text)
    total = 2 + 2 * N_MODEL
    assert len(load_scene(path, max_nodes=total).graph) == total
    with pytest.raises(SceneError, match=f"{total} nodes, over the limit of {total - 1}") as err:
        load_scene(path, max_nodes=total - 1)
    assert err.value.file == str(path)


def test_generated_node_cap():
    assert len(generate_scene("chain:10", max_nodes=10).graph) == 10
    with pytest.raises(SceneError, match="--max-nodes 9"):
        generate_scene("chain:10", max_nodes=9)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_limits_must_be_positive_integers(write_scene, bad):
    path = write_scene(nodes_text(1))
    with pytest.raises(ValueError, match="positive whole number"):
        load_scene(path, max_nodes=bad)
    with pytest.raises(ValueError, match="positive whole number"):
        load_scene(path, max_buffer_bytes=bad)


# ------------------------------------------------------------------ glTF sizes
def test_buffer_cap(tmp_path):
    gltf, blob = build_gltf()
    size = 10_000  # larger than the JSON, so that the buffer is what hits the cap
    gltf.buffers[0].uri, gltf.buffers[0].byteLength = "model.bin", size
    path = tmp_path / "model.gltf"
    path.write_text(gltf.gltf_to_json())
    (tmp_path / "model.bin").write_bytes(blob.ljust(size, b"\0"))
    load_scene(path, max_buffer_bytes=size)
    over = r"over the limit of [\d,]+ bytes \(--max-buffer-mb"
    with pytest.raises(SceneError, match=over) as err:
        load_scene(path, max_buffer_bytes=size - 1)
    assert "buffer 0" in str(err.value)


def test_the_glb_file_itself_is_capped(make_gltf):
    path = make_gltf("glb")
    with pytest.raises(SceneError, match="the glTF file is .* bytes, over the limit"):
        load_scene(path, max_buffer_bytes=path.stat().st_size - 1)


def test_a_huge_bin_file_is_refused_without_reading_it(tmp_path):
    """A 1 TB sparse file: refused by its size on disk, nothing read, nothing allocated."""
    gltf, blob = build_gltf()
    gltf.buffers[0].uri = "huge.bin"
    path = tmp_path / "model.gltf"
    path.write_text(gltf.gltf_to_json())
    with open(tmp_path / "huge.bin", "wb") as f:
        f.write(blob)
        f.truncate(2**40)
    with memory_traced():
        err = bounded_load(path, megabytes=8)
    assert isinstance(err, SceneError) and "'huge.bin' is 1,099,511,627,776 bytes" in str(err)


def test_accessor_data_is_capped_before_allocation(tmp_path):
    """An accessor without a bufferView is all zeros; 2^28 VEC3 would be gigabytes."""
    doc = {
        "asset": {"version": "2.0"},
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"componentType": 5126, "count": 2**28, "type": "VEC3"}],
    }
    path = tmp_path / "zeros.gltf"
    path.write_text(json.dumps(doc))
    with memory_traced():  # the default cap, 256 MB, is enough to refuse it
        err = bounded_load(path, megabytes=8)
    assert isinstance(err, SceneError) and "3,221,225,472 bytes, over the limit" in str(err)


def test_the_flags_reach_the_loader_and_the_generator(make_gltf, capsys):
    path = make_gltf("glb")
    assert main([str(path), "--headless", "--max-buffer-mb", "0.001", "--size", "8x8"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--max-buffer-mb 0.000999451" in err
    assert main(["--generate", "chain:50", "--max-nodes", "49", "--headless"]) == 2
    assert "--max-nodes 49" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--max-nodes", "0"], ["--max-buffer-mb", "-1"]])
def test_bad_limit_flags(argv, capsys):
    with pytest.raises(SystemExit) as done:
        main(["--headless", *argv])
    assert done.value.code == 2 and "expected a positive" in capsys.readouterr().err


# ------------------------------------------------------------------ includes
def test_includes_do_not_nest_a_toml_include_is_refused(write_scene):
    write_scene(nodes_text(1), name="other.toml")
    path = write_scene('[[include]]\nfile = "other.toml"\n')
    with pytest.raises(SceneError, match="expected a path to a .gltf or .glb file"):
        load_scene(path)
    path = write_scene('[[include]]\nfile = "scene.toml"\n')  # itself: no cycle to follow
    with pytest.raises(SceneError, match="expected a path to a .gltf or .glb file"):
        load_scene(path)
    path = write_scene('[[node]]\nname = "A"\nmesh = "scene.toml"\n')
    with pytest.raises(SceneError, match="unknown mesh"):
        load_scene(path)


def test_a_gltf_naming_itself_as_its_buffer_is_just_bytes(tmp_path):
    """glTF URIs reach buffers and images only: naming itself cannot recurse."""
    gltf, _blob = build_gltf()
    gltf.buffers[0].uri = "self.gltf"
    path = tmp_path / "self.gltf"
    path.write_text(gltf.gltf_to_json())
    gltf.buffers[0].byteLength = path.stat().st_size  # now it is a valid (odd) buffer
    path.write_text(gltf.gltf_to_json().ljust(path.stat().st_size + 64))
    with memory_traced():
        result = bounded_load(path, megabytes=16)
    # the buffer is read as bytes (the JSON text), whose "indices" point past the vertices
    assert isinstance(result, SceneError), result
    assert "self.gltf: mesh 0 primitive 0: an index is" in str(result)


def test_each_gltf_file_is_read_once_per_load(make_gltf, write_scene, monkeypatch):
    make_gltf("glb")
    reads = []
    real = toml_scene_module.read_gltf
    monkeypatch.setattr(
        toml_scene_module, "read_gltf", lambda path, **kw: reads.append(path) or real(path, **kw)
    )
    text = "".join(f'[[node]]\nname = "H{k}"\nmesh = "model.glb"\n' for k in range(3))
    text += '[[include]]\nfile = "model.glb"\n[[include]]\nfile = "./model.glb"\n'
    scene = load_scene(write_scene(text))
    assert len(reads) == 1 and len(scene.graph) == 3 + 5 * N_MODEL
    assert len(scene.includes) == 5


class CountingSet(set):
    """A set that counts membership tests: the work of a name search, without a clock."""

    probes = 0

    def __contains__(self, item):
        CountingSet.probes += 1
        return super().__contains__(item)


def test_unique_names_are_linear():
    names = UniqueNames(["a~3"])
    names.taken = CountingSet(names.taken)
    CountingSet.probes = 0
    got = [names.claim("a") for _ in range(20_000)]
    assert got[:4] == ["a", "a~2", "a~4", "a~5"] and len(set(got)) == len(got)
    assert CountingSet.probes <= 3 * 20_000  # quadratic naming would probe ~2e8 times


def test_the_same_model_included_often_keeps_distinct_names(tmp_path):
    write_gltf(tmp_path, "glb")
    path = tmp_path / "many.toml"
    path.write_text('[[include]]\nfile = "model.glb"\n' * 3)
    names = [n.name for n in load_scene(path).graph]
    assert names.count("Body") == 1 and "Body~3" in names and len(set(names)) == len(names)


def test_a_named_pipe_is_refused_rather_than_waited_on(tmp_path):
    """Reading a FIFO blocks until someone writes: a buffer or scene that is one must not
    hang the loader."""
    gltf, _blob = build_gltf()
    gltf.buffers[0].uri = "pipe.bin"
    path = tmp_path / "model.gltf"
    path.write_text(gltf.gltf_to_json())
    os.mkfifo(tmp_path / "pipe.bin")
    os.mkfifo(tmp_path / "pipe.toml")
    err = bounded_load(path)
    assert isinstance(err, SceneError) and "not a regular file" in str(err)
    err = bounded_load(tmp_path / "pipe.toml")
    assert isinstance(err, SceneError) and "pipe or device" in str(err)
