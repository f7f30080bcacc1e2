"""glTF animations: each ``animations`` entry becomes a `Clip` of the imported nodes.

Checked like the rest of the file (untrusted input): a sampler's key times are finite,
non-negative and strictly increasing; its output has one value per key (three for
``CUBICSPLINE``, which needs two keys or more) of the target's width; values are finite
and of sane size; rotation keys are non-zero quaternions. Rotations may be stored as
normalized integers (the glTF rule for decoding them applies). Channels without a target
node, or aimed at nodes outside the imported scene, are left out; morph-target weight
channels are left out with a note (the viewer has no morph targets).
"""

from __future__ import annotations

import numpy as np

from ..animation.clip import PATHS, Channel, Clip
from ..animation.sampler import INTERPOLATIONS
from .errors import describe
from .gltf_data import GltfFile, is_int
from .limits import channels_reason

__all__ = ["MAX_KEY_TIME", "MAX_KEY_VALUE", "read_animations"]

#: Key times beyond this many seconds (about 11.6 days) are refused.
MAX_KEY_TIME = 1e6
#: Key values (and tangents) larger than this in magnitude are refused: the spline terms
#: stay far from float overflow.
MAX_KEY_VALUE = 1e9
_TYPES = {3: ("VEC3",), 4: ("VEC4",)}


def read_animations(gltf: GltfFile, rows: np.ndarray) -> tuple[list[Clip], list[str]]:
    """The file's clips (channels on model rows, see `GltfModel.rows`) and notes."""
    clips: list[Clip] = []
    notes: list[str] = []
    declared = sum(len(a["channels"]) for a in gltf.array("animations")
                   if isinstance(a, dict) and isinstance(a.get("channels"), list))  # fmt: skip
    reason = channels_reason(declared)
    if reason is not None:  # before a channel is built
        raise gltf.error("animations", reason)
    for a, anim in enumerate(gltf.array("animations")):
        where = f"animation {a}"
        anim = gltf.obj(anim, where)
        name = anim.get("name")
        name = name if isinstance(name, str) and name else f"animation{a}"
        samplers = _array(gltf, anim, "samplers", where)
        channels: list[Channel] = []
        weights = 0
        for c, ch in enumerate(_array(gltf, anim, "channels", where)):
            here = f"{where} channel {c}"
            ch = gltf.obj(ch, here)
            target = gltf.obj(ch.get("target"), f"{here} target")
            path = target.get("path")
            if path == "weights":
                weights += 1
                continue
            if path not in PATHS:
                raise gltf.error(here, f"expected target path translation, rotation, scale "
                                 f"or weights, got {describe(path)}")  # fmt: skip
            s = ch.get("sampler")
            if not is_int(s) or not 0 <= s < len(samplers):
                raise gltf.error(here, f"expected an index into the samplers of {where} "
                                 f"(0..{len(samplers) - 1}), got {describe(s)}")  # fmt: skip
            node = target.get("node")
            if node is None:
                continue  # glTF: a channel without a node is ignored
            node = gltf.index_into(node, "nodes", f"{here} target")
            if rows[node] < 0:
                continue  # a node outside the imported scene
            times, values, interpolation = _sampler(gltf, samplers[s], f"{where} sampler {s}",
                                                    PATHS[path], path == "rotation")  # fmt: skip
            channels.append(Channel(int(rows[node]), path, interpolation, times, values))
        if weights:
            notes.append(f"{gltf.display}: {where} ({name!r}): {weights} morph-target weight "
                         "channel(s) skipped")  # fmt: skip
        clips.append(Clip(name, tuple(channels)))
    return clips, notes


def _array(gltf: GltfFile, obj: dict, key: str, where: str) -> list:
    value = obj.get(key)
    if not isinstance(value, list):
        raise gltf.error(where, f"{key} must be an array, got {describe(value)}")
    return value


def _sampler(gltf: GltfFile, sampler: object, where: str, width: int, rotation: bool):
    """(times (k,), values (k, width) or (k, 3, width), interpolation), checked."""
    sampler = gltf.obj(sampler, where)
    interpolation = sampler.get("interpolation", "LINEAR")
    if interpolation not in INTERPOLATIONS:
        raise gltf.error(where, f"expected interpolation STEP, LINEAR or CUBICSPLINE, "
                         f"got {describe(interpolation)}")  # fmt: skip
    times = gltf.accessor(sampler.get("input"), f"{where} input", ("SCALAR",), (5126,))
    times = times.reshape(-1).astype(np.float64)
    k = times.size
    cubic = interpolation == "CUBICSPLINE"
    if k < (2 if cubic else 1):
        raise gltf.error(where, f"{interpolation} needs {'two keys' if cubic else 'a key'} "
                         f"or more, got {k}")  # fmt: skip
    if not np.all(np.isfinite(times)) or times[0] < 0 or times[-1] > MAX_KEY_TIME:
        raise gltf.error(where, f"key times must be finite seconds in 0..{MAX_KEY_TIME:g}")
    if k > 1 and not np.all(np.diff(times) > 0):
        bad = int(np.flatnonzero(~(np.diff(times) > 0))[0])
        raise gltf.error(where, f"key times must increase strictly: key {bad + 1} is "
                         f"{times[bad + 1]!r} after {times[bad]!r}")  # fmt: skip
    values = gltf.floats(sampler.get("output"), f"{where} output", _TYPES[width])
    need = 3 * k if cubic else k
    if values.shape[0] != need:
        raise gltf.error(where, f"expected {need} output values for {k} keys "
                         f"({interpolation}), got {values.shape[0]}")  # fmt: skip
    if not np.all(np.isfinite(values)) or np.abs(values).max(initial=0.0) > MAX_KEY_VALUE:
        raise gltf.error(where, f"output values must be finite numbers within "
                         f"±{MAX_KEY_VALUE:g}")  # fmt: skip
    if cubic:
        values = values.reshape(k, 3, width)
    elif rotation and not np.all(np.linalg.norm(values, axis=1) > 1e-12):
        raise gltf.error(where, "a rotation key is the zero quaternion")
    return times, values, interpolation
