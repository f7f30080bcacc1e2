"""The overlay's two Dear ImGui panels, laid out left and right of the 3D view.

Left, "Scene graph" (`scene_panel.py`): the frame and the run controls, the hierarchy with
each node's L / W / E flags for the frame shown, the selected node, the view settings and
the keys. Right, "Frames" (`frames_panel.py`): the timeline, the frame's counters and the
frame log. What they show comes from `model.py` and `stats.py`.

ImGui notes: tree nodes start collapsed, so rows are opened once with
``set_next_item_open(True, Cond_.once)``; moderngl-window's integration drops a mouse
press and release that arrive within one frame (hold a click for a frame or two).
"""

from __future__ import annotations

from imgui_bundle import imgui

from .frames_panel import FramesPanel
from .model import Flags, panel_widths
from .scene_panel import ScenePanel
from .widgets import COLORS


class Panel:
    """Draws both panels each frame (between ``imgui.new_frame`` and ``imgui.render``)."""

    colors = COLORS

    def __init__(self, overlay) -> None:
        self.ov = overlay
        self.scene = ScenePanel(overlay)
        self.frames = FramesPanel(overlay)
        self.reset()

    def reset(self) -> None:
        self._flags = Flags.none()
        self._flags_frame: object = None  # the frame, or ("marks", edition)
        self.scene.reset()
        self.frames.reset()

    def draw(self) -> None:
        width, height = self.ov.wnd.size
        left, right = panel_widths(width)
        entry = self.ov.shown_entry
        flags = self._flags_of(entry)
        window_flags = imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize
        window_flags |= imgui.WindowFlags_.no_collapse | imgui.WindowFlags_.no_saved_settings

        imgui.set_next_window_pos(imgui.ImVec2(0, 0))
        imgui.set_next_window_size(imgui.ImVec2(left, height))
        imgui.begin("Scene graph   (Tab hides)", None, window_flags)
        self.scene.draw(entry, flags, height)
        imgui.end()

        imgui.set_next_window_pos(imgui.ImVec2(width - right, 0))
        imgui.set_next_window_size(imgui.ImVec2(right, height))
        imgui.begin("Frames", None, window_flags)
        self.frames.draw(entry)
        imgui.end()

    def _flags_of(self, entry) -> Flags:
        """The flags of the frame shown (computed once per frame shown); live, with nodes
        marked and not yet executed (a touch or an edit while paused), those marks."""
        graph = self.ov.host.graph
        if self.ov.pinned is None and graph.peek.marked:
            edition = ("marks", graph.peek.edition)
            if edition != self._flags_frame:
                self._flags_frame = edition
                self._flags = Flags.of_marks(graph)
            return self._flags
        frame = None if entry is None else entry.frame
        if frame != self._flags_frame or self._flags_frame is None:
            self._flags_frame = frame
            if entry is None or entry.report is None:
                self._flags = Flags.none()
            else:
                self._flags = Flags.of_report(entry.report, int(graph.capacity_ids))
        return self._flags
