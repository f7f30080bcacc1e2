"""bench/load_phases.py times the phases of a real launch through a wrapper that patches
the app's entry points: one small launch shows every phase stamped, in order, so that a
renamed entry point cannot silently drop a column."""

from __future__ import annotations

from bench_modules import load_bench

load_phases = load_bench("load_phases")


def test_a_small_launch_stamps_every_phase_in_order():
    clocks = load_phases.launch_once("balanced:200", "64x48")
    assert len(clocks) == len(load_phases.CLOCKS)
    wall = clocks[0]
    for _label, start, end in load_phases.COLUMNS:
        assert start in wall and end in wall, (start, end)
        for clock in clocks:  # wall, CPU, user CPU, faults: none goes back
            assert 0.0 <= clock[start] <= clock[end]
    assert wall["generate ends"] <= wall["bounds begins"] <= wall["draw begins"]
    assert clocks[2]["draw begins"] <= clocks[1]["draw begins"]  # user CPU within CPU
    assert clocks[3]["draw begins"] > 1.0  # over a thousand page faults to get there


def test_the_table_gives_each_clock_and_its_ratio_against_the_old_runs():
    names = {name for _label, a, b in load_phases.COLUMNS for name in (a, b)} - {"launch"}
    stamps = {"launch": 0.0, **{name: 1.0 if name.endswith("begins") else 2.0 for name in names}}
    run = tuple(dict(stamps) for _ in load_phases.CLOCKS)
    slow = tuple({name: 2.0 * value for name, value in clock.items()} for clock in run)
    rows = [line for line in load_phases.table("t", [run], [slow]) if line.startswith("| ")]
    assert [row.split(" | ")[0][2:] for row in rows[1:]] == [
        name for clock in load_phases.CLOCKS for name in (clock, f"{clock} ratio")
    ]
    for row in rows[2::2]:  # every span half the old one's
        assert row.count("0.50x") == len(load_phases.COLUMNS), row
