"""The scene panel's hierarchy table: one row per node with its L / W / E flags.

Rows are built once per structure (`model.TreeRows`, pre-order); which rows show follows
the open rows this view keeps (`visible_rows`: the pre-order with every closed row's
subtree left out), worked out again only when the structure or an open state changed.
Per frame ImGui's list clipper lays out and draws only the rows in the table's view, so
a million rows cost what the few dozen on screen cost. A click selects, and a selection
made in the 3D view opens the rows above it and scrolls to it. Dragging a row onto
another re-parents it there; dropping it on a row's top or bottom edge (`EDGE` of its
height) places it before or after that row, under that row's parent (`drop_zone`; the
bottom edge of an open row with children makes it the first child instead, where the
line is drawn). Each is one undoable edit, keeping the world pose while the toggle above
the table is on; a move into its own subtree is refused with the core's one-line reason.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from imgui_bundle import imgui
from numpy.typing import NDArray

from viewer.scene.graph import SceneGraph
from viewer.session.commands import Command, Place, Reparent
from viewer.text import printable

from .model import FLAG_TIPS, Flags, TreeRows, ancestors, flag_text
from .overlay_state import OverlayState
from .widgets import COLORS, ItemRect, checkbox, cut_to_width, vec4

#: The edit a drop makes, given whether the world pose is kept.
DropEdit = Callable[[bool], Command]

#: A tree of at most this many rows showing lays them all out, scrolled out of view or
#: not (what was drawn stays whole for tests and screenshots); a bigger one only those
#: in view.
ALL_ROWS_UP_TO = 100
#: Below this width (pixels) the tree indents its levels by `NARROW_INDENT` pixels
#: instead of ImGui's 21, so deep rows keep room for their names.
NARROW_TREE_PX = 260
NARROW_INDENT = 9.0
#: Never less indent per level than this (pixels), however deep the tree.
LEAST_INDENT = 3.0
#: How many characters of a name the deepest row keeps room for (with "..." after).
NAME_START_CHARS = 4
#: The keep-world toggle's label, and how re-parenting by drag works (beside it).
KEEP_WORLD_LABEL = "keep world pose on drop"
DROP_HINT = "drag a row onto a row, or its edge"
#: What a user can do in the window when keeping the world pose would need shear.
SHEAR_REMEDY = f"untick '{KEEP_WORLD_LABEL}' to move it anyway"
#: The ImGui drag-and-drop payload type of a dragged row (its node id).
ROW_PAYLOAD = "SGVIEW_NODE"
#: The part of a row's height, at its top and at its bottom, where a drop places the
#: node beside the row instead of under it.
EDGE = 0.3


#: A stale row's tooltip.
STALE_TIP = (
    "stale: its world matrix, as the program holds it (and sgview draws it),\n"
    "differs from its parent's world x its local matrix (the Selected node\n"
    "section shows both)"
)


#: A held row's tooltip (the reason follows it).
HELD_TIP = (
    "held: its world matrix differs from its parent's world x its local matrix\n"
    "because the program's engine keeps it so, as the program said (the Selected\n"
    "node section shows both); the program's reason: "
)
#: A held reason's longest form beside a name.
HELD_SHOWN = 24


def row_indent(depth: int, deepest: int, column: float, name_room: float, normal: float) -> float:
    """Pixels to indent a row at ``depth`` in a name ``column`` that many pixels wide:
    ``normal`` per level while the deepest row (``deepest``) still keeps ``name_room``
    pixels for its name; less per level (down to `LEAST_INDENT`) when it would not; and
    never so much that this row keeps less than ``name_room`` (deeper rows then line up
    at that indent), so every level shows a readable start of its name."""
    spare = max(0.0, column - name_room)
    per_level = normal if deepest * normal <= spare else max(LEAST_INDENT, spare / deepest)
    return min(depth * per_level, spare)


def drop_zone(y: float, top: float, bottom: float) -> str:
    """Where a drop at height ``y`` on a row spanning ``top``..``bottom`` puts the node:
    "before" (top edge), "after" (bottom edge) or "onto" (the middle: a child)."""
    edge = EDGE * (bottom - top)
    if y < top + edge:
        return "before"
    if y > bottom - edge:
        return "after"
    return "onto"


def visible_rows(tree: TreeRows, open_rows: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Indexes into `tree` of the rows that show, in order: every row but those inside
    the subtree of a row with children that is not open (`open_rows`: [n] bool by row)."""
    n = len(tree)
    closed = np.flatnonzero(tree.has_children & ~open_rows)
    cover = np.zeros(n + 1, dtype=np.int64)  # +1 where a hidden span starts, -1 past it
    np.add.at(cover, closed + 1, 1)
    np.add.at(cover, tree.ends[closed], -1)
    return np.flatnonzero(np.cumsum(cover[:n]) == 0)


class TreeView:
    """The hierarchy table of one overlay (what it drew last is kept for tests)."""

    def __init__(self, overlay: OverlayState) -> None:
        self.ov = overlay
        self.colors = COLORS
        #: Re-parenting by drag keeps the world pose (the toggle above the table).
        self.keep_world = True
        self.reset()

    def reset(self) -> None:
        self._tree: TreeRows | None = None
        self._tree_key: tuple[int, int, int, int] | None = None
        self._seen_selected: int | None = None
        self._reveal: int | None = None  # node to open and scroll to
        #: Screen rectangle (min, max) of each row drawn at the last frame, by node id.
        self.row_rects: dict[int, ItemRect] = {}
        #: Why the last drop was refused (the status line says it), None after a good one.
        self.drop_refused: str | None = None
        #: The graph whose row is being dragged: a drop names its node by id, which
        #: means another node once a reload or an opened file replaced the graph.
        self._dragged_from: SceneGraph | None = None
        #: The rows as drawn at the last frame: (name, "L W E" flags text).
        self.tree_drawn: list[tuple[str, str]] = []
        #: Rows drawn fading at the last frame (an earlier frame's glow): name -> frames ago.
        self.fading_drawn: dict[str, int] = {}
        #: Rows drawn marked stale at the last frame (a connected program's), by name.
        self.stale_drawn: list[str] = []
        self.held_drawn: list[str] = []
        #: Ids of the rows open (their children show), kept across structure changes.
        self._open: set[int] = set()
        self._visible: NDArray[np.int64] | None = None  # `visible_rows`, None: to work out

    def follow_selection(self, selected: int | None) -> None:
        """A selection made elsewhere: open the rows above it and scroll to it."""
        if selected != self._seen_selected:
            self._reveal = selected
            self._seen_selected = selected

    def rows(self) -> TreeRows:
        graph = self.ov.host.graph
        key = (id(graph), int(graph.capacity_ids), len(graph), self._structure_version())
        if self._tree is None or key != self._tree_key:
            before = None if self._tree_key is None or self._tree_key[0] != key[0] else self._tree
            self._tree = TreeRows(graph)
            self._tree_key = key
            self._open_new_rows(self._tree, before)
        return self._tree

    def _open_new_rows(self, tree: TreeRows, before: TreeRows | None) -> None:
        """Open the rows of `tree` new since `before` (all of them for another graph) that
        open by default: every row of a small scene, the roots of a big one."""
        new: NDArray[np.bool_] = np.ones(len(tree), dtype=np.bool_)
        if before is None:
            self._open = set()
        else:
            new = ~np.isin(tree.ids, before.ids)
        default = tree.has_children & new & (tree.open_all | (tree.depths == 0))
        self._open.update(tree.ids[default].tolist())
        self._visible = None

    def visible(self) -> NDArray[np.int64]:
        """Indexes into `rows()` of the rows that show (worked out once per change)."""
        tree = self.rows()
        shown = self._visible
        if shown is None:
            opened = np.isin(tree.ids, np.fromiter(self._open, np.int64, len(self._open)))
            shown = self._visible = visible_rows(tree, opened)
        return shown

    def set_open(self, node_id: int, opened: bool) -> None:
        """Open or close the row of `node_id` (its children show or not)."""
        if (node_id in self._open) != opened:
            (self._open.add if opened else self._open.discard)(node_id)
            self._visible = None

    def _structure_version(self) -> int:
        """Changes whenever a frame re-parented, added or removed nodes."""
        return self.ov.timeline.structure_changes

    def draw(self, height: float, dirty: Flags) -> None:
        host = self.ov.host
        tree = self.rows()
        graph = host.graph
        row_h = imgui.get_text_line_height_with_spacing() + 2.0
        want = (min(len(tree), 400) + 1) * row_h + 6.0
        table_h = float(min(want, max(140.0, 0.42 * height)))
        table_flags = (
            imgui.TableFlags_.scroll_y
            | imgui.TableFlags_.row_bg
            | imgui.TableFlags_.borders_outer
            | imgui.TableFlags_.sizing_stretch_prop
        )
        self.row_rects = {}
        self.tree_drawn = []
        self.fading_drawn = {}
        self.stale_drawn = []
        self.held_drawn = []
        editing = host.editing
        if editing is not None:  # (a source without editing has no drops)
            narrow_panel = imgui.get_content_region_avail().x < 2 * NARROW_TREE_PX
            very_narrow = imgui.get_content_region_avail().x < NARROW_TREE_PX
            label = "keep world pose" if very_narrow else KEEP_WORLD_LABEL
            _, self.keep_world = checkbox(label, self.keep_world)
            if narrow_panel:  # no room beside it: the hint shows on hover
                if imgui.is_item_hovered():
                    imgui.set_tooltip(f"{KEEP_WORLD_LABEL}: {DROP_HINT}")
            else:
                imgui.same_line()
                imgui.text_disabled(f"({DROP_HINT})")
        # A narrow panel (a notebook's view, a small window) indents less, so the names
        # of deep rows still show beside their flags.
        narrow = imgui.get_content_region_avail().x < NARROW_TREE_PX
        indent = NARROW_INDENT if narrow else imgui.get_style().indent_spacing
        if not imgui.begin_table("tree", 4, table_flags, imgui.ImVec2(0.0, table_h)):
            return
        fixed = imgui.TableColumnFlags_.width_fixed
        imgui.table_setup_scroll_freeze(0, 1)
        imgui.table_setup_column("node", imgui.TableColumnFlags_.width_stretch)
        for letter in "LWE":
            imgui.table_setup_column(letter, fixed, imgui.calc_text_size("W").x + 6.0)
        imgui.table_next_row(imgui.TableRowFlags_.headers)
        for column, name in enumerate(("node", "L", "W", "E")):  # headers that explain
            imgui.table_set_column_index(column)
            imgui.table_header(name)
            if imgui.is_item_hovered():
                imgui.set_tooltip(FLAG_TIPS[name])

        reveal_at = None  # the position among the shown rows of the row to scroll to
        reveal_row = tree.row(self._reveal) if self._reveal is not None else None
        if self._reveal is not None and reveal_row is not None:
            for above in ancestors(graph.peek.parents(), self._reveal):
                self.set_open(above, True)
            reveal_at = int(np.searchsorted(self.visible(), reveal_row))
        shown_rows = self.visible()
        toggled: list[tuple[int, bool]] = []  # applied after the loop: the rows stay put
        dropped: DropEdit | None = None
        clipper = imgui.ListClipper()
        clipper.begin(len(shown_rows))
        if len(shown_rows) <= ALL_ROWS_UP_TO:  # a small tree: every row, as cheap
            clipper.include_items_by_index(0, len(shown_rows))
        if reveal_at is not None:
            clipper.include_item_by_index(reveal_at)
        while clipper.step():  # only the rows in the table's view
            for r in shown_rows[clipper.display_start : clipper.display_end].tolist():
                dropped = self._draw_row(tree, r, dirty, indent, toggled) or dropped
        clipper.end()
        imgui.end_table()
        for node_id, opened in toggled:
            self.set_open(node_id, opened)
        if dropped is not None and self._dragged_from is not graph:
            self.drop_refused = "not moved: the scene was replaced while the row was dragged"
            host.messages.refuse(self.drop_refused)  # said in the status line, as all refusals
        elif dropped is not None and editing is not None:
            done = editing.run(dropped(self.keep_world))
            self.drop_refused = None if done else host.messages.edit
        if self._reveal is not None and tree.row(self._reveal) is None:
            self._reveal = None

    def _draw_row(
        self,
        tree: TreeRows,
        r: int,
        dirty: Flags,
        indent: float,
        toggled: list[tuple[int, bool]],
    ) -> DropEdit | None:
        """Row `r` of `tree`, indented `indent` pixels per level: its name (a tree node
        that opens and closes, selects on a click and drags) and its L / W / E flags.
        Returns the edit of a row dropped on it this frame; a toggle goes to `toggled`."""
        host, c = self.ov.host, self.colors
        node_id, depth = int(tree.ids[r]), int(tree.depths[r])
        local, world, executed = dirty.of(node_id)
        imgui.table_next_row()
        imgui.table_next_column()
        flags = imgui.TreeNodeFlags_.open_on_arrow | imgui.TreeNodeFlags_.open_on_double_click
        flags |= imgui.TreeNodeFlags_.span_all_columns | imgui.TreeNodeFlags_.no_tree_push_on_open
        leaf = not tree.has_children[r]
        is_open = not leaf and node_id in self._open
        if leaf:
            flags |= imgui.TreeNodeFlags_.leaf
        else:
            imgui.set_next_item_open(is_open, imgui.Cond_.always)
        if node_id == host.selected:
            flags |= imgui.TreeNodeFlags_.selected
        spacing = imgui.get_tree_node_to_label_spacing()
        name_room = spacing + imgui.calc_text_size("0" * NAME_START_CHARS + "...").x
        column = imgui.get_content_region_avail().x  # the name column, not indented yet
        pad = row_indent(depth, tree.deepest, column, name_room, indent)
        if pad:
            imgui.indent(pad)  # the level's indent (the flag columns have none)
        stale = dirty.is_stale(node_id)
        color = c.local if local else c.world if world else c.stale if stale else c.text
        imgui.push_style_color(imgui.Col_.text, vec4(color))
        label = printable(host.graph.peek.name_of(node_id))  # names come from files
        room = imgui.get_content_region_avail().x - spacing
        shown = cut_to_width(label, room)  # never over the flag columns
        opened = bool(imgui.tree_node_ex(f"{shown}##{node_id}", flags))
        imgui.pop_style_color()
        if not leaf and opened != is_open:
            toggled.append((node_id, opened))
        self.row_rects[node_id] = (imgui.get_item_rect_min(), imgui.get_item_rect_max())
        self.tree_drawn.append((label, flag_text(local, world, executed)))
        first_child = int(tree.ids[r + 1]) if is_open else None
        dropped = self._drag_and_drop(node_id, label, first_child)
        if shown != label and imgui.is_item_hovered():
            imgui.set_tooltip(label)  # the whole name
        if imgui.is_item_clicked() and not imgui.is_item_toggled_open():
            host.select(node_id)
            self._seen_selected = node_id  # chosen here: no need to scroll
        if self._reveal == node_id:
            imgui.set_scroll_here_y(0.5)
            self._reveal = None
        fade = dirty.fading.get(node_id)
        if fade is not None:  # clean now, glowing from `age` frames ago: it fades
            age, strength, own = fade
            self.fading_drawn[label] = age
            local, world, executed = own, True, True
            note, gap = f"{age} ago", imgui.get_style().item_spacing.x
            if imgui.calc_text_size(shown).x + gap + imgui.calc_text_size(note).x <= room:
                imgui.same_line()
                imgui.text_disabled(note)  # where it fits beside the name
                if imgui.is_item_hovered():
                    imgui.set_tooltip(f"recomputed {age} frame{'s' * (age != 1)} ago")
        if stale:
            self.stale_drawn.append(label)
            note, gap = "stale", imgui.get_style().item_spacing.x
            if imgui.calc_text_size(shown).x + gap + imgui.calc_text_size(note).x <= room:
                imgui.same_line()
                imgui.text_colored(vec4(c.stale), note)
            if imgui.is_item_hovered():
                imgui.set_tooltip(STALE_TIP)
        why = dirty.held.get(node_id)
        if why is not None:
            note = f"held ({printable(why, HELD_SHOWN)})"  # the program's text, escaped
            self.held_drawn.append(f"{label} {note}")
            gap = imgui.get_style().item_spacing.x
            if imgui.calc_text_size(shown).x + gap + imgui.calc_text_size(note).x <= room:
                imgui.same_line()
                imgui.text_disabled(note)
            if imgui.is_item_hovered():
                imgui.set_tooltip(HELD_TIP + printable(why, 64))
        if pad:
            imgui.unindent(pad)
        for on, letter, on_color in (
            (local, "L", c.local),
            (world, "W", c.world),
            (executed, "E", c.executed),
        ):
            imgui.table_next_column()
            if on and fade is not None:
                on_color = (*on_color[:3], 0.25 + 0.75 * fade[1])
            imgui.text_colored(vec4(on_color if on else c.off), letter if on else ".")
        return dropped

    def _drag_and_drop(self, node_id: int, label: str, first_child: int | None) -> DropEdit | None:
        """The row just drawn as a drag source and a drop target: the edit (a command
        given keep-world) when a row was dropped on it this frame. While a
        row hovers, a line shows where a drop on an edge would put it."""
        if self.ov.host.editing is None:
            return None
        if imgui.begin_drag_drop_source():
            self._dragged_from = self.ov.host.graph
            imgui.set_drag_drop_payload_py_id(ROW_PAYLOAD, node_id)
            imgui.text(f"move {label}: onto a row (child) or its edge (beside it)")
            imgui.end_drag_drop_source()
        dropped = None
        if imgui.begin_drag_drop_target():
            flags = imgui.DragDropFlags_.accept_before_delivery
            flags |= imgui.DragDropFlags_.accept_no_draw_default_rect
            payload = imgui.accept_drag_drop_payload_py_id(ROW_PAYLOAD, flags)
            if payload is not None and int(payload.data_id) != node_id:
                top, bottom = self.row_rects[node_id]
                zone = drop_zone(imgui.get_mouse_pos().y, top.y, bottom.y)
                self._show_drop(zone, top, bottom)
                if not imgui.is_mouse_down(imgui.MouseButton_.left):  # released: delivered
                    dropped = self._drop_edit(int(payload.data_id), node_id, zone, first_child)
            imgui.end_drag_drop_target()
        return dropped

    @staticmethod
    def _drop_edit(dragged: int, row: int, zone: str, first_child: int | None) -> DropEdit:
        """The edit a drop in ``zone`` of ``row`` makes (see the module notes), as a
        command for a keep-world setting."""
        if zone == "onto":
            return partial(Reparent, dragged, row, shear_remedy=SHEAR_REMEDY)
        if zone == "after" and first_child is not None:  # the line is above its children
            return partial(Place, dragged, first_child, "before", shear_remedy=SHEAR_REMEDY)
        return partial(Place, dragged, row, zone, shear_remedy=SHEAR_REMEDY)

    def _show_drop(self, zone: str, top: imgui.ImVec2, bottom: imgui.ImVec2) -> None:
        """A frame around the row (a drop makes a child) or a line on its edge."""
        draw = imgui.get_window_draw_list()
        color = imgui.get_color_u32(vec4(self.colors.world))
        if zone == "onto":
            draw.add_rect(top, bottom, color, 0.0, 0, 2.0)
            return
        y = top.y if zone == "before" else bottom.y
        draw.add_line(imgui.ImVec2(top.x, y), imgui.ImVec2(bottom.x, y), color, 3.0)
