"""The scene panel's "Edit" section: undo / redo, the inspector and the node actions.

The inspector shows the selected node's local position, rotation (Euler degrees and
quaternion) and scale as fields to type in, with its world values read-only beside
them. A field is committed when its editing ends (Enter, Tab or a click elsewhere), as
one undoable step through the editing room (`viewer.session.commands.SetField`), through the
core's own setters: the edit glows like any other. Below: delete, duplicate, add an
empty child, make a root; the last edit's outcome or refusal, one line; the undo steps.
Below, where the source has files: save as, and the recent files.
"""

from __future__ import annotations

import numpy as np
from imgui_bundle import imgui
from numpy.typing import ArrayLike, NDArray

import viewer.gizmo as gizmo
from viewer.scene.graph import SceneGraph
from viewer.session.commands import AddChild, Command, Delete, Duplicate, Reparent, SetField
from viewer.session.edits import Editing
from viewer.session.source import FileActions
from viewer.text import printable

from .gizmo_view import draw_gizmo
from .model import continuous_euler, watched_values
from .overlay_state import OverlayState
from .tree_view import SHEAR_REMEDY, TreeView
from .widgets import (
    COLORS,
    Flow,
    ItemRect,
    button,
    checkbox,
    input_doubles,
    message_line,
    vec4,
)

#: The inspector's rows: (label, the Node property it edits, how many numbers).
INSPECTOR_ROWS = (
    ("position", "local_position", 3),
    ("rotation (deg)", "local_euler", 3),
    ("quaternion", "local_rotation", 4),
    ("scale", "local_scale", 3),
)
#: The hold edits switch (W) and what it does.
HOLD_LABEL = "hold edits (W)"
HOLD_TIP = (
    "while paused, an edit writes its values and leaves the node and its subtree marked,\n"
    "pending (striped), until Step (.) or a resume executes it; running, edits apply at\n"
    "the next frame either way"
)
#: Undo steps listed at most (the newest).
HISTORY_ROWS = 12


def world_text(values: ArrayLike) -> str:
    """Three decimals, and never "-0.000" for a value that rounds to zero."""
    return (
        "(" + ", ".join(f"{round(v, 3) + 0.0:.3f}" for v in np.asarray(values, dtype=float)) + ")"
    )


class EditSection:
    """Draws the section; keeps what a field holds while it is being typed in."""

    def __init__(self, overlay: OverlayState, tree: TreeView) -> None:
        self.ov = overlay
        self.tree = tree  # the hierarchy table: its keep-world toggle
        self.colors = COLORS
        #: field -> (the graph and node typed for, the numbers being typed)
        self._typing: dict[str, tuple[SceneGraph, int, list[float]]] = {}
        self.save_path: str | None = None  # the "save as" field (None: the scene's file)
        self._save_default: str | None = None  # the file it was filled from: another refills
        self.drawn = False  # whether the section was open at the last frame
        self.gizmo_drawn: gizmo.Handles | None = None  # the handles drawn last (tests)
        #: Screen rectangle (min, max) of each inspector field drawn last, by field (tests).
        self.field_rects: dict[str, ItemRect] = {}
        self.save_rect: ItemRect | None = None  # the "save as" field's, likewise
        self.message_rect: ItemRect | None = None  # the outcome line's, likewise
        self.message: str | None = None  # what the outcome line said last (None: its hint)
        #: Open the section at the next frame (closed at first: the panel stays short).
        self.open_next = False
        #: (node, the Euler triple shown last)
        self._euler_shown: tuple[int, NDArray[np.float64]] | None = None

    def draw_gizmo(self) -> None:
        """The selected node's gizmo over the view; also with the panels hidden (Tab):
        its handles take a drag there too, so they must be seen."""
        ov = self.ov
        editing = ov.host.editing
        if editing is not None:
            self.gizmo_drawn = draw_gizmo(
                ov.host, editing, ov.wnd.size, ov.camera, ov.canvas.bounds
            )

    def draw(self) -> None:
        host = self.ov.host
        editing = host.editing
        if editing is None:
            return
        self.draw_gizmo()
        if self.open_next:
            imgui.set_next_item_open(True, imgui.Cond_.always)
            self.open_next = False
        self.drawn = bool(imgui.collapsing_header("Edit"))
        if not self.drawn:
            return
        done, undone = editing.history.labels()
        flow = Flow()  # side by side where they fit
        flow.place(Flow.button_width("Undo (Ctrl+Z)"))
        undo_tip = "undo the last edit: the whole graph goes back to before it"
        if button("Undo (Ctrl+Z)", undo_tip, enabled=bool(done)):
            editing.undo()
        flow.place(Flow.button_width("Redo (Ctrl+Shift+Z)"))
        if button("Redo (Ctrl+Shift+Z)", "do again the last edit undone", enabled=bool(undone)):
            editing.redo()
        controls = host.controls
        if controls is not None:
            flow.place(Flow.check_width(HOLD_LABEL))
            if checkbox(HOLD_LABEL, controls.hold_edits)[0]:
                controls.toggle_hold_edits()
            if imgui.is_item_hovered():
                imgui.set_tooltip(HOLD_TIP)
        node_id = host.selected
        selected = node_id is not None and host.graph.peek.is_alive(node_id)
        # One line: the last edit's outcome, else the hint in its place (the fields below
        # never move when an outcome comes, goes or changes). A question about the edits
        # (the restart's "press 0 again") takes it while it waits: near the Edit buttons,
        # where the panel's first line is scrolled away.
        self.message = host.messages.question or host.messages.edit
        self.message_rect = message_line(self.message, self.colors.note)
        if self.message_rect is None:
            hint = "local: type, then Enter; world: read-only" if selected else "select a node"
            message_line(hint, self.colors.dim)
        if selected and node_id is not None:
            self._inspector(editing, node_id)
            self._actions(editing, node_id)
        self._history(done, undone)
        files = host.file_actions
        if files is not None:
            self._files(files)

    def _inspector(self, editing: Editing, node_id: int) -> None:
        graph_on_show = self.ov.host.graph
        local, worlds, stale = watched_values(graph_on_show.peek, node_id)
        if self._euler_shown is not None and self._euler_shown[0] == node_id:  # no jumps
            local["local_euler"] = continuous_euler(self._euler_shown[1], local["local_euler"])
        self._euler_shown = (node_id, local["local_euler"])
        for (label, field, _n), world_values in zip(INSPECTOR_ROWS, worlds, strict=True):
            typing = self._typing.get(field)
            shown = typing[2] if typing else [float(v) + 0.0 for v in local[field].tolist()]
            gap = imgui.get_style().item_inner_spacing.x  # the label fits beside the field
            room = imgui.get_content_region_avail().x - imgui.calc_text_size(label).x - gap
            shown_label = f"{label}##{field}"
            if room < 0.6 * imgui.get_content_region_avail().x:  # narrow: the label above
                imgui.text(label)
                room, shown_label = imgui.get_content_region_avail().x, f"##{field}"
            imgui.set_next_item_width(room)
            changed, value = input_doubles(shown_label, shown, "%.4f")
            self.field_rects[field] = (imgui.get_item_rect_min(), imgui.get_item_rect_max())
            if changed:
                graph, typed_for = typing[:2] if typing else (graph_on_show, node_id)
                self._typing[field] = (graph, typed_for, list(value))
            if imgui.is_item_deactivated_after_edit() and field in self._typing:
                # to the node typed for: the click that ends the typing may have
                # selected another (a tree row is drawn, and clicked, before this)
                graph, typed_for, numbers = self._typing.pop(field)
                # Esc ended it: ImGui put the old numbers back (an "edit"), nothing to run
                cancelled = imgui.is_key_down(imgui.Key.escape)
                if not cancelled and graph is graph_on_show and graph.peek.is_alive(typed_for):
                    editing.run(SetField(typed_for, field, tuple(numbers)))
            elif not imgui.is_item_active():
                self._typing.pop(field, None)
            note = " (stale)" if stale else ""
            imgui.push_style_color(imgui.Col_.text, vec4(self.colors.dim))
            imgui.text_wrapped(f"  world{note} {world_text(world_values)}")
            imgui.pop_style_color()

    def _actions(self, editing: Editing, node_id: int) -> None:
        keep = self.tree.keep_world
        flow = Flow()
        actions: tuple[tuple[str, str, Command], ...] = (
            (
                "Delete",
                "remove the selected node and its subtree (Ctrl+Z brings them back)",
                Delete(node_id),
            ),
            ("Duplicate", "copy the selected node and its subtree beside it", Duplicate(node_id)),
            ("Add child", "add a new node under the selected one", AddChild(node_id)),
            (
                "Make root",
                "move the selected node to the top of the hierarchy",
                Reparent(node_id, None, keep, SHEAR_REMEDY),
            ),
        )
        for label, tip, command in actions:
            flow.place(Flow.button_width(label))
            if button(label, tip, small=True):
                editing.run(command)

    def _history(self, done: list[str], undone: list[str]) -> None:
        if not (done or undone):
            imgui.text_disabled("no edits yet")
            return
        imgui.text_colored(
            vec4(self.colors.dim), f"history: {len(done)} done, {len(undone)} undone"
        )
        for label in done[-HISTORY_ROWS:]:
            imgui.bullet_text(printable(label, 80))
        for label in undone[:HISTORY_ROWS]:
            imgui.text_disabled(f"  (undone) {printable(label, 80)}")

    def _files(self, files: FileActions) -> None:
        """Save as (a path; Ctrl+S writes the file the scene came from) and the recent
        files (a click opens one)."""
        default = files.save_suggestion()  # never a bundled scene's own file
        if self.save_path is None or default != self._save_default:  # another file on show
            self.save_path = self._save_default = default
        room = imgui.get_content_region_avail().x
        button_w = Flow.button_width("Save as")
        imgui.set_next_item_width(room - button_w - imgui.get_style().item_spacing.x)
        entered, self.save_path = imgui.input_text(
            "##save_as", self.save_path, imgui.InputTextFlags_.enter_returns_true
        )
        self.save_rect = (imgui.get_item_rect_min(), imgui.get_item_rect_max())  # tests
        imgui.same_line()
        clicked = button("Save as", "write the scene to the path in the field", small=True)
        if entered or clicked:  # Enter in the field saves as the button does
            files.save(self.save_path)
        paths = list(files.recent_paths)
        if paths:
            imgui.text_colored(vec4(self.colors.dim), "recent files (click to open):")
        for k, path in enumerate(paths):
            tip = f"open {printable(str(path), 200)}"
            if button(f"{printable(path.name, 60)}##recent{k}", tip, small=True):
                files.request_open(path)
