"""bench/load_phases.py times the phases of a real launch through a wrapper that patches
the app's entry points: one small launch shows every phase stamped, in order, so that a
renamed entry point cannot silently drop a column."""

from __future__ import annotations

from bench_modules import load_bench

load_phases = load_bench("load_phases")


def test_a_small_launch_stamps_every_phase_in_order():
    wall, cpu = load_phases.launch_once("balanced:200", "64x48")
    for _label, start, end in load_phases.COLUMNS:
        assert start in wall and end in wall, (start, end)
        assert 0.0 <= wall[start] <= wall[end]
        assert 0.0 <= cpu[start] <= cpu[end]
    assert wall["generate ends"] <= wall["bounds begins"] <= wall["draw begins"]
