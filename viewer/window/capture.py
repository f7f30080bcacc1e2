"""Pictures and data out of a run: `--screenshot`, `--record`, the P key, `--dump-world`.

The frame loop draws; this module decides what of the drawn picture is kept. It reads the
window's framebuffer (resolved out of multisampling) only when something will be written,
so a headless run that saves one screenshot reads one frame. GL objects (the context and
framebuffers) come from the caller; only `viewer.render` imports moderngl.

A GIF keeps every second frame (`viewer.render.offscreen`), but a frame in which
something was touched or edited is the one a slide needs (its flags, its counters, the
glow at full strength): such a frame that the GIF would skip takes the place of the next
frame it keeps, so the GIF's timing stays as it was and the event is in it. Every file
the run was asked to write is named on stderr once written (a P key's screenshot on the
output stream, as it comes).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from viewer.render.context import GLContext, GLFramebuffer, read_rgb
from viewer.render.offscreen import GIF_FPS, Recorder, save_png
from viewer.scene.graph import SceneGraph
from viewer.text import printable

__all__ = ["Capture", "dump_world"]


class Capture:
    """What one run writes from its frames (see the module notes)."""

    def __init__(
        self,
        ctx: GLContext,
        size: tuple[int, int],
        *,
        screenshot: Path | None = None,
        record: Path | None = None,
        dump_world: Path | None = None,
    ) -> None:
        self.ctx = ctx
        self.screenshot = screenshot
        self.dump_world_path = dump_world
        self.recorder = Recorder(record, size) if record is not None else None
        self._resolve: GLFramebuffer | None = None  # single-sample, to resolve into
        self._screenshot_done = False
        self._want_shot = False
        #: Frames the recording keeps one of (a GIF: 2), and an event's picture held for
        #: the next kept frame's place (see the module notes).
        self._keep_every = (
            max(1, round(self.recorder.fps / GIF_FPS))
            if self.recorder is not None and self.recorder.path.suffix.lower() == ".gif"
            else 1
        )
        self._held: NDArray[np.uint8] | None = None
        #: Screenshots saved with P, in order.
        self.shots_saved: list[Path] = []

    @property
    def wants_picture(self) -> bool:
        """Whether the next drawn picture is kept (recorded, or a P screenshot)."""
        return self.recorder is not None or self._want_shot

    @property
    def screenshot_pending(self) -> bool:
        return self.screenshot is not None and not self._screenshot_done

    def request_shot(self) -> None:
        """P: save the next drawn picture to the working folder."""
        self._want_shot = True

    def grab(self, fbo: GLFramebuffer, size: tuple[int, int]) -> NDArray[np.uint8]:
        """The picture in `fbo`, (h, w, 3) uint8, top row first, out of multisampling."""
        if self._resolve is None or self._resolve.size != size:
            if self._resolve is not None:
                self._resolve.release()
            self._resolve = self.ctx.framebuffer(color_attachments=[self.ctx.renderbuffer(size, 4)])
        return read_rgb(self.ctx, fbo, size, self._resolve)

    def frame_drawn(
        self, fbo: GLFramebuffer, size: tuple[int, int], eventful: bool = False
    ) -> None:
        """After each drawn frame: record it, and save it if P asked. `eventful`: something
        was touched or edited in this frame (a GIF keeps its picture; module notes)."""
        if self.recorder is not None:
            self._record(self.recorder, self.grab(fbo, size), eventful)
        if self._want_shot:
            self._want_shot = False
            path = _next_free(Path.cwd(), "sgview-{:04d}.png")
            save_png(self.grab(fbo, size), path)
            self.shots_saved.append(path)
            say_saved("screenshot", path)  # as every file sgview writes: stdout is the log

    def _record(self, recorder: Recorder, image: NDArray[np.uint8], eventful: bool) -> None:
        kept = recorder.frames % self._keep_every == 0  # this frame, by the count
        if not kept and eventful and self._held is None:
            self._held = image  # skipped by the GIF: shown in the next kept frame's place
        elif kept and self._held is not None:
            if not eventful:
                image = self._held
            self._held = None
        recorder.add(image)

    def save_screenshot(self, fbo: GLFramebuffer, size: tuple[int, int]) -> None:
        """Write `--screenshot` from the picture just drawn (once per run) and say where."""
        if self.screenshot is not None and not self._screenshot_done:
            save_png(self.grab(fbo, size), self.screenshot)
            self._screenshot_done = True
            self._saved("screenshot", self.screenshot)

    @staticmethod
    def _saved(what: str, path: Path) -> None:
        """A file the run asked for is written: say where, on stderr (stdout may be the
        ``--log`` that a teacher compares with the textbook)."""
        say_saved(what, path)

    def finish(self, graph: SceneGraph, keys: dict[int, str] | None = None) -> None:
        """After the last frame: close the recording, write `--dump-world` (nodes keyed by
        `keys` where given, a USD prim's path, else by name)."""
        if self.recorder is not None:
            if self._held is not None:  # the last frame's event: one more kept frame
                self.recorder.add(self._held)
                self._held = None
            self._saved("recording", self.recorder.close())
            self.recorder = None
        if self.dump_world_path is not None:
            self._saved("world matrices", dump_world(graph, self.dump_world_path, keys))
        if self._resolve is not None:
            self._resolve.release()
            self._resolve = None


def say_saved(what: str, path: str | Path) -> None:
    """``sgview: WHAT saved: PATH`` on stderr."""
    print(f"sgview: {what} saved: {printable(path, None)}", file=sys.stderr, flush=True)


def dump_world(graph: SceneGraph, path: str | Path, keys: dict[int, str] | None = None) -> Path:
    """Write {name: world matrix as nested lists (row-major, column vectors)} as JSON; a
    node in `keys` (a USD prim, by its path) is keyed by that instead of its name."""
    path = Path(path)
    world = graph.world_matrices()
    keys = keys or {}
    rows = [
        f"  {json.dumps(keys.get(int(i)) or graph.name_of(int(i)))}: "
        f"{json.dumps(world[int(i)].tolist())}"
        for i in graph.alive_ids()
    ]
    path.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")
    return path


def _next_free(folder: Path, pattern: str) -> Path:
    n = 1
    while (folder / pattern.format(n)).exists():
        n += 1
    return folder / pattern.format(n)
