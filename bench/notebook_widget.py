"""Notebook widget benchmark: frames per second and input-to-frame latency in a browser.

    .venv/bin/python bench/notebook_widget.py [--seconds 5] [--presses 15]

At 640x360, the ten-node tree with the panels, in one run:

- browser: JupyterLab on 127.0.0.1 (a free port, a token, a temporary folder) runs a
  notebook in Debian's chromium (Playwright, headless). Frames per second: an `on_frame`
  callback turns a node every frame, so the view draws as fast as the browser takes the
  frames; the page counts the frames put in the view over `--seconds` seconds. Latency:
  Space pauses (the view goes still), then each real key press G (the grid) is timed in
  the page's clock from the key event to the next frame put in the view: the whole loop
  browser -> kernel -> render -> JPEG -> browser.
- in-process: the same widget driven in this process without a browser (`get_frame`
  and jupyter_rfb's JPEG encoding per frame, and an event through `handle_event` to
  its frame), so the browser's share shows.
- the baseline: `viewer.render_image` of the same graph at the same size, plus its PNG
  (one still picture, a fresh GL context each time), timed in this same run.

Ratios are against the baseline: a frame interval of 0.5 means two widget frames in the
time of one still PNG. Software GL (Mesa llvmpipe) here; the numbers are this machine's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchutil import machine_lines, markdown_table, measure
from lab_server import CHROMIUM, jupyter_lab, launch_chromium

REPO = Path(__file__).resolve().parents[1]
SIZE = (640, 360)

BUILD = """
import viewer
from viewer.scene import SceneGraph

def tree():
    g = SceneGraph()
    g.add("Obj1", position=(0, 5, 0))
    for name, parent, x in (("Obj2", "Obj1", -4), ("Obj3", "Obj1", 0), ("Obj4", "Obj1", 4),
                            ("Obj5", "Obj2", 0), ("Obj6", "Obj3", 0), ("Obj7", "Obj4", 0),
                            ("Obj8", "Obj5", -1.5), ("Obj9", "Obj5", 1.5), ("Obj10", "Obj6", 0)):
        g.add(name, parent=parent, position=(x, -2.5, 0))
    return g

def spin(graph, frame, t):
    graph["Obj3"].local_euler = (0, (frame * 3) % 360, 0)
"""


def _notebook() -> dict:
    import nbformat

    cell = BUILD + f"\nview = viewer.widget(tree(), size={SIZE}, on_frame=spin)\nview"
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(cell)], metadata={"kernelspec": kernel}
    )


#: Installed in the page: the time of each key event the view's focus element gets, and
#: of each new frame put in the view's image (the page's clock, milliseconds).
WATCH_JS = """() => {
  window.sgviewKeys = []; window.sgviewFrames = [];
  document.addEventListener('keydown', () => window.sgviewKeys.push(performance.now()), true);
  const seen = (records) => {
    if (records.some((r) => r.target.closest('.renderview-wrapper'))) {
      window.sgviewFrames.push(performance.now());
    }
  };
  new MutationObserver(seen).observe(document.body,
    { attributes: true, attributeFilter: ['src'], subtree: true });
}"""


def _frames_since(page, start: float) -> list[float]:
    return page.evaluate("(t) => window.sgviewFrames.filter((f) => f > t)", start)


def _fps(page, seconds: float) -> float:
    """Frames the page put in the view per second while the scene moves."""
    start = page.evaluate("() => performance.now()")
    time.sleep(seconds)
    return len(_frames_since(page, start)) / seconds


def _latencies(page, view, presses: int) -> list[float | None]:
    """Real key presses (Playwright's keyboard): Space pauses (the view goes still), then
    each G (the grid on or off: a new picture, nothing simulated) is timed from the key
    event to the first frame the page puts in the view after it (None: none in 1 s)."""
    view.click(position={"x": SIZE[0] - 60, "y": SIZE[1] - 60})  # focus; empty space
    page.keyboard.press(" ")
    time.sleep(1.5)
    out: list[float | None] = []
    for _ in range(presses):
        page.keyboard.press("g")
        time.sleep(1.0)  # its frame, and jupyter_rfb's lossless redraw 0.3 s later
        key = page.evaluate("() => window.sgviewKeys.at(-1)")
        after = _frames_since(page, key)
        out.append(after[0] - key if after else None)
    return out


def browser(seconds: float, presses: int) -> dict:
    """Frames per second and key-to-frame latencies (ms) of the widget in JupyterLab in
    chromium."""
    import nbformat
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        nbformat.write(_notebook(), root / "bench.ipynb")
        with jupyter_lab(root) as (base, token), sync_playwright() as pw:
            chrome = launch_chromium(pw)
            try:
                page = chrome.new_page(viewport={"width": 1280, "height": 1000})
                page.goto(f"{base}/lab/tree/bench.ipynb?token={token}")
                page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=60_000)
                page.locator(".lm-MenuBar-item", has_text="Run").click()
                page.locator(".lm-Menu-itemLabel").get_by_text("Run All Cells", exact=True).click()
                view = page.locator(".renderview-wrapper img").first
                view.wait_for(timeout=30_000)
                view.scroll_into_view_if_needed()
                page.evaluate(WATCH_JS)
                time.sleep(2.0)  # warm up
                fps = _fps(page, seconds)
                latencies = _latencies(page, view, presses)
            finally:
                chrome.close()
    return {"fps": fps, "latency_ms": latencies}


def in_process(seconds: float) -> dict:
    """The widget's own cost per frame and per event, no browser."""
    sys.path.insert(0, str(REPO))
    from jupyter_rfb._utils import array2compressed

    import viewer

    namespace: dict = {}
    exec(BUILD, namespace)  # noqa: S102 - the bench's own graph, as the notebook builds it
    widget = viewer.widget(namespace["tree"](), size=SIZE)
    widget.request_draw = lambda: None  # no browser: this loop draws
    widget.session.frame_callbacks.append(namespace["spin"])

    def frame(_step: int) -> float:
        t0 = time.perf_counter()
        array2compressed(widget.get_frame(), 80)
        return time.perf_counter() - t0

    animate = measure(frame, warmup=3, min_repeats=20, budget_s=seconds)
    widget.session.frame_callbacks.clear()

    def event(step: int) -> float:
        t0 = time.perf_counter()
        widget.handle_event({"type": "key_down", "key": "g", "modifiers": ()})
        widget.handle_event({"type": "key_up", "key": "g", "modifiers": ()})
        array2compressed(widget.get_frame(), 80)
        return time.perf_counter() - t0

    latency = measure(event, warmup=3, min_repeats=20, budget_s=seconds / 2)
    widget.close()
    return {"frame_ms": animate.median_ms, "event_ms": latency.median_ms}


def png_baseline(repeats: int = 7) -> float:
    """Median ms of `render_image` of the same graph and size, plus its PNG."""
    import viewer

    namespace: dict = {}
    exec(BUILD, namespace)  # noqa: S102
    graph = namespace["tree"]()

    def still(_step: int) -> float:
        t0 = time.perf_counter()
        viewer.render_image(graph, size=SIZE)._repr_png_()
        return time.perf_counter() - t0

    return measure(still, warmup=1, min_repeats=repeats, budget_s=0).median_ms


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--presses", type=int, default=10)
    parser.add_argument("--no-browser", action="store_true", help="in-process only")
    args = parser.parse_args(argv)
    png_ms = png_baseline()
    local = in_process(args.seconds)
    rows = [
        ("still PNG (render_image + PNG), the baseline", f"{png_ms:.1f} ms", "1.00"),
        ("in-process: frame (render + JPEG)", f"{local['frame_ms']:.1f} ms",
         f"{local['frame_ms'] / png_ms:.2f}"),
        ("in-process: key event to its frame", f"{local['event_ms']:.1f} ms",
         f"{local['event_ms'] / png_ms:.2f}"),
    ]  # fmt: skip
    if not args.no_browser:
        if not CHROMIUM.exists():
            raise SystemExit("needs /usr/bin/chromium (apt-get install chromium)")
        result = browser(args.seconds, args.presses)
        shown = [ms for ms in result["latency_ms"] if ms is not None]
        if len(shown) < len(result["latency_ms"]):
            raise SystemExit(f"{len(result['latency_ms']) - len(shown)} key presses got no frame")
        fps, latency = result["fps"], statistics.median(shown)
        interval = 1000.0 / fps if fps else float("inf")
        rows += [
            (f"browser: moving scene, {fps:.1f} frames per second", f"{interval:.1f} ms / frame",
             f"{interval / png_ms:.2f}"),
            (f"browser: key to frame in the page (median of {len(shown)})",
             f"{latency:.1f} ms", f"{latency / png_ms:.2f}"),
        ]  # fmt: skip
    print(f"# Notebook widget at {SIZE[0]}x{SIZE[1]}, ten-node tree, panels on\n")
    print("\n".join(machine_lines()))
    print()
    print("\n".join(markdown_table(("measure", "time", "x still PNG"), rows, "lrr")))


if __name__ == "__main__":
    main()
