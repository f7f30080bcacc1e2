"""The debug overlay: glow, names, and the Dear ImGui panel, for a window or headless.

`Overlay` is what the app talks to. Each simulated frame it takes the frame report
(`frame_done`): the glow fades by the frame's time and the report lights what it
recomputed, the history keeps the report and its counters, and the changed glow values
go to the renderer. Each drawn frame (`draw`) it lays out the ImGui panels and the node
names and renders them over the 3D picture through moderngl-window's ImGui integration
(imgui-bundle 1.6.3; later releases break moderngl-window 3.1's integration).

The app passes itself as `host`; the overlay reads `host.wnd`, `host.graph`,
`host.renderer`, `host.camera`, `host.frame`, `host.paused`, `host.motion_on` and calls
`host.select(id)`, `host.toggle_pause()`, `host.request_step()`, `host.touch_selected()`
and `host.toggle_motion()`.

Headless (`deterministic=True`) the panel leaves out wall-clock numbers (times, frames
per second), so that the same command still gives the same picture.
"""

from __future__ import annotations

import time

import numpy as np
from imgui_bundle import imgui
from moderngl_window.integrations.imgui_bundle import ModernglWindowRenderer

from viewer.text import printable

from . import labels
from .highlight import Highlight, Mirror
from .history import History
from .model import panel_widths
from .panel import Panel
from .stats import FrameStats, Timings

#: Names start shown for scenes up to this many nodes (N toggles them).
NAMES_BELOW = 200
NAME_COLOR = (0.92, 0.93, 0.96, 1.0)
#: Pixels kept free for names when framing the scene between the panels.
LABEL_ROOM = 60


class Overlay:
    """Glow, names and panels for one app (see the module notes).

    Parameters
    ----------
    host : SgviewApp
    deterministic : bool
        Headless: no wall-clock numbers in the picture.
    key_help : sequence of (key, what)
        Listed in the panel's Keys section.
    """

    def __init__(self, host, *, deterministic: bool = False, key_help=()):
        self.host = host
        self.wnd = host.wnd
        self.deterministic = deterministic
        self.key_help = tuple(key_help)
        self.visible = True
        self.highlight = Highlight()
        self.mirror = Mirror()
        self.history = History()
        self.timings = Timings()
        #: Frame picked on the timeline (None: the latest frame, live).
        self.pinned: int | None = None
        self._still: Highlight | None = None
        self.show_names = len(host.graph) <= NAMES_BELOW
        #: Glow in the 3D view (the panel's flags stay). Off in the collision demo, whose
        #: overlap red would be mistaken for the glow's red.
        self.glow_in_view = host.scene.collision is None
        self._context = imgui.create_context()
        imgui.set_current_context(self._context)
        io = imgui.get_io()
        io.set_ini_filename("")  # no imgui.ini in the user's folder
        io.set_log_filename("")
        style = imgui.get_style()
        style.window_rounding = 0.0
        style.set_color_(imgui.Col_.window_bg, imgui.ImVec4(0.07, 0.08, 0.10, 0.94))
        self.imgui = ModernglWindowRenderer(self.wnd)
        self.panel = Panel(self)
        self._first = True

    # -- per simulated frame -------------------------------------------------------------
    def frame_done(
        self, frame: int, report, dt: float, update_ms: float, upload_ms: float, sync_bytes: int
    ) -> FrameStats:
        """Take one frame's report; returns its counters (kept in the history)."""
        t0 = time.perf_counter()
        self.highlight.advance(dt)
        self.highlight.apply(report, self.host.graph.parents())
        glow_bytes = self.push() if self.pinned is None else 0
        upload_ms += 1000.0 * (time.perf_counter() - t0)
        stats = FrameStats.of_report(
            frame, report, bytes_uploaded=sync_bytes, glow_bytes=glow_bytes,
            update_ms=update_ms, upload_ms=upload_ms,
        )  # fmt: skip
        self.history.add(frame, report, stats)
        self.timings.add_step(update_ms, upload_ms)
        if self.pinned is not None and self.history.find(self.pinned) is None:
            self.pin(None)  # the picked frame left the history
        return stats

    def shown_highlight(self) -> Highlight:
        """The glow on screen: live, or the still picture of the frame picked."""
        return self._still if self._still is not None else self.highlight

    def push(self) -> int:
        """Send the glow on screen to the renderer (changed values only); returns bytes."""
        renderer = self.host.renderer
        shown = self.shown_highlight()
        ids, values = shown.signed_values()
        links = shown.links()
        if not self.glow_in_view:  # nothing glows: the mirror turns off what did
            ids, values, links = ids[:0], values[:0], (links[0][:0], links[1][:0])
        ids, values = self.mirror.update(ids, values)
        written = renderer.set_highlight(ids, values) if len(ids) else 0
        renderer.set_link_glow(*links)
        return written

    def pin(self, frame: int | None) -> None:
        """Show `frame`'s report (tree, log, glow) instead of the latest; None: live."""
        entry = self.history.find(frame) if frame is not None else None
        if entry is None or entry is self.history.last:
            self.pinned, self._still = None, None
        else:
            self.pinned = entry.frame
            self._still = (
                Highlight.of_report(entry.report, self.host.graph.parents())
                if entry.report is not None
                else Highlight()
            )
        self.push()

    @property
    def shown_entry(self):
        """The history entry on show: the picked frame, or the latest."""
        if self.pinned is not None:
            entry = self.history.find(self.pinned)
            if entry is not None:
                return entry
        return self.history.last

    def reset(self) -> None:
        """A new scene (live reload): forget the old one's frames and glow."""
        self.highlight = Highlight(self.highlight.fade)
        self.mirror.reset()
        self.history.clear()
        self.timings.clear()
        self.pinned, self._still = None, None
        self.panel.reset()

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
        if self._context is None:  # released
            return
        imgui.set_current_context(self._context)
        io = imgui.get_io()
        io.display_size = imgui.ImVec2(*self.wnd.size)
        io.delta_time = 1.0 / 60.0 if self.deterministic else max(float(frame_time), 1e-4)
        if not self.deterministic and not self.host.paused:
            self.timings.add_frame_time(frame_time)
        # ImGui sizes tables and auto-fitting columns from what the previous frame drew, so
        # the first frame (and, headless, every frame: a screenshot must be exact) is laid
        # out twice and only the second pass is rendered.
        for _ in range(2 if self.deterministic or self._first else 1):
            imgui.new_frame()
            if self.show_names:
                self._draw_names()
            if self.visible:
                self.panel.draw()
            imgui.render()
        self._first = False
        self.wnd.fbo.use()
        self.imgui.render(imgui.get_draw_data())

    def note_draw_time(self, draw_ms: float) -> None:
        """Time of the first drawing of the latest frame (redraws while paused do not
        count: the numbers on screen stay put)."""
        last = self.history.last
        if last is not None and last.stats.draw_ms == 0.0:
            last.stats.draw_ms = draw_ms
            self.timings.add_draw(draw_ms)

    def _draw_names(self) -> None:
        host = self.host
        graph, renderer = host.graph, host.renderer
        ids = np.asarray(graph.alive_ids(), dtype=np.int64)
        if ids.size == 0:
            return
        size = tuple(self.wnd.buffer_size)
        world = graph.world_matrices()[ids]
        inst = renderer.instances
        looks = inst.sizes[ids] if len(inst.sizes) >= ids.max() + 1 else np.ones((len(ids), 3))
        scale = np.linalg.norm(world[:, :3, :3], axis=1).max(axis=1)
        drawn = inst.kind_of[ids] >= 0 if len(inst.kind_of) > ids.max() else np.ones(len(ids), bool)
        radii = np.where(drawn, 0.5 * np.linalg.norm(looks, axis=1) * scale, 0.15)
        camera = host.camera
        right = camera.view_matrix()[0, :3]
        index, xy = labels.place(world[:, :3, 3], radii, camera.view_projection(size), size, right)
        ratio = self.wnd.size[0] / max(size[0], 1)
        line_h = imgui.get_text_line_height()
        draw_list = imgui.get_background_draw_list()
        shown = self.shown_highlight()
        shadow = imgui.IM_COL32(0, 0, 0, 200)
        colors = {0: imgui.get_color_u32(imgui.ImVec4(*NAME_COLOR))}
        for kind, rgb in ((-1, self.panel.colors.local), (1, self.panel.colors.world)):
            colors[kind] = imgui.get_color_u32(imgui.ImVec4(*rgb))
        for k, (x, y) in zip(index.tolist(), (xy * ratio).tolist()):
            node_id = int(ids[k])
            name = printable(graph.name_of(node_id))
            pos = imgui.ImVec2(x, y - 0.5 * line_h)
            draw_list.add_text(imgui.ImVec2(pos.x + 1, pos.y + 1), shadow, name)
            draw_list.add_text(pos, colors[shown.kind_of(node_id)], name)

    # -- events (forwarded by the app) ---------------------------------------------------
    @property
    def wants_mouse(self) -> bool:
        """The pointer is over a panel: the 3D view should ignore the mouse."""
        if not self.visible or self._context is None:
            return False
        imgui.set_current_context(self._context)
        return bool(imgui.get_io().want_capture_mouse)

    @property
    def wants_keyboard(self) -> bool:
        if not self.visible or self._context is None:
            return False
        imgui.set_current_context(self._context)
        return bool(imgui.get_io().want_text_input)

    def _forward(self, method: str, *args) -> None:
        if self._context is None:
            return
        imgui.set_current_context(self._context)
        getattr(self.imgui, method)(*args)

    def key_event(self, key, action, modifiers) -> None:
        self._forward("key_event", key, action, modifiers)

    def mouse_position_event(self, x, y, dx, dy) -> None:
        self._forward("mouse_position_event", x, y, dx, dy)

    def mouse_drag_event(self, x, y, dx, dy) -> None:
        self._forward("mouse_drag_event", x, y, dx, dy)

    def mouse_press_event(self, x, y, button) -> None:
        self._forward("mouse_press_event", x, y, button)

    def mouse_release_event(self, x, y, button) -> None:
        self._forward("mouse_release_event", x, y, button)

    def mouse_scroll_event(self, x_offset, y_offset) -> None:
        self._forward("mouse_scroll_event", x_offset, y_offset)

    def unicode_char_entered(self, char) -> None:
        self._forward("unicode_char_entered", char)

    def resize(self, width, height) -> None:
        self._forward("resize", width, height)

    def release(self) -> None:
        """Free the ImGui context and its GL objects."""
        if self._context is None:
            return
        imgui.set_current_context(self._context)
        self.imgui.shutdown()
        imgui.destroy_context(self._context)
        self._context = None
