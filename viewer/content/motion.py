"""Motions and scripted events: what moves a scene on its own, frame after frame.

A motion drives one channel of a node's local transform (its position, rotation or scale)
as a pure function of the time `t` in seconds, starting from the node's rest value (the
value the scene file gives). Nothing is accumulated frame to frame: applying the motions at
the same `t` twice gives bit-identical values, a paused viewer stays put, and a headless run
at a fixed step is reproducible.

The kinds, the channel each drives, the formula of its value at time t and its parameters
are the table ``KINDS`` of ``motion_kinds.py`` (spin, swing: rotation; orbit, oscillate:
position; pulse: scale).

Angles (speed in deg/s, swing amplitude, phase) are in degrees. A node can have at most one
motion per channel.

One `Motion` holds one kind for many nodes as arrays, so `apply_motions` costs one
vectorised computation and one `SceneGraph.set_locals` call per kind, however many nodes
move. No GL here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..scene.math import quat_from_axis_angle, quat_multiply, quat_rotate
from .motion_kinds import CHANNELS, KINDS, PARAM_NAMES, UNUSED

__all__ = [
    "CHANNELS",
    "MOTION_KINDS",
    "Motion",
    "apply_events",
    "apply_motions",
    "drop_motions",
    "merge_motions",
]

MOTION_KINDS = tuple(KINDS)

#: The largest motion time in seconds (about 31,700 years) either side of zero.
MAX_TIME = 1e12
_BASE_WIDTH = {"position": 3, "rotation": 4, "scale": 3}


# --------------------------------------------------------------------------- motions
@dataclass(eq=False)
class Motion:
    """One kind of motion applied to `k` nodes.

    Attributes
    ----------
    kind : str
        One of `MOTION_KINDS`.
    ids : ndarray, [k] int64
        Node ids.
    axis : ndarray, [k, 3]
        Unit axes (spin, swing: in the node's rest frame; orbit, oscillate: in the
        parent's frame). Unused by pulse.
    speed : ndarray, [k]
        Degrees per second (spin, orbit).
    amplitude : ndarray, [k]
        Degrees (swing), length (oscillate) or fraction of the rest scale (pulse).
    period : ndarray, [k]
        Seconds per cycle (swing, oscillate, pulse).
    phase : ndarray, [k]
        Degrees added to the angle (spin, orbit) or to the cycle (the others).
    rest : ndarray, [k, 3] or [k, 4]
        Rest value of the driven channel: position, rotation quaternion or scale.
    """

    kind: str
    ids: np.ndarray
    axis: np.ndarray
    speed: np.ndarray
    amplitude: np.ndarray
    period: np.ndarray
    phase: np.ndarray
    rest: np.ndarray

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown motion kind {self.kind!r}; expected one of {MOTION_KINDS}")
        spec = KINDS[self.kind]
        self.ids = np.asarray(self.ids, dtype=np.int64).reshape(-1)
        k = self.ids.shape[0]
        self.axis = _rows(self.axis, k, 3, "axis")
        for name in PARAM_NAMES[1:]:
            setattr(self, name, _column(getattr(self, name), k, name))
        for name in PARAM_NAMES:  # parameters the kind does not take get one canonical value
            if spec.param(name) is None:
                getattr(self, name)[:] = UNUSED[name]
        if spec.param("axis") is not None:
            self.axis = _unit_rows(self.axis)
            if np.any(~np.isfinite(self.axis)):
                raise ValueError(f"{self.kind}: every axis must be a non-zero vector")
        if spec.param("period") is not None and np.any(~(self.period > 0)):
            raise ValueError(f"{self.kind}: every period must be a positive number of seconds")
        self.rest = _rows(self.rest, k, _BASE_WIDTH[self.channel], "rest")

    @property
    def channel(self) -> str:
        """The local channel this motion drives: "position", "rotation" or "scale"."""
        return CHANNELS[self.kind]

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    @classmethod
    def make(
        cls,
        kind: str,
        ids: Sequence[int] | np.ndarray,
        rest: np.ndarray,
        **params: float | np.ndarray | Sequence[float],
    ) -> Motion:
        """Build a motion from keyword parameters (``axis``, ``speed``, ``amplitude``,
        ``period``, ``phase``), broadcasting scalars and a single axis to every node.
        A parameter left out takes the kind's default from ``KINDS``, or the canonical
        unused value."""
        if kind not in KINDS:
            raise ValueError(f"unknown motion kind {kind!r}; expected one of {MOTION_KINDS}")
        unknown = set(params) - set(PARAM_NAMES)
        if unknown:
            raise TypeError(f"Motion.make: unknown parameters {sorted(unknown)}")
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        k = ids.shape[0]
        # The caller's numbers, as given: ``__post_init__`` makes them columns and
        # words any error, so their type is whatever the caller passed.
        values: dict[str, Any] = {}
        for name in PARAM_NAMES:
            spec = KINDS[kind].param(name)
            default = spec.default if spec is not None and not spec.required else UNUSED[name]
            values[name] = params.get(name, default)
        axis = np.broadcast_to(np.asarray(values.pop("axis"), dtype=np.float64), (k, 3)).copy()
        return cls(kind, ids, axis, rest=rest, **values)

    def values(self, t: float) -> np.ndarray:
        """The driven channel's values at time `t` seconds, [k, 3] or [k, 4].

        `t` must lie within ±`MAX_TIME`: with the file ranges (docs/scene-format.md) every
        value is then finite, where ``speed·t`` at t = 1e307 would not be.
        """
        t = float(t)
        if not abs(t) <= MAX_TIME:
            raise ValueError(f"motion time {t!r} s is outside ±{MAX_TIME:g} s")
        kind = self.kind
        if kind in ("spin", "orbit"):
            angle = self.speed * t + self.phase
        else:
            cycle = np.sin(2.0 * np.pi * t / self.period + np.radians(self.phase))
        if kind == "spin":
            return quat_multiply(self.rest, quat_from_axis_angle(self.axis, angle))
        if kind == "swing":
            turn = quat_from_axis_angle(self.axis, self.amplitude * cycle)
            return quat_multiply(self.rest, turn)
        if kind == "orbit":
            return quat_rotate(quat_from_axis_angle(self.axis, angle), self.rest)
        if kind == "oscillate":
            return self.rest + self.axis * (self.amplitude * cycle)[:, None]
        return self.rest * (1.0 + self.amplitude * cycle)[:, None]  # pulse

    def subset(self, keep: np.ndarray) -> Motion:
        """The same motion restricted to the rows where boolean `keep` is true."""
        return Motion(
            self.kind,
            self.ids[keep],
            self.axis[keep],
            self.speed[keep],
            self.amplitude[keep],
            self.period[keep],
            self.phase[keep],
            self.rest[keep],
        )


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1; a row of length 0 becomes NaN. A row whose squares
    overflow (entries past ~1e154) is measured divided by its largest entry, so that any
    finite axis a file holds gives a unit axis and no numpy warning."""
    with np.errstate(over="ignore"):
        norms = np.linalg.norm(rows, axis=1)
    huge = ~np.isfinite(norms)
    if huge.any():
        peak = np.abs(rows[huge]).max(axis=1)
        norms[huge] = peak * np.linalg.norm(rows[huge] / peak[:, None], axis=1)
    unit = np.full(rows.shape, np.nan)
    ok = norms > 0
    unit[ok] = rows[ok] / norms[ok, None]
    return unit


def _rows(value, k: int, width: int, name: str) -> np.ndarray:
    arr = np.array(value, dtype=np.float64)
    if arr.shape == (width,):
        arr = np.broadcast_to(arr, (k, width)).copy()
    if arr.shape != (k, width):
        raise ValueError(f"motion {name}: expected shape ({k}, {width}), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"motion {name}: values must be finite")
    return arr


def _column(value, k: int, name: str) -> np.ndarray:
    arr = np.array(value, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(k, float(arr))
    if arr.shape != (k,):
        raise ValueError(f"motion {name}: expected shape ({k},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"motion {name}: values must be finite")
    return arr


def merge_motions(motions: Iterable[Motion]) -> list[Motion]:
    """Concatenate motions of the same kind, so each kind costs one batch per frame.

    Raises ValueError when a node would get two motions driving the same channel.
    """
    by_kind: dict[str, list[Motion]] = {}
    for m in motions:
        if len(m):
            by_kind.setdefault(m.kind, []).append(m)
    merged = []
    for kind in MOTION_KINDS:
        parts = by_kind.get(kind)
        if not parts:
            continue
        if len(parts) == 1:
            merged.append(parts[0])
            continue
        merged.append(
            Motion(
                kind,
                np.concatenate([p.ids for p in parts]),
                np.concatenate([p.axis for p in parts]),
                np.concatenate([p.speed for p in parts]),
                np.concatenate([p.amplitude for p in parts]),
                np.concatenate([p.period for p in parts]),
                np.concatenate([p.phase for p in parts]),
                np.concatenate([p.rest for p in parts]),
            )
        )
    for channel in ("position", "rotation", "scale"):
        ids = [m.ids for m in merged if m.channel == channel]
        if ids:
            all_ids = np.concatenate(ids)
            if np.unique(all_ids).shape[0] != all_ids.shape[0]:
                raise ValueError(f"a node has two motions driving its {channel}")
    return merged


def drop_motions(scene, ids: Sequence[int] | np.ndarray) -> None:
    """Remove every motion of the given node ids (call it before removing those nodes)."""
    ids = np.asarray(ids, dtype=np.int64).reshape(-1)
    kept = []
    for m in scene.motions:
        keep = ~np.isin(m.ids, ids)
        if keep.all():
            kept.append(m)
        elif keep.any():
            kept.append(m.subset(keep))
    scene.motions = kept


_SETTER_KEYWORD = {"position": "positions", "rotation": "rotations", "scale": "scales"}


def apply_motions(scene, t: float) -> None:
    """Set the local values of every moving node for time `t` seconds.

    One `SceneGraph.set_locals` call per motion kind; values depend on `t` only. A node
    the user deleted is skipped (an undo brings it back, and it moves again).
    """
    graph = scene.graph
    for m in scene.motions:
        if len(m):
            values = {_SETTER_KEYWORD[m.channel]: m.values(t)}
            graph.set_locals(m.ids, skip_removed=True, **values)


def apply_events(scene, frame: int) -> list:
    """Apply the scripted events of `frame` (1-based), in file order; return those applied.

    An event naming a node that no longer exists is skipped.
    """
    applied = []
    graph = scene.graph
    for event in scene.events:
        if event.frame != frame:
            continue
        try:
            node = graph[event.node]
        except KeyError:
            continue
        if event.touch:
            graph.touch(node)
        if event.position is not None:
            node.local_position = event.position
        if event.euler is not None:
            node.local_euler = event.euler
        if event.quaternion is not None:
            node.local_rotation = event.quaternion
        if event.scale is not None:
            node.local_scale = event.scale
        applied.append(event)
    return applied
