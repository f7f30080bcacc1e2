"""The debug overlay: which nodes a frame recomputed, and why, on screen.

Pure parts (no GL, no ImGui; unit-tested alone): `highlight` (per-node glow that fades),
`stats` (counters per frame), `history` (the last few hundred frames), `model` (what the
panel shows), `labels` (where node names go). The ImGui side: `panel` (the two panels)
and `overlay` (`Overlay`, what the app talks to). Import those two explicitly; importing
this package loads no GL or ImGui module.
"""

from .highlight import DEFAULT_FADE, Highlight, Mirror
from .history import Entry, History, log_block
from .stats import FrameStats, Timings

__all__ = [
    "DEFAULT_FADE",
    "Entry",
    "FrameStats",
    "Highlight",
    "History",
    "Mirror",
    "Timings",
    "log_block",
]
