"""Decoded bytes are budgeted per scene, counting each reuse (issue 26): a small file that
names one buffer or one image many times, or draws one skinned model many times, is
refused in one line naming the budget, within bounded time and memory (the loads run
under tests/io/bounded.py's contract: one line naming the file, no warning, a traced
peak under its bound, small caps so that a case stays fast)."""

from __future__ import annotations

import base64
import io
import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "io"))
from bounded import FUZZ_LIMITS, bounded_load, memory_traced  # noqa: E402
from gltf_rig import embedded_rig_document, write_rig  # noqa: E402

from viewer.io import SceneError  # noqa: E402

FLOAT = 5126
MB = 1024 * 1024


def _triangle_accessors(doc: dict, buffer: int) -> int:
    """A 3-vertex POSITION accessor reading from `buffer`; returns its index."""
    doc["bufferViews"].append({"buffer": buffer, "byteOffset": 0, "byteLength": 36})
    view = len(doc["bufferViews"]) - 1
    doc["accessors"].append({"bufferView": view, "componentType": FLOAT, "count": 3,
                             "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]})  # fmt: skip
    return len(doc["accessors"]) - 1


def _shared_buffer_file(folder: Path, copies: int, megabytes: float) -> Path:
    """`copies` buffers all naming one .bin file of `megabytes`, each used by a mesh."""
    (folder / "shared.bin").write_bytes(bytes(int(megabytes * MB)))
    doc = {"asset": {"version": "2.0"}, "scenes": [{"nodes": list(range(copies))}], "nodes": [],
           "meshes": [], "buffers": [], "bufferViews": [], "accessors": []}  # fmt: skip
    for k in range(copies):
        doc["buffers"].append({"uri": "shared.bin", "byteLength": int(megabytes * MB)})
        acc = _triangle_accessors(doc, k)
        doc["meshes"].append({"primitives": [{"attributes": {"POSITION": acc}}]})
        doc["nodes"].append({"mesh": k})
    path = folder / "buffers.gltf"
    path.write_text(json.dumps(doc))
    return path


def _png_bytes(megabytes: float) -> bytes:
    """A 4x4 PNG padded with a text chunk to about `megabytes` (small to decode, big to read)."""
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("pad", "x" * int(megabytes * MB))
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def _shared_image_file(folder: Path, copies: int, megabytes: float) -> Path:
    """`copies` images all naming one PNG file, each the texture of its own material."""
    (folder / "big.png").write_bytes(_png_bytes(megabytes))
    uv = np.zeros((3, 2), np.float32).tobytes()
    pos = np.eye(3, dtype=np.float32).tobytes()
    raw = pos + uv
    doc = {
        "asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "buffers": [{"byteLength": len(raw), "uri": "data:application/octet-stream;base64,"
                     + base64.b64encode(raw).decode()}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                        {"buffer": 0, "byteOffset": 36, "byteLength": 24}],
        "accessors": [{"bufferView": 0, "componentType": FLOAT, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 1]},
                      {"bufferView": 1, "componentType": FLOAT, "count": 3, "type": "VEC2"}],
        "images": [{"uri": "big.png"} for _ in range(copies)],
        "textures": [{"source": k} for k in range(copies)],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": k}}}
                      for k in range(copies)],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1},
                                    "material": k} for k in range(copies)]}],
    }  # fmt: skip
    path = folder / "images.gltf"
    path.write_text(json.dumps(doc))
    return path


def _many_skinned_includes(folder: Path, copies: int) -> Path:
    """A TOML scene that includes one skinned model `copies` times."""
    write_rig(folder, "rig.glb")
    nodes = "".join(f'\n[[node]]\nname = "P{k}"\nmesh = "none"\n' for k in range(copies))
    includes = "".join(f'\n[[include]]\nfile = "rig.glb"\nparent = "P{k}"\n' for k in range(copies))
    path = folder / "many.toml"
    path.write_text('[scene]\ntitle = "many"\n' + nodes + includes)
    return path


#: (case, file maker, copies, the words the refusal must have); FUZZ_LIMITS caps buffers at
#: 4 MB, so reads may come to 8 MB.
CASES = [
    ("one 1 MB buffer named by 48 buffers", _shared_buffer_file, (48, 1.0), "each reuse"),
    ("one 2 MB buffer named by 500 buffers", _shared_buffer_file, (500, 2.0), "each reuse"),
    ("one 1 MB image named by 1000 images", _shared_image_file, (1000, 1.0), "each reuse"),
    ("a skinned model included 150 times", _many_skinned_includes, (150,), "skinned meshes"),
]


@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[0] for c in CASES])
def test_reuse_is_counted_and_refused_in_bounded_time_and_memory(case, tmp_path):
    name, make, args, words = CASES[case]
    path = make(tmp_path, *args)
    start = time.perf_counter()
    with memory_traced():
        result = bounded_load(path, seconds=20, megabytes=48, also=[tmp_path / "rig.glb"],
                              **FUZZ_LIMITS)  # fmt: skip
    seconds = time.perf_counter() - start
    assert isinstance(result, SceneError), f"{name}: loaded"
    assert words in str(result), str(result)
    print(f"{name}: refused in {seconds:.2f} s: {result}")


def test_a_few_reuses_within_the_budget_still_load(tmp_path):
    assert not isinstance(bounded_load(_shared_buffer_file(tmp_path, 4, 1.0), **FUZZ_LIMITS),
                          SceneError)  # fmt: skip
    assert not isinstance(bounded_load(_many_skinned_includes(tmp_path, 20), **FUZZ_LIMITS),
                          SceneError)  # fmt: skip


def test_animation_channels_are_capped_per_file_and_over_includes(tmp_path, monkeypatch):
    """Every channel is a Python object sampled each frame: a file with too many, or a
    model whose copies (one per include) come to too many, is refused (the cap is
    lowered here so that the case stays small)."""
    import viewer.io.limits

    monkeypatch.setattr(viewer.io.limits, "MAX_CHANNELS", 50)
    rig = json.loads(json.dumps(embedded_rig_document()))
    sampler = {"input": rig["animations"][0]["samplers"][0]["input"],
               "output": rig["animations"][0]["samplers"][0]["output"]}  # fmt: skip
    rig["animations"] = [{"samplers": [sampler],
                          "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]
                          * 60}]  # fmt: skip
    crowded = tmp_path / "crowded.gltf"
    crowded.write_text(json.dumps(rig))
    err = bounded_load(crowded, **FUZZ_LIMITS)
    assert isinstance(err, SceneError) and "60 animation channels" in str(err), err
    err = bounded_load(_many_skinned_includes(tmp_path, 9), also=[tmp_path / "rig.glb"])
    assert isinstance(err, SceneError) and "54 animation channels" in str(err), err
