"""Peak memory of loading a TOML scene, for the shapes that cost the most per byte
(issue 12, class 5): the bound docs/scene-format.md states must hold for each."""

from __future__ import annotations

import pytest
from bounded import bounded_load, memory_traced

from viewer.io import SceneError
from viewer.io.toml_precheck import MAX_KEY_PARTS, MAX_NESTING

#: docs/scene-format.md: loading costs at most this many bytes per byte of TOML (the worst
#: shape is the smallest node, ``[[node]] name="a"``: about 1.6 KB per node of 18 bytes,
#: most of it the graph's own arrays)...
BYTES_PER_BYTE = 90
#: ... plus this much for the loader itself (MB), once its code is compiled.
FIXED_MB = 8


@pytest.fixture(scope="module", autouse=True)
def _compiled(tmp_path_factory):
    """One load first: compiling the core's kernels is a one-time cost, not per byte."""
    path = tmp_path_factory.mktemp("warm") / "s.toml"
    path.write_text('[[node]]\nname = "a"\n[[node]]\nname = "b"\nparent = "a"\n')
    bounded_load(path)


SIZE = 100_000  # bytes of each shape: enough for the per-byte cost to dominate

SHAPES = {
    "minimal nodes": lambda n: "".join(f'[[node]]\nname="{i:x}"\n' for i in range(n // 18)),
    "a chain of nodes": lambda n: (
        '[[node]]\nname="0"\n'
        + "".join(f'[[node]]\nname="{i:x}"\nparent="{i - 1:x}"\n' for i in range(1, n // 30))
    ),
    "nodes with motions": lambda n: "".join(
        f'[[node]]\nname="{i:x}"\nmotion={{spin={{speed=1}}}}\n' for i in range(n // 40)
    ),
    "empty inline tables": lambda n: "a = [" + "{}," * (n // 3) + "]\n",
    "empty arrays": lambda n: "a = [" + "[]," * (n // 3) + "]\n",
    "nested to the limit": lambda n: (
        "a = ["
        + ("[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1) + ",") * (n // (2 * MAX_NESTING))
        + "]\n"
    ),
    "dotted keys at the limit": lambda n: (
        "[scene]\n"
        + "".join(".".join(["a"] * (MAX_KEY_PARTS - 1)) + f".k{i} = 1\n" for i in range(n // 40))
    ),
    "touch events": lambda n: (
        '[[node]]\nname="A"\n' + '[[event]]\nframe=1\ntouch="A"\n' * (n // 28)
    ),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_peak_memory_per_byte_of_toml(tmp_path, shape):
    text = SHAPES[shape](SIZE)
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    bound = (BYTES_PER_BYTE * len(text)) / 2**20 + FIXED_MB
    with memory_traced():
        result = bounded_load(path, megabytes=bound)
    if shape.endswith("nodes") or "chain" in shape or "motions" in shape:
        assert not isinstance(result, SceneError), str(result)
        assert len(result.graph) > SIZE // 50
