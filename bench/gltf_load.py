"""glTF loading benchmark: the JSON-direct loader against pygltflib decoding, and its floor.

    .venv/bin/python bench/gltf_load.py [--quick] [--nodes N] [--skip-old] [--one-animated M]

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

It prints a markdown table of medians and the ratios. Then a file of M empty nodes
(default 1,500,000) with ONE of them animated (a two-key translation), and the same file
without its animation, each opened by ``sgview FILE --headless --frames 1`` in a fresh
process: seconds and peak memory (ru_maxrss) to the first frame. The framing at load
samples the clip's poses; it must cost what the animation moves, not what the file
holds (bound: 2 GB and 60 s at 1.5M nodes). `--quick` uses 10,000 nodes, no
million-node file and 10,000 for M (a smoke test, run by tests/bench). pygltflib comes
with the ``test`` extra (``pip install -e '.[test]'``); without it, run with
``--skip-old``.
"""

from __future__ import annotations

import argparse
import base64
import json
import subprocess
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


def one_animated_doc(n: int, animated: bool) -> dict:
    """n empty nodes (``{}`` each, no scene: every node a root); with `animated`, node
    n // 2 moves by a two-key translation."""
    doc: dict = {"asset": {"version": "2.0"}, "nodes": [{}] * n}
    if animated:
        data = np.array([0, 1, 0, 0, 0, 1, 2, 3], dtype="<f4").tobytes()
        uri = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
        doc["buffers"] = [{"byteLength": len(data), "uri": uri}]
        doc["bufferViews"] = [
            {"buffer": 0, "byteOffset": 0, "byteLength": 8},
            {"buffer": 0, "byteOffset": 8, "byteLength": 24},
        ]
        doc["accessors"] = [
            {
                "bufferView": 0,
                "componentType": 5126,
                "count": 2,
                "type": "SCALAR",
                "min": [0],
                "max": [1],
            },
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"},
        ]
        sampler = {"samplers": [{"input": 0, "output": 1}]}
        target = {"sampler": 0, "target": {"node": n // 2, "path": "translation"}}
        doc["animations"] = [{**sampler, "channels": [target]}]
    return doc


#: Opens a file as the command line does, to its first headless frame; prints
#: {"seconds": s, "peak_mb": m, "rc": exit status}.
_FIRST_FRAME = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from viewer.cli.main import main
start = time.perf_counter()
rc = main([sys.argv[1], "--headless", "--frames", "1"])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"seconds": seconds, "peak_mb": peak, "rc": rc}}))
"""


def first_frame(path: Path) -> dict:
    code = _FIRST_FRAME.format(root=str(HERE.parent))
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def one_animated_table(m: int, tmp: Path) -> list[str]:
    """The rows for M empty nodes with one animated and without (one run each)."""
    lines = [
        "",
        f"{m:,} empty nodes, one animated (two-key translation), to the first headless frame:",
        "",
        "| file | MB | seconds | peak MB | peak B/node |",
        "|---|--:|--:|--:|--:|",
    ]
    for animated in (False, True):
        path = tmp / f"one_animated_{int(animated)}.gltf"
        path.write_text(json.dumps(one_animated_doc(m, animated), separators=(",", ":")))
        got = first_frame(path)
        label = "one node animated" if animated else "no animation"
        lines.append(
            f"| {label} | {path.stat().st_size / 1e6:.1f} | {got['seconds']:.1f} "
            f"| {got['peak_mb']:,.0f} | {got['peak_mb'] * 2**20 / m:,.0f} |"
            + ("" if got["rc"] == 0 else f" exit {got['rc']}")
        )
        path.unlink()
    return lines


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
    parser.add_argument(
        "--one-animated", type=int, default=1_500_000, help="empty nodes, one animated"
    )
    args = parser.parse_args(argv)
    n = 10_000 if args.quick else args.nodes
    busy = others_busy_percent()
    cases = [(f"random tree, {n:,} nodes", random_tree_doc(n))]
    if not args.quick:
        cases.append(("minimal nodes, 1,000,000", minimal_doc(1_000_000)))
    print(
        "| file | MB | json.loads ms | add_many ms | load_scene ms | load / (json+add) "
        "| with gc: json.loads ms | with gc: load_scene ms | pygltflib ms "
        "| pygltflib / load |"
    )
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
        del cases
        one = 10_000 if args.quick else args.one_animated
        print("\n".join(one_animated_table(one, Path(tmp))), flush=True)
    print()
    print("\n".join(machine_lines(busy_at_start=busy)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
