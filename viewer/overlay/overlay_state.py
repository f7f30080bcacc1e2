"""The overlay as its panels see it: what they read of it and the few things they ask of
it. `overlay.Overlay` is the one implementation; the panels are drawn by it, so they know
it through this protocol rather than by importing it back.
"""

from __future__ import annotations

from typing import Protocol

from moderngl_window.context.base import BaseWindow

from viewer.session.source import SceneOnShow

from .host import OverlayCamera, OverlayCanvas, ViewToggles
from .replay import Replay
from .stats import Timings
from .timeline_records import Entry, FrameRecords


class OverlayState(Protocol):
    """The overlay one panel belongs to (see `overlay.Overlay` for each member)."""

    host: SceneOnShow
    wnd: BaseWindow
    canvas: OverlayCanvas
    camera: OverlayCamera
    settings: ViewToggles
    deterministic: bool
    timeline: FrameRecords
    timings: Timings
    replay: Replay
    #: Frame picked on the timeline (None: the latest frame, live).
    pinned: int | None
    show_names: bool
    glow_in_view: bool
    glow_style: str

    @property
    def shown_entry(self) -> Entry | None: ...

    def pin(self, frame: int | None) -> None: ...
    def replay_shown(self) -> bool: ...
    def jump_to_event(self, direction: int) -> int | None: ...
    def reset_totals(self) -> None: ...
    def note_window(self) -> None: ...
