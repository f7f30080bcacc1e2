"""In a real browser: JupyterLab on 127.0.0.1 runs docs/examples/recursive.ipynb in
Debian's chromium (driven by Playwright, never a downloaded browser); the test clicks the
tree's root in the live view, presses Space, T and the step key, and reads the frames
the page shows: the root gets the selection outline, then glows red. Everything it needs
is in the test extra and .ci/run's Debian packages; with CI=true a missing piece fails
the run."""

from __future__ import annotations

import io
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from bench_modules import load_bench
from needs import missing
from widget_helpers import glow_red_share

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "recursive.ipynb"
#: Width of the folded left panel at 640 pixels: the 3D view lies to its right.
PANEL_EDGE = 200

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("egl", "rfb")]


def _frame(view) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(view.screenshot())).convert("RGB"))


def _root_sphere(image: np.ndarray) -> tuple[float, float]:
    """The centre of the tree's root, the one blue sphere (the notebook colours it)."""
    rgb = image[30:, PANEL_EDGE:].astype(int)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    ys, xs = np.nonzero((b > 110) & (b > r + 50) & (b > g + 25))
    assert xs.size > 50, "no blue sphere in the view"
    cells = np.histogram2d(ys, xs, bins=(rgb.shape[0] // 16, rgb.shape[1] // 16))
    iy, ix = np.unravel_index(np.argmax(cells[0]), cells[0].shape)
    cy, cx = (cells[1][iy] + cells[1][iy + 1]) / 2, (cells[2][ix] + cells[2][ix + 1]) / 2
    near = (np.abs(ys - cy) < 24) & (np.abs(xs - cx) < 24)
    return float(xs[near].mean()) + PANEL_EDGE, float(ys[near].mean()) + 30


def _yellow(image: np.ndarray, x: float, y: float, radius: int = 40) -> int:
    """Pixels of the selection outline's yellow around (x, y)."""
    x, y = round(x), round(y)
    patch = image[max(y - radius, 0) : y + radius, max(x - radius, 0) : x + radius].astype(int)
    r, g, b = patch[..., 0], patch[..., 1], patch[..., 2]
    return int(np.sum((r > 200) & (g > 180) & (b < 150)))


def _wait_for(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def test_click_and_touch_in_jupyterlab(tmp_path):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        missing(f"needs playwright (the test extra): {exc}")
    if not load_bench("lab_server").CHROMIUM.exists():
        missing("needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)")
    try:
        import jupyterlab  # noqa: F401
    except ImportError as exc:
        missing(f"needs jupyterlab (the test extra): {exc}")
    shutil.copy(EXAMPLE, tmp_path / EXAMPLE.name)
    lab = load_bench("lab_server")
    with lab.jupyter_lab(tmp_path) as (base, token), sync_playwright() as pw:
        browser = lab.launch_chromium(pw)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(f"{base}/lab/tree/{EXAMPLE.name}?token={token}")
            page.locator(".jp-Notebook").wait_for(timeout=30_000)
            page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=30_000)
            page.locator(".lm-MenuBar-item", has_text="Run").click()
            page.locator(".lm-Menu-itemLabel").get_by_text("Run All Cells", exact=True).click()
            # the last cell's picture: every cell ran
            page.locator(".jp-OutputArea-output img").last.wait_for(timeout=40_000)
            view = page.locator(".renderview-wrapper img").first
            view.scroll_into_view_if_needed()
            view.wait_for(timeout=10_000)
            page.wait_for_function(
                "el => el.naturalWidth > 300", arg=view.element_handle(), timeout=10_000
            )
            # the notebook's last cells leave Obj6 selected, with its gizmo (whose blue
            # handle is not the root): a click on empty space clears the selection first
            view.click(position={"x": 600, "y": 300})
            # paused, a glow stays until the next step: the test reads it at leisure (a
            # running view's glow fades in 0.5 s, which a slow screenshot could miss)
            page.keyboard.press("Space")
            time.sleep(1.5)  # that frame is in, and the cells' glow has faded (0.5 s)
            before = _frame(view)
            x, y = _root_sphere(before)
            assert glow_red_share(before, x, y) == 0
            view.click(position={"x": x, "y": y})
            _wait_for(lambda: _yellow(_frame(view), x, y) > _yellow(before, x, y) + 20,
                      10, "the selection outline around the clicked root")  # fmt: skip
            page.keyboard.press("t")  # marked now: it glows after the step
            page.keyboard.press("Period")
            _wait_for(lambda: glow_red_share(_frame(view), x, y) > 0.3, 10,
                      "the touched root to glow red")  # fmt: skip
        finally:
            browser.close()
