""".ci/run installs the GL, X and video packages the tests need and stops when it cannot
(with CI=true a missing requirement would fail the tests anyway: tests/needs.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def test_a_failed_install_stops_the_run(tmp_path):
    _stub(tmp_path, "dpkg-query", "exit 1")  # nothing installed
    _stub(tmp_path, "apt-get", 'echo "$@" >> "$APT_LOG"; exit 100')  # no network
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}",
           "APT_LOG": str(tmp_path / "apt.log")}  # fmt: skip
    done = subprocess.run(
        ["bash", str(REPO / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "could not install" in done.stderr
    assert "running the README's test command" not in done.stdout
    asked = (tmp_path / "apt.log").read_text()
    assert "update" in asked  # it tried, and gave up after the first failure


def test_the_package_list_names_the_egl_and_mesa_packages():
    script = (REPO / ".ci" / "run").read_text()
    for pkg in (
        "libegl1",
        "libegl-mesa0",
        "libgl1-mesa-dri",
        "xvfb",
        "xdotool",
        "ffmpeg",
        "chromium",
    ):
        assert f" {pkg}" in script or f"\n  {pkg}" in script, pkg
