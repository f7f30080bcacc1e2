"""Animation clips: what a glTF ``animations`` entry becomes once its nodes have ids."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .sampler import sample, sample_rows

__all__ = ["Channel", "Clip"]

#: The node fields a channel can drive, and the width of their values. A channel may
#: also drive a node's morph ``"weights"`` (one value per morph target of its mesh) or its
#: GPU ``"instances"`` (every instance matrix of the node, flat: `Geometry.set_instances`).
PATHS = {"translation": 3, "rotation": 4, "scale": 3}


@dataclass(frozen=True)
class Channel:
    """One animated field of one node.

    `node` is a row of the glTF model while it is being read, a node id once added to a
    graph (`Clip.on_ids`). `values` as `sample` takes them.
    """

    node: int
    path: str  # "translation", "rotation", "scale", "weights" or "instances"
    interpolation: str  # "STEP", "LINEAR" or "CUBICSPLINE"
    times: np.ndarray
    values: np.ndarray

    def at(self, t: float) -> np.ndarray:
        return sample(
            self.times, self.values, self.interpolation, t, rotation=self.path == "rotation"
        )


@dataclass(frozen=True)
class _Group:
    """Channels sampled together: one path and interpolation, the same number of keys and
    value shape. `order`: each channel's place in its clip (a later channel wins)."""

    path: str
    interpolation: str
    order: np.ndarray  # (n,) int64
    nodes: np.ndarray  # (n,) int64
    times: np.ndarray  # (k,) when every channel has the same key times, else (n, k)
    values: np.ndarray  # (n, k, ...) as `sample_rows` takes them

    def at(self, t: float) -> np.ndarray:
        return sample_rows(
            self.times, self.values, self.interpolation, t, rotation=self.path == "rotation"
        )


def _groups(channels: tuple[Channel, ...]) -> tuple[_Group, ...]:
    keyed: dict[tuple, list[int]] = {}
    for i, c in enumerate(channels):
        key = (c.path, c.interpolation, c.times.shape, c.values.shape, c.values.dtype.str)
        keyed.setdefault(key, []).append(i)
    groups = []
    for (path, interpolation, *_), members in keyed.items():
        times = np.stack([channels[i].times for i in members]).astype(np.float64, copy=False)
        if np.all(times == times[:1]):
            times = times[0].copy()  # shared keys (the usual case): one search per frame
        groups.append(
            _Group(
                path,
                interpolation,
                np.asarray(members, dtype=np.int64),
                np.fromiter((channels[i].node for i in members), np.int64, len(members)),
                times,
                np.stack([channels[i].values for i in members]),
            )
        )
    return tuple(groups)


@dataclass(frozen=True)
class Clip:
    """A named set of channels played together; it lasts until its latest key.

    Sampling is by groups of like channels (`_Group`), built on first use: a clip of many
    channels costs a few array operations per group and frame."""

    name: str
    channels: tuple[Channel, ...] = field(default_factory=tuple)

    @property
    def duration(self) -> float:
        return max((float(c.times[-1]) for c in self.channels), default=0.0)

    @cached_property
    def _groups(self) -> tuple[_Group, ...]:
        return _groups(self.channels)

    def on_ids(self, ids: np.ndarray) -> Clip:
        """The clip with model rows replaced by the graph ids `ids[row]`."""
        moved = tuple(
            Channel(int(ids[c.node]), c.path, c.interpolation, c.times, c.values)
            for c in self.channels
        )
        return Clip(self.name, moved)

    @cached_property
    def _plans(self) -> dict[str, tuple[tuple[_Group, ...], np.ndarray, np.ndarray | None]]:
        """For each path: its groups, the node ids it gives (a node once, in the order of
        its first channel), and which of the groups' concatenated rows give their values
        (the node's last channel; None: all rows, in order). Static: only values change."""
        plans = {}
        for path in dict.fromkeys(g.path for g in self._groups):
            groups = tuple(g for g in self._groups if g.path == path)
            order = np.concatenate([g.order for g in groups])
            nodes = np.concatenate([g.nodes for g in groups])
            by_order = np.argsort(order, kind="stable")
            ordered = nodes[by_order]
            _, first = np.unique(ordered, return_index=True)
            _, last_rev = np.unique(ordered[::-1], return_index=True)
            last = len(ordered) - 1 - last_rev  # both sorted by node id: they pair up
            keep = np.argsort(first, kind="stable")
            take = by_order[last[keep]]
            identity = len(take) == len(nodes) and bool(np.all(take == np.arange(len(take))))
            plans[path] = (groups, ordered[first[keep]], None if identity else take)
        return plans

    def sampled(self, path: str, t: float) -> tuple[np.ndarray, np.ndarray]:
        """(node ids, values) of the channels driving `path` at clip time `t`, a node once:
        when two channels drive the same field of a node, the later one wins. Nodes in
        the order their first channel comes; values (n, width), or (n,) of arrays when
        the widths differ (weights and instances of different nodes)."""
        if path not in self._plans:
            return np.zeros(0, np.int64), np.zeros((0, PATHS.get(path, 0)))
        groups, nodes, take = self._plans[path]
        parts = [g.at(t) for g in groups]
        if len(parts) == 1:
            values = parts[0]
        elif len({p.shape[1:] for p in parts}) == 1:
            values = np.concatenate(parts)
        else:
            values = np.empty(sum(len(p) for p in parts), dtype=object)
            values[:] = [row for part in parts for row in part]
        return nodes, values if take is None else values[take]

    def pose(self, t: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The animated transforms at clip time `t`: {path: (node ids, values)}; when two
        channels drive the same field of a node, the later one wins (weights: `weights`)."""
        paths = {g.path for g in self._groups if g.path in PATHS}
        return {path: self.sampled(path, t) for path in sorted(paths, key=list(PATHS).index)}

    def weights(self, t: float) -> dict[int, np.ndarray]:
        """The morph weights at clip time `t`: {node id: weights}; the later channel wins."""
        nodes, values = self.sampled("weights", t)
        return dict(zip(nodes.tolist(), values, strict=True))

    def instances(self, t: float) -> dict[int, np.ndarray]:
        """The GPU instance matrices at clip time `t`: {node id: matrices, flat}."""
        nodes, values = self.sampled("instances", t)
        return dict(zip(nodes.tolist(), values, strict=True))
