"""A slow-motion replay of one frame: its recomputed nodes light one by one, in the order
``update()`` ran them, with each node's log lines highlighted as it lights.

``update()`` walks the dirty subtrees in pre-order (the report's ``starts`` / ``ends``
slot ranges, docs/semantics.md section 3), and the report lists ``world_updated`` in that
order, so the replay lights ``world_updated[0]``, then ``[1]``, ... at `speed` nodes per
second of the overlay's clock (a window's real time; headless, 1/60 s a drawn frame, so
a recording shows the same steps). The renderer shows the part lit so far as a still
glow (`OverlayCanvas.show_still`), the tree's flags and the log follow it. Pure Python
and numpy: the overlay (`Overlay.replay_shown`, `Overlay.tick`) drives and draws it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from viewer.scene.report import FrameReport

#: Nodes lit per second unless the user picks another speed (the Frames panel's slider).
DEFAULT_SPEED = 4.0
SPEED_RANGE = (0.5, 60.0)  # up to one node a frame at 60 frames a second
#: Seconds the whole frame stays lit after the last node, before the view goes back.
HOLD_SECONDS = 1.5


@dataclass
class PartialReport:
    """The part of a frame's report lit so far, as the glow and the flags read a report."""

    world_updated: NDArray[np.int64]
    local_updated: NDArray[np.int64]
    executed: NDArray[np.int64]


class Replay:
    """One frame's replay at a time; `active` while it runs (see the module notes)."""

    def __init__(self) -> None:
        self.speed = DEFAULT_SPEED
        self.frame: int | None = None
        self.order: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._report: FrameReport | None = None
        self.lit = 0
        self._clock = 0.0
        #: The frame picked before the replay (None: live), shown again when it ends.
        self.back: int | None = None

    @property
    def active(self) -> bool:
        return self.frame is not None

    def start(self, frame: int, report: FrameReport | None) -> bool:
        """Replay `frame` (its `report`); False when it recomputed nothing."""
        order = np.asarray(report.world_updated, dtype=np.int64) if report is not None else None
        if order is None or order.size == 0:
            return False
        self.frame, self._report, self.order = frame, report, order
        self.lit, self._clock = 1, 0.0
        return True

    def stop(self) -> None:
        self.frame, self._report = None, None
        self.order = np.zeros(0, dtype=np.int64)
        self.lit = 0

    def advance(self, seconds: float) -> bool:
        """Let `seconds` pass; True when another node lit (or the replay ended)."""
        if not self.active:
            return False
        self._clock += max(float(seconds), 0.0)
        steps = 1 + int(self._clock * self.speed + 1e-9)
        if steps > self.order.size + HOLD_SECONDS * self.speed:
            self.stop()
            return True
        lit = min(steps, int(self.order.size))
        changed, self.lit = lit != self.lit, lit
        return changed

    @property
    def current(self) -> int | None:
        """The node lit last (the one the log highlights)."""
        return int(self.order[self.lit - 1]) if self.active and self.lit else None

    def partial(self) -> PartialReport:
        """What is lit so far, as a report: the first `lit` nodes and their flags."""
        world = self.order[: self.lit]
        report = self._report
        if report is None:  # not replaying: nothing lit
            return PartialReport(world, world, world)
        local = np.asarray(report.local_updated, dtype=np.int64)
        executed = np.asarray(report.executed, dtype=np.int64)
        return PartialReport(
            world, local[np.isin(local, world)], executed[np.isin(executed, world)]
        )


def line_of_node(block: list[str], index: int) -> tuple[int, int] | None:
    """The lines [first, stop) of a frame's log block (``# frame`` line first) that
    belong to its `index`-th recomputed node: its ``*Update Local*`` line if any and its
    ``=Update World=`` line; None when the block does not list it (a cut-off block)."""
    seen = -1
    for k, text in enumerate(block):
        if text.startswith("="):
            seen += 1
            if seen == index:
                first = k - 1 if k > 0 and block[k - 1].startswith("*") else k
                return first, k + 1
    return None
