"""What sampling an animation clip costs a frame, against the core's update it feeds.

    .venv/bin/python bench/clip_sampling.py [--nodes 1000 10000 100000] [--keys 30]

A glTF clip of N animated nodes has a translation and a rotation channel per node (LINEAR,
`--keys` keys each), as an exporter writes a crowd or a baked simulation. Per frame the
player samples the clip (`Clip.pose`) and writes the pose with `set_locals`, then the
frame's `update()` recomputes those nodes. Two key layouts: every channel on the same key
times (one input accessor shared, the usual export) and every channel on its own.

Printed: medians of the sampling, and of `set_locals` + `update()` (the baseline, in the
same run), and their ratio. Target: sampling within 1.0x the update it feeds for shared
keys (one Python call per channel cost 50 ms a frame at 1,000 nodes, 5 s at 100,000).
"""

from __future__ import annotations

import argparse

import numpy as np
from benchutil import markdown_table, measure, others_busy_percent, timed

from viewer.animation.clip import Channel, Clip
from viewer.scene import SceneGraph

MOST_VS_UPDATE = 1.0


def crowd(n: int, keys: int, shared: bool, seed: int = 0) -> tuple[SceneGraph, Clip]:
    """A root with n animated children, and their clip (translation + rotation each)."""
    rng = np.random.default_rng(seed)
    g = SceneGraph()
    root = g.add_many(["Root"], [-1])[0]
    ids = g.add_many(None, np.full(n, root))
    g.update()
    common = np.linspace(0.0, 2.0, keys)
    channels = []
    for node in ids.tolist():
        times = common if shared else np.sort(rng.uniform(0.0, 2.0, keys))
        q = rng.normal(size=(keys, 4))
        q /= np.linalg.norm(q, axis=1)[:, None]
        channels.append(Channel(node, "translation", "LINEAR", times, rng.normal(size=(keys, 3))))
        channels.append(Channel(node, "rotation", "LINEAR", times, q))
    return g, Clip("crowd", tuple(channels))


def row(n: int, keys: int, shared: bool) -> list[object]:
    g, clip = crowd(n, keys, shared)
    poses: dict[int, dict] = {}

    def sample(step: int) -> float:
        t = (step % 97) / 50.0
        out: dict = {}
        seconds = timed(lambda: out.update(clip.pose(t)))
        poses[step] = out
        return seconds

    def apply(step: int) -> float:
        pose = poses.get(step) or clip.pose((step % 97) / 50.0)

        def write() -> None:
            ids, q = pose["rotation"]
            g.set_locals(pose["translation"][0], positions=pose["translation"][1])
            g.set_locals(ids, rotations=q)
            g.update()

        return timed(write)

    sampled = measure(sample, budget_s=2.0)
    updated = measure(apply, budget_s=2.0)
    ratio = sampled.median_ms / updated.median_ms
    verdict = "PASS" if not shared or ratio <= MOST_VS_UPDATE else "FAIL"
    layout = "shared" if shared else "own"
    return [f"{n:,}", layout, f"{sampled.median_ms:.2f}", f"{updated.median_ms:.2f}",
            f"{ratio:.2f}x", verdict]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--keys", type=int, default=30)
    args = parser.parse_args()
    busy = others_busy_percent()
    print(f"other work on the machine: {busy:.0f} %" if busy is not None else "load unknown")
    rows = [row(n, args.keys, shared) for n in args.nodes for shared in (True, False)]
    heads = ["animated nodes", "key times", "sample ms", "set_locals + update ms", "ratio", ""]
    print("\n".join(markdown_table(heads, rows, "lllrrl")))


if __name__ == "__main__":
    main()
