"""The precheck's long-key scan (viewer/io/toml_precheck.py) finds the lines to look at
without splitting the text; its oracle is the line-by-line scan it replaced."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from viewer.io import toml_precheck as P


def _line_by_line(bare: str):
    """The former scan: every line with enough dots searched for a long dotted key."""
    offset = 0
    for line in bare.split("\n"):
        if line.count(".") >= P.MAX_KEY_PARTS:
            m = P._LONG_KEY.search(line)
            if m:
                parts = m.group().count(".") + 1
                return offset + m.start(), (
                    f"a dotted key of {parts} or more parts (at most {P.MAX_KEY_PARTS})"
                )
        offset += len(line) + 1
    deep = P._too_deep(bare)
    if deep is not None:
        return deep, f"values nested too deeply (over {P.MAX_NESTING} levels of brackets)"
    return None


pieces = st.sampled_from(
    [
        "a",
        "b1",
        "-",
        "_",
        ".",
        " . ",
        ".",
        "..",
        "\t",
        " ",
        "\n",
        "=",
        "1",
        '""',
        "[",
        "]",
        "{",
        "}",
        "é",
        "#",
        '"x.y"',
        "a.b.c.d.e.f.g.h",
    ]  # fmt: skip
)


@settings(max_examples=400, deadline=None)
@given(st.lists(pieces, max_size=120))
def test_the_scan_finds_what_the_line_by_line_scan_found(parts):
    bare = "".join(parts)
    assert P._first_problem(bare) == _line_by_line(bare)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40), st.integers(0, 3), st.text(alphabet="ab .\n", max_size=30))
def test_a_long_key_anywhere_is_found(dots, line, noise):
    key = ".".join(["k"] * (dots + 1))
    bare = "\n" * line + noise.replace(".", "") + "\n" + key + " = 1\n" + noise
    assert P._first_problem(bare) == _line_by_line(bare)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='ab=,[{}]"#\n é', max_size=200), st.integers(0, 120))
def test_sparse_at_a_glance_never_passes_what_the_density_rule_refuses(text, cap):
    """The loader skips the density rule's blanking only where this says so."""
    import pytest

    with pytest.MonkeyPatch.context() as m:
        m.setattr(P, "MAX_ANY_SHAPE_BYTES", cap)
        if P.sparse_at_a_glance(text):
            assert P.density_problem(text) is None
