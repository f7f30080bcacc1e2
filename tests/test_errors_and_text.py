"""One error root for the project, and the text helpers every message goes through."""

import unicodedata

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from viewer.cli.main import UsageError
from viewer.errors import SgviewError
from viewer.io import SceneError
from viewer.render.context import ContextError
from viewer.render.offscreen import RecordError
from viewer.render.shaders import ShaderError
from viewer.scene.errors import HierarchyError
from viewer.text import MAX_MESSAGE, MAX_NAME, one_line, printable, quoted
from viewer.window.runner import WindowError


@pytest.mark.parametrize(
    "kind, builtin",
    [
        (UsageError, Exception),
        (SceneError, ValueError),
        (HierarchyError, ValueError),
        (ContextError, RuntimeError),
        (WindowError, RuntimeError),
        (ShaderError, RuntimeError),
        (RecordError, RuntimeError),
    ],
)
def test_every_error_is_an_sgview_error_and_keeps_its_builtin_base(kind, builtin):
    assert issubclass(kind, SgviewError)
    assert issubclass(kind, builtin)


def test_printable_escapes_every_control_character_visibly():
    assert printable("a\x1b[31mb\x07c\nd\re\tf\x9b\u202eg") == (
        "a\\x1b[31mb\\x07c\\nd\\re\\tf\\x9b\\u202eg"
    )
    assert printable("Obj3") == "Obj3"
    assert quoted("x\ny") == "'x\\ny'"


def test_long_strings_are_shortened_keeping_both_ends():
    text = printable("A" * 10_000 + "Z", 80)
    assert len(text) == 80 and text.startswith("AAA") and text.endswith("Z") and "..." in text


def test_one_line_joins_lines_and_bounds_the_length():
    assert one_line("first\n  second\r\nthird\x1b") == "first second third\\x1b"
    long = one_line("word " * 100_000)
    assert len(long) == MAX_MESSAGE and "\n" not in long


def test_a_scene_error_is_one_bounded_line_whatever_it_quotes():
    err = SceneError("bad " + "x\n" * 5000, file="f\x1b.toml", node="\x07" * 500, field="f")
    text = str(err)
    assert len(text) <= MAX_MESSAGE
    assert text.isprintable()
    assert text.startswith("f\\x1b.toml: node '\\x07")


# What `printable` escapes is one rule (viewer/text.py, docs/api.md "Names"): exactly the
# characters str.isprintable() refuses, so a no-break space, a bidi override or a code
# point unknown to this Python shows as an escape, and everything else as itself.
ANY = st.text(st.characters(exclude_categories=()))


@given(ANY)
def test_printable_is_one_safe_line_whatever_the_text(text):
    shown = printable(text, None)
    assert shown.isprintable()  # no control, format, separator, surrogate, unassigned
    assert not any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in shown)
    assert "\n" not in shown and "\u202e" not in shown and "\u2066" not in shown
    if text.isprintable():
        assert shown == text
    short = printable(text)
    assert short.isprintable() and len(short) <= MAX_NAME


@given(ANY, ANY)
def test_distinct_texts_without_backslashes_print_distinctly(a, b):
    assume("\\" not in a + b and a != b)
    assert printable(a, None) != printable(b, None)


@given(ANY.filter(lambda t: "\\" not in t))
def test_an_escape_reads_back_as_the_text(text):
    shown = printable(text, None)
    assert shown.encode("ascii", "backslashreplace").decode("unicode_escape") == text


def test_the_issue_names_show_as_escapes():
    known = "\U0001fae8".isprintable()  # Unicode 15: unknown to Python 3.11, known to 3.13
    assert printable("Robot \U0001fae8") == ("Robot \U0001fae8" if known else "Robot \\U0001fae8")
    assert printable("no\xa0break") == "no\\xa0break"
    assert printable("bad\x1b[31mname") == "bad\\x1b[31mname"
    assert printable("a\u2066b\u200bc\ue000d") == "a\\u2066b\\u200bc\\ue000d"
    assert printable("Robot 😀 é") == "Robot 😀 é"


def test_an_interrupt_is_told_through_the_errors_made_of_it():
    """numba hands a Ctrl+C inside compiled code back as a SystemError whose context is the
    KeyboardInterrupt; a layer may wrap that again (``raise ... from None`` keeps the
    context): each is an interrupt, and nothing else is."""
    from viewer.errors import interrupted

    def made_of_interrupt() -> BaseException:
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt:
                raise SystemError("returned a result with an exception set")  # noqa: B904
        except SystemError:
            try:
                raise ValueError("its first frame fails") from None
            except ValueError as wrapped:
                return wrapped

    assert interrupted(KeyboardInterrupt())
    assert interrupted(made_of_interrupt())
    assert not interrupted(ValueError("plain"))
    looped = ValueError("a")
    looped.__context__ = ValueError("b")
    looped.__context__.__context__ = looped  # a cycle ends the walk
    assert not interrupted(looped)


def test_joined_spans_are_sorted_disjoint_and_cover_the_same_indices():
    import numpy as np
    from hypothesis import given
    from hypothesis import strategies as st

    from viewer.spans import aranges, joined

    assert [a.tolist() for a in joined(np.array([5, 0, 2]), np.array([7, 3, 4]))] == [
        [0, 5],
        [4, 7],
    ]

    @given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 10)), max_size=20))
    def check(spans):
        lo = np.array([a for a, _ in spans], dtype=np.int64)
        hi = lo + np.array([n for _, n in spans], dtype=np.int64)
        got_lo, got_hi = joined(lo, hi)
        assert np.all(got_lo[1:] > got_hi[:-1])  # sorted, apart (touching spans join)
        covered = set(aranges(lo, hi).tolist())
        assert set(aranges(got_lo, got_hi).tolist()) == covered

    check()
