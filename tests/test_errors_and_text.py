"""One error root for the project, and the text helpers every message goes through."""

import pytest

from viewer.cli.main import UsageError
from viewer.errors import SgviewError
from viewer.io import SceneError
from viewer.render.context import ContextError
from viewer.render.offscreen import RecordError
from viewer.render.shaders import ShaderError
from viewer.scene.errors import HierarchyError
from viewer.text import MAX_MESSAGE, one_line, printable, quoted
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
