"""pygfx's side of the per-node timings; run by an interpreter that has pygfx installed.

    /path/to/pygfx-env/bin/python bench/pygfx_pernode.py

Builds the tree of bench/pernode.py out of `pygfx.WorldObject`s and prints one JSON
object: pygfx's version and microseconds per call for each operation pygfx has. pygfx
is not a dependency of sgview; bench/propagation.py runs this with `--pygfx-python`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pernode  # noqa: E402
import pygfx  # noqa: E402


def main() -> int:
    objects = []
    for p in pernode.tree_parents():
        obj = pygfx.WorldObject()
        if p >= 0:
            objects[p].add(obj)
        objects.append(obj)
    obj = objects[pernode.TIMED_NODE]
    _ = obj.world.matrix  # the first read computes; the timed ones are clean
    templates = {
        "position": "obj.local.position",
        "rotation": "obj.local.rotation",
        "scale": "obj.local.scale",
        "world_matrix": "obj.world.matrix",
        "world_position": "obj.world.position",
        "add": "child = pygfx.WorldObject(name=name); child.local.position = v; "
        "child.local.scale = s; obj.add(child)",
    }
    timings = pernode.measure(
        templates, {"obj": obj, "pygfx": pygfx}, after_repeat=lambda: obj.world.matrix
    )
    print(json.dumps({"pygfx": pygfx.__version__, "us": timings}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
