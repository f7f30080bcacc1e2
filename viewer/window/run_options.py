"""`RunOptions`: what one run of the viewer asks for besides the scene.

Plain data with no GL, so the command line and the embedding API can build and check it
before any window exists; `viewer.window.runner.run` and `viewer.window.app.SgviewApp` read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from viewer.keys.script import KeyScript
from viewer.session.source import FrameCallback

__all__ = ["RunOptions"]


@dataclass
class RunOptions:
    """What a run should do besides showing the scene (see viewer.cli.main for the flags)."""

    size: tuple[int, int] = (1280, 720)
    frames: int | None = None  # stop after this many redraws (None: until the window closes)
    still: bool = False
    log: bool = False
    touches: dict[int, list[str]] = field(default_factory=dict)  # frame -> node names
    screenshot: Path | None = None
    record: Path | None = None
    dump_world: Path | None = None
    samples: int = 4
    out: TextIO | None = None  # None: sys.stdout at the time of printing
    overlay: bool = True  # the debug overlay: glow, names, panels (--no-overlay: off)
    panels: bool = True  # the overlay's panels (--no-panels: glow and names only; Tab)
    select: str | None = None  # node selected at the start
    glow: str = "fill"  # how the overlay shows the frames' work: "fill", "rim" or "heat"
    #: load_scene caps, reused by live reload and opened files
    load_limits: dict[str, int] = field(default_factory=dict)
    script: KeyScript = field(default_factory=KeyScript)  # --keys, --click (viewer.keys.script)
    trace: Path | None = None  # --trace: Chrome Trace Event JSON (viewer.trace)
    on_frame: list[FrameCallback] = field(default_factory=list)  # Session.frame_callbacks
    keep_image: bool = False  # keep the last picture drawn in `app.last_image`
    layout: bool = True  # Session(layout=...): False makes pending changes frame 1's
    tone_mapping: str = "neutral"  # glTF light to screen: "neutral", "aces" or "none"
    exposure: float = 1.0  # factor on glTF materials' light before tone mapping
    environment: str = "room"  # the image-based light around glTF models, or "none"
    view: int | None = None  # --camera: look through Scene.cameras[view] (None: orbit)
    edit_layer: Path | None = None  # --edit-layer: where Ctrl+S writes a stage's edits
