"""Fuzzing the glTF content beyond node trees (issue 12's generators, for issue 16's data):
mutated animations, skins and materials end in a scene or one line, and a scene that loads
plays at any time without NaN; the parsed-JSON memory bound holds for generated JSON."""

from __future__ import annotations

import json
import math

import numpy as np
from bounded import json_parse_peak
from gltf_rig import embedded_rig_document
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz import FUZZ, JSON_VALUES, _paths, load_or_scene_error, mutated

from viewer.animation import apply_animation
from viewer.io import SceneError
from viewer.io.limits import json_memory_bound


def _rig_doc() -> dict:
    doc = embedded_rig_document(vertex_colors=True)
    doc["images"] = [{"uri": "data:image/png;base64,AAAA"}]  # mutations may point at it
    doc["textures"] = [{"source": 0, "sampler": 0}]
    doc["samplers"] = [{"wrapS": 10497}]
    return doc


RIG_DOC = _rig_doc()
RIG_PATHS = [
    p for p in _paths(RIG_DOC)
    if p[0] in ("animations", "skins", "accessors", "materials", "meshes", "textures",
                "samplers", "images") and not (p[0] == "images" and p[-1] == "uri")
]  # fmt: skip


@FUZZ
@given(
    changes=st.lists(st.tuples(st.sampled_from(RIG_PATHS), JSON_VALUES), min_size=1, max_size=3),
    times=st.lists(st.floats(0, 1e4), min_size=1, max_size=4),
)
def test_mutated_animations_skins_and_materials(tmp_path_factory, changes, times):
    doc = mutated(RIG_DOC, changes)
    file = tmp_path_factory.mktemp("fuzz") / "rig.gltf"
    file.write_text(json.dumps(doc))
    scene = load_or_scene_error(file)
    if isinstance(scene, SceneError):
        return
    g = scene.graph
    g.update()
    for t in times:  # whatever loaded plays without producing NaN or an exception
        apply_animation(scene, t)
        g.update()
        assert np.all(np.isfinite(g.world_matrices()))
    skinning = scene.skinning
    if skinning is not None:
        for skin in skinning.skins:
            assert np.all(np.isfinite(skin.matrices(g.world_matrices())))
    player = scene.animation
    assert player is None or all(math.isfinite(c.duration) for c in player.clips)


@FUZZ
@given(value=st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
              st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=6),
                            st.dictionaries(st.text(max_size=6), inner, max_size=5)),
    max_leaves=60,
))  # fmt: skip
def test_the_json_memory_bound_holds_for_generated_json(value):
    text = json.dumps(value).encode()
    peak = json_parse_peak(text)
    assert peak <= json_memory_bound(text), (peak, json_memory_bound(text), text[:80])
