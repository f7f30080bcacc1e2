"""The column-wise reader of plain [[node]] blocks (viewer/io/toml_plain.py) against its
oracles: toml_rs's own reading of the same text, and the whole loader without the reader
(same graph, bit for bit, or the same error), on random files of plain blocks, blocks
that are almost plain, and the other tables and traps a file can hold."""

from __future__ import annotations

import math

import numpy as np
import toml_rs
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from viewer.io import SceneError, toml_scene
from viewer.io.limits import Limits
from viewer.io.toml_plain import merge_plain, split_plain
from viewer.io.toml_precheck import MAX_KEY_PARTS

floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(-1e3, 1e3),
    st.floats(-1e-300, 1e-300),  # subnormals
    st.sampled_from([0.0, -0.0, 5e-324, 1e308, 1.7976931348623157e308, 1e-7, 1e9, 1e6]),
    st.integers(-(10**20), 10**20),
)


@st.composite
def numbers(draw) -> str:
    """A number as --save writes it, or in another TOML (or not TOML) spelling."""
    x = draw(floats)
    if isinstance(x, int):
        return str(x)
    spelling = draw(st.sampled_from(["repr", "repr", "repr", "e", "odd"]))
    if spelling == "repr":
        return "0" if x == 0 else repr(x)
    if spelling == "e":
        return f"{x:.17e}"
    return draw(st.sampled_from(["-0", "+1", "1_0", "inf", "nan", "01", "1.", ".5", "1E+05",
                                 "0.0", "-0.0", "1e400", "1e-400", "0x10", "1e05"]))  # fmt: skip


@st.composite
def triples(draw) -> str:
    parts = [draw(numbers()) for _ in range(draw(st.sampled_from([3, 3, 3, 2, 4])))]
    sep = draw(st.sampled_from([", ", ", ", ", ", ",", " , "]))
    return "[" + sep.join(parts) + "]"


def _string(draw, plain: str, tidy: bool) -> str:
    if tidy and draw(st.integers(0, 29)):
        return f'"{plain}"'
    odd = [f"'{plain}'", f'"{plain}\\t"', f'"a\\"{plain}"', f'"{plain}" # note', f'"{plain}"  ']
    return draw(st.sampled_from([f'"{plain}"'] * 6 + odd))


@st.composite
def tidy_triples(draw) -> str:
    return "[" + ", ".join(repr(draw(st.floats(-1e3, 1e3))) for _ in range(3)) + "]"


@st.composite
def node_lines(draw, i: int, names: list[str], tidy: bool) -> list[str]:
    """A node's lines; `tidy`: a valid node, now and then one odd line."""
    lines = []
    name = draw(st.sampled_from([f"N{i}", f"N{i}", f"Ñ{i} é", " ", "", f"N{max(i - 1, 0)}"]))
    if tidy:
        name = f"N{i}" if draw(st.integers(0, 9)) else f"Ñ{i} é"
    if tidy or draw(st.integers(0, 9)):
        lines.append("name = " + _string(draw, name, tidy))
    if names and draw(st.booleans()):
        parent = draw(st.sampled_from(names if tidy else [*names, "missing"]))
        lines.append("parent = " + _string(draw, parent, tidy))
    for key in ("position", "rotation", "scale", "size"):
        if draw(st.booleans()):
            if tidy and draw(st.integers(0, 19)):
                value = draw(tidy_triples()) if key != "size" else "[1, 2, 3]"
            else:
                value = draw(triples()) if draw(st.integers(0, 3)) else draw(numbers())
            lines.append(f"{key} = {value}")
    meshes, colors = ["cube", "sphere", "x"], ["#4c72b0", "#abc", "#1"]
    if draw(st.booleans()):
        lines.append("mesh = " + _string(draw, draw(st.sampled_from(meshes[: 3 - tidy])), tidy))
    if draw(st.booleans()):
        lines.append("color = " + _string(draw, draw(st.sampled_from(colors[: 3 - tidy])), tidy))
    if tidy and draw(st.integers(0, 4)):
        return lines
    extras = [
        "", "", "motion = { spin = { speed = 30 } }", "quaternion = [0, 0, 0, 1]",
        "x = 1", "# a comment", 'name="squeezed"', "position=[1, 2, 3]",
    ]  # fmt: skip
    for _ in range(draw(st.integers(0, 2))):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(extras)))
    if lines and draw(st.integers(0, 9)) == 0:  # a key given twice
        lines.append(draw(st.sampled_from(lines)))
    return lines


SECTIONS = [
    '[scene]\ntitle = "t"', "[camera]\nfov = 50", '[[event]]\nframe = 2\ntouch = "N0"',
    "[node.motion]\nspin = { speed = 1 }", '[[ node ]]\nname = "spaced"', "[[node]]\r",
    'x = [\n[[node]]\nname = "in an array"\n[1]]', 's = """\n[[node]]\nname = "in a string"\n"""',
    "[collision]\ndisk = 'N0'\nrect = 'N1'", "[[node]]", "node = 1",
    f"{'.'.join(['a'] * (MAX_KEY_PARTS + 2))} = 1",
]  # fmt: skip


@st.composite
def scene_texts(draw) -> str:
    parts, names = [], []
    tidy = draw(st.booleans())
    if draw(st.booleans()):
        parts.append('[scene]\ntitle = "random"')
    for i in range(draw(st.integers(0, 12))):
        if draw(st.integers(0, 30 if tidy else 6)) == 0:
            parts.append(draw(st.sampled_from(SECTIONS)))
            continue
        parts.append("\n".join(["[[node]]", *draw(node_lines(i, names, tidy))]))
        names.append(f"N{i}")
    sep = draw(st.sampled_from(["\n", "\n\n"]))
    return sep.join(parts) + draw(st.sampled_from(["\n", "", "\n\n"]))


def _outcome(text: str, fast: bool, monkeypatch) -> object:
    """The loaded scene's contents (exact bits), or the error's message."""
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(toml_scene, "split_plain", lambda *a: None)
        try:
            scene = toml_scene.parse_scene_text(text, "f.toml", limits=Limits.make(100, 1, 1))
        except SceneError as exc:
            return str(exc)
    g = scene.graph
    ids = g.alive_ids()
    return (
        ids.tolist(), [g.name_of(i) for i in ids.tolist()], g.parents()[ids].tolist(),
        [a[ids].view(np.int64).tolist() for a in g.local_values()],
        [(scene.looks[i].mesh, scene.looks[i].size, scene.looks[i].color) for i in ids.tolist()],
        [(m.kind, m.ids.tolist(), m.rest.tolist()) for m in scene.motions],
        scene.title, scene.camera, scene.events, scene.collision,
    )  # fmt: skip


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=scene_texts())
@example(text='[[node]]\nname = "a"\n[[node]]\nname = "b"\nparent = "a"\nscale = 2\n')
@example(text='[[node]]\nname = "a"\nposition = [1e400, 0, 0]\n')  # out of range: parse_node says
@example(text='[[node]]\nname = "a"\n[node.motion]\nspin = { speed = 1 }\n')
@example(text='x = [\n[[node]]\nname = "a"\n[1]]\n')
@example(text='[[node]]\nname = "a\ud800"\n')  # a lone surrogate: text given in code
def test_the_loader_reads_the_same_with_and_without_the_plain_reader(text, monkeypatch):
    assert _outcome(text, True, monkeypatch) == _outcome(text, False, monkeypatch)


def _value(text_value: object) -> tuple:
    """A TOML value as the plain reader holds it: a string, or three floats."""
    if isinstance(text_value, str):
        return (text_value,)
    if isinstance(text_value, list):
        return tuple(float(v) for v in text_value)
    return (float(text_value),) * 3


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scene_texts())
def test_plain_columns_equal_what_toml_rs_reads(text):
    _check_columns(text)


@st.composite
def repetitive_texts(draw) -> str:
    """Many nodes whose values come from a few texts each (as a chain's do), plain or
    not: the reader then reads each distinct value once and hands it to its rows."""
    pools = {key: draw(st.lists(st.one_of(triples(), numbers()) if key != "mesh" else
                                st.sampled_from(['"cube"', '"sphere"', '"x"', '"c\\"be"']),
                                min_size=1, max_size=3))  # fmt: skip
             for key in ("position", "rotation", "size", "mesh")}  # fmt: skip
    pools["color"] = draw(st.lists(st.sampled_from(['"#4c72b0"', '"#abc"', '"#1"', "'#abc'"]),
                                   min_size=1, max_size=2))  # fmt: skip
    blocks = []
    for i in range(draw(st.integers(1, 60))):
        lines = ["[[node]]", f'name = "N{i}"'] + ([f'parent = "N{i - 1}"'] if i else [])
        for key, pool in pools.items():
            if draw(st.integers(0, 4)):
                lines.append(f"{key} = {draw(st.sampled_from(pool))}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=repetitive_texts())
def test_repeated_values_read_once_are_read_alike(text, monkeypatch):
    _check_columns(text)
    assert _outcome(text, True, monkeypatch) == _outcome(text, False, monkeypatch)


def _check_columns(text: str) -> None:
    """The plain reader's columns hold what toml_rs reads from the same text."""
    split = split_plain(text)
    try:
        doc = toml_rs.loads(text, toml_version="1.0.0")
    except (toml_rs.TOMLDecodeError, ValueError):
        return  # the loader then reports the parser's error (test above)
    if split is None:
        return
    rest, plain = split
    # each run of plain blocks is one header line in what the parser sees
    assert rest.count("[[node]]") == text.count("[[node]]") - plain.rows.size + len(plain.runs)
    items = merge_plain(toml_rs.loads(rest, toml_version="1.0.0").get("node"), plain)
    if items is None:  # the loader reads the whole file the usual way
        return
    tables = doc["node"]
    assert len(items) == len(tables)
    plain_rows = set(plain.rows.tolist())
    for row, (item, table) in enumerate(zip(items, tables, strict=True)):
        if row not in plain_rows:
            assert repr(item) == repr(table)  # (nan is not equal to itself)
    for k, row in enumerate(plain.rows.tolist()):
        table = tables[row]
        assert items[row] is None
        given = {key: plain.strings[key][k] for key in plain.strings
                 if plain.strings[key][k] is not None}  # fmt: skip
        given |= {key: plain.numbers[key][k] for key in plain.numbers if plain.present[key][k]}
        assert set(given) == set(table)
        for key, value in given.items():
            want = _value(table[key])
            if isinstance(value, str):
                assert (value,) == want
            else:
                assert [math.copysign(1, v) for v in value] == [math.copysign(1, v) for v in want]
                assert tuple(value.tolist()) == want


def test_a_saved_chain_is_read_by_the_plain_reader(tmp_path, monkeypatch):
    """--save's output takes the column path: every node but the few with motions."""
    from viewer.io import generate_scene, load_scene, save_scene

    path = tmp_path / "chain.toml"
    save_scene(generate_scene("chain:300"), path)
    split = split_plain(path.read_text())
    assert split is not None
    with_motion = path.read_text().count("motion = ")
    assert split[1].rows.size == 300 - with_motion and with_motion < 10
    seen = []
    read = toml_scene._read_toml
    monkeypatch.setattr(toml_scene, "_read_toml", lambda t, d: seen.append(len(t)) or read(t, d))
    assert len(load_scene(path).graph) == 300
    assert len(seen) == 1 and seen[0] < path.stat().st_size / 10  # the parser saw the rest


def test_a_file_of_short_lines_is_left_to_the_parser():
    assert split_plain("[[node]]\n" + "\n" * 100) is None
