"""What a loaded mesh keeps is charged to the budget (issue 47): a file within
``--max-buffer-mb`` loads and uploads within `PEAK_FACTOR` times it, one whose kept arrays
(and the renderer's copy) would pass `KEPT_FACTOR` times it is refused in one line naming
the file, the mesh and the primitive, and POINTS all at one place keep one point whatever
count they claim. Files are built in code; caps are small so that a case stays fast."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "io"))
from bounded import bounded_load, memory_traced  # noqa: E402

from viewer.content import meshes  # noqa: E402
from viewer.io import SceneError  # noqa: E402
from viewer.io.gltf_read.data import GltfFile  # noqa: E402
from viewer.io.gltf_read.mesh import read_mesh  # noqa: E402
from viewer.io.limits import KEPT_FACTOR, PEAK_FACTOR  # noqa: E402
from viewer.render.gpu_mesh import interleaved, joined_indices  # noqa: E402

MB = 1024 * 1024
CAP = 4 * MB
FLOAT, U16, U32 = 5126, 5123, 5125
ROOT = Path(__file__).resolve().parents[2]


def _glb(path: Path, n: int, *, normals=True, uv=True, uv1=False, color=True, skin=False,
         targets=0, target_normals=False, mode=4, indexed=True, seed=0) -> Path:  # fmt: skip
    """A .glb of one mesh of `n` random vertices with the attributes asked for."""
    rng = np.random.default_rng(seed)
    chunks: list[bytes] = []
    views: list[dict] = []
    accessors: list[dict] = []

    def add(arr: np.ndarray, kind: str, ctype: int) -> int:
        data = np.ascontiguousarray(arr).tobytes()
        at = sum(map(len, chunks))
        views.append({"buffer": 0, "byteOffset": at, "byteLength": len(data)})
        chunks.append(data + bytes(-len(data) % 4))
        acc = {"bufferView": len(views) - 1, "componentType": ctype, "count": len(arr),
               "type": kind}  # fmt: skip
        if kind == "VEC3":
            acc |= {"min": arr.min(0).tolist(), "max": arr.max(0).tolist()} if len(arr) else {}
        accessors.append(acc)
        return len(accessors) - 1

    vec = lambda k: rng.random((n, k), dtype=np.float32)  # noqa: E731
    attrs = {"POSITION": add(vec(3), "VEC3", FLOAT)}
    if normals:
        attrs["NORMAL"] = add(np.tile(np.float32([0, 0, 1]), (n, 1)), "VEC3", FLOAT)
    if uv:
        attrs["TEXCOORD_0"] = add(vec(2), "VEC2", FLOAT)
    if uv1:
        attrs["TEXCOORD_1"] = add(vec(2), "VEC2", FLOAT)
    if color:
        attrs["COLOR_0"] = add(vec(4), "VEC4", FLOAT)
    if skin:
        attrs["JOINTS_0"] = add(np.zeros((n, 4), np.uint16), "VEC4", U16)
        attrs["WEIGHTS_0"] = add(np.tile(np.float32([1, 0, 0, 0]), (n, 1)), "VEC4", FLOAT)
    prim: dict = {"attributes": attrs, "mode": mode}
    if indexed:
        k = n - n % 3 if mode == 4 else n
        prim["indices"] = add(rng.permutation(n)[:k].astype(np.uint32), "SCALAR", U32)
    if targets:
        prim["targets"] = [
            {"POSITION": add(vec(3) * 0.01, "VEC3", FLOAT)}
            | ({"NORMAL": add(vec(3) * 0.01, "VEC3", FLOAT)} if target_normals else {})
            for _ in range(targets)
        ]
    nodes: list[dict] = [{"mesh": 0}]
    doc: dict = {"asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "scene": 0,
                 "meshes": [{"primitives": [prim]}], "accessors": accessors,
                 "bufferViews": views}  # fmt: skip
    if skin:
        nodes[0]["skin"] = 0
        nodes.append({"name": "joint"})
        doc["scenes"][0]["nodes"].append(1)
        doc["skins"] = [{"joints": [1]}]
    doc["nodes"] = nodes
    binary = b"".join(chunks)
    doc["buffers"] = [{"byteLength": len(binary)}]
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    total = 12 + 8 + len(text) + 8 + len(binary)
    path.write_bytes(
        struct.pack("<III", 0x46546C67, 2, total)
        + struct.pack("<II", len(text), 0x4E4F534A) + text
        + struct.pack("<II", len(binary), 0x004E4942) + binary
    )  # fmt: skip
    return path


def _data_bytes_per_vertex(options: dict) -> int:
    """Accessor bytes a vertex of `_glb` takes (its index counted once)."""
    size = 12 + 4
    size += 12 * options["normals"] + 8 * options["uv"] + 8 * options["uv1"]
    size += 16 * options["color"] + 24 * options["skin"]
    return size + 12 * options["targets"] * (1 + options["target_normals"])


def _uploaded(scene) -> None:
    """What the renderer makes of each mesh on upload (`GpuMesh`), without a GL context:
    its vertex buffer's contents and its one index list, held together for a moment."""
    for key, (pos, nrm, idx) in scene.mesh_data.items():
        data = meshes.from_arrays(pos, nrm, idx, scene.surfaces.get(key))
        data.lines = scene.geometry.lines.get(key)
        data.points = scene.geometry.points.get(key)
        held = (interleaved(data), joined_indices(data))
        assert held[0].shape == (len(pos), 14)


OPTIONS = st.fixed_dictionaries(
    {
        "normals": st.booleans(),
        "uv": st.booleans(),
        "uv1": st.booleans(),
        "color": st.booleans(),
        "skin": st.booleans(),
        "targets": st.integers(0, 2),
        "target_normals": st.booleans(),
        "mode": st.sampled_from([0, 1, 3, 4, 5, 6]),
        "indexed": st.booleans(),
    }
)


@settings(
    max_examples=24, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(options=OPTIONS, fill=st.floats(0.3, 0.98))
def test_a_file_within_the_cap_loads_and_uploads_within_the_documented_multiple(
    tmp_path, options, fill
):
    n = int(fill * CAP / _data_bytes_per_vertex(options)) // 3 * 3  # whole triangles
    path = _glb(tmp_path / "mesh.glb", n, **options)
    # first, outside the trace, what a first load imports (a few MB, against a 4 MB cap)
    warm = _glb(tmp_path / "warm.glb", 30, uv1=True, skin=True, targets=1, target_normals=True)
    _uploaded(bounded_load(warm, max_buffer_bytes=CAP))
    with memory_traced():
        import tracemalloc

        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = bounded_load(path, megabytes=PEAK_FACTOR * CAP / MB, max_buffer_bytes=CAP)
        if not isinstance(result, SceneError):
            _uploaded(result)
        peak = tracemalloc.get_traced_memory()[1] - base
    assert peak <= PEAK_FACTOR * CAP, f"{peak / MB:.1f} MB at the peak, {options} n={n}"
    if isinstance(result, SceneError):  # refused by what is kept, never by the data read
        kept = ("indices keep", "skinned meshes", "morphed copy")
        assert any(what in str(result) for what in kept), str(result)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"normals": False, "uv": False, "color": False},
        {"uv1": True, "skin": True, "targets": 2, "target_normals": True},
        {"mode": 5},
        {"mode": 2, "indexed": False},
        {"mode": 0, "targets": 1},
    ],
    ids=["full", "positions", "everything", "strip", "loop", "points"],
)
def test_the_charge_is_what_the_mesh_keeps_and_uploads(tmp_path, options):
    """The bytes charged equal those of the arrays the mesh keeps plus the renderer's
    vertex buffer and index list, counted from the arrays themselves."""
    path = _glb(tmp_path / "m.glb", 3000, **options)
    gltf = GltfFile(path, "m.glb")
    gltf.open()
    parts = read_mesh(gltf, 0)
    assert parts.arrays is not None and parts.surface is not None
    pos, nrm, idx = parts.arrays
    surface = parts.surface
    kept = [pos, nrm, idx, surface.vcolors, surface.uvs, surface.uvs1, parts.lines, parts.points]
    kept += list(parts.skin or ())
    if parts.targets is not None:
        kept += [parts.targets.positions, parts.targets.normals]
    data = meshes.from_arrays(pos, nrm, idx, surface)
    data.lines, data.points = parts.lines, parts.points
    uploaded = [interleaved(data), joined_indices(data)]
    actual = sum(a.nbytes for a in kept + uploaded if a is not None)
    assert gltf.budget.kept_bytes == actual


def test_a_second_primitive_lacking_what_the_first_has_is_charged_its_defaults(tmp_path):
    """Its TEXCOORD_1 zeros, rigid joints and weights, and normal deltas of zeros are
    kept with the mesh: the charge is still the arrays' own bytes."""
    path = _glb(tmp_path / "m.glb", 600, uv1=True, skin=True, targets=2, target_normals=True)
    gltf = GltfFile(path, "m.glb")
    gltf.open()
    (first,) = gltf.doc["meshes"][0]["primitives"]
    bare = {
        "attributes": {"POSITION": first["attributes"]["POSITION"]},
        "targets": [{"POSITION": t["POSITION"]} for t in first["targets"]],
    }
    gltf.doc["meshes"][0]["primitives"].append(bare)
    parts = read_mesh(gltf, 0)
    assert parts.arrays is not None and parts.surface is not None and parts.skin is not None
    assert parts.targets is not None and parts.targets.normals is not None
    kept = [*parts.arrays, parts.surface.vcolors, parts.surface.uvs, parts.surface.uvs1]
    kept += [*parts.skin, parts.targets.positions, parts.targets.normals]
    data = meshes.from_arrays(*parts.arrays, parts.surface)
    actual = sum(a.nbytes for a in kept if a is not None)
    actual += interleaved(data).nbytes + joined_indices(data).nbytes
    assert len(parts.arrays[0]) == 1200
    assert gltf.budget.kept_bytes == actual


def test_a_mesh_keeping_over_the_budget_is_refused_in_one_line(tmp_path):
    """Positions alone, 16 bytes a vertex in the file with their index, keep 112: a file
    at 90 % of the cap keeps more than `KEPT_FACTOR` caps."""
    n = CAP * 9 // 10 // 16
    assert n * 112 > KEPT_FACTOR * CAP
    path = _glb(tmp_path / "bare.glb", n, normals=False, uv=False, color=False)
    assert path.stat().st_size < CAP
    with memory_traced():
        err = bounded_load(path, megabytes=3 * CAP / MB, max_buffer_bytes=CAP)
    assert isinstance(err, SceneError)
    assert "mesh 0 primitive 0" in str(err) and "indices keep" in str(err), str(err)
    assert f"{n:,} vertices" in str(err)


def test_the_command_line_refuses_it_with_exit_2_and_one_line(tmp_path):
    n = CAP * 9 // 10 // 16
    path = _glb(tmp_path / "bare.glb", n, normals=False, uv=False, color=False)
    run = subprocess.run(
        [sys.executable, "-m", "viewer", str(path), "--headless", "--max-buffer-mb", "4"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr[-2000:]
    lines = [line for line in run.stderr.splitlines() if "loading" not in line]
    assert len(lines) == 1 and "bare.glb" in lines[0] and "indices keep" in lines[0], run.stderr
    assert "..." not in lines[0], lines[0]  # whole, not shortened
    assert "Traceback" not in run.stderr


def _points_of_zeros(tmp_path: Path, count: int, attributes: tuple[str, ...]) -> Path:
    kinds = {"POSITION": "VEC3", "NORMAL": "VEC3", "COLOR_0": "VEC4", "TEXCOORD_0": "VEC2"}
    names = ("POSITION", *attributes)
    doc = {
        "asset": {"version": "2.0"},
        "nodes": [{"mesh": 0}],
        "meshes": [
            {"primitives": [{"mode": 0, "attributes": {a: k for k, a in enumerate(names)}}]}
        ],
        "accessors": [{"componentType": FLOAT, "count": count, "type": kinds[a]} for a in names],
    }
    path = tmp_path / "points.gltf"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("attributes", [(), ("NORMAL", "COLOR_0", "TEXCOORD_0")])
def test_points_of_zeros_keep_one_point_however_many_they_claim(tmp_path, attributes):
    """Every accessor without a bufferView (zeros by the spec), 256 MB of POINTS claimed
    by a file of a few hundred bytes: one point is kept and drawn."""
    count = 256 * MB // (12 + 12 + 16 + 8) if attributes else 256 * MB // 12
    path = _points_of_zeros(tmp_path, count, attributes)
    assert path.stat().st_size < 1000
    with memory_traced():
        scene = bounded_load(path, seconds=60, megabytes=40)
    assert not isinstance(scene, SceneError), str(scene)
    (key,) = scene.mesh_data
    pos, nrm, idx = scene.mesh_data[key]
    assert pos.shape == (1, 3) and nrm.shape == (1, 3) and idx.size == 0
    assert scene.geometry.points[key].tolist() == [0]
    assert scene.surfaces[key].vcolors.shape == (1, 4)


def test_points_at_one_place_in_a_buffer_keep_one_and_are_still_checked(tmp_path):
    same = _glb(tmp_path / "same.glb", 600, mode=0)
    gltf = GltfFile(same, "same.glb")
    gltf.open()
    doc = gltf.doc
    doc["accessors"][0]["bufferView"] = None  # zeros: all at one place
    del doc["accessors"][0]["bufferView"]
    parts = read_mesh(gltf, 0)
    assert parts.arrays is not None and len(parts.arrays[0]) == 1
    assert parts.points is not None and parts.points.tolist() == [0]
    doc["accessors"][1]["count"] = 5  # NORMAL: its count still checked against POSITION
    with pytest.raises(SceneError, match="NORMAL has 5 items, POSITION has 600"):
        read_mesh(gltf, 0)
