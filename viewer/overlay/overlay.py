"""The debug overlay: glow, names, and the Dear ImGui panel, for a window or headless.

`Overlay` is what the app talks to. Each simulated frame it takes the frame report
(`frame_done`): the timeline's records keep the report and its counters. The glow itself belongs to
the renderer, which stamps what each report recomputed and lets the shader fade it; the
overlay only chooses how it shows (style, on or off, fade, a frame picked on the
timeline) and reads it for the names' colours. It writes no GPU buffer. Each drawn frame
(`draw`) it lays out the ImGui panels and the node names and renders them over the 3D
picture through moderngl-window's ImGui integration (imgui-bundle 1.6.3; later releases
break moderngl-window 3.1's integration).

It knows the frame source it shows, the renderer and the camera only through the protocols
of `host.py` (what it reads, and the few actions it may ask for), plus the window, which
the ImGui integration needs for its events and sizes. Its panels know it through
`overlay_state.OverlayState`.

Headless (`deterministic=True`) the panel leaves out wall-clock numbers (times, frames
per second), so that the same command still gives the same picture.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np
from imgui_bundle import imgui
from moderngl_window.context.base import BaseWindow
from numpy.typing import NDArray

from viewer.scene.report import FrameReport
from viewer.session.source import SceneOnShow

from . import help_window, keyboard, labels, view_banner
from .file_browser import FileBrowser
from .gizmo_view import shown_outline
from .host import LitNodes, OverlayCamera, OverlayCanvas, ViewToggles
from .imgui_io import ImguiIO, WindowEventArg, pointer_of
from .model import panel_widths
from .name_candidates import NameCandidates
from .names_view import draw_names
from .panel import Panel
from .replay import Replay
from .stats import FrameStats, Timings
from .timeline_records import Entry, FrameRecords

#: Names start shown for scenes up to this many nodes (N toggles them).
NAMES_BELOW = 200
#: Pixels kept free for names when framing the scene between the panels.
LABEL_ROOM = 60
#: ImGui's double-click window in seconds, and in frames where frames are slow: ImGui
#: hands a click's press and release to separate frames and times clicks by frame time,
#: so at 4 frames per second two quick clicks come 0.5 s apart: with the window in frames
#: too they still make a double click (which opens a file in the browser).
DOUBLE_CLICK_S = 0.3
DOUBLE_CLICK_FRAMES = 4


def double_click_time(frame_time: float) -> float:
    """How far apart (ImGui's time) two clicks still make a double click."""
    return max(DOUBLE_CLICK_S, DOUBLE_CLICK_FRAMES * frame_time)


class _Nothing:
    """A kept frame without a report (a frame that recomputed nothing) as a report."""

    world_updated: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
    local_updated: NDArray[np.int64] = world_updated


_NOTHING = _Nothing()


class Overlay:
    """Glow, names and panels for one app (see the module notes): `host` the frame source
    on show, `wnd` the moderngl-window window, `canvas` the renderer drawing the host's scene
    (`reset` takes a new one after a reload), `camera`, `settings` the app's
    `ViewSettings` (the View section and the glow switches change them; the app hands
    them to each draw); `deterministic` (headless): no wall-clock numbers in the picture."""

    def __init__(
        self,
        host: SceneOnShow,
        wnd: BaseWindow,
        canvas: OverlayCanvas,
        camera: OverlayCamera,
        settings: ViewToggles,
        *,
        deterministic: bool = False,
    ) -> None:
        self.host = host
        self.wnd = wnd
        self.canvas = canvas
        self.camera = camera
        self.settings = settings
        self.deterministic = deterministic
        self.visible = True
        self.timeline = FrameRecords()  #: the frames kept for the timeline
        self.timings = Timings()
        #: Frame picked on the timeline (None: the latest frame, live).
        self.pinned: int | None = None
        #: Events for the next frame's record (a reload happens between frames).
        self._events: list[tuple[str, str]] = []
        #: The newest frame's entry with its folded report, where it stands for several
        #: frames of a connected program (`frame_done`); None otherwise.
        self._live: Entry | None = None
        #: The help window (? or F1) is open.
        self.show_help = False
        #: The one-line "? or F1: help" hint shows: from the start until the first key or
        #: click (headless pictures stay as they were: none).
        self.show_hint = not deterministic
        #: The banner over the view at the last frame, (x, y, w, h) (None: none drawn).
        self.banner_rect: tuple[float, float, float, float] | None = None
        #: Names over the nodes: on for a scene small enough to name every node, decided
        #: again for each new scene (a listened program's first snapshot follows an empty
        #: scene) until the user turns them on or off (N, the checkbox).
        self._show_names = len(host.graph) <= NAMES_BELOW
        self._names_chosen = False
        # Glow in the 3D view (the panel's flags stay). Off in the collision demo, whose
        # overlap red would be mistaken for the glow's red.
        controls = host.controls
        settings.glow_on = controls is None or controls.collision_mode is None
        #: The names drawn at the last frame and their colours (see `_draw_names`).
        self.names_drawn: list[tuple[str, int]] = []
        self._placements = labels.Placements()  # where names go, kept while the view stands
        self._name_candidates = NameCandidates()  # who may be named, kept while the scene stands
        self.name_boxes: list[tuple[float, float, float, float]] = []
        self.gui = ImguiIO(wnd)  # the ImGui context: look, events, rendering
        #: The panels' and the help window's rectangles at the last frame (x, y, w, h).
        self.window_rects: list[tuple[float, float, float, float]] = []
        #: Where the start hint was drawn last (x, y, w, h), None before it was.
        self.hint_rect: tuple[float, float, float, float] | None = None
        #: Key and character events held while the file browser's field takes the keyboard.
        self._held: list[tuple[str, tuple[WindowEventArg, ...]]] = []
        self.panel = Panel(self)
        #: Ctrl+O's file browser in the window, where the desktop has no dialog (a source
        #: without files has nothing to open into).
        files = host.file_actions
        self.browser = FileBrowser(files.request_open if files is not None else None)
        self.replay = Replay()  #: the slow-motion replay of one frame (V)
        self._panel_press = False  # a press on a panel that no ImGui frame has seen yet
        self._first = True

    # -- the glow's view settings (the app's, handed to each draw) -----------------------
    @property
    def glow_style(self) -> str:
        """How the view shows the frames' work: "fill" or "rim" glow, or "heat"
        (`viewer.render.frame_view.GLOW_STYLES`; the panel's View section switches it)."""
        return self.settings.glow_style

    @glow_style.setter
    def glow_style(self, style: str) -> None:
        self.settings.glow_style = style

    @property
    def glow_in_view(self) -> bool:
        """Glow in the 3D view at all (the panel's flags and the names stay coloured)."""
        return self.settings.glow_on

    @glow_in_view.setter
    def glow_in_view(self, on: bool) -> None:
        self.settings.glow_on = bool(on)

    # -- per simulated frame -------------------------------------------------------------
    def frame_done(
        self,
        frame: int,
        report: FrameReport,
        dt: float,
        update_ms: float,
        upload_ms: float,
        sync_bytes: int,
        events: Iterable[tuple[str, str]] = (),
        *,
        weights: Iterable[int] = frozenset(),
        received: Sequence[FrameReport] = (),
    ) -> FrameStats:
        """Take one frame's report (already drawn into the renderer's buffers, glow
        included: `sync_bytes` is all it wrote) and its events ((kind, what) pairs:
        touches, edits, clip changes); returns its counters (kept with the frame). `dt`
        is the frame's simulated time (the renderer's glow took it). `weights`: the nodes
        whose morph weights changed with the frame (no matrix moved, so the report has
        none of them; the renderer lit them): the log says "weights".

        `received`: where `report` is folded over several frames of a connected program,
        each one's own report, the newest last (`Frame.received`). Each is kept on the
        timeline under its own number with its own counters and log, so that totals add
        up each frame once and a picked frame shows only itself; the live view (tree,
        glow) shows the folded `report`, as the renderer drew it."""
        own = received[-1] if received else report
        for older in received[:-1]:  # drawn with the newest: no bytes or times of their own
            self.timeline.add(
                older.frame,
                older,
                FrameStats.of_report(older.frame, older),
                paused=self.host.paused,
            )
        stats = FrameStats.of_report(
            frame, own, bytes_uploaded=sync_bytes, update_ms=update_ms, upload_ms=upload_ms
        )
        events, self._events = [*self._events, *events], []
        names = [self.host.graph.name_of(int(i)) for i in sorted(weights)]
        entry = self.timeline.add(frame, own, stats, events, weights=names, paused=self.host.paused)
        self._live = replace(entry, report=report) if received else None
        self.timings.add_step(update_ms, upload_ms)
        if self.pinned is not None and self.timeline.find(self.pinned) is None:
            self.replay.back = None
            self.pin(None)  # the picked frame is no longer kept
        return stats

    def pin(self, frame: int | None) -> None:
        """Show `frame`'s report (tree, log, glow) instead of the latest; None: live."""
        self.replay.stop()
        entry = self.timeline.find(frame) if frame is not None else None
        was = self.pinned
        if entry is None or entry is self.timeline.last:
            self.pinned = None
            self.panel.frames.back_to_live()
            if was is not None:
                self.canvas.show_still(None, self.host.graph.peek.parents())
        else:
            self.pinned = entry.frame
            report: LitNodes = entry.report if entry.report is not None else _NOTHING
            self.canvas.show_still(report, self.host.graph.peek.parents())

    def replay_shown(self) -> bool:
        """V, or the Frames panel's button: replay the frame on show slowly (live and
        quiet: the newest frame that recomputed something), pinned until the replay ends;
        while one runs: stop it. False: nothing to replay (the frame recomputed nothing
        or its report is gone)."""
        replay = self.replay
        if replay.active:
            self.pin(replay.back)
            return False
        entry = self.shown_entry
        quiet = entry is not None and (entry.report is None or entry.report.world_updated.size == 0)
        if self.pinned is None and quiet:
            newest = self.timeline.log(1)
            entry = self.timeline.find(newest[-1][0]) if newest else entry
        if entry is None or not replay.start(entry.frame, entry.report):
            return False
        replay.back, self.pinned = self.pinned, entry.frame
        self.canvas.show_still(replay.partial(), self.host.graph.peek.parents())
        return True

    def tick(self, seconds: float) -> None:
        """Once per redraw, drawn or not: the replay's clock (`seconds` since the last):
        the next node lights when its time comes; at the end, what was on show before
        the replay shows again."""
        replay = self.replay
        back = replay.back
        if replay.advance(seconds):
            if replay.active:
                self.canvas.show_still(replay.partial(), self.host.graph.peek.parents())
            else:
                self.pin(back)

    @property
    def shown_entry(self) -> Entry | None:
        """The kept frame on show: the picked frame, or the latest (with the report folded
        over the frames it stands for, where it stands for several: what the view draws)."""
        if self.pinned is not None:
            entry = self.timeline.find(self.pinned)
            if entry is not None:
                return entry
        last, live = self.timeline.last, self._live
        # The fold stands for the newest entry while it is the one kept (not replaced by a
        # later frame, nor its report dropped with a scene no longer shown).
        if live is not None and last is not None and last.report is not None:
            return live if live.stats is last.stats else last
        return last

    @property
    def show_names(self) -> bool:
        return self._show_names

    @show_names.setter
    def show_names(self, on: bool) -> None:
        self._show_names, self._names_chosen = on, True

    def reset(self, canvas: OverlayCanvas, fresh: bool = False) -> None:
        """A new scene drawn by `canvas`: forget the old reports (their ids were the old
        scene's); after a live reload the counters, totals and events stay, the next frame
        is marked as a reload; `fresh` (a file opened: its frames count from 0 again) the
        records start anew, as after a restart, so the timeline never mixes the two
        scenes' frame numbers. The view settings are the app's and stay, but for the names
        while the user has not chosen: they follow the new scene's size."""
        self.canvas = canvas
        if not self._names_chosen:
            self._show_names = len(self.host.graph) <= NAMES_BELOW
        if fresh:
            self.timeline.clear()
            self._events = []
        else:
            self.timeline.drop_reports()
        self.replay.stop()
        self._events.append(("reload", "scene replaced"))
        self.timings.clear()
        self.pinned = None
        self.panel.reset()

    def restart(self) -> None:
        """The session went back to frame 0 (`Session.restart`): fresh records and
        fresh totals, back to live; the frames to come are the replay."""
        if self.pinned is not None:
            self.pin(None)
        self.timeline.clear()
        self._events = []
        self.panel.reset()

    def jump_to_event(self, direction: int) -> int | None:
        """Show the event frame before (`direction` -1) or after (+1) the frame shown;
        past the last event, back to live. Returns the frame shown (None: live)."""
        frame = self.timeline.next_event(self.pinned, direction)
        if frame is None and direction < 0:
            return self.pinned  # nothing earlier: stay
        self.pin(frame)
        return self.pinned

    def reset_totals(self) -> None:
        """Count the running totals from the next frame on."""
        self.timeline.reset_totals()

    # -- per drawn frame -----------------------------------------------------------------
    def view_fit(self) -> tuple[float, float]:
        """(`Camera.shift_x`, `Camera.frame_aspect`): the 3D picture centred between the
        two panels, and the width / height of the room left between them."""
        width, height = self.wnd.size
        if not self.visible:
            return 0.0, width / max(height, 1)
        left, right = panel_widths(width)
        room = max(width - left - right - LABEL_ROOM, 1)  # names stick out on the right
        return 0.5 * (left - right) / max(width, 1), room / max(height, 1)

    def draw(self, frame_time: float) -> None:
        """Lay out and render the panels and names over the picture just drawn."""
        if not self.gui.use():  # released
            return
        io = imgui.get_io()
        io.display_size = imgui.ImVec2(*self.wnd.size)
        io.delta_time = 1.0 / 60.0 if self.deterministic else max(float(frame_time), 1e-4)
        io.mouse_double_click_time = double_click_time(io.delta_time)
        if not self.deterministic and not self.host.paused:
            self.timings.add_frame_time(frame_time)
        # ImGui sizes tables and auto-fitting columns from what the previous frame drew, so
        # the first frame (and, headless, every frame: a screenshot must be exact) is laid
        # out twice and only the second pass is rendered.
        for _ in range(2 if self.deterministic or self._first else 1):
            imgui.new_frame()
            self.window_rects = []
            self.panel.draw(hidden=not self.visible)
            if self.show_names:  # after the gizmo (the panel draws it): over its lines
                self._draw_names()
            self._draw_banner()
            if self.show_help:
                self.window_rects.append(help_window.rect(*self.wnd.size))
                self.show_help = help_window.draw(*self.wnd.size)
            elif self.show_hint:
                self.hint_rect = help_window.draw_hint(*self.wnd.size, self.window_rects)
            self.browser.draw(*self.wnd.size)
            imgui.render()
        self._first = False
        self._panel_press = False  # ImGui has seen it: its flags say where keys go
        if self._held and not self.browser.focusing:  # the browser's field is active now
            held, self._held = self._held, []
            for event, args in held:
                self.forward(event, *args)
        self.gui.render()

    def note_draw_time(self, draw_ms: float) -> None:
        """Time of the first drawing of the latest frame (redraws while paused do not
        count: the numbers on screen stay put)."""
        if self.timeline.note_draw(draw_ms):
            self.timings.add_draw(draw_ms)

    def _draw_banner(self) -> None:
        """A question waiting for its key, at the view's top between the panels: seen
        however the panel that also says it is scrolled, or hidden (Tab)."""
        question, width = self.host.messages.question, self.wnd.size[0]
        self.banner_rect = None
        if question:
            left, right = panel_widths(width) if self.visible else (0, 0)
            self.banner_rect = view_banner.draw(question, left, width - right)

    def _draw_names(self) -> None:
        colors = (self.panel.colors.local, self.panel.colors.world)
        editing = self.host.editing
        gizmo_lines = None
        if editing is not None:  # its lines would cross the names under them
            gizmo_lines = shown_outline(
                self.host, editing, self.wnd.size, self.camera, self.canvas.bounds
            )
        drawn = draw_names(
            self.host,
            self.canvas,
            self.camera,
            self.wnd,
            self._placements,
            self.settings.show_quiet,
            colors,
            self.glow_in_view,
            self._name_candidates,
            gizmo_lines,
        )
        if drawn is not None:
            self.names_drawn, self.name_boxes = drawn

    def toggle_help(self) -> None:
        """? or F1: open or close the help window (and the start hint goes)."""
        self.show_help = not self.show_help
        self.show_hint = False

    # -- events (forwarded by the app) ---------------------------------------------------
    @property
    def wants_mouse(self) -> bool:
        """The pointer is over a panel: the 3D view should ignore the mouse."""
        return self._io_flag("want_capture_mouse")

    def takes_mouse(self, x: float | None = None, y: float | None = None) -> bool:
        """Whether a mouse event at (x, y) (default: where the pointer was last) is the
        panels': ImGui says so from its last frame, or the point lies in a window drawn at
        the last frame (a move onto a panel and a press within one frame, which ImGui has
        not seen yet, must not reach the 3D view)."""
        if self.wants_mouse or (self.browser.shown and self.browser.rect is not None):
            return True  # the browser is modal: the view waits until it closes
        if not self.visible or not self.gui.alive:
            return False
        px, py = self.gui.pointer if x is None or y is None else (x, y)
        return any(x0 <= px < x0 + w and y0 <= py < y0 + h for x0, y0, w, h in self.window_rects)

    def note_window(self) -> None:
        """Called inside a window the overlay draws: keep its rectangle for `takes_mouse`."""
        pos, size = imgui.get_window_pos(), imgui.get_window_size()
        self.window_rects.append((pos.x, pos.y, size.x, size.y))

    @property
    def wants_keyboard(self) -> bool:
        """A panel's text or number field has the keyboard (`keyboard.typing`), or the
        file browser is open (it takes every key until it closes)."""
        if self.browser.shown or self._panel_press:  # a key right after a click on a
            return True  # panel belongs to what the click activates (a field, maybe)
        if not self.visible or not self.gui.use():
            return False
        return keyboard.typing()

    def _io_flag(self, name: str) -> bool:
        if not self.visible or not self.gui.use():
            return False
        return bool(getattr(imgui.get_io(), name))

    def forward(self, event: str, *args: WindowEventArg) -> None:
        """Pass a window event (a moderngl-window callback name, e.g. ``"key_event"``, and
        its arguments) to ImGui, which sees every event before the 3D view."""
        if not self.gui.use():
            return
        if event in ("key_event", "mouse_press_event"):
            self.show_hint = False  # the first input: the start hint has been seen
        if event == "mouse_press_event" and self.takes_mouse(*pointer_of(args)):
            self._panel_press = True
        if event in ("key_event", "unicode_char_entered") and self.browser.focusing:
            self._held.append((event, args))  # for its path field, active in a frame or two
            return
        self.gui.feed(event, args)

    def release(self) -> None:
        """Free the ImGui context and its GL objects."""
        self.gui.release()
