"""The overlay's two Dear ImGui panels, laid out left and right of the 3D view.

Left, "Scene graph" (`scene_panel.py`): the frame and the run controls, the hierarchy with
each node's L / W / E flags for the frame shown, the selected node, the view settings and
the keys. Right, "Frames" (`frames_panel.py`): the timeline, the frame's counters and the
frame log. What they show comes from `model.py` and `stats.py`.

ImGui notes: tree nodes start collapsed, so rows are opened once with
``set_next_item_open(True, Cond_.once)``; mouse events reach ImGui through its input
queue (`Overlay.forward`), so a click shorter than a frame still counts.
"""

from __future__ import annotations

from imgui_bundle import imgui

from .frames_panel import FramesPanel
from .model import Flags, fading_of, panel_widths, panels_folded
from .overlay_state import OverlayState
from .scene_panel import ScenePanel
from .timeline_records import Entry
from .widgets import COLORS

#: What the flags on show were made for: the frame shown, ("marks", the graph's edition)
#: or ("replay", frame, nodes lit).
FlagsKey = int | tuple[str, tuple[int, int, int, int]] | tuple[str, int | None, int]
#: Width in pixels of a folded panel's title bar and of the panel opened by a click on
#: it (at most half the picture's).
NARROW_OPEN = 220


class Panel:
    """Draws both panels each frame (between ``imgui.new_frame`` and ``imgui.render``)."""

    colors = COLORS

    def __init__(self, overlay: OverlayState) -> None:
        self.ov = overlay
        self.scene = ScenePanel(overlay)
        self.frames = FramesPanel(overlay)
        self.reset()

    def reset(self) -> None:
        #: Whether each panel (left, right) was folded at the last frame (None: not yet
        #: drawn): a change of width folds or opens it once, a click on it may undo that.
        self._folded: list[bool | None] = [None, None]
        #: A folded title clicked: opened at the next frame unless the click was its arrow's
        #: (which ImGui opens itself); and whether the last click on it opened it.
        self._title_clicked = [False, False]
        self._opened_by_click = [False, False]
        self._flags = Flags.none()
        #: What the flags were made for: the frame shown, ("marks", edition) or ("replay",
        #: frame, nodes lit) (None: nothing yet).
        self._flags_frame: FlagsKey | None = None
        self.scene.reset()
        self.frames.reset()

    def draw(self, hidden: bool = False) -> None:
        """Both panels; `hidden` (Tab): of what they draw, only the selected node's gizmo."""
        if hidden:
            self.scene.edit.draw_gizmo()
            return
        width, height = self.ov.wnd.size
        left, right = panel_widths(width)
        folded = panels_folded(width)
        entry = self.ov.shown_entry
        flags = self._flags_of(entry)
        # A folded panel: its title bar, side by side with the other's, and the width it
        # opens to when clicked.
        left = left or min(NARROW_OPEN, width // 2)
        right = right or min(NARROW_OPEN, width // 2)
        if self._window(0, "Scene graph   (Tab hides)", 0, left, height, folded[0]):
            self.scene.draw(entry, flags, height)
        imgui.end()
        if self._window(1, "Frames", width - right, right, height, folded[1]):
            self.frames.draw(entry)
        imgui.end()

    def _window(self, k: int, title: str, x: float, w: float, h: float, folded: bool) -> bool:
        """Begin panel `k`'s window (the caller ends it); whether its content shows. A
        panel that just folded (or unfolded) with the width is collapsed (or opened)."""
        window_flags = imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize
        window_flags |= imgui.WindowFlags_.no_saved_settings
        if not folded:
            window_flags |= imgui.WindowFlags_.no_collapse
        if self._folded[k] != folded:
            imgui.set_next_window_collapsed(folded, imgui.Cond_.always)
            self._folded[k] = folded
        imgui.set_next_window_pos(imgui.ImVec2(x, 0))
        imgui.set_next_window_size(imgui.ImVec2(w, h))
        shown = bool(imgui.begin(title, None, window_flags)[0])
        self.ov.note_window()
        self._open_on_click(k, folded and not shown)
        return shown

    def _open_on_click(self, k: int, collapsed: bool) -> None:
        """A single click on a folded title opens the panel: ImGui itself opens it only
        for its arrow or a double-click. Seen a frame later, still folded: open it. A
        double-click toggles in ImGui: one whose first click opened the panel keeps it
        open; one on the open panel's title folds it again."""
        if self._title_clicked[k] and collapsed:
            imgui.set_window_collapsed(False)
            self._opened_by_click[k] = True
        self._title_clicked[k] = False
        if imgui.is_window_hovered() and imgui.is_mouse_clicked(0):
            double = imgui.is_mouse_double_clicked(0)
            self._title_clicked[k] = collapsed and (self._opened_by_click[k] or not double)
            self._opened_by_click[k] = self._opened_by_click[k] and double

    def _flags_of(self, entry: Entry | None) -> Flags:
        """The flags of the frame shown (computed once per frame shown); live, with nodes
        marked and not yet executed (a touch or an edit while paused), those marks."""
        graph = self.ov.host.graph
        replay = self.ov.replay
        if replay.active:  # the nodes lit so far
            if self._flags_frame != ("replay", replay.frame, replay.lit):
                self._flags_frame = ("replay", replay.frame, replay.lit)
                self._flags = Flags.of_report(replay.partial(), int(graph.capacity_ids))
            return self._flags
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
        glow = self.ov.canvas.glow
        if self.ov.pinned is None and not glow.still:  # live: the earlier frames' glow
            self._flags.fading = fading_of(glow, self._flags)
        return self._flags
