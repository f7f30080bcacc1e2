"""bench/notebook_widget.py runs (its in-process part: the browser part is the browser
test's set-up, timed) and reports each measure against the still PNG of the same run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from needs import missing, need_gl

ROOT = Path(__file__).resolve().parents[2]


def test_the_in_process_bench_reports_ratios_to_the_still_png():
    need_gl().release()
    try:
        import jupyter_rfb  # noqa: F401
    except ImportError as exc:
        missing(f"needs the notebook extra (jupyter_rfb): {exc}")
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "notebook_widget.py"), "--no-browser",
         "--seconds", "0.3"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = dict(re.findall(r"^\| (.+?) \| [\d.]+ ms \| ([\d.]+) \|$", done.stdout, re.M))
    assert rows["still PNG (render_image + PNG), the baseline"] == "1.00"
    for measure in ("in-process: frame (render + JPEG)", "in-process: key event to its frame"):
        assert float(rows[measure]) > 0
