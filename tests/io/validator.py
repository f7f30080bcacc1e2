"""The official Khronos glTF validator (npm ``gltf-validator``), run on many files at once.

Installed by ``npm ci`` in tests/gltf_validator (.ci/run does it); one Node process
validates every file of a call (tests/gltf_validator/validate.js), so a test with a
hundred exports costs one start-up.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from needs import missing

FOLDER = Path(__file__).resolve().parents[1] / "gltf_validator"


def validate(paths) -> dict[str, dict]:
    """{path: report} for each file: ``errors``, ``warnings`` and ``messages``."""
    paths = [str(p) for p in paths]
    if shutil.which("node") is None or not (FOLDER / "node_modules" / "gltf-validator").is_dir():
        missing("needs Node and tests/gltf_validator/node_modules (npm ci there; .ci/run does)")
    done = subprocess.run(["node", str(FOLDER / "validate.js"), *paths], capture_output=True,
                          text=True, timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    reports = {}
    for line in done.stdout.splitlines():
        report = json.loads(line)
        reports[report["file"]] = report
    assert sorted(reports) == sorted(paths)
    return reports


def errors_of(report: dict) -> list[str]:
    return [f"{m['code']} at {m.get('pointer')}: {m['message']}" for m in report["messages"]
            if m["severity"] == 0]  # fmt: skip


def assert_valid(paths, *, warnings: bool = True) -> dict[str, dict]:
    """Every file has 0 errors in the official validator (and, `warnings` False, 0
    warnings); returns the reports."""
    reports = validate(paths)
    worst = 0 if warnings else 1
    bad = {}
    for path, report in reports.items():
        if report["errors"] or (not warnings and report["warnings"]):
            bad[path] = [f"{m['code']} at {m.get('pointer')}" for m in report["messages"]
                         if m["severity"] <= worst][:3]  # fmt: skip
    assert not bad, f"validator errors{'' if warnings else ' or warnings'}: {bad}"
    return reports
