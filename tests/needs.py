"""What a test needs from the machine (a GL context, Xvfb, xdotool, ffmpeg), and what
happens when it is missing: locally the test skips and says why; in CI (``CI=true``, set
by .ci/run) it fails, so that a green CI run cannot hide a whole class of skipped tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

IN_CI = os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def missing(reason: str) -> NoReturn:
    """Skip with `reason`, or fail with it in CI."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: a missing requirement fails the run)", pytrace=False)
    pytest.skip(reason)


def need_tools(*tools: str) -> None:
    """Every one of `tools` on PATH, else `missing`."""
    absent = [tool for tool in tools if shutil.which(tool) is None]
    if absent:
        missing(f"needs {', '.join(absent)} on PATH (.ci/run installs them)")


def need_gl():
    """A headless EGL context (returned, the caller releases it), else `missing`."""
    from viewer.render.context import ContextError, create_headless_context

    try:
        return create_headless_context("egl")
    except ContextError as exc:
        missing(f"no headless OpenGL context on this machine: {exc}")


def need_three_in_chromium(chromium: Path, three: Path) -> None:
    """Playwright (the test extra), Debian's `chromium` and three.js installed under
    `three` (clients/threejs: `npm ci`), else `missing`: what the look benches' tests
    draw three.js with."""
    try:
        import playwright  # noqa: F401
    except ImportError as exc:
        missing(f"needs playwright (the test extra): {exc}")
    if not chromium.exists():
        missing(f"needs Debian's chromium at {chromium} (.ci/run installs it)")
    if not (three / "node_modules" / "three" / "package.json").is_file():
        missing("needs clients/threejs/node_modules (cd clients/threejs && npm ci)")
