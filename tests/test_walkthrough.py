"""docs/getting-started.md, step by step, on the built-in scene: the test reads the numbers
and the log the page quotes and checks them against what a session does with the same
keys (S, Space, a click on Obj2, T, '.', Space, K held). The window's keys call the same
session actions (viewer/window/input.py)."""

import re
from pathlib import Path

import numpy as np
import pytest

from viewer.io import default_scene
from viewer.overlay.model import Flags, flag_text, pending_note
from viewer.session.session import Session

PAGE = Path(__file__).parents[1] / "docs" / "getting-started.md"
STEP = 1.0 / 60.0


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def _glow(session: Session, report) -> tuple[set[str], set[str]]:
    """(red, orange) names of a frame: own change; world matrix followed only."""
    name = session.graph.name_of
    red = {name(int(i)) for i in report.local_updated}
    orange = {name(int(i)) for i in report.world_updated} - red
    return red, orange


def _names(text: str) -> set[str]:
    return set(re.findall(r"Obj\d+", text))


def test_the_first_screen_is_as_described():
    page = _page()
    moving = re.search(r"Three nodes move on their own: (.*?)\. So every frame", page, re.S)
    glowing = re.search(r"So every frame those three glow red and (.*?), which hang", page, re.S)
    session = Session(default_scene(), fixed_step=STEP)
    for _ in range(90):
        red, orange = _glow(session, session.advance(STEP).report)
        assert red == _names(moving[1]) and orange == _names(glowing[1])


def test_make_it_show_a_change():
    page = _page()
    section = page[page.index("## Make it show a change") :]
    log = re.search(r"```\n(.*?)```", section, re.S)[1]
    quoted_log = [line.strip() for line in log.strip().splitlines()]
    glow = re.search(r"(Obj\d+) glows red, (.*?) orange(?:, filled)?; the log reads", section, re.S)
    counts = re.search(r"(\d+) products were done where the naive method does (\d+)", section)

    session = Session(default_scene(), fixed_step=STEP)
    for _ in range(45):  # the scene has been running for a while
        session.advance(STEP)
    session.toggle_motion()  # S
    for _ in range(30):  # the glow fades: nothing is recomputed any more
        assert not session.advance(STEP).report.log_lines()
    session.toggle_pause()  # Space
    assert session.advance(STEP) is None
    frame_before = session.graph.frame
    session.select(session.graph["Obj2"].id)  # the click
    session.touch_selected()  # T
    # Before the step: the flags the page quotes, as the panel reads them (through the
    # graph's read-only view: reading executes nothing).
    assert session.advance(STEP) is None
    pending = re.search(
        r"the tree shows (Obj\d+) with `(.*?)` and (.*?) with `(.*?)`, the panel\s+says "
        r'"(pending: .*?)"',
        section,
        re.S,
    )
    graph = session.graph
    marks = Flags.of_marks(graph)
    flagged = {graph.name_of(int(i)): flag_text(*marks.of(int(i))) for i in np.flatnonzero(
        marks.local | marks.world | marks.executed)}  # fmt: skip
    assert flagged == {pending[1]: pending[2], **dict.fromkeys(_names(pending[3]), pending[4])}
    note = " ".join(pending[5].split())  # the page may wrap the quoted line
    assert pending_note(marks.count, session.paused).startswith(note) and marks.pending
    assert session.graph.frame == frame_before  # nothing was executed by reading
    session.request_step()  # .
    report = session.advance(STEP).report
    assert report.log_lines() == quoted_log
    assert _glow(session, report) == ({glow[1]}, _names(glow[2]))
    assert (report.products, report.naive_products) == (int(counts[1]), int(counts[2]))

    step4 = re.search(r"hold \*\*K\*\*: Obj2 moves up, ([\d.]+) per frame", section)
    session.toggle_pause()  # Space
    session.editing.held.press("up")  # K, held
    y = session.graph["Obj2"].local_position[1]
    for frame in range(1, 31):
        report = session.advance(STEP).report
        assert report.log_lines() == quoted_log
        assert _glow(session, report) == ({glow[1]}, _names(glow[2]))
        assert session.graph["Obj2"].local_position[1] == pytest.approx(y + frame * float(step4[1]))


def test_the_command_line_version_prints_the_same_log(capsys):
    from viewer.cli.main import main

    page = _page()
    command = re.search(r"\.venv/bin/sgview (tree10 --headless --still [^\n]*--log)", page)[1]
    log = re.search(r"```\n(.*?)```", page[page.index("## Make it show a change") :], re.S)[1]
    assert main([*command.split(), "--size", "64x48", "--no-overlay"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["# frame 1", *(line.strip() for line in log.strip().splitlines())]


def test_go_back_to_a_change_the_timeline():
    """The timeline step: restart, a touch of Obj2 found again 1,000 frames later with [,
    and the totals of 1,000 frames after another restart, as the Totals section shows
    them (the overlay's FrameRecords and totals_rows, fed as the app feeds them)."""
    from viewer.overlay.stats import FrameStats, totals_rows
    from viewer.overlay.timeline_records import FrameRecords

    page = _page()
    section = page[page.index("## Go back to a change: the timeline") : page.index("## Next")]
    keep = re.search(r"keeps the session's last ([\d,]+) frames", section)[1]
    run = int(re.search(r"let the\s+scene run for ([\d,]+) frames", section)[1].replace(",", ""))
    flags = re.search(r"Obj2\s+has `(.*?)` and (.*?) `(.*?)`", section, re.S)
    totals = re.search(
        r"does (\d+) products a frame where the naive method does (\d+), so it reads "
        r"([\d,]+) products done, ([\d,]+) naive products and ([\d,]+) saved \(([\d.]+ %)\)",
        " ".join(section.split()),  # the page's line breaks are spaces
    )

    session = Session(default_scene(), fixed_step=STEP)
    records = FrameRecords()
    assert records.capacity == int(keep.replace(",", ""))

    def advance() -> None:
        frame = session.advance(STEP)
        stats = FrameStats.of_report(frame.number, frame.report)
        records.add(frame.number, frame.report, stats, frame.events)

    for _ in range(100):  # where the previous steps left it: running
        advance()
    session.restart()  # 0
    records.clear()  # the overlay's restart
    assert session.frame == 0
    session.select(session.graph["Obj2"].id)  # the click
    session.touch_selected()  # T
    advance()
    touch = session.frame
    for _ in range(run):
        advance()
    assert records.next_event(None, -1) == touch  # [
    report = records.find(touch).report
    name = session.graph.name_of
    local = {name(int(i)) for i in report.local_updated}
    world = {name(int(i)) for i in report.world_updated}
    executed = {name(int(i)) for i in report.executed}
    assert flags[1] == "L W E" and {"Obj2"} <= local & world & executed
    assert flags[3] == ". W E"
    for other in _names(flags[2]):
        assert other not in local and other in world and other in executed

    session.restart()  # 0 again
    records.clear()
    for _ in range(run):
        advance()
    rec = records.records()
    assert (rec["products"] == int(totals[1])).all()
    assert (rec["naive_products"] == int(totals[2])).all()
    rows = dict(totals_rows(records.totals))
    assert rows["products done"] == totals[3] and rows["naive products"] == totals[4]
    assert rows["saved"] == f"{totals[5]} ({totals[6]})"
