"""The motion-kind table is the one list: the format doc, the reader, the saver and the
generator agree with it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from viewer.content.motion_kinds import KINDS, UNUSED
from viewer.io.generate import GENERATED_PARAMS
from viewer.io.save import scene_to_toml
from viewer.io.toml_scene import parse_scene_text

DOC = Path(__file__).resolve().parents[2] / "docs" / "scene-format.md"


def _doc_rows() -> dict[str, tuple[str, list[str], list[str]]]:
    """kind -> (channel, parameters, required parameters) from the format's motion table."""
    rows = {}
    for line in DOC.read_text().splitlines():
        m = re.match(r"\|\s*`(\w+)`\s*\|\s*(\w+)\s*\|([^|]*)\|", line)
        if m and m.group(1) in KINDS:
            cell = m.group(3)
            rows[m.group(1)] = (
                m.group(2),
                re.findall(r"`(\w+)`", cell),
                re.findall(r"\*\*`(\w+)`\*\*", cell),
            )
    return rows


def test_the_format_doc_lists_the_table():
    rows = _doc_rows()
    assert list(rows) == list(KINDS)
    for name, kind in KINDS.items():
        channel, params, required = rows[name]
        assert channel == kind.channel
        assert params == list(kind.names)
        assert required == list(kind.required)


@pytest.mark.parametrize("name", list(KINDS))
def test_the_reader_fills_the_table_defaults_and_needs_the_required(name):
    kind = KINDS[name]
    given = {p: (0.5 if p != "axis" else [1, 0, 0]) for p in kind.required}
    body = ", ".join(f"{k} = {v}" for k, v in given.items())
    rest = "quaternion = [0, 0, 0, 1]" if kind.channel == "rotation" else "scale = 1"
    scene = parse_scene_text(
        f'[[node]]\nname = "A"\n{rest}\nmotion = {{ {name} = {{ {body} }} }}\n', "t.toml"
    )
    (m,) = scene.motions
    for param in kind.params:
        value = getattr(m, param.name)[0]
        expected = given.get(param.name, param.default)
        np.testing.assert_allclose(value, expected)
    for other in set(UNUSED) - set(kind.names):
        np.testing.assert_allclose(getattr(m, other)[0], UNUSED[other])
    for missing in kind.required:
        partial = ", ".join(f"{k} = {v}" for k, v in given.items() if k != missing)
        with pytest.raises(Exception, match=f"{name} needs '{missing}'"):
            parse_scene_text(
                f'[[node]]\nname = "A"\nmotion = {{ {name} = {{ {partial} }} }}\n', "t.toml"
            )


@pytest.mark.parametrize("name", list(KINDS))
def test_the_saver_writes_what_the_reader_reads(name):
    kind = KINDS[name]
    values = {"axis": [0, 0.6, 0.8], "speed": 12, "amplitude": 0.5, "period": 3, "phase": 7}
    body = ", ".join(f"{p} = {values[p]}" for p in kind.names)
    scene = parse_scene_text(f'[[node]]\nname = "A"\nmotion = {{ {name} = {{ {body} }} }}\n', "t")
    text = scene_to_toml(scene)
    again = parse_scene_text(text, "again")
    (a,), (b,) = scene.motions, again.motions
    for p in UNUSED:
        np.testing.assert_array_equal(getattr(a, p), getattr(b, p))
    assert f"{name} = {{" in text


def test_the_generator_gives_every_required_parameter():
    for name, kind in KINDS.items():
        assert set(kind.required) <= set(GENERATED_PARAMS[name]) <= set(kind.names)
