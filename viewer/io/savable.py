"""What `save_scene` may write: exactly what the loader reads back.

The graph's API takes any finite number and any non-empty string as a name; a scene file
is held to narrower rules (viewer/io/ranges.py: positions within 1e9, scales within
1e-6..1e6, sizes, the camera's ranges, the world reach; names must be text that UTF-8 can
hold, not blank). A scene built in code can leave them, and a file saved from it would
then be refused by the very loader that must read it. So before writing, `savable_reason`
applies the loader's own rules (the same `RANGES`, the same reach check) to the scene,
and the saver refuses, in one line naming the node and the field, what the loader would.
"""

from __future__ import annotations

import numpy as np

from viewer.io.ranges import camera_gap_reason, out_of_range, world_reach_reason

__all__ = ["name_reason", "savable_reason"]


def name_reason(name: str) -> str | None:
    """Why a node name cannot go into a scene file, or None."""
    if not name.strip():
        return "a scene file needs a non-blank name"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "the name holds an unpaired surrogate, which a UTF-8 file cannot hold"
    return None


def savable_reason(scene) -> tuple[str | None, str | None, str] | None:
    """(node name, field, why) for the first thing of `scene` its file could not hold
    as the loader reads it (None: it all can)."""
    graph = scene.graph
    positions, _, scales = graph.local_values()
    for i in np.asarray(graph.alive_ids(), dtype=np.int64).tolist():
        name = graph.name_of(i)
        reason = name_reason(name)
        if reason is not None:
            return name, "name", reason
        for field, quantity, values in (("position", "position", positions[i]),
                                        ("scale", "scale", scales[i])):  # fmt: skip
            reason = out_of_range(quantity, values)
            if reason is not None:
                return name, field, reason
        look = scene.looks.get(i)
        if look is not None:
            reason = out_of_range("size", look.size)
            if reason is not None:
                return name, "size", reason
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
    found = world_reach_reason(scene)
    if found is not None:
        i, reason = found
        return graph.name_of(i), None, reason
    return None
