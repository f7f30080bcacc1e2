"""The Obj1-Obj5 chain built in code; the script touches Obj3 once every second.

A touch marks a node changed without giving it a new value: the frame recomputes Obj3's
local matrix and the world matrices of Obj3, Obj4 and Obj5, and nothing else (see
docs/semantics.md). With `--log` each touched frame prints exactly those four lines.

    .venv/bin/python docs/examples/chain_touch.py                # a window
    .venv/bin/python docs/examples/chain_touch.py --headless  # 120 frames, writes chain_touch.png
"""

import argparse

import viewer
from viewer.scene import SceneGraph

#: Frames per second of the scene clock (headless runs are exactly 60).
FPS = 60


def build_chain() -> SceneGraph:
    """Obj1 -> Obj5, each link 2 units along its parent's x axis, turned 12 degrees."""
    g = SceneGraph()
    parent = g.add("Obj1", position=(-4, -1, 0))
    for i in range(2, 6):
        parent = g.add(f"Obj{i}", parent=parent, position=(2, 0, 0), euler=(0, 0, 12))
    return g


def touch_every_second(graph: SceneGraph, frame: int, t: float) -> None:
    if frame % FPS == 0:
        graph["Obj3"].touch()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--headless", action="store_true", help="no window: write an image")
    parser.add_argument("--frames", type=int, help="frames to run (headless default: 120)")
    parser.add_argument("--screenshot", help="PNG to write (headless default: chain_touch.png)")
    parser.add_argument("--log", action="store_true", help="print each frame's update log")
    parser.add_argument("--trace", help="write a Chrome trace (open in ui.perfetto.dev)")
    parser.add_argument("--size", default="960x540", help="WIDTHxHEIGHT in pixels")
    args = parser.parse_args(argv)
    sizes = {f"Obj{i}": viewer.Look("cube", (s, s, s)) for i, s in
             zip(range(1, 6), (1.0, 0.9, 0.8, 0.7, 0.6))}  # fmt: skip
    result = viewer.show(
        build_chain(), on_frame=touch_every_second, meshes=sizes, headless=args.headless,
        frames=args.frames or (120 if args.headless else None),
        screenshot=args.screenshot or ("chain_touch.png" if args.headless else None),
        size=tuple(int(v) for v in args.size.split("x")), log=args.log, trace=args.trace,
        title="Obj1-Obj5 chain",
    )  # fmt: skip
    if result.screenshot:
        print(f"# wrote {result.screenshot} after {result.frames} frames")


if __name__ == "__main__":
    main()
