"""OpenUSD loading benchmark: a stage to sgview's first frame against pxr's own floor.

    .venv/bin/python bench/usd_load.py [--quick] [--prims N] [--repeats R] [--only STAGE]

Generates (with pxr's Sdf API, in a temporary folder) two binary stages, then times on
each, in one process:

- the floor: ``Usd.Stage.Open`` of the file plus one ``UsdGeom.XformCache`` pass over
  every prim (``GetLocalToWorldTransform``), and a PointInstancer's instance matrices
  (``ComputeInstanceTransformsAtTime``), what any USD viewer must at least do;
- sgview to its first frame: ``load_scene`` (open, walk, op stacks, looks, instances,
  the graph) plus the first ``SceneGraph.update()`` (every world matrix computed once);
  the GL upload and the first draw are not counted (bench/first_frame.py times those).

Stages: a random tree of N Xform prims (default 100,000), each with a translate and a
rotateXYZ op; and one PointInstancer of N instances (positions, orientations, scales)
of a Cube. The target (issue 33): sgview within 1.5x the floor. Prints a markdown table
of medians (the two taken in turn, wall clock and this process's CPU time) and the
ratios. `--quick` uses 5,000 prims (a smoke test); `--only` times one stage.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # the sibling modules, then `viewer` from the repo

from benchutil import machine_lines, others_busy_percent, timed  # noqa: E402
from pxr import Sdf, Usd, UsdGeom, Vt  # noqa: E402

from viewer.io import load_scene  # noqa: E402


def xform_tree(path: Path, n: int, seed: int = 33) -> None:
    """n Xform prims in a random tree under /World, each translated and turned."""
    rng = np.random.default_rng(seed)
    parents = np.concatenate([[-1], rng.integers(0, np.maximum(1, np.arange(n) // 2 + 1))])[:n]
    moves = np.round(rng.normal(size=(n, 3)), 3)
    turns = np.round(rng.uniform(-180, 180, size=(n, 3)), 2)
    layer = Sdf.Layer.CreateNew(str(path))
    order = Vt.TokenArray(["xformOp:translate", "xformOp:rotateXYZ"])
    paths: list[Sdf.Path] = []
    with Sdf.ChangeBlock():
        world = Sdf.CreatePrimInLayer(layer, "/World")
        world.specifier, world.typeName = Sdf.SpecifierDef, "Xform"
        for i in range(n):
            parent = paths[parents[i]] if parents[i] >= 0 else Sdf.Path("/World")
            prim_path = parent.AppendChild(f"P{i}")
            paths.append(prim_path)
            spec = Sdf.PrimSpec(layer.GetPrimAtPath(parent), f"P{i}", Sdf.SpecifierDef, "Xform")
            t = Sdf.AttributeSpec(spec, "xformOp:translate", Sdf.ValueTypeNames.Double3)
            t.default = tuple(moves[i])
            r = Sdf.AttributeSpec(spec, "xformOp:rotateXYZ", Sdf.ValueTypeNames.Float3)
            r.default = tuple(turns[i])
            o = Sdf.AttributeSpec(spec, "xformOpOrder", Sdf.ValueTypeNames.TokenArray)
            o.default = order
        layer.defaultPrim = "World"
    layer.Save()


def instancer(path: Path, n: int, seed: int = 34) -> None:
    """One PointInstancer of n Cube instances under /World."""
    rng = np.random.default_rng(seed)
    stage = Usd.Stage.CreateNew(str(path))
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    inst = UsdGeom.PointInstancer.Define(stage, "/World/Scatter")
    UsdGeom.Cube.Define(stage, "/World/Scatter/Protos/Box").CreateSizeAttr(0.1)
    inst.CreatePrototypesRel().AddTarget("/World/Scatter/Protos/Box")
    inst.CreateProtoIndicesAttr(Vt.IntArray.FromNumpy(np.zeros(n, np.int32)))
    inst.CreatePositionsAttr(Vt.Vec3fArray.FromNumpy(rng.normal(size=(n, 3)).astype(np.float32)))
    q = rng.normal(size=(n, 4)).astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    inst.CreateOrientationsAttr(Vt.QuathArray.FromNumpy(q.astype(np.float16)))
    stage.GetRootLayer().Save()


def floor(path: Path) -> None:
    """What any viewer pays: open the stage, one world matrix per prim (and per
    instance: a PointInstancer's instance matrices)."""
    stage = Usd.Stage.Open(str(path))
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    for prim in stage.Traverse():
        cache.GetLocalToWorldTransform(prim)
        if prim.IsA(UsdGeom.PointInstancer):
            UsdGeom.PointInstancer(prim).ComputeInstanceTransformsAtTime(0, 0)


def first_frame(path: Path) -> None:
    load_scene(path).graph.update()


def _interleaved(path: Path, repeats: int) -> dict[str, tuple[float, float]]:
    """{"floor" | "sgview": (median wall ms, median CPU ms)}: one untimed warm-up of each,
    then the two taken in turn `repeats` times, so that the machine's other work weighs
    on both alike; CPU time (this process's, all its threads) moves less with that work
    than the wall clock does."""
    samples: dict[str, list[tuple[float, float]]] = {"floor": [], "sgview": []}
    for rep in range(repeats + 1):
        for name, fn in (("floor", floor), ("sgview", first_frame)):
            cpu = time.process_time()
            wall = timed(lambda fn=fn: fn(path))
            if rep:
                samples[name].append((wall * 1e3, (time.process_time() - cpu) * 1e3))
    return {name: (statistics.median(w for w, _ in got), statistics.median(c for _, c in got))
            for name, got in samples.items()}  # fmt: skip


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--prims", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=("xform", "instancer"), default=None,
                        help="time one of the two stages alone")  # fmt: skip
    args = parser.parse_args(argv)
    n = 5_000 if args.quick else args.prims
    repeats = 3 if args.quick else args.repeats
    busy = others_busy_percent()
    print(
        "| stage | MB | floor: Stage.Open + XformCache ms | sgview first frame ms | ratio "
        "| floor CPU ms | sgview CPU ms | CPU ratio |"
    )
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    with tempfile.TemporaryDirectory() as tmp:
        stages = {"xform": (f"{n:,} Xform prims", xform_tree),
                  "instancer": (f"PointInstancer, {n:,} instances", instancer)}  # fmt: skip
        for key, (label, make) in stages.items():
            if args.only not in (None, key):
                continue
            path = Path(tmp) / f"{make.__name__}.usdc"
            start = time.perf_counter()
            make(path, n)
            rows = _interleaved(path, repeats)
            (fw, fc), (sw, sc) = rows["floor"], rows["sgview"]
            print(
                f"| {label} | {path.stat().st_size / 1e6:.1f} | {fw:.0f} | {sw:.0f} "
                f"| {sw / fw:.2f} | {fc:.0f} | {sc:.0f} | {sc / fc:.2f} |",
                flush=True,
            )
            print(f"<!-- {label}: {time.perf_counter() - start:.0f} s -->", file=sys.stderr)
    print()
    print("\n".join(machine_lines(busy_at_start=busy)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
