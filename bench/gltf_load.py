"""glTF loading benchmark: the JSON-direct loader against pygltflib decoding, and its floor.

    .venv/bin/python bench/gltf_load.py [--quick] [--nodes N] [--skip-old]

Writes a random glTF tree of N nodes (default 100,000; names, translations, rotations,
children) and a minimal one of 1,000,000 nodes (``{}`` each, the shape of the issue's
4 MB million-node file), then times on each, in one process:

- ``json.loads`` of the file and the core's ``SceneGraph.add_many`` of its nodes: the
  floor the loader is measured against (issue 16: "about json.loads plus add_many");
- ``load_scene`` (the whole load: read, parse, check, decode, build the graph);
- the same with Python's garbage collector running, as a plain program runs them (the
  other columns pause it, as `timeit` does): ``json.loads`` then spends most of its time
  in collections over the growing tree, which ``read_gltf`` pauses;
- ``pygltflib.GLTF2.gltf_from_json``: what the previous loader did before anything else
  (it decoded every node into an object through pygltflib), so a lower bound of its time.

It prints a markdown table of medians and the ratios. `--quick` uses 10,000 nodes and no
million-node file (a smoke test, run by tests/bench). pygltflib comes with the ``test``
extra (``pip install -e '.[test]'``); without it, run with ``--skip-old``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # the sibling modules, then `viewer` from the repo

from benchutil import machine_lines, measure, others_busy_percent, timed  # noqa: E402

from viewer.io import load_scene  # noqa: E402
from viewer.io.gltf_read.scene import read_gltf  # noqa: E402
from viewer.scene import SceneGraph  # noqa: E402


def random_tree_doc(n: int, seed: int = 20261123) -> dict:
    """A glTF document of n nodes in a random tree (node 0 the root), with TRS values."""
    rng = np.random.default_rng(seed)
    parents = np.concatenate([[-1], rng.integers(0, np.arange(1, n))])
    children: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        children[parents[i]].append(i)
    t = np.round(rng.normal(size=(n, 3)), 4).tolist()
    q = rng.normal(size=(n, 4))
    q = np.round(q / np.linalg.norm(q, axis=1, keepdims=True), 6).tolist()
    nodes = []
    for i in range(n):
        node = {"name": f"n{i}", "translation": t[i], "rotation": q[i]}
        if children[i]:
            node["children"] = children[i]
        nodes.append(node)
    return {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes}


def minimal_doc(n: int) -> dict:
    return {"asset": {"version": "2.0"}, "nodes": [{}] * n}


def once(fn) -> float:
    return measure(lambda _step: timed(fn), warmup=0, min_repeats=1, max_repeats=1).median_ms


def bench_file(path: Path, repeats: int, old: bool) -> dict[str, float]:
    text = path.read_bytes()
    model = read_gltf(path)

    def build():
        SceneGraph().add_many(
            model.names,
            model.parents,
            positions=model.positions,
            rotations=model.rotations,
            scales=model.scales,
        )

    def median(fn) -> float:
        return measure(
            lambda _step: timed(fn), warmup=1, min_repeats=repeats, max_repeats=repeats
        ).median_ms

    def median_gc_on(fn) -> float:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e3)
        return sorted(times)[len(times) // 2]

    row = {
        "json.loads": median(lambda: json.loads(text)),
        "add_many": median(build),
        "load_scene": median(lambda: load_scene(path)),
        "json.loads gc": median_gc_on(lambda: json.loads(text)),
        "load_scene gc": median_gc_on(lambda: load_scene(path)),
    }
    if old:
        import pygltflib

        decoded = text.decode()
        row["pygltflib"] = once(lambda: pygltflib.GLTF2.gltf_from_json(decoded))
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--skip-old", action="store_true", help="do not time pygltflib")
    args = parser.parse_args(argv)
    n = 10_000 if args.quick else args.nodes
    busy = others_busy_percent()
    cases = [(f"random tree, {n:,} nodes", random_tree_doc(n))]
    if not args.quick:
        cases.append(("minimal nodes, 1,000,000", minimal_doc(1_000_000)))
    print("| file | MB | json.loads ms | add_many ms | load_scene ms | load / (json+add) "
          "| with gc: json.loads ms | with gc: load_scene ms | pygltflib ms "
          "| pygltflib / load |")  # fmt: skip
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    with tempfile.TemporaryDirectory() as tmp:
        for k, (label, doc) in enumerate(cases):
            path = Path(tmp) / f"case{k}.gltf"
            path.write_text(json.dumps(doc, separators=(",", ":")))
            start = time.perf_counter()
            row = bench_file(path, 3 if args.quick else 5, old=not args.skip_old and k == 0)
            floor = row["json.loads"] + row["add_many"]
            old = row.get("pygltflib")
            load = row["load_scene"]
            old_ms = "-" if old is None else f"{old:.0f}"
            speedup = "-" if old is None else f"{old / load:.0f}x"
            print(
                f"| {label} | {path.stat().st_size / 1e6:.1f} | {row['json.loads']:.0f} "
                f"| {row['add_many']:.0f} | {load:.0f} | {load / floor:.2f} "
                f"| {row['json.loads gc']:.0f} | {row['load_scene gc']:.0f} "
                f"| {old_ms} | {speedup} |",
                flush=True,
            )
            del doc
            print(f"<!-- {label}: {time.perf_counter() - start:.0f} s -->", file=sys.stderr)
    print()
    print("\n".join(machine_lines(busy_at_start=busy)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
