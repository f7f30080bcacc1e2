"""The debug overlay: which nodes a frame recomputed, and why, on screen.

The glow itself is the renderer's (`viewer.render.glow`). Pure parts (no GL, no ImGui;
unit-tested alone): `stats` (counters per frame), `timeline_records` (the frames kept for
the timeline), `model` (what the panel shows), `labels` (where node names go). The ImGui
side: `panel` (the two panels) and `overlay` (`Overlay`, what the app talks to). Import
those two explicitly; importing this package loads no GL or ImGui module.
"""

from .log_lines import log_block
from .stats import FrameStats, Timings
from .timeline_records import Entry, FrameRecords

__all__ = [
    "Entry",
    "FrameRecords",
    "FrameStats",
    "Timings",
    "log_block",
]
