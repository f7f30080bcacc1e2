"""The export's JSON text (msgspec's encoder, json.dumps where it has a doubt) against
``json.dumps`` as the oracle: on generated documents both texts parse to the same
document, and where json.dumps refuses a value (a number that is not finite, a lone
surrogate) the export refuses it the same way and `save_gltf` says so in one line."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import SceneError, load_scene
from viewer.io.gltf_write.container import json_bytes
from viewer.io.gltf_write.export import save_gltf


def _old(doc: dict) -> bytes:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def _values(leaves):
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5)
        ),  # fmt: skip
        max_leaves=30,
    )


#: JSON values as a loaded document holds them (finite numbers, any text): msgspec writes
#: them; and with nulls, numbers that are not finite and lone surrogates: json.dumps.
_PLAIN = st.one_of(
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
_ANY = st.one_of(_PLAIN, st.none(), st.floats(),
                 st.text(alphabet=st.characters(codec=None, blacklist_categories=()),
                         max_size=8))  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _values(_PLAIN) | _values(_ANY), max_size=6))
def test_the_text_is_what_json_dumps_writes(doc):
    try:
        expected = json.loads(_old(doc))
    except (ValueError, UnicodeEncodeError) as exc:
        with pytest.raises(type(exc)):
            json_bytes(doc)
        return
    assert json.loads(json_bytes(doc)) == expected


def test_a_number_that_is_not_finite_is_refused_as_json_dumps_refuses_it():
    for value in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match="Out of range float values"):
            json_bytes({"nodes": [{"extras": {"x": value}}]})


def test_a_save_that_cannot_be_written_is_one_line(tmp_path):
    path = tmp_path / "nan.gltf"
    path.write_text('{"asset":{"version":"2.0"},"nodes":[{"name":"a","extras":{"x":NaN}}]}')
    scene = load_scene(path)  # extras are carried over as read, NaN included
    for name in ("out.glb", "out.gltf"):
        with pytest.raises(SceneError) as err:
            save_gltf(scene, tmp_path / name)
        assert "\n" not in str(err.value) and "not JSON compliant" in str(err.value)
        assert not (tmp_path / name).exists()
