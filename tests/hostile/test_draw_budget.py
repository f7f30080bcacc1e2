"""A draw budget (issue 36): a small valid file can ask a huge draw of every frame (a
349,524-vertex mesh drawn by 2,000 nodes: 700 million vertices, 21 s a frame in
software). Counting every node that draws a mesh, every GPU instance and every skinned
copy, a scene over `MAX_DRAWN_VERTICES` (scaled with --max-buffer-mb) is refused in one
line naming the file and the count; one within it loads.

Generated: meshes of random size drawn by random numbers of nodes (some instanced),
under a small --max-buffer-mb so the budget is small too; the expected count is computed
here from the file's own numbers.
"""

from __future__ import annotations

import base64
import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import SceneError, load_scene
from viewer.io.limits import MAX_BUFFER_BYTES, MAX_DRAWN_VERTICES

BUFFER = 1 << 20  # --max-buffer-mb 1: a budget of about 1.2 million vertices
BUDGET = MAX_DRAWN_VERTICES * BUFFER // MAX_BUFFER_BYTES


def _document(triangles: int, nodes: int, instances: int) -> dict:
    """One mesh of 3 x `triangles` vertices, drawn by `nodes` nodes; the first node
    draws it `instances` times through EXT_mesh_gpu_instancing (0: not instanced)."""
    pos = np.random.default_rng(triangles).random((3 * triangles, 3), dtype=np.float32)
    raw = pos.tobytes()
    views = [{"buffer": 0, "byteOffset": 0, "byteLength": len(raw)}]
    accessors = [{"bufferView": 0, "componentType": 5126, "count": 3 * triangles,
                  "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 1]}]  # fmt: skip
    doc_nodes = [{"name": f"N{k}", "mesh": 0, "translation": [k, 0, 0]} for k in range(nodes)]
    used = []
    if instances:
        offsets = np.arange(3 * instances, dtype=np.float32).reshape(instances, 3)
        views.append({"buffer": 0, "byteOffset": len(raw), "byteLength": offsets.nbytes})
        raw += offsets.tobytes()
        accessors.append({"bufferView": 1, "componentType": 5126, "count": instances,
                          "type": "VEC3"})  # fmt: skip
        doc_nodes[0]["extensions"] = {"EXT_mesh_gpu_instancing": {"attributes": {
            "TRANSLATION": 1}}}  # fmt: skip
        used = ["EXT_mesh_gpu_instancing"]
    return {
        "asset": {"version": "2.0"},
        "extensionsUsed": used,
        "scene": 0,
        "scenes": [{"nodes": list(range(nodes))}],
        "nodes": doc_nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [
            {
                "byteLength": len(raw),
                "uri": "data:application/octet-stream;base64," + base64.b64encode(raw).decode(),
            }
        ],  # fmt: skip
    }


@settings(max_examples=25, deadline=None)
@given(
    triangles=st.integers(1, 2000),
    nodes=st.integers(1, 800),
    instances=st.sampled_from([0, 0, 10, 500, 3000]),
)
def test_a_draw_over_the_budget_is_refused_in_one_line(
    tmp_path_factory, triangles, nodes, instances
):
    path = tmp_path_factory.mktemp("draw") / "many.gltf"
    path.write_text(json.dumps(_document(triangles, nodes, instances)))
    verts = 3 * triangles
    drawn = verts * (nodes - 1 + max(instances, 1)) if instances else verts * nodes
    try:
        scene = load_scene(path, max_buffer_bytes=BUFFER)
    except SceneError as exc:
        line = str(exc)
        assert drawn > BUDGET, line
        assert "\n" not in line and line.startswith(f"{path}: ")
        assert f"{drawn:,} vertices a frame" in line and f"{BUDGET:,}" in line
        assert "--max-buffer-mb 1" in line
    else:
        assert drawn <= BUDGET
        assert len(scene.graph) == nodes
