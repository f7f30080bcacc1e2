"""Node names and titles come from files and the command line: whatever characters they
hold (ESC sequences, BEL, line breaks, C1 controls, bidi overrides), every place that
shows them (--log, error messages, the panel's rows, the window title) escapes them
visibly and shortens long ones (issue 12, class 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from needs import need_gl

from viewer.cli.main import main
from viewer.io import SceneError, load_scene
from viewer.overlay.log_lines import log_block
from viewer.overlay.model import cause_text, node_details
from viewer.session.session import window_title
from viewer.text import MAX_MESSAGE, MAX_NAME

HOSTILE = [
    *("\x1b[2J", "\x1b]0;pwned\x07", "\x07", "\n", "\r", "\t", "\x00", "\x7f", "\x9b"),
    *("\u202e", "\u2028", "\ufeff", "\xa0", "\u200b", "\U0001fae8", "=Update World : Forged="),
]
NAME = st.lists(
    st.one_of(
        st.sampled_from(HOSTILE),
        st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=5),
        st.just("x" * 200),
    ),
    min_size=1,
    max_size=6,
).map("".join)


def toml_string(text: str) -> str:
    """A TOML basic string holding `text` exactly (controls as \\uXXXX escapes)."""
    out = []
    for ch in text:
        if ch in '"\\' or ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def write_scene(folder: Path, names: list[str], title: str) -> Path:
    lines = [f"[scene]\ntitle = {toml_string(title)}"]
    for k, name in enumerate(names):
        lines.append(f"[[node]]\nname = {toml_string(name)}")
        if k:
            lines.append(f"parent = {toml_string(names[k - 1])}")
    path = folder / "names.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def safe(line: str, limit: int) -> None:
    assert line.isprintable(), repr(line)
    assert len(line) <= limit, (len(line), line[:100])


FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(names=st.lists(NAME, min_size=1, max_size=4, unique=True), title=NAME)
def test_names_from_a_file_are_shown_escaped_everywhere(tmp_path_factory, names, title):
    path = write_scene(tmp_path_factory.mktemp("names"), names, title)
    try:
        scene = load_scene(path)
    except SceneError as err:  # whatever a file is refused for, it says so in one safe line
        safe(str(err), MAX_MESSAGE)
        return
    graph = scene.graph
    graph.update()
    graph.touch(graph.node(0))
    report = graph.update()
    lines = log_block(2, report) + report.log_lines()
    assert len(lines) >= 1 + 2 * len(names)
    for line in lines:
        safe(line, MAX_NAME + 20)
    # a name cannot forge a log line: one line per update, each of the two known shapes
    assert all(
        line.startswith(("# frame", "*Update Local : ", "=Update World : ")) for line in lines
    )
    for node_id in range(len(names)):
        for _, value in node_details(graph, node_id):
            safe(value, 2 * MAX_NAME + 40)
        safe(cause_text(report, node_id, 2), MAX_NAME + 40)
        safe(window_title(scene.title, graph.name_of(node_id)), 2 * MAX_NAME + 20)


@FUZZ
@given(name=NAME)
def test_an_unknown_touch_or_select_name_is_one_escaped_line(capsys, name):
    scene = str(Path(__file__).resolve().parents[1] / "scenes" / "chain5.toml")
    for flag in ("--touch", "--select"):
        if flag == "--touch" and "@" in name:
            continue  # NAME@FRAME syntax: argparse's own message
        assert main([scene, "--headless", f"{flag}={name}"]) == 2  # "=": a name may start with "-"
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"sgview: {flag} "), repr(err)
        safe(err[:-1], MAX_MESSAGE + 20)


@pytest.fixture(scope="module")
def _egl():
    need_gl().release()


def test_log_of_a_real_run_escapes_a_hostile_name(_egl, tmp_path, capsys):
    name = "Evil\x1b]0;owned\x07\n=Update World : Forged="
    path = write_scene(tmp_path, ["Root", name], "T\x1b[31m")
    argv = [str(path), "--headless", "--still", "--log", "--size", "16x16", "--touch", name]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "# frame 1",
        "*Update Local : Evil\\x1b]0;owned\\x07\\n=Update World : Forged=*",
        "=Update World : Evil\\x1b]0;owned\\x07\\n=Update World : Forged==",
    ]
