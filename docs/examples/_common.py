"""What the example scripts share: their command line and how they show a graph.

Each example is run as a script (``python docs/examples/NAME.py``), so this folder is the
first entry of ``sys.path`` and ``from _common import run_example`` works from any folder.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

import viewer
from viewer.scene import SceneGraph


def run_example(
    graph: SceneGraph,
    on_frame: Callable[[SceneGraph, int, float], None],
    *,
    doc: str,
    name: str,
    frames: int,
    title: str,
    argv: Sequence[str] | None = None,
    **show_options,
) -> None:
    """Show `graph` driven by `on_frame`, in a window or, with ``--headless``, for `frames`
    frames written to ``NAME.png``; the other options (``--log``, ``--trace``, ``--size``,
    ``--frames``, ``--screenshot``) are read from `argv` (default: the command line)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--headless", action="store_true", help="no window: write an image")
    parser.add_argument("--frames", type=int, help=f"frames to run (headless default: {frames})")
    parser.add_argument("--screenshot", help=f"PNG to write (headless default: {name}.png)")
    parser.add_argument("--log", action="store_true", help="print each frame's update log")
    parser.add_argument("--trace", help="write a Chrome trace (open in ui.perfetto.dev)")
    parser.add_argument("--size", default="960x540", help="WIDTHxHEIGHT in pixels")
    args = parser.parse_args(argv)
    result = viewer.show(
        graph, on_frame=on_frame, headless=args.headless,
        frames=args.frames or (frames if args.headless else None),
        screenshot=args.screenshot or (f"{name}.png" if args.headless else None),
        size=tuple(int(v) for v in args.size.split("x")), log=args.log, trace=args.trace,
        title=title, **show_options,
    )  # fmt: skip
    if result.screenshot:
        print(f"# wrote {result.screenshot} after {result.frames} frames")
