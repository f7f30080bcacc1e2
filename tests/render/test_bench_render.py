"""bench/render.py runs (quick mode), so the benchmark cannot rot."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_render_benchmark_quick_run(gl_ctx, capsys):
    spec = importlib.util.spec_from_file_location(
        "sgview_bench_render", ROOT / "bench" / "render.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "| 200 |" in out and "bytes / executed node" in out and "writes / frame" in out


def test_paired_glow_loops_benchmark_quick_run(gl_ctx, capsys):
    spec = importlib.util.spec_from_file_location(
        "sgview_bench_glow_loops_paired", ROOT / "bench" / "glow_loops_paired.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = module.run(3000, 2)
    assert [r["path"] for r in rows] == list(module.PATHS)
    assert all(r["frames"] == 2 and r["update"] > 0 and r["ratio"] > 0 for r in rows)
