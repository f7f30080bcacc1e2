"""`--save` keeps what was loaded: load(save(load(x))) == load(x), field by field, and the
official Khronos validator finds no error in any export.

Files: every bundled scene, files built in code for each feature (tests/io/gltf_features.py,
tests/gltf_rig.py), every valid file of the glTF validator's test corpus. Motions: the
exported animation, read by a second reader (pygltflib) and sampled by the test's own
sampler (tests/anim_oracle.py), gives the motions' world matrices within the error bound
docs/scene-format.md states.
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path

import numpy as np
import pygltflib
import pytest
from anim_oracle import oracle_sample
from gltf_features import JPEG, PNG, feature_document, write_features
from gltf_rig import write_rig
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import local_matrix
from roundtrip import assert_same_content, surfaces_by_node, world_matrices
from scene_helpers import SCENE_FILES
from validator import assert_valid

from viewer.cli.main import main
from viewer.content.motion import apply_motions
from viewer.io import SceneError, load_scene
from viewer.io.gltf_write.export import save_gltf

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "gltf-validator-corpus"
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/gltf-validator-corpus")
TIMES = (0.0, 0.2, 0.61, 1.37, 2.2, 3.9)
FORMS = [("out.glb", False), ("out.gltf", False), ("out.gltf", True)]


def _round_trip(source: Path, folder: Path, name: str, embed: bool = False):
    """(the loaded source, the reloaded export, the export's path, the notes)."""
    scene = load_scene(source)
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / name
    notes = save_gltf(scene, out, embed=embed)
    return scene, load_scene(out), out, notes


def _assert_same_motion(source: Path, again, times=TIMES, atol=1e-6):
    for t, a, b in zip(times, world_matrices(load_scene(source), times),
                       world_matrices(again, times), strict=True):  # fmt: skip
        np.testing.assert_allclose(b, a, rtol=0, atol=atol, err_msg=f"t = {t}")


def _doc(path: Path) -> dict:
    if path.suffix == ".glb":
        return json.loads(pygltflib.GLTF2.load_binary(str(path)).to_json())
    return json.loads(path.read_text())


def _read(path: Path) -> dict:
    """The written file's JSON (plain dicts, as written)."""
    data = path.read_bytes()
    if path.suffix == ".glb":
        length = int.from_bytes(data[12:16], "little")
        return json.loads(data[20 : 20 + length])
    return json.loads(data)


# ---------------------------------------------------------------- files built in code
@pytest.mark.parametrize(("name", "embed"), FORMS, ids=["glb", "gltf", "gltf-embedded"])
@pytest.mark.parametrize("build", ["features.glb", "features.gltf", "rig.glb"])
def test_feature_files_keep_everything(tmp_path, build, name, embed):
    if build.startswith("rig"):
        source = write_rig(tmp_path, build)
    else:
        source = write_features(tmp_path, build)
    scene, again, out, notes = _round_trip(source, tmp_path / "out", name, embed)
    assert notes == []
    assert_same_content(scene, again)
    _assert_same_motion(source, again)
    written, original = _read(out), _read(source)
    # everything but the re-packed binary layout is written as read
    for key in ("meshes", "materials", "textures", "samplers", "cameras", "skins",
                "animations", "extensions", "scenes"):  # fmt: skip
        if key == "scenes":
            assert written["scenes"][0]["name"] == original["scenes"][0]["name"]
            continue
        assert written.get(key) == original.get(key), key
    assert set(written.get("extensionsUsed", [])) == set(original.get("extensionsUsed", []))
    for a, b in zip(written["accessors"], original["accessors"], strict=True):
        if "min" not in b:  # the rig leaves out bounds glTF requires: the export adds them
            b = {**b, **{k: a[k] for k in ("min", "max") if k in a}}
        assert {k: v for k, v in a.items() if k != "bufferView"} == {
            k: v for k, v in b.items() if k != "bufferView"}  # fmt: skip
    for a, b in zip(written["nodes"], original["nodes"], strict=True):
        assert a == b  # names, TRS or matrix as read, children, extras, extensions
    assert written["asset"].get("copyright") == original["asset"].get("copyright")
    if build.startswith("features"):
        assert _image_bytes(out, written) == [PNG, JPEG]
        if name.endswith(".gltf"):
            files = sorted(p.name for p in out.parent.iterdir())
            assert files == (["out.gltf"] if embed else ["out.bin", "out.gltf", "out_0.png",
                                                         "out_1.jpg"])  # fmt: skip
    assert_valid([out], warnings=build.startswith("rig"))  # (the rig's own warnings stay)


def _image_bytes(path: Path, doc: dict) -> list[bytes]:
    """Each image's bytes as a second reader finds them (by the spec, not the loader)."""
    found = []
    blob = None
    if path.suffix == ".glb":
        blob = pygltflib.GLTF2.load_binary(str(path)).binary_blob()
    for image in doc["images"]:
        uri = image.get("uri")
        if uri is None:
            view = doc["bufferViews"][image["bufferView"]]
            start = view.get("byteOffset", 0)
            found.append(bytes(blob[start : start + view["byteLength"]]))
        elif uri.startswith("data:"):
            found.append(base64.b64decode(uri.split(",", 1)[1]))
        else:
            found.append((path.parent / uri).read_bytes())
    return found


def test_a_second_save_writes_the_same_document(tmp_path):
    source = write_features(tmp_path)
    save_gltf(load_scene(source), tmp_path / "a.glb")
    save_gltf(load_scene(tmp_path / "a.glb"), tmp_path / "b.glb")
    assert (tmp_path / "a.glb").read_bytes() == (tmp_path / "b.glb").read_bytes()


def test_edited_nodes_are_written_as_they_are_now(tmp_path):
    scene = load_scene(write_features(tmp_path))
    scene.graph["Camera"].local_position = (7.0, 8.0, 9.0)
    save_gltf(scene, tmp_path / "out.glb")
    nodes = {n["name"]: n for n in _read(tmp_path / "out.glb")["nodes"]}
    assert nodes["Camera"]["translation"] == [7.0, 8.0, 9.0] and nodes["Camera"]["camera"] == 0
    assert nodes["Ortho"]["matrix"][12:15] == [4, 5, 6]  # unchanged: the matrix as read
    again = load_scene(tmp_path / "out.glb")
    np.testing.assert_allclose(again.graph["Camera"].local_position, (7, 8, 9))


# ---------------------------------------------------------------- the validator's corpus
def _valid_corpus_files() -> list[Path]:
    files = []
    for report in sorted(CORPUS.rglob("*.report.json")):
        if json.loads(report.read_text())["issues"]["numErrors"] == 0:
            files.append(report.with_name(report.name[: -len(".report.json")]))
    return files


def test_every_valid_corpus_file_round_trips(tmp_path):
    files = _valid_corpus_files()
    if not files:
        pytest.skip(f"no validator corpus at {CORPUS}")
    written, opened = [], 0
    for k, source in enumerate(files):
        try:
            load_scene(source)
        except SceneError:
            continue  # the loader's own tests decide which files it must open
        opened += 1
        for suffix in (".glb", ".gltf"):
            scene, again, out, _notes = _round_trip(source, tmp_path / f"{k}", f"out{suffix}")
            try:
                assert_same_content(scene, again)
                _assert_same_motion(source, again, times=TIMES[:3])
            except AssertionError as exc:
                raise AssertionError(f"{source.relative_to(CORPUS)} as {suffix}: {exc}") from None
            written.append(out)
    assert opened > len(files) // 2
    assert_valid(written)


# ---------------------------------------------------------------- scenes and motions
def test_every_bundled_scene_exports_valid_and_moving(tmp_path):
    written = []
    for source in SCENE_FILES:
        for name, embed in FORMS:
            folder = tmp_path / source.stem / ("embed" if embed else "files")
            _scene, again, out, notes = _round_trip(source, folder, name, embed)
            assert notes == [], source
            # the motions come back as an animation, within the stated sampling bound
            _assert_same_motion(source, again, atol=2e-5)
            written.append(out)
    assert_valid(written, warnings=False)


MOTIONS_TOML = """
[scene]
title = "every motion kind"

[[node]]
name = "Base"
position = [1, 0, 0]
motion = { spin = { axis = [0, 1, 1], speed = 45, phase = 10 } }

[[node]]
name = "Arm"
parent = "Base"
position = [0, 2, 0]
motion = { swing = { axis = [1, 0, 0], amplitude = 50, period = 2, phase = 30 }, \
pulse = { amplitude = 0.4, period = 1 } }

[[node]]
name = "Planet"
parent = "Arm"
position = [3, 0, 1]
motion = { orbit = { axis = [0, 0, 1], speed = -90 } }

[[node]]
name = "Bob"
parent = "Planet"
motion = { oscillate = { axis = [1, 1, 0], amplitude = 0.5, period = 0.5 } }
""".replace(
    "SWING", "swing = { axis = [1, 0, 0], amplitude = 50, period = 2, phase = 30 }"
).replace("PULSE", "pulse = { amplitude = 0.4, period = 1 }")


def _oracle_worlds(path: Path, t: float) -> dict[str, np.ndarray]:
    """World matrices at clip time `t` of the file's first animation, computed from the
    file by pygltflib and the test's own sampler and matrices, not by sgview's code."""
    gltf = pygltflib.GLTF2.load(str(path))
    blob = gltf.binary_blob()

    def floats(index):
        acc = gltf.accessors[index]
        view = gltf.bufferViews[acc.bufferView]
        width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc.type]
        start = (view.byteOffset or 0) + (acc.byteOffset or 0)
        return np.frombuffer(blob, "<f4", acc.count * width, start).reshape(acc.count, width)

    trs = [[list(n.translation or [0, 0, 0]), list(n.rotation or [0, 0, 0, 1]),
            list(n.scale or [1, 1, 1])] for n in gltf.nodes]  # fmt: skip
    anim = gltf.animations[0]
    duration = max(float(floats(s.input)[-1, 0]) for s in anim.samplers)
    t = math.fmod(t, duration)
    for ch in anim.channels:
        s = anim.samplers[ch.sampler]
        times, values = floats(s.input)[:, 0], floats(s.output)
        if s.interpolation == "CUBICSPLINE":
            values = values.reshape(-1, 3, values.shape[1])
        rotation = ch.target.path == "rotation"
        value = oracle_sample(times, values, s.interpolation, t, rotation=rotation)
        trs[ch.target.node][["translation", "rotation", "scale"].index(ch.target.path)] = value
    worlds: dict[str, np.ndarray] = {}

    def walk(i, parent):
        worlds[gltf.nodes[i].name] = parent @ local_matrix(*trs[i])
        for c in gltf.nodes[i].children or []:
            walk(c, worlds[gltf.nodes[i].name])

    for root in gltf.scenes[gltf.scene].nodes:
        walk(root, np.eye(4))
    return worlds


def test_motions_play_in_a_second_reader(tmp_path):
    source = tmp_path / "motions.toml"
    source.write_text(MOTIONS_TOML)
    scene = load_scene(source)
    out = tmp_path / "motions.glb"
    assert save_gltf(scene, out) == []
    anim = _read(out)["animations"][0]
    assert anim["name"] == "sgview motions" and len(anim["channels"]) == 5
    kinds = {ch["target"]["path"]: anim["samplers"][ch["sampler"]]["interpolation"]
             for ch in anim["channels"]}  # fmt: skip
    assert kinds["translation"] == "CUBICSPLINE"
    for t in (0.0, 0.1, 0.77, 1.5, 3.3, 7.9, 9.0):  # the horizon is 8 s: it loops
        apply_motions(scene, t)
        oracle = _oracle_worlds(out, t)
        for node in scene.graph:
            # bound: the documented sampling error (1.5e-8 per unit, lever arms under 10)
            # plus float32 keys: well under 1e-5 here
            np.testing.assert_allclose(oracle[node.name], node.world_matrix, rtol=0,
                                       atol=1e-5, err_msg=f"{node.name} at t = {t}")  # fmt: skip
    assert_valid([out])


def test_solar_system_opens_animated_in_a_second_reader(tmp_path):
    out = tmp_path / "solar.glb"
    assert main(["solar_system", "--save", str(out)]) == 0
    scene = load_scene(next(p for p in SCENE_FILES if p.stem == "solar_system"))
    still = _oracle_worlds(out, 0.0)
    for t in (0.0, 2.5, 17.3, 100.0):
        apply_motions(scene, t)
        oracle = _oracle_worlds(out, t)
        moved = 0
        for node in scene.graph:
            np.testing.assert_allclose(oracle[node.name], node.world_matrix, rtol=0, atol=2e-5,
                                       err_msg=f"{node.name} at t = {t}")  # fmt: skip
            moved += not np.allclose(oracle[node.name], still[node.name])
        assert t == 0.0 or moved > 5


def test_spin_keys_are_exact(tmp_path):
    source = tmp_path / "spin.toml"
    source.write_text(
        '[[node]]\nname = "S"\nmotion = { spin = { axis = [1, 2, 3], speed = 70 } }\n'
    )
    out = tmp_path / "spin.glb"
    save_gltf(load_scene(source), out)
    anim = _read(out)["animations"][0]
    assert anim["samplers"][0]["interpolation"] == "LINEAR"
    scene = load_scene(source)
    for t in np.linspace(0.0, 360 / 70, 37):
        apply_motions(scene, t)
        oracle = _oracle_worlds(out, t)
        np.testing.assert_allclose(oracle["S"], scene.graph["S"].world_matrix, atol=5e-7)


# ---------------------------------------------------------------- scenes that mix sources
def test_a_toml_scene_with_several_gltf_files_is_one_document(tmp_path):
    write_rig(tmp_path, "rig.glb")
    write_features(tmp_path, "features.gltf")
    source = tmp_path / "mix.toml"
    source.write_text('[[node]]\nname = "Host"\nmesh = "cube"\nposition = [1, 2, 3]\n'
                      'motion = { spin = { speed = 30 } }\n\n'
                      '[[node]]\nname = "Other"\nmesh = "rig.glb"\n\n'
                      '[[include]]\nfile = "features.gltf"\nparent = "Host"\n\n'
                      '[[include]]\nfile = "rig.glb"\n')  # fmt: skip
    scene = load_scene(source)
    out = tmp_path / "out" / "mix.gltf"
    out.parent.mkdir()
    assert save_gltf(scene, out) == []
    again = load_scene(out)
    assert [n.name for n in again.graph] == [n.name for n in scene.graph]
    doc = _read(out)
    assert len(doc["skins"]) == 2 and len(doc["cameras"]) == 2
    assert [a["name"] for a in doc["animations"]] == ["Bend", "Wave", "Moves", "Bulge", "Bend",
                                                      "Wave", "sgview motions"]  # fmt: skip
    assert len(doc["materials"]) == 1 + 3  # the cube's colour, then the features' three
    assert_valid([out])
    # the skins (by joint names), skinned meshes and textures survive the merge
    for a, b in zip(scene.skinning.skins, again.skinning.skins, strict=True):
        assert [scene.graph.node(int(i)).name for i in a.joints] == [
            again.graph.node(int(i)).name for i in b.joints]  # fmt: skip
        np.testing.assert_array_equal(a.inverse_binds, b.inverse_binds)
    assert [scene.graph.node(m.node).name for m in scene.skinning.meshes] == [
        again.graph.node(m.node).name for m in again.skinning.meshes]  # fmt: skip
    drawn = surfaces_by_node(scene)  # (the built-in cube gains a glTF material: not compared)
    assert drawn and drawn == {k: v for k, v in surfaces_by_node(again).items() if k in drawn}


# ---------------------------------------------------------------- never a traceback
def test_scenes_without_meshes_save(tmp_path, capsys):
    one = tmp_path / "one.toml"
    one.write_text('[[node]]\nname = "Solo"\nmesh = "none"\n')
    empty = tmp_path / "empty.gltf"
    empty.write_text('{"asset": {"version": "2.0"}, "scenes": [{"nodes": []}], "scene": 0}')
    bones = tmp_path / "bones.gltf"
    bones.write_text(json.dumps({"asset": {"version": "2.0"}, "nodes": [
        {"name": "a", "children": [1]}, {"name": "b", "translation": [0, 1, 0]}]}))  # fmt: skip
    outs = []
    for source in (one, empty, bones):
        for suffix in (".gltf", ".glb"):
            out = tmp_path / f"{source.stem}-out{suffix}"
            assert main([str(source), "--save", str(out)]) == 0, capsys.readouterr().err
            assert len(load_scene(out).graph) == len(load_scene(source).graph)
            outs.append(out)
    assert not (tmp_path / "one-out.bin").exists()
    assert_valid(outs)


def test_what_cannot_be_carried_is_named_once_per_kind(tmp_path, capsys):
    doc, blob = feature_document()
    # a second scene the viewer does not load: a node outside, animated and a joint
    doc["nodes"].append({"name": "Elsewhere"})
    doc["scenes"].append({"nodes": [7]})
    doc["animations"][0]["channels"].append({"sampler": 2, "target": {"node": 7, "path": "scale"}})
    doc["animations"][0]["channels"].append(
        {"sampler": 2, "target": {"node": 7, "path": "translation"}}
    )
    from gltf_rig import glb

    source = tmp_path / "partial.glb"
    source.write_bytes(glb(doc, blob))
    out = tmp_path / "out.glb"
    assert main([str(source), "--save", str(out)]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "outside the saved scene" in line]
    assert len(lines) == 1 and "2 animation channel(s)" in lines[0], err
    assert_valid([out])


def test_gltf_embed_needs_a_gltf_output(tmp_path, capsys):
    assert main(["tree10", "--save", str(tmp_path / "x.glb"), "--gltf-embed"]) == 2
    assert "--gltf-embed" in capsys.readouterr().err
    assert main(["tree10", "--save", str(tmp_path / "x.gltf"), "--gltf-embed"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.gltf"]


# ---------------------------------------------------------------- odd data the loader ignores
def _odd(change):
    def apply(doc):
        change(doc)
        return doc

    return apply


ODD = {
    "cameras-not-a-list": lambda d: d.update(cameras="nope"),
    "texture-not-an-object": lambda d: d["textures"].append(5),
    "image-file-missing": lambda d: d["images"].append({"uri": "missing.png"}),
    "unused-sampler-index-out-of-range": lambda d: d["animations"][1]["samplers"][0].update(
        input=999
    ),
    "target-index-a-string": lambda d: d["meshes"][1]["primitives"][0].update(
        targets=[{"POSITION": "x"}]
    ),
    "instancing-attributes-not-an-object": lambda d: d["nodes"][1]["extensions"].update(
        EXT_mesh_gpu_instancing={"attributes": 3}
    ),
    "lights-not-a-list": lambda d: d.update(extensions={"KHR_lights_punctual": {"lights": "x"}}),
    "view-of-a-missing-buffer": lambda d: d["bufferViews"].append({"buffer": 7, "byteLength": 4}),
    "buffer-file-missing": lambda d: d["buffers"].append({"byteLength": 8, "uri": "nothere.bin"}),
    "skin-joint-a-string": lambda d: d.update(skins=[{"joints": ["a"]}]),
    "skin-not-an-object": lambda d: d.update(skins=[7]),
    "animation-not-an-object": lambda d: d["animations"].append([1, 2]),
    "deep-extras": lambda d: d["materials"][2].update(extras={"deep": [[[[{"a": [1]}]]]]}),
}


@pytest.mark.parametrize("case", sorted(ODD))
def test_odd_data_is_saved_with_notes_never_a_traceback(tmp_path, case, capsys):
    from gltf_rig import glb

    doc, blob = feature_document()
    ODD[case](doc)
    source = tmp_path / "odd.glb"
    source.write_bytes(glb(doc, blob))
    try:
        load_scene(source)
    except SceneError:
        pytest.skip("the loader refuses it (its own tests cover that)")
    for name in ("out.glb", "out.gltf"):
        code = main([str(source), "--save", str(tmp_path / name)])
        err = capsys.readouterr().err
        assert code == 0 and "Traceback" not in err, err  # what it cannot carry: notes


# ---------------------------------------------------------------- the stated sampling bound
H4 = (2 * math.pi / 128) ** 4 / 384  # docs/scene-format.md: the Hermite bound per unit


@pytest.mark.parametrize(
    ("motion", "bound"),
    [
        ("orbit = { axis = [0, 0, 1], speed = 33 }", math.sqrt(2) * H4 * 10.0),  # radius 10
        ("oscillate = { axis = [1, 0, 0], amplitude = 4, period = 1.5 }", H4 * 4),
        ("pulse = { amplitude = 0.5, period = 0.8 }", H4 * 0.5 * 3),  # rest scale 3
        (
            "swing = { axis = [0, 1, 0], amplitude = 120, period = 2 }",
            math.sqrt(2)
            * H4
            * sum(c * (math.radians(60) ** p) for c, p in ((1, 4), (6, 3), (7, 2), (1, 1))),
        ),  # fmt: skip
    ],
    ids=["orbit", "oscillate", "pulse", "swing"],
)
def test_sampled_motions_stay_within_the_stated_bound(tmp_path, motion, bound):
    source = tmp_path / "m.toml"
    source.write_text(f'[[node]]\nname = "N"\nposition = [10, 0, 0]\nscale = 3\n'
                      f"motion = {{ {motion} }}\n")  # fmt: skip
    scene = load_scene(source)
    out = tmp_path / "m.glb"
    assert save_gltf(scene, out) == []
    again = load_scene(out)
    (m,) = scene.motions
    (clip,) = again.animation.clips
    (channel,) = clip.channels
    worst = 0.0
    for t in np.linspace(0.0, clip.duration, 2001):  # between the keys, mostly
        exact = m.values(t)[0]
        got = channel.at(t)
        if channel.path == "rotation" and np.dot(exact, got) < 0:
            got = -got
        worst = max(worst, float(np.abs(got - exact).max()))
    # the bound, plus float32 keys (a few units of 6e-8 of the value's size)
    size = float(np.abs(m.values(0.0)).max())
    assert worst <= bound + 3e-7 * max(size, 1.0), (worst, bound)


def test_periods_without_a_common_multiple_are_named(tmp_path, capsys):
    source = tmp_path / "m.toml"
    source.write_text('[[node]]\nname = "A"\nmotion = { oscillate = { amplitude = 1, '
                      'period = 1 } }\n\n[[node]]\nname = "B"\nmotion = { pulse = { '
                      f"amplitude = 0.2, period = {math.sqrt(2)!r} }} }}\n")  # fmt: skip
    assert main([str(source), "--save", str(tmp_path / "m.glb")]) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if "common period" in x]
    assert len(lines) == 1 and "1.41421" in lines[0]
    assert_valid([tmp_path / "m.glb"])


def test_nodes_outside_the_shown_scene_are_named(tmp_path, capsys):
    from gltf_rig import glb

    doc, blob = feature_document()
    doc["nodes"].append({"name": "Elsewhere", "camera": 0})
    doc["scenes"].append({"nodes": [7]})
    source = tmp_path / "two.glb"
    source.write_bytes(glb(doc, blob))
    assert main([str(source), "--save", str(tmp_path / "out.glb")]) == 0
    err = capsys.readouterr().err
    assert "1 node(s) outside the scene sgview loaded" in err
    assert "1 glTF scene(s) other than the one shown" in err


def test_images_sharing_a_file_are_read_and_written_once(tmp_path):
    from gltf_rig import glb

    doc, blob = feature_document()
    (tmp_path / "big.png").write_bytes(PNG + bytes(1 << 20))  # 1 MB, never decoded
    doc["images"] += [{"uri": "big.png"} for _ in range(40)]
    source = tmp_path / "shared.glb"
    source.write_bytes(glb(doc, blob))
    scene = load_scene(source, max_buffer_bytes=8 << 20)  # 40 copies would not fit
    for name in ("out.glb", "out.gltf"):
        assert save_gltf(scene, tmp_path / name) == []
    assert (tmp_path / "out.glb").stat().st_size < 2 << 20
    assert len(list(tmp_path.glob("out_*"))) == 3  # png, jpeg, big
    assert_valid([tmp_path / "out.glb", tmp_path / "out.gltf"])


# ---------------------------------------------------------------- merges, by a spec reading
@pytest.mark.parametrize("seed", range(4))
def test_merged_files_resolve_to_their_sources(tmp_path, seed):
    """Random TOML scenes including the feature and rig files under random hosts: every
    carried node, with its mesh, material, textures, images, skin, camera, light and
    instancing followed through the indices, and every animation, equals its source's."""
    from gltf_resolve import Resolved, same_elements

    rng = np.random.default_rng(seed)
    write_rig(tmp_path, "rig.glb")
    names = ["rig.glb"]
    for variant, suffix in enumerate((".glb", ".gltf", ".glb", ".gltf"), start=1):
        names.append(write_features(tmp_path, f"f{variant}{suffix}", variant).name)
    lines, expect = ['[[node]]\nname = "Host0"\nmesh = "sphere"\n'], []
    for k in range(1, 5):
        lines.append(f'[[node]]\nname = "Host{k}"\nparent = "Host{rng.integers(k)}"\n'
                     f'mesh = "{rng.choice(["cube", "none", "cone"])}"\n')  # fmt: skip
    for name in rng.choice(names, size=rng.integers(2, 5), replace=False):
        host = f"Host{rng.integers(5)}"
        lines.append(f'[[include]]\nfile = "{name}"\nparent = "{host}"\n')
        expect.append((name, host))
    source = tmp_path / "mix.toml"
    source.write_text("\n".join(lines))
    scene = load_scene(source)
    for out_name in ("out.glb", "out.gltf"):
        out = tmp_path / "out" / out_name
        out.parent.mkdir(exist_ok=True)
        assert save_gltf(scene, out) == []
        written = Resolved(out)
        got = written.nodes_by_name()
        anims = written.animations()
        seen = 0
        for inc in scene.includes:  # each include's nodes, by their names in the scene
            src = Resolved(inc.path)
            ids = np.asarray(inc.ids)
            rows = np.asarray(inc.source.rows)
            rename = {src.name(gi): scene.graph.name_of(int(ids[r])) for gi, r in
                      enumerate(rows) if r >= 0}  # fmt: skip
            for gi, r in enumerate(rows):
                if r < 0:
                    continue
                mine = src.node(gi)
                mine["children"] = sorted(rename[c] for c in
                                          [src.name(c) for c in src.doc["nodes"][gi].get(
                                              "children", [])])  # fmt: skip
                if "skin" in mine:
                    mine["skin"]["joints"] = [rename[j] for j in mine["skin"]["joints"]]
                theirs = got[rename[src.name(gi)]]
                for key in ("translation", "rotation", "scale", "matrix"):
                    mine.pop(key, None), theirs.pop(key, None)  # world matrices: other tests
                assert same_elements(theirs, mine), (inc.path.name, src.name(gi))
                seen += 1
            for anim in src.animations():
                moved = (
                    anim[0],
                    sorted(
                        (
                            json.dumps(
                                {**json.loads(t), "node": rename[json.loads(t)["node"]]},
                                sort_keys=True,
                            ),
                            i,
                            o,
                            interp,
                        )
                        for t, i, o, interp in anim[1]
                    ),
                )
                assert any(same_elements(moved, a) for a in anims), anim[0]  # fmt: skip
        assert seen == sum(len(inc.ids) for inc in scene.includes)
    assert_valid([tmp_path / "out" / "out.glb", tmp_path / "out" / "out.gltf"])


def _stated_bound(m, row: int) -> float:
    """docs/scene-format.md's bound for one sampled motion row (without float32)."""
    kind = m.kind
    if kind == "orbit":
        rest = m.rest[row]
        radius = np.linalg.norm(rest - np.dot(rest, m.axis[row]) * m.axis[row])
        return math.sqrt(2) * H4 * radius
    if kind == "oscillate":
        return H4 * abs(m.amplitude[row])
    if kind == "pulse":
        return H4 * abs(m.amplitude[row]) * np.abs(m.rest[row]).max()
    a = math.radians(abs(m.amplitude[row])) / 2
    return math.sqrt(2) * H4 * (a**4 + 6 * a**3 + 7 * a**2 + a)


@settings(max_examples=25, deadline=None)
@given(
    kind=st.sampled_from(["spin", "orbit", "swing", "oscillate", "pulse"]),
    axis=st.tuples(*[st.floats(-1, 1)] * 3).filter(lambda v: np.linalg.norm(v) > 0.1),
    speed=st.floats(-400, 400).filter(lambda v: abs(v) > 1),
    amplitude=st.floats(-0.9, 0.9).filter(lambda v: abs(v) > 0.01),
    period=st.floats(0.2, 5),
    phase=st.floats(-360, 360),
    rest=st.tuples(*[st.floats(-5, 5)] * 3),
    spin=st.floats(-180, 180),
)
def test_any_motion_keys_match_the_motion(kind, axis, speed, amplitude, period, phase, rest,
                                          spin):  # fmt: skip
    """Random motions: the exported keys, sampled by the test's own reading of the spec,
    give the motion's values within the documented bound (exact for spin) plus float32."""
    from viewer.content.motion import Motion
    from viewer.io.gltf_write.motion import motion_channels
    from viewer.scene.math import quat_from_axis_angle

    width = {"spin": 4, "swing": 4, "orbit": 3, "oscillate": 3, "pulse": 3}[kind]
    if width == 4:
        base = quat_from_axis_angle(np.array([0.3, 1.0, -0.2]), spin)
    else:
        base = np.array(rest) if kind != "pulse" else np.abs(rest) + 0.5
    params = {"axis": axis, "phase": phase}
    if kind in ("spin", "orbit"):
        params["speed"] = speed
    else:
        params.update(period=period, amplitude=amplitude * (100 if kind == "swing" else 1))
    if kind == "pulse":
        del params["axis"]
    m = Motion.make(kind, [0], base[None], **params)
    (ch,), horizon, _notes = motion_channels([m])
    times = ch.times.astype(np.float64)
    values = ch.values.astype(np.float64)
    if ch.interpolation == "CUBICSPLINE":
        values = values.reshape(-1, 3, width)
    bound = 0.0 if kind == "spin" else _stated_bound(m, 0)
    size = float(np.abs(m.values(0.0)).max()) + abs(params.get("amplitude", 0.0))
    for t in np.linspace(0.0, horizon, 97)[1:-1] + horizon / 500:
        got = oracle_sample(times, values, ch.interpolation, t, rotation=width == 4)
        exact = m.values(t)[0]
        if width == 4 and np.dot(got, exact) < 0:
            got = -got
        assert np.abs(got - exact).max() <= bound + 4e-7 * max(size, 1.0), (t, got, exact)
