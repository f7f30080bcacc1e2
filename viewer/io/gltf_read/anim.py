"""glTF animations: each ``animations`` entry becomes a `Clip` of the imported nodes.

Checked like the rest of the file (untrusted input): a sampler's key times are finite,
non-negative and strictly increasing; its output has one value per key (three for
``CUBICSPLINE``, which needs two keys or more) of the target's width; values are finite
and of sane size; rotation keys are non-zero quaternions. Rotations may be stored as
normalized integers (the glTF rule for decoding them applies). Channels without a target
node, or aimed at nodes outside the imported scene, are left out. ``weights`` channels
drive the morph weights of nodes whose mesh has morph targets. KHR_animation_pointer
channels whose pointer is a node's translation, rotation, scale or weights play like the
core ones; other pointers are skipped, with one note per kind of skip.
"""

from __future__ import annotations

import re

import numpy as np

from viewer.animation.clip import PATHS, Channel, Clip
from viewer.animation.sampler import INTERPOLATIONS
from viewer.io.errors import describe
from viewer.io.gltf_read.data import DataUnavailable, GltfFile, is_int, whole
from viewer.io.limits import channels_reason

__all__ = ["MAX_KEY_TIME", "MAX_KEY_VALUE", "read_animations"]

#: Key times beyond this many seconds (about 11.6 days) are refused.
MAX_KEY_TIME = 1e6
#: Key values (and tangents) larger than this in magnitude are refused: the spline terms
#: stay far from float overflow.
MAX_KEY_VALUE = 1e9
_TYPES = {3: ("VEC3",), 4: ("VEC4",)}
_NODE_POINTER = re.compile(r"^/nodes/(\d{1,9})/(translation|rotation|scale|weights)$")


def read_animations(
    gltf: GltfFile, rows: np.ndarray, morph_counts: dict[int, int] | None = None
) -> tuple[list[Clip], list[str]]:
    """The file's clips (channels on model rows, see `GltfModel.rows`) and notes.

    `morph_counts`: for each glTF node index whose mesh has morph targets, how many; a
    ``weights`` channel on another node moves nothing and is left out."""
    morph_counts = {} if morph_counts is None else morph_counts
    clips: list[Clip] = []
    notes: list[str] = []
    declared = sum(
        len(a["channels"])
        for a in gltf.array("animations")
        if isinstance(a, dict) and isinstance(a.get("channels"), list)
    )
    reason = channels_reason(declared)
    if reason is not None:  # before a channel is built
        raise gltf.error("animations", reason)
    skipped: dict[str, int] = {}  # why -> how many channels
    for a, anim in enumerate(gltf.array("animations")):
        where = f"animation {a}"
        anim = gltf.obj(anim, where)
        name = anim.get("name")
        name = name if isinstance(name, str) and name else f"animation{a}"
        samplers = _array(gltf, anim, "samplers", where)
        channels: list[Channel] = []
        for c, ch in enumerate(_array(gltf, anim, "channels", where)):
            here = f"{where} channel {c}"
            ch = gltf.obj(ch, here)
            target = gltf.obj(ch.get("target"), f"{here} target")
            node, path = _target(gltf, target, here, skipped)
            if path is None:
                continue
            s = whole(ch.get("sampler"))
            if not is_int(s) or not 0 <= s < len(samplers):
                raise gltf.error(
                    here,
                    f"expected an index into the samplers of {where} "
                    f"(0..{len(samplers) - 1}), got {describe(s)}",
                )
            if node is None:
                continue  # glTF: a channel without a node is ignored
            node = gltf.index_into(node, "nodes", f"{here} target")
            if rows[node] < 0:
                continue  # a node outside the imported scene
            if path == "weights":
                width = morph_counts.get(node, 0)
                if not width:
                    skipped["weights channels on nodes without morph targets"] = (
                        skipped.get("weights channels on nodes without morph targets", 0) + 1
                    )
                    continue
            else:
                width = PATHS[path]
            try:
                times, values, interpolation = _sampler(
                    gltf, samplers[s], f"{where} sampler {s}", width, path
                )
            except DataUnavailable as exc:
                skipped[f"channels whose data is missing ({exc.reason})"] = (
                    skipped.get(f"channels whose data is missing ({exc.reason})", 0) + 1
                )
                continue
            channels.append(Channel(int(rows[node]), path, interpolation, times, values))
        clips.append(Clip(name, tuple(channels)))
    for why, count in skipped.items():
        notes.append(f"{gltf.display}: {count} animation channel(s) skipped: {why}")
    return clips, notes


def _target(gltf: GltfFile, target: dict, here: str, skipped: dict[str, int]):
    """(node or None, path) a channel drives; path None: skipped (counted in `skipped`).

    KHR_animation_pointer's ``/nodes/N/translation|rotation|scale|weights`` play like the
    core paths; any other pointer (materials, cameras, lights...) is skipped."""
    path = target.get("path")
    if path == "pointer":
        ext = gltf.obj(target.get("extensions"), f"{here} target extensions")
        pointer = gltf.obj(ext.get("KHR_animation_pointer"), f"{here} KHR_animation_pointer")
        text = pointer.get("pointer")
        match = _NODE_POINTER.match(text) if isinstance(text, str) else None
        if match is None:
            why = "KHR_animation_pointer targets other than node transforms and weights"
            skipped[why] = skipped.get(why, 0) + 1
            return None, None
        return int(match.group(1)), match.group(2)
    if path not in (*PATHS, "weights"):
        raise gltf.error(
            here,
            f"expected target path translation, rotation, scale, weights "
            f"or pointer, got {describe(path)}",
        )
    return target.get("node"), path


def _array(gltf: GltfFile, obj: dict, key: str, where: str) -> list:
    value = obj.get(key)
    if not isinstance(value, list):
        raise gltf.error(where, f"{key} must be an array, got {describe(value)}")
    return value


def _sampler(gltf: GltfFile, sampler: object, where: str, width: int, path: str):
    """(times (k,), values (k, width) or (k, 3, width), interpolation), checked.

    Key times must increase strictly (glTF 3.11: ``input`` values are "strictly
    increasing"; a repeated time is refused, naming the key). Weights keys hold `width`
    values each, stored one after the other in a SCALAR accessor."""
    rotation = path == "rotation"
    sampler = gltf.obj(sampler, where)
    interpolation = sampler.get("interpolation", "LINEAR")
    if interpolation not in INTERPOLATIONS:
        raise gltf.error(
            where,
            f"expected interpolation STEP, LINEAR or CUBICSPLINE, got {describe(interpolation)}",
        )
    times = gltf.accessor(sampler.get("input"), f"{where} input", ("SCALAR",), (5126,))
    times = times.reshape(-1).astype(np.float64)
    k = times.size
    cubic = interpolation == "CUBICSPLINE"
    if k < (2 if cubic else 1):
        raise gltf.error(
            where, f"{interpolation} needs {'two keys' if cubic else 'a key'} or more, got {k}"
        )
    if not np.all(np.isfinite(times)) or times[0] < 0 or times[-1] > MAX_KEY_TIME:
        raise gltf.error(where, f"key times must be finite seconds in 0..{MAX_KEY_TIME:g}")
    if k > 1 and not np.all(np.diff(times) > 0):
        bad = int(np.flatnonzero(~(np.diff(times) > 0))[0])
        after, now = float(times[bad]), float(times[bad + 1])
        rule = "must increase strictly" if now == after else "must not decrease"
        _i, acc = gltf.item(sampler.get("input"), "accessors", f"{where} input")
        if acc.get("bufferView") is None and acc.get("sparse") is None:  # no data: zeros
            raise DataUnavailable(
                "key times without data (zeros, which repeat)",
                file=gltf.display,
                section=f"{where} input",
            )
        raise gltf.error(
            f"{where} input", f"key times {rule}: key {bad + 1} is {now!r} after {after!r}"
        )
    types = ("SCALAR",) if path == "weights" else _TYPES[width]
    values = gltf.floats(sampler.get("output"), f"{where} output", types)
    if path == "weights":
        values = values.reshape(-1)
        if values.size % width:
            raise gltf.error(
                where,
                f"expected a multiple of {width} weights (one per morph target), got {values.size}",
            )
        values = values.reshape(-1, width)
    need = 3 * k if cubic else k
    if values.shape[0] != need:
        raise gltf.error(
            where,
            f"expected {need} output values for {k} keys ({interpolation}), got {values.shape[0]}",
        )
    if not np.all(np.isfinite(values)) or np.abs(values).max(initial=0.0) > MAX_KEY_VALUE:
        raise gltf.error(where, f"output values must be finite numbers within ±{MAX_KEY_VALUE:g}")
    if cubic:
        values = values.reshape(k, 3, width)
    elif rotation and not np.all(np.linalg.norm(values, axis=1) > 1e-12):
        raise gltf.error(where, "a rotation key is the zero quaternion")
    return times, values, interpolation
