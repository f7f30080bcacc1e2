"""Replay the fuzz corpus: inputs that once hung the loader or exhausted memory
(tests/io/fuzz_corpus/README.md says what each one did)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bounded import FUZZ_LIMITS, bounded_load, memory_traced

from viewer.io import SceneError

CORPUS = Path(__file__).parent / "fuzz_corpus"
#: file -> a phrase of the expected SceneError, or an int: the node count of the scene.
EXPECTED = {
    "header_spaces_in_string.toml": 1,
    "zero_accessor_2e28.gltf": "over the limit",
    "shared_accessor_primitives.gltf": "over the limit",
    "include_4000_times.toml": 4000,
    "part.gltf": 1,
    "huge_position_and_scale.toml": "at most 1e9, got 1e+300",
    "tiny_period_huge_speed.toml": "at least 0.001, got 1e-310",
    "camera_1e-320_from_target.toml": "must differ from its position",
    "huge_size.toml": "sizes of magnitude at most 1e9",
    "nested_scales_1e5.toml": "node 'C': its world scale",
    "oscillate_beyond_reach.toml": "node 'B': it can reach 2e+14",
    "dotted_key_30000_parts.toml": ":1: invalid scene file: a dotted key of 30000",
    "own_child_no_scenes.gltf": "node 0: the node is its own child",
    "cycle_no_scenes.gltf": "a cycle of 3 nodes",
    "gltf_vertices_3e37.gltf": "node 'Hand': it can reach 6.24e+38 from the origin",
}
FILES = sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".toml", ".gltf", ".glb"))


def test_every_corpus_file_has_an_expected_outcome():
    assert sorted(EXPECTED) == FILES


@pytest.mark.parametrize("name", FILES)
def test_corpus_case(name):
    with memory_traced():
        result = bounded_load(CORPUS / name, **FUZZ_LIMITS)
    expected = EXPECTED[name]
    if isinstance(expected, int):
        assert not isinstance(result, SceneError), str(result)
        assert len(result.graph) == expected
    else:
        assert isinstance(result, SceneError) and expected in str(result), str(result)
