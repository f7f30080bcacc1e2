"""bench/trace_cost.py runs and prints its medians and the ratio it is judged by (a small
scene, a few frames: the timing itself means nothing here)."""

from __future__ import annotations

import re

from bench_modules import load_bench
from needs import need_gl


def test_the_trace_cost_bench_prints_both_medians_and_a_verdict(capsys):
    need_gl().release()
    trace_cost = load_bench("trace_cost")
    assert trace_cost.main(["--scene", "balanced:200", "--frames", "3", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"without --trace +\d+\.\d\d s", out)
    assert re.search(r"with --trace +\d+\.\d\d s", out)
    assert re.search(r"ratio \d+\.\d\d \(target at most 1\.2\): (PASS|FAIL)", out)
