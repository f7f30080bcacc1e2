"""mypy (configured in pyproject.toml) holds the seams between the rooms; CI runs it here.

Every module of `viewer/` is checked, and the packages where rooms meet (session/, window/,
overlay/, attach/, embed/) with mypy's strict flags (docs/architecture.md)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def test_mypy_finds_no_error_in_viewer(tmp_path):
    exe = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")
    if exe is None:
        pytest.skip("mypy is not installed (it comes with the [test] extra)")
    # A cache of its own: a run beside another mypy never reads a half-written cache.
    out = subprocess.run(
        [exe, "--cache-dir", str(tmp_path / "mypy-cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout[-8000:] + out.stderr[-2000:]
    assert "Success: no issues found" in out.stdout
