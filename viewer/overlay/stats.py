"""Counters for one frame, and the running averages the panel shows: pure Python.

`FrameStats` is what the panel's counters show for a frame: how many nodes the frame
recomputed, the matrix products it did against what the naive method (every world
matrix from scratch, every frame) would have done, the values set to what they already
were, the bytes it uploaded (every byte the frame wrote to the GPU: matrices, glow
stamps, line ends, skin joints, colours) and how long update, upload and draw took.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from viewer.scene.report import FrameReport

_NO_IDS = np.zeros(0, dtype=np.int64)


def stale_ids(report: object) -> NDArray[np.int64]:
    """The nodes a connected program's report names stale: their world, as the program
    holds it, differs from parent x local (``stale`` of `viewer.attach.mirror`'s
    ``ProgramReport``); none for any other report."""
    stale = getattr(report, "stale", None)
    return stale if isinstance(stale, np.ndarray) else _NO_IDS


def held_reasons(report: object) -> dict[int, str]:
    """The nodes a connected program's report names held, with each one's reason as the
    program sent it (untrusted text): their world differs from parent x local because the
    engine keeps it so (``held`` and ``held_why`` of ``ProgramReport``); none otherwise."""
    held, why = getattr(report, "held", None), getattr(report, "held_why", None)
    if not isinstance(held, np.ndarray) or not isinstance(why, tuple):
        return {}
    return dict(zip(held.tolist(), why, strict=True))


@dataclass
class FrameStats:
    """Counters of one frame (`frame` counts drawn frames from 1, as ``--log`` does)."""

    frame: int
    nodes: int = 0
    local: int = 0
    world: int = 0
    executed: int = 0
    products: int = 0
    naive_products: int = 0
    suppressed: int = 0
    bytes_uploaded: int = 0  # everything the frame wrote to the GPU, glow included
    stale: int = 0  # a connected program's nodes whose world differs from parent x local
    held: int = 0  # those the program says its engine holds so on purpose (not stale)
    update_ms: float = 0.0
    upload_ms: float = 0.0
    draw_ms: float = 0.0

    @classmethod
    def of_report(
        cls,
        frame: int,
        report: FrameReport,
        *,
        bytes_uploaded: int = 0,
        update_ms: float = 0.0,
        upload_ms: float = 0.0,
    ) -> FrameStats:
        """Counters of `report`, with the frame's bytes and times."""
        return cls(
            frame=frame,
            nodes=int(report.node_count),
            local=int(report.local_updated.size),
            world=int(report.world_updated.size),
            executed=int(report.executed.size),
            products=int(report.products),
            naive_products=int(report.naive_products),
            suppressed=int(report.suppressed),
            bytes_uploaded=bytes_uploaded,
            stale=int(stale_ids(report).size),
            held=len(held_reasons(report)),
            update_ms=update_ms,
            upload_ms=upload_ms,
        )

    @property
    def saved_products(self) -> int:
        """Products the cached method did not need, against the naive one."""
        return self.naive_products - self.products

    @property
    def saving(self) -> float:
        """Fraction of the naive products saved, in [0, 1] (0 when the naive did none)."""
        if self.naive_products <= 0:
            return 0.0
        return max(0.0, self.saved_products / self.naive_products)


#: What each counter means (the panel's tooltips), by the label `counter_rows`,
#: `totals_rows` and `Timings.rows` give it.
COUNTER_TIPS = {
    "nodes": "live nodes in the graph at the end of the frame",
    "local (L)": "nodes whose local matrix was recomputed: their own position, rotation\n"
    "or scale was set (or they were touched)",
    "world (W)": "nodes whose world matrix was recomputed: parent world x local, for a\n"
    "changed node and every node below it",
    "to renderer (E)": "nodes whose new world matrix was handed to the renderer (uploaded\n"
    "to the GPU); the rest kept what the GPU already had",
    "products done": "4x4 matrix products done (one per recomputed node with a parent,\n"
    "also those a read in the middle of the frame did)",
    "naive products": "the products the naive method does: every world matrix from\n"
    "scratch, every frame (the sum of the nodes' depths)",
    "saved": "naive products minus products done, and its share of the naive",
    "suppressed": "values set to what they already were: they marked nothing dirty",
    "bytes uploaded": "every byte the frame wrote to the GPU: matrices, glow stamps, line\n"
    "ends, skin joints, colours",
    "stale": "a connected program's nodes whose world matrix, as the program holds it\n"
    "(and sgview draws it), differs from parent world x local: left behind",
    "held": "a connected program's nodes whose world matrix differs from parent world\n"
    "x local because the engine keeps it so, as the program said (a frozen matrix,\n"
    "a billboard, a constraint): shown with the reason, not as stale",
    "update (ms)": "time of the recomputation (the graph's update)",
    "upload (ms)": "time to write the frame's changes to the GPU",
    "draw (ms)": "time to draw the scene and the panels",
    "frames per second": "drawn frames per second, averaged over the last 30",
}


def counter_rows(stats: FrameStats) -> list[tuple[str, str]]:
    """The panel's counter table for one frame: (label, value) pairs."""
    return [
        ("nodes", f"{stats.nodes:,}"),
        ("local (L)", f"{stats.local:,}"),
        ("world (W)", f"{stats.world:,}"),
        ("to renderer (E)", f"{stats.executed:,}"),
        ("products done", f"{stats.products:,}"),
        ("naive products", f"{stats.naive_products:,}"),
        ("saved", f"{stats.saved_products:,} ({100.0 * stats.saving:.1f} %)"),
        ("suppressed", f"{stats.suppressed:,}"),
        ("bytes uploaded", f"{stats.bytes_uploaded:,}"),
        *([("stale", f"{stats.stale:,}")] if stats.stale else []),
        *([("held", f"{stats.held:,}")] if stats.held else []),
    ]


class RunningTotals(Protocol):
    """Sums over the frames counted (`viewer.overlay.timeline_records.Totals`)."""

    @property
    def products(self) -> int: ...
    @property
    def naive_products(self) -> int: ...
    @property
    def saved(self) -> int: ...
    @property
    def saving(self) -> float: ...


def totals_rows(totals: RunningTotals) -> list[tuple[str, str]]:
    """The panel's running totals (`viewer.overlay.timeline_records.Totals`): (label, value)."""
    return [
        ("products done", f"{totals.products:,}"),
        ("naive products", f"{totals.naive_products:,}"),
        ("saved", f"{totals.saved:,} ({100.0 * totals.saving:.1f} %)"),
    ]


def totals_definition(naive_per_frame: int) -> str:
    """The line under the running totals that says what they count, for a scene whose
    frames cost the naive method `naive_per_frame` products (docs/dirty-propagation.md)."""
    return (
        "naive: every world matrix from scratch, every frame: one product per ancestor of"
        f" each node, {naive_per_frame:,} a frame in this scene; done: the cached method,"
        " one product per recomputed node that has a parent"
    )


class Timings:
    """Averages of update, upload and draw times and the frame rate over recent frames.

    Parameters
    ----------
    window : int
        Number of frames averaged.
    """

    def __init__(self, window: int = 30) -> None:
        self.update_ms: deque[float] = deque(maxlen=window)
        self.upload_ms: deque[float] = deque(maxlen=window)
        self.draw_ms: deque[float] = deque(maxlen=window)
        self.frame_s: deque[float] = deque(maxlen=window)

    def add_step(self, update_ms: float, upload_ms: float) -> None:
        self.update_ms.append(update_ms)
        self.upload_ms.append(upload_ms)

    def add_draw(self, draw_ms: float) -> None:
        self.draw_ms.append(draw_ms)

    def add_frame_time(self, seconds: float) -> None:
        """Wall-clock time between two drawn frames."""
        if seconds > 0:
            self.frame_s.append(seconds)

    @staticmethod
    def _mean(values: deque[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    @property
    def fps(self) -> float:
        mean = self._mean(self.frame_s)
        return 1.0 / mean if mean > 0 else 0.0

    def row(self) -> str:
        """One line: mean update / upload / draw times in ms."""
        return (
            f"update {self._mean(self.update_ms):.2f}  upload {self._mean(self.upload_ms):.2f}"
            f"  draw {self._mean(self.draw_ms):.2f} ms"
        )

    def rows(self) -> list[tuple[str, str]]:
        """Mean update / upload / draw times, one (label, "N.NN ms") row each."""
        named = (("update", self.update_ms), ("upload", self.upload_ms), ("draw", self.draw_ms))
        return [(f"{name} (ms)", f"{self._mean(values):,.2f}") for name, values in named]

    def clear(self) -> None:
        for d in (self.update_ms, self.upload_ms, self.draw_ms, self.frame_s):
            d.clear()
