"""What `save_scene` may write: exactly what the loader reads back.

The graph's API takes any finite number and any non-empty string as a name; a scene file
is held to narrower rules (viewer/io/ranges.py: positions within 1e9, scales within
1e-6..1e6, sizes, the camera's ranges, the world reach; names must be text that UTF-8 can
hold). A scene built in code can leave them, and a file saved from it would
then be refused by the very loader that must read it. So before writing, `savable_reason`
applies the loader's own rules (the same `RANGES`, the same reach check) to the scene,
and the saver refuses, in one line naming the node and the field, what the loader would.
"""

from __future__ import annotations

import numpy as np

from viewer.io.ranges import RANGES, camera_gap_reason, out_of_range, world_reach_reason

__all__ = ["name_reason", "savable_reason"]


def name_reason(name: str) -> str | None:
    """Why a node name cannot go into a scene file, or None."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "the name holds an unpaired surrogate, which a UTF-8 file cannot hold"
    return None


def _first_out(values: np.ndarray, quantity: str) -> int:
    """The first row of `values` with a number outside `RANGES[quantity]` (-1: none)."""
    rng = RANGES[quantity]
    magnitude = np.abs(values)
    bad = ((magnitude > rng.high) | (magnitude < rng.low)).any(axis=1)  # as Range.message
    return int(np.argmax(bad)) if bad.any() else -1


def _first_bad_name(names: list[str]) -> int:
    """The first row whose name `name_reason` refuses (-1: none)."""
    try:
        "\n".join(names).encode("utf-8")  # no unpaired surrogate in any name
        return -1
    except UnicodeEncodeError:
        return next(row for row, name in enumerate(names) if name_reason(name) is not None)


def _bad_size(look) -> bool:
    """Whether a look's size is out of range (the default is never)."""
    return look.size != (1.0, 1.0, 1.0) and out_of_range("size", look.size) is not None


def _first_bad_size(scene, id_list: list[int]) -> int:
    """The first row whose look has a size out of range (-1: none); looks are shared,
    each is checked once."""
    distinct = dict(zip(map(id, scene.looks.values()), scene.looks.values()))
    bad_looks = {key for key, look in distinct.items() if _bad_size(look)}  # each Look once
    if not bad_looks:
        return -1
    bad = {i for i, look in scene.looks.items() if id(look) in bad_looks}
    return next((row for row, i in enumerate(id_list) if i in bad), -1)


def savable_reason(
    scene, names: list[str] | None = None
) -> tuple[str | None, str | None, str] | None:
    """(node name, field, why) for the first thing of `scene` its file could not hold
    as the loader reads it (None: it all can). `names`: the live nodes' names in
    pre-order, where the caller has them."""
    graph = scene.graph
    ids = np.asarray(graph.alive_ids(), dtype=np.int64)
    id_list = ids.tolist()
    if names is None:
        names = graph.peek.names_of(id_list)
    positions, _, scales = (a[ids] for a in graph.local_values())
    # one pass over all nodes per rule; the first node breaking any rule is named, and
    # within that node the rules in this order: name, position, scale, size
    firsts = [
        _first_bad_name(names),
        _first_out(positions, "position"),
        _first_out(scales, "scale"),
        _first_bad_size(scene, id_list),
    ]
    found = [row for row in firsts if row >= 0]
    if found:
        row = min(found)
        name = names[row]
        if row == firsts[0]:
            return name, "name", _found(name_reason(name))
        if row in firsts[1:3]:
            field = "position" if row == firsts[1] else "scale"
            values = positions if row == firsts[1] else scales
            return name, field, _found(out_of_range(field, values[row]))
        return name, "size", _found(out_of_range("size", scene.looks[id_list[row]].size))
    camera = scene.camera
    for field in ("position", "target"):
        value = getattr(camera, field)
        if value is not None and (reason := out_of_range("camera point", value)) is not None:
            return None, f"camera {field}", reason
    if camera.position is not None and camera.target is not None:
        reason = camera_gap_reason(camera.position, camera.target)
        if reason is not None:
            return None, "camera target", reason
    if camera.projection == "orthographic":
        reason = out_of_range("orthographic height", [camera.height])
        if reason is not None:
            return None, "camera height", reason
    reach = world_reach_reason(scene)
    if reach is not None:
        i, why = reach
        return graph.name_of(i), None, why
    return None


def _found(reason: str | None) -> str:
    """The reason of a node a rule's bulk pass found breaking it (never None for it)."""
    assert reason is not None, "the bulk pass and the per-node reason disagree"
    return reason
