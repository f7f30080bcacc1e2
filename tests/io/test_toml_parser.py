"""The TOML parser behind scene files (toml_rs): TOML 1.0 as tomllib reads it, errors in one
line with the line and column, and no input that crashes it (its stack overflows on a few
thousand nested brackets, which toml_precheck.py refuses first)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from viewer.io import SceneError
from viewer.io.toml_scene import parse_scene_text

ROOT = Path(__file__).resolve().parents[2]

#: Texts TOML 1.1 accepts and TOML 1.0 (and tomllib) refuses.
TOML_11_ONLY = [
    "a = {\n b = 1\n}\n",
    'a = "\\e"\n',
    'a = "\\x41"\n',
    "t = 07:32\n",
    "a = {b = 1,}\n",
    "d = 1979-05-27 07:32\n",
]


@pytest.mark.parametrize("text", TOML_11_ONLY)
def test_toml_1_1_syntax_is_refused_as_tomllib_refuses_it(text):
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    with pytest.raises(SceneError, match=r"^f\.toml:\d+: invalid TOML: .*\(column \d+\)$"):
        parse_scene_text(text, "f.toml")


@pytest.mark.parametrize(
    "text, line",
    [("a = 1\nb = \n", 2), ("[[node]]\nname = 'a'\nposition = [0, 0\n", 4), ("a = 1\na = 2\n", 2)],
)
def test_a_syntax_error_is_one_line_naming_the_file_and_line(text, line):
    with pytest.raises(SceneError) as info:
        parse_scene_text(text, "f.toml")
    message = str(info.value)
    assert message.startswith(f"f.toml:{line}: invalid TOML: ") and "\n" not in message


_DEEP = "[" * 50_000
#: Deep nesting behind every way a string or comment can end early or never: if the
#: precheck's view of where strings end differed from the parser's, the parser would
#: reach the brackets and overflow its stack.
HIDING = {
    "backslash-newline": 'a = "x\\\n' + _DEEP + '"\n',
    "control in multi-line": 'a = """x\x01' + _DEEP + '"""\n',
    "control in literal": "a = 'x\x01" + _DEEP + "'\n",
    "control in multi-line literal": "a = '''x\x01" + _DEEP + "'''\n",
    "bad escape": 'a = "x\\q' + _DEEP + '"\n',
    "unterminated": 'a = "x\n' + _DEEP + "\n",
    "after a comment": "# x\x01\nb = " + _DEEP + "\n",
    "after an error": "a = = 1\nb = " + _DEEP + "\n",
    "inline tables": "a = " + "{b=" * 50_000 + "\n",
    "plain": "a = " + _DEEP + "\n",
}


def test_deep_nesting_never_reaches_the_parser():
    """Each text in a child process (a stack overflow ends the process): one line, no crash."""
    code = (
        "import sys\nfrom viewer.io import SceneError\n"
        "from viewer.io.toml_scene import parse_scene_text\n"
        "for text in sys.stdin.read().split('\\0'):\n"
        "    try:\n        parse_scene_text(text, 'f.toml')\n"
        "    except SceneError as exc:\n        print(str(exc)[:200])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], input="\0".join(HIDING.values()), capture_output=True,
        text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-500:]
    lines = run.stdout.splitlines()
    assert len(lines) == len(HIDING) and all(x.startswith("f.toml:") for x in lines), lines
