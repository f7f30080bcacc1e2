"""The heat view: how often each node was recomputed over the last frames (numpy only).

The glow shows what one frame did. When every node moves every frame (a solar system, a
robot arm) everything glows all the time and the glow says nothing new; the heat view
tells steady motion from one-off changes instead: a node's heat is the share of the last
`window` frames (of the frames so far, at the start) whose report recomputed its world
matrix (1: every frame, 0: none).
"""

from __future__ import annotations

from collections import deque

import numpy as np

#: Frames the heat is counted over: two seconds at 60 frames per second.
DEFAULT_WINDOW = 120


class Heat:
    """Recomputation counts per node id over the last `window` frame reports."""

    def __init__(self, window: int = DEFAULT_WINDOW):
        self.window = max(1, int(window))
        self.counts = np.zeros(0, dtype=np.int64)
        self._frames: deque[np.ndarray] = deque()

    def add(self, report) -> None:
        """Count one frame's recomputed nodes; the frame `window` frames back drops out."""
        ids = np.asarray(report.world_updated, dtype=np.int64)
        if len(ids) and ids.max() >= len(self.counts):
            grown = np.zeros(max(int(ids.max()) + 1, 2 * len(self.counts)), dtype=np.int64)
            grown[: len(self.counts)] = self.counts
            self.counts = grown
        np.add.at(self.counts, ids, 1)
        self._frames.append(ids)
        if len(self._frames) > self.window:
            np.subtract.at(self.counts, self._frames.popleft(), 1)

    def values(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, heat in (0, 1]) of the nodes recomputed at least once in the window."""
        ids = np.flatnonzero(self.counts)
        seen = max(len(self._frames), 1)  # before `window` frames: of the frames so far
        return ids, (self.counts[ids] / seen).astype(np.float32)

    def clear(self) -> None:
        self.counts = np.zeros(0, dtype=np.int64)
        self._frames.clear()
