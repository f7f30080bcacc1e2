"""Placing names while the camera moves over a big still scene, without GL.

    python bench/names_placement.py [--sizes 10000,100000,1000000] [--moves 15]

A balanced tree (`generate_scene("balanced:N")`, motions off), its `SceneBounds`, a camera
framed on it and brought in close, then orbited step by step: each step places the names
as the overlay does on a camera move, once by `labels.place_named` over every live node
(the placement before issue 31's bounded candidates) and once by `NameCandidates.place`
(the grid kept between moves, built once before timing), in the same run. Prints the
median ms per move of each, their ratio and how many nodes each looked at.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from benchutil import machine_lines, markdown_table, others_busy_percent  # noqa: E402

from viewer.io import generate_scene  # noqa: E402
from viewer.overlay import labels  # noqa: E402
from viewer.overlay.name_candidates import NameCandidates  # noqa: E402
from viewer.render.camera import Camera  # noqa: E402
from viewer.render.scene_bounds import SceneBounds  # noqa: E402

SIZE = (1280, 720)


def row(n: int, moves: int) -> tuple:
    scene = generate_scene(f"balanced:{n}")
    scene.motions = []
    graph = scene.graph
    graph.update()
    bounds = SceneBounds(scene)
    camera = Camera()
    bounds.frame_camera(camera)
    camera.distance *= 0.4
    everyone = lambda ids: np.ones(len(ids), dtype=bool)  # noqa: E731
    candidates = NameCandidates()
    key = (f"balanced:{n}",)
    vp, right = camera.view_projection(SIZE), camera.view_matrix()[0, :3]
    build = time.perf_counter()
    candidates.place(key, graph.alive_ids, everyone, None, bounds.label_spheres, vp, SIZE, right)
    build = time.perf_counter() - build
    every, bounded = [], []
    for _ in range(moves):
        camera.orbit(20.0, 2.0)
        vp, right = camera.view_projection(SIZE), camera.view_matrix()[0, :3]
        t0 = time.perf_counter()
        ids = np.asarray(graph.alive_ids(), dtype=np.int64)
        labels.place_named(ids, everyone, None, bounds.label_spheres, vp, SIZE, right)
        t1 = time.perf_counter()
        candidates.place(key, graph.alive_ids, everyone, None, bounds.label_spheres, vp, SIZE,
                         right)  # fmt: skip
        t2 = time.perf_counter()
        every.append(1000 * (t1 - t0))
        bounded.append(1000 * (t2 - t1))
    a, b = float(np.median(every)), float(np.median(bounded))
    return (f"{len(graph):,}", f"{a:.2f}", f"{len(graph):,}", f"{b:.2f}",
            f"{candidates.looked_at:,}", f"{b / a:.3f}", f"{1000 * build:.0f}")  # fmt: skip


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--moves", type=int, default=15)
    args = parser.parse_args(argv)
    busy = others_busy_percent()
    rows = [row(int(v), args.moves) for v in args.sizes.split(",") if v.strip()]
    headings = ("nodes", "every node ms / move", "looked at", "candidates ms / move",
                "looked at", "candidates / every", "grid build ms (once)")  # fmt: skip
    lines = ["## Placing names while the camera moves", "",
             f"Medians over {args.moves} camera moves at {SIZE[0]}x{SIZE[1]}:", "",
             *markdown_table(headings, rows, "r" * len(headings)), ""]  # fmt: skip
    lines += [line for line in machine_lines(busy_at_start=busy) if not line.startswith("- node")]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
