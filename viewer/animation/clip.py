"""Animation clips: what a glTF ``animations`` entry becomes once its nodes have ids."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .sampler import sample

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
class Clip:
    """A named set of channels played together; it lasts until its latest key."""

    name: str
    channels: tuple[Channel, ...] = field(default_factory=tuple)

    @property
    def duration(self) -> float:
        return max((float(c.times[-1]) for c in self.channels), default=0.0)

    def on_ids(self, ids: np.ndarray) -> Clip:
        """The clip with model rows replaced by the graph ids `ids[row]`."""
        moved = tuple(
            Channel(int(ids[c.node]), c.path, c.interpolation, c.times, c.values)
            for c in self.channels
        )
        return Clip(self.name, moved)

    def pose(self, t: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The animated transforms at clip time `t`: {path: (node ids, values)}; when two
        channels drive the same field of a node, the later one wins (weights: `weights`)."""
        grouped: dict[str, dict[int, np.ndarray]] = {}
        for c in self.channels:
            if c.path in PATHS:
                grouped.setdefault(c.path, {})[c.node] = c.at(t)
        return {
            path: (
                np.fromiter(by_node, dtype=np.int64, count=len(by_node)),
                np.array(list(by_node.values()), dtype=np.float64),
            )
            for path, by_node in grouped.items()
        }

    def weights(self, t: float) -> dict[int, np.ndarray]:
        """The morph weights at clip time `t`: {node id: weights}; the later channel wins."""
        return {c.node: c.at(t) for c in self.channels if c.path == "weights"}

    def instances(self, t: float) -> dict[int, np.ndarray]:
        """The GPU instance matrices at clip time `t`: {node id: matrices, flat}."""
        return {c.node: c.at(t) for c in self.channels if c.path == "instances"}
