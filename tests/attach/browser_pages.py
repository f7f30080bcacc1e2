"""What the publishers' browser tests share: Debian's chromium launched through Playwright
(a missing requirement fails with CI=true, tests/needs.py), a page built in code served
from 127.0.0.1 and run until it says it is done, and the two viewers it publishes to:
sgview's own listener and mirror in this process, and a real ``sgview listen --headless
--log --dump-world``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from attach_helpers import ROOT
from bench_modules import load_bench
from needs import missing, need_gl

#: The end of a page's module: once the publisher is connected, ``step(k)`` for frames 1 to
#: ``FRAMES``, one an animation frame, then the link closed (what it queued sent first).
RUN_FRAMES_JS = """const until = (check) => new Promise((resolve) => {
  const look = () => (check() ? resolve() : setTimeout(look, 10));
  look();
});
await until(() => link.connected);
let k = 0;
await new Promise((resolve) => {
  const frame = () => {
    k += 1;
    step(k);
    if (k < FRAMES) requestAnimationFrame(frame); else resolve();
  };
  requestAnimationFrame(frame);
});
link.close();"""


@contextmanager
def chromium(node_modules: Path, without: str) -> Iterator[object]:
    """Debian's chromium, launched as the lab bench launches it; `node_modules`: a file the
    page serves (`without`: what to say when it is missing)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        missing(f"needs playwright (the test extra): {exc}")
    lab = load_bench("lab_server")
    if not lab.CHROMIUM.exists():
        missing("needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)")
    if not node_modules.is_file():
        missing(without)
    with sync_playwright() as pw:
        browser = lab.launch_chromium(pw)
        try:
            yield browser
        finally:
            browser.close()


def run_page(bench, browser, html: str, roots: dict[str, Path], frames: int) -> list[dict]:
    """Serve `html` (with `roots`, URL prefix -> folder) and load it; returns the page's
    own record (``window.sgviewRecorded()``) once it closed its link, one entry a frame."""
    with bench.serve(roots, {"/page.html": html.encode()}) as base:
        page = browser.new_page(viewport={"width": 320, "height": 200})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            page.goto(f"{base}/page.html")
            page.wait_for_function("window.sgviewDone === true", timeout=30_000)
            errors += page.evaluate("window.sgviewErrors")
            recorded = page.evaluate("window.sgviewRecorded()")
        finally:
            page.close()
    assert not errors, errors
    assert [r["frame"] for r in recorded] == list(range(1, frames + 1))
    return recorded


def watched(bench, run: Callable[[str], list[dict]], frames: int) -> tuple[list[dict], dict]:
    """`run` (the page, given the viewer's ws:// address) watched by sgview's listener and
    mirror in this process: (the page's record, what the mirror held after each frame)."""
    watch = bench.Watch()
    try:
        recorded = run(f"ws://{watch.address}")
        assert watch.wait_frame(frames, 20.0), "sgview's mirror did not get every frame"
    finally:
        watch.close()
    return recorded, watch.frames


def listened(
    run: Callable[[str], list[dict]], frames: int, dump: Path
) -> tuple[list[dict], dict[int, list[str]], dict]:
    """`run` watched by a real ``sgview listen --headless --log --dump-world``: (the page's
    record, the log's lines by frame, the dump)."""
    need_gl().release()
    cmd = [
        sys.executable, "-m", "viewer", "listen", "127.0.0.1:0", "--headless",
        "--frames", str(frames), "--log", "--dump-world", str(dump),
        "--size", "320x200", "--samples", "0",
    ]  # fmt: skip
    viewer = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        said = []  # the listening line comes first, unless a warning came before it
        while not (found := re.match(r"sgview: listening on (\S+)", said[-1] if said else "")):
            line = viewer.stderr.readline()
            assert line, "".join(said)
            said.append(line)
        recorded = run(f"ws://{found[1]}")
        out, err = viewer.communicate(timeout=60)
    finally:
        if viewer.poll() is None:
            viewer.kill()
            viewer.communicate()
    assert viewer.returncode == 0, err[-2000:]
    log: dict[int, list[str]] = {}
    for line in out.splitlines():
        if line.startswith("# frame "):
            lines = log.setdefault(int(line.split()[2]), [])
        else:
            lines.append(line)
    return recorded, log, json.loads(dump.read_text())
