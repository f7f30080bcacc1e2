"""The left panel, "Scene graph": run controls, the hierarchy, the selected node, the
collision demo's reading, the glTF animation, view settings and the keys."""

from __future__ import annotations

from collections.abc import Callable

from imgui_bundle import imgui

from viewer.session.source import SceneControls
from viewer.text import printable

from . import help_window
from .animation_section import AnimationSection
from .edit_panel import EditSection
from .model import (
    FLAG_TIPS,
    STALE_NOTE,
    Flags,
    cause_text,
    flag_text,
    matrix_rows,
    node_details,
    pending_note,
    reload_note,
)
from .overlay_state import OverlayState
from .timeline_records import Entry
from .tree_view import TreeView
from .widgets import COLORS, Flow, ItemRect, checkbox, key_value_table, message_line, vec4

#: The view's ways of showing the frames' work (`Overlay.glow_style`), as the panel
#: names them.
GLOW_STYLE_LABELS = (("fill", "glow"), ("rim", "rim glow"), ("heat", "heat"))


#: The motion button's label in a scene where nothing moves with time.
NO_MOTION = "Motion: none in this scene"


def motion_label(controls: SceneControls | None, room: float) -> str:
    """What the motion button says: whether the scene's motions run, or that it has none
    (so that S is not expected to stop anything); shorter where the long label does not
    fit `room` pixels. `controls` None: a source sgview does not run has none either."""
    if controls is None or not controls.has_motion:
        return NO_MOTION if Flow.button_width(NO_MOTION) <= room else "Motion: none"
    return "Motion: on" if controls.motion_on else "Motion: off"


def _nothing() -> None:
    """What a button of a control the source does not offer does (it is drawn disabled)."""


class ScenePanel:
    """Draws the left panel's sections (inside its ImGui window)."""

    def __init__(self, overlay: OverlayState) -> None:
        self.ov = overlay
        self.colors = COLORS
        self.tree = TreeView(overlay)
        self.animation = AnimationSection(overlay)
        self.edit = EditSection(overlay, self.tree)
        #: Whether the selected node's matrices were unfolded at the last frame, and
        #: where the Edit section's header lay then (top, bottom; tests).
        self.matrices_open = False
        self.edit_header_y: tuple[float, float] | None = None
        #: The status line's note in red as last drawn: a refusal, a file not opened or
        #: not reloaded (None: none).
        self.status_note: str | None = None
        self.status_rect: ItemRect | None = None  # its line's (min, max) on screen
        #: The line naming the scene on show, as last drawn.
        self.scene_line: str | None = None

    def reset(self) -> None:
        self.tree.reset()

    def draw(self, entry: Entry | None, flags: Flags, height: float) -> None:
        self._flags = flags
        self.tree.follow_selection(self.ov.host.selected)
        self._status(entry)
        self.tree.draw(height, flags)
        self._selected(entry)
        self._collision()
        self.animation.draw()
        top = imgui.get_cursor_screen_pos().y
        self.edit.draw()
        self.edit_header_y = (top, top + imgui.get_frame_height())
        self._view_settings()
        self._keys()

    def _status(self, entry: Entry | None) -> None:
        host, c = self.ov.host, self.colors
        # Which scene this is (a window without a title bar, as under Xvfb, shows none):
        # the built-in default and the bundled tree10 look alike but for their motion.
        self.scene_line = f"scene: {printable(host.scene.title, 120)}"
        note = reload_note(host.messages.reload)
        if host.messages.open:
            note = f"not opened, the scene on show stays: {host.messages.open}"
        if host.messages.refused:  # where the eyes are, whichever section is open
            note = f"refused: {printable(host.messages.refused, 300)}"
        color = c.local
        if host.messages.question:  # waiting for its key (the restart's second 0)
            note, color = host.messages.question, c.note
        self.status_note = note
        # One line, the note in the scene line's place (the window's title names the
        # scene too): nothing below moves when a note comes, goes or changes.
        self.status_rect = message_line(note, color)
        if self.status_rect is None:
            message_line(self.scene_line, c.dim)
        imgui.text(f"frame {host.frame}   " + ("paused" if host.paused else "running"))
        self._programs()
        if self.ov.pinned is not None:
            flow, shown = Flow(), f"showing frame {self.ov.pinned} (timeline)"
            flow.place(imgui.calc_text_size(shown).x)
            imgui.push_style_color(imgui.Col_.text, vec4(c.note))
            imgui.text_wrapped(shown)
            imgui.pop_style_color()
            flow.place(Flow.button_width("back to live"))
            if imgui.small_button("back to live"):
                self.ov.pin(None)
        room = float(imgui.get_content_region_avail().x)
        controls = host.controls
        touch: Callable[[], None] = _nothing if controls is None else controls.touch_selected
        motion: Callable[[], None] = _nothing if controls is None else controls.toggle_motion
        buttons = (
            ("Resume" if host.paused else "Pause", host.toggle_pause, True),
            ("Step", host.request_step, host.paused),
            ("Touch", touch, controls is not None and host.selected is not None),
            (motion_label(controls, room), motion, controls is not None and controls.has_motion),
        )
        style = imgui.get_style()
        used: float | None = None
        for label, action, enabled in buttons:
            width = imgui.calc_text_size(label).x + 2 * style.frame_padding.x
            if used is not None and used + style.item_spacing.x + width <= room:
                imgui.same_line()  # on the same line while it fits
                used += style.item_spacing.x + width
            else:
                used = width
            imgui.begin_disabled(not enabled)
            if imgui.button(label):
                action()
            imgui.end_disabled()
            if label.startswith("Motion: none") and imgui.is_item_hovered(
                imgui.HoveredFlags_.allow_when_disabled
            ):
                imgui.set_tooltip("no motions or animation clips here: S has nothing to stop")
        # Legend of the flags, in their colours (on as few lines as fit).
        room, used = imgui.get_content_region_avail().x, 0.0
        for letter, what, color in (
            ("L", "local", c.local),
            ("W", "world", c.world),
            ("E", "to renderer", c.executed),
        ):
            width = imgui.calc_text_size(f"{letter} {what}").x + 12.0
            if used and used + width > room:
                imgui.new_line()
                used = 0.0
            used += width
            imgui.text_colored(vec4(color), letter)
            imgui.same_line(0.0, 4.0)
            imgui.text_colored(vec4(c.dim), what)
            if imgui.is_item_hovered():
                imgui.set_tooltip(FLAG_TIPS[letter])
            imgui.same_line(0.0, 12.0)
        imgui.new_line()
        if self._flags.pending:
            imgui.push_style_color(imgui.Col_.text, vec4(c.pending))
            imgui.text_wrapped(pending_note(self._flags.count, host.paused))
            imgui.pop_style_color()

    def _programs(self) -> None:
        """`sgview listen` (`viewer.attach.program_source`): the connected programs, the one shown
        highlighted (a click shows another), and the lines about refused ones."""
        programs = self.ov.host.programs
        if programs is None:
            return
        rows = programs.program_rows()
        if not rows:
            imgui.text_colored(vec4(self.colors.note), "waiting for programs to connect")
        for k, (text, shown) in enumerate(rows):
            if imgui.selectable(f"{text}##program{k}", shown)[0]:
                programs.show_program(k)
        for line in programs.program_notes():
            imgui.text_colored(vec4(self.colors.local), line)

    def _selected(self, entry: Entry | None) -> None:
        c = self.colors
        if not imgui.collapsing_header("Selected node", imgui.TreeNodeFlags_.default_open):
            return
        host = self.ov.host
        node_id = host.selected
        graph = host.graph
        if node_id is None or self.tree.rows().row(node_id) is None:
            grey = imgui.get_style_color_vec4(imgui.Col_.text_disabled)
            imgui.push_style_color(imgui.Col_.text, grey)
            imgui.text_wrapped("click a node in the view or in the tree")
            imgui.pop_style_color()
            return
        frame = entry.frame if entry is not None else host.frame
        report = entry.report if entry is not None else None
        why = cause_text(report, node_id, frame) if entry is not None else "no frame yet"
        local, world, executed = self._flags.of(node_id)
        when = f"in frame {frame}"
        if self._flags.pending:
            why = "marked now, not yet executed" if local or world or executed else "clean"
            when = "now (pending)"
        color = c.local if local else c.world if world else c.dim
        imgui.text_colored(vec4(color), why)
        imgui.text_colored(vec4(c.dim), f"flags {when}: {flag_text(local, world, executed)}")
        rows = node_details(graph, node_id) + [
            (label, printable(value)) for label, value in host.file_rows(node_id)
        ]
        key_value_table("details", rows, wrap=True)
        peek = graph.peek  # as stored: reading must not execute the marks shown above
        world_matrix, stale = peek.world_matrix(node_id)
        # Folded at first: open, they push the Edit section below a 720-pixel window.
        self.matrices_open = bool(imgui.tree_node("matrices"))
        if not self.matrices_open:
            return
        imgui.tree_pop()
        for title, matrix in (
            ("local matrix", peek.local_matrix(node_id)),
            ("world matrix" + (STALE_NOTE if stale else ""), world_matrix),
        ):
            imgui.text_colored(vec4(c.dim), title)
            for row in matrix_rows(matrix):
                imgui.text(row)

    def _collision(self) -> None:
        """The collision demo: which test ran this frame and its inputs."""
        controls = self.ov.host.controls
        reading = controls.collision_reading if controls is not None else None
        if controls is None or reading is None:
            return
        imgui.set_next_item_open(True, imgui.Cond_.once)
        if not imgui.collapsing_header("Collision"):
            return
        c = self.colors
        if reading.hit:
            imgui.text_colored(vec4(c.local), "overlap: YES (drawn red, the disk paler)")
        else:
            imgui.text("overlap: no")
        imgui.text(f"test: {reading.test}   rectangle at {reading.angle:.1f} deg")
        frame = "world X, Y" if reading.test == "axis-aligned" else "rect frame"
        imgui.text(f"s = {reading.s:+.3f}   t = {reading.t:+.3f}   (disk, {frame})")
        imgui.text(f"size {reading.width:g} x {reading.height:g}   radius {reading.radius:g}")
        imgui.text(f"motion: {controls.collision_mode} (M switches, S stops)")
        if not self.ov.glow_in_view:
            imgui.text_colored(vec4(c.dim), "red in the view: overlap only (glow off here;")
            imgui.text_colored(vec4(c.dim), "the panels' L / W colours mean what they do")
            imgui.text_colored(vec4(c.dim), "everywhere)")

    def _view_settings(self) -> None:
        if not imgui.collapsing_header("View"):
            return
        ov = self.ov
        view = ov.settings
        imgui.set_next_item_width(imgui.get_content_region_avail().x)  # its label inside
        changed, fade = imgui.slider_float("##fade", view.glow_fade, 0.05, 3.0, "glow fade %.2f s")
        if changed:
            view.glow_fade = float(fade)
        flow = Flow()
        flow.place(Flow.check_width("grid (G)"))
        _, view.show_grid = checkbox("grid (G)", view.show_grid)
        flow.place(Flow.check_width("lines (B)"))
        _, view.show_links = checkbox("lines (B)", view.show_links)
        flow.place(Flow.check_width("names (N)"))
        _, ov.show_names = checkbox("names (N)", ov.show_names)
        quiet = "names and lines of nodes that draw nothing"
        short = Flow.check_width(quiet) > imgui.get_content_region_avail().x
        _, view.show_quiet = checkbox("quiet nodes" if short else quiet, view.show_quiet)
        if short and imgui.is_item_hovered():
            imgui.set_tooltip(quiet)
        if checkbox("glow in the view", ov.glow_in_view)[0]:
            ov.glow_in_view = not ov.glow_in_view
        flow = Flow()
        flow.place(imgui.calc_text_size("view:").x)
        imgui.text("view:")
        for style, label in GLOW_STYLE_LABELS:
            flow.place(Flow.check_width(label))
            if imgui.radio_button(label, ov.glow_style == style):
                ov.glow_style = style
        if ov.glow_style == "heat":
            imgui.push_style_color(imgui.Col_.text, vec4(self.colors.dim))
            imgui.text_wrapped("heat: share of the last second or so that recomputed a node")
            imgui.pop_style_color()

    def _keys(self) -> None:
        if not imgui.collapsing_header("Keys"):
            return
        key_value_table("keys", help_window.ROWS, key_color=self.colors.note, wrap=True)
