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
    pending_notes,
    reload_note,
)
from .overlay_state import OverlayState
from .timeline_records import Entry
from .tree_view import TreeView
from .widgets import (
    COLORS,
    Flow,
    ItemRect,
    blank_line,
    button,
    checkbox,
    fitted_line,
    key_value_table,
    message_line,
    vec4,
)

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
        #: The line saying which frame picked on the timeline is on show, as last drawn
        #: (None: the newest).
        self.showing_line: str | None = None
        #: The pending note's line on screen as last drawn (None: nothing pending).
        self.pending_rect: ItemRect | None = None

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
        self._variants()
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
        self._frame_line()
        self._programs()
        room = float(imgui.get_content_region_avail().x)
        controls = host.controls
        touch: Callable[[], None] = _nothing if controls is None else controls.touch_selected
        motion: Callable[[], None] = _nothing if controls is None else controls.toggle_motion
        motion_text = motion_label(controls, room)
        # (label, its other labels, tooltip, action, enabled): each button takes the room
        # of its widest label, so that a press (Pause -> Resume, Motion: on -> off) moves
        # no button to another line and nothing below it.
        buttons: tuple[tuple[str, tuple[str, ...], str, Callable[[], None], bool], ...] = (
            (
                "Resume" if host.paused else "Pause",
                ("Pause", "Resume"),
                "Space: stop the frames here (the view, the panels and the glow hold\n"
                "still), or go on from where they stopped",
                host.toggle_pause,
                True,
            ),
            (
                "Step",
                (),
                ". (paused): run one frame, executing what is pending",
                host.request_step,
                host.paused,
            ),
            (
                "Touch",
                (),
                "T: mark the selected node changed without changing it: it and its\n"
                "subtree are recomputed in the next frame",
                touch,
                controls is not None and host.selected is not None,
            ),
            (
                motion_text,
                ("Motion: on", "Motion: off") if motion_text.startswith("Motion: o") else (),
                "S: start or stop the scene's motions and animation clips"
                if controls is not None and controls.has_motion
                else "no motions or animation clips here: S has nothing to stop",
                motion,
                controls is not None and controls.has_motion,
            ),
        )
        style = imgui.get_style()
        used: float | None = None
        for label, others, tip, action, enabled in buttons:
            width = max(Flow.button_width(text) for text in (label, *others))
            if used is not None and used + style.item_spacing.x + width <= room:
                imgui.same_line()  # on the same line while it fits
                used += style.item_spacing.x + width
            else:
                used = width
            if button(label, tip, enabled=enabled):
                action()
        self._legend()

    def _frame_line(self) -> None:
        """One line: the frame and whether the frames run, or, while a frame picked on the
        timeline (or replayed slowly) is shown, which one; and at its right end the button
        back to live, greyed while live. Nothing below moves as a frame is picked or let
        go, nor as the button comes to life."""
        host, c, pinned = self.ov.host, self.colors, self.ov.pinned
        state = "paused" if host.paused else "running"
        label = "back to live"
        start = imgui.get_cursor_pos_x()
        spacing = imgui.get_style().item_spacing.x
        room = imgui.get_content_region_avail().x - Flow.button_width(label) - spacing
        if pinned is None:
            self.showing_line = None
            fitted_line([f"frame {host.frame}   {state}", f"frame {host.frame}"], c.text, room)
        else:
            self.showing_line = f"showing frame {pinned} (timeline)"
            texts = [
                f"{self.showing_line}; now {host.frame}, {state}",
                self.showing_line,
                f"showing frame {pinned}",
                f"frame {pinned}",
            ]
            fitted_line(texts, c.note, room)
        imgui.same_line(start + room + spacing)
        tip = "show the newest frame again, the timeline and the log following it\n"
        tip += "(] past the last event does it too)"
        if button(label, tip, small=True, enabled=pinned is not None):
            self.ov.pin(None)

    def _legend(self) -> None:
        """The flags' legend in their colours, on as few lines as fit; while nodes are
        marked and not yet executed, the pending note in its place, on as many lines:
        the tree's rows below stay where the pointer found them when a touch marks nodes
        or a step executes them (the tree's L / W / E headers explain the flags
        meanwhile)."""
        c = self.colors
        legend = (
            ("L", "local", c.local),
            ("W", "world", c.world),
            ("E", "to renderer", c.executed),
        )
        room, used, lines = imgui.get_content_region_avail().x, 0.0, 1
        breaks: list[bool] = []
        for letter, what, _ in legend:
            width = imgui.calc_text_size(f"{letter} {what}").x + 12.0
            breaks.append(bool(used and used + width > room))
            if breaks[-1]:
                lines, used = lines + 1, 0.0
            used += width
        if self._flags.pending:
            notes = pending_notes(self._flags.count, self.ov.host.paused)
            self.pending_rect = fitted_line(notes, c.pending)
            for _ in range(lines - 1):
                blank_line()
            return
        self.pending_rect = None
        for (letter, what, color), new_line in zip(legend, breaks, strict=True):
            if new_line:
                imgui.new_line()
            imgui.text_colored(vec4(color), letter)
            imgui.same_line(0.0, 4.0)
            imgui.text_colored(vec4(c.dim), what)
            if imgui.is_item_hovered():
                imgui.set_tooltip(FLAG_TIPS[letter])
            imgui.same_line(0.0, 12.0)
        imgui.new_line()

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

    def _variants(self) -> None:
        """The glTF files' material variants (KHR_materials_variants), one radio button
        each, the files' defaults first: a click draws that variant."""
        canvas = self.ov.canvas
        names = canvas.variant_names
        if not names or not imgui.collapsing_header("Material variants"):
            return
        drawn = canvas.variant
        for k, name in enumerate([None, *names]):
            label = "the file's default" if name is None else printable(name)
            if imgui.radio_button(f"{label}##variant{k}", drawn == name) and drawn != name:
                canvas.set_variant(name)

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
