"""The two Dear ImGui panels of the overlay; what they show comes from `model.py`.

Left, "Scene graph": the frame and the run controls, the hierarchy as a tree with each
node's L / W / E flags for the frame shown (in the glow colours; a click selects the node,
and selecting in the view opens and scrolls the tree to it), the selected node's values,
matrices and "dirty because of", the view settings and the keys. Right, "Frames": the
timeline of the last few hundred frames (a click shows that frame's report everywhere),
the frame's counters, and the frame log in the format of SEMANTICS.md section 3.

ImGui notes: tree nodes start collapsed, so rows are opened once with
``set_next_item_open(True, Cond_.once)``; moderngl-window's integration drops a mouse
press and release that arrive within one frame (hold a click for a frame or two).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from imgui_bundle import imgui

from viewer.render.renderer import GLOW_LOCAL, GLOW_WORLD
from viewer.text import printable

from .model import (
    Flags,
    TreeRows,
    ancestors,
    cause_text,
    flag_text,
    matrix_rows,
    node_details,
    panel_widths,
    timeline_index,
)
from .stats import counter_rows

#: Rows the tree lists at most in one frame (a huge scene stays responsive).
MAX_TREE_ROWS = 1000
TIMELINE_HEIGHT = 54.0
LOG_LINES = 4000


@dataclass(frozen=True)
class Colors:
    local: tuple = (*GLOW_LOCAL, 1.0)
    world: tuple = (*GLOW_WORLD, 1.0)
    executed: tuple = (0.62, 0.78, 1.0, 1.0)
    off: tuple = (0.42, 0.44, 0.50, 1.0)
    text: tuple = (0.92, 0.93, 0.96, 1.0)
    dim: tuple = (0.62, 0.64, 0.70, 1.0)
    note: tuple = (1.0, 0.9, 0.45, 1.0)


def _vec4(c) -> imgui.ImVec4:
    return imgui.ImVec4(*c)


def _u32(c) -> int:
    return imgui.get_color_u32(imgui.ImVec4(*c))


class Panel:
    """Draws the panels each frame (between ``imgui.new_frame`` and ``imgui.render``)."""

    colors = Colors()

    def __init__(self, overlay):
        self.ov = overlay
        self.reset()

    def reset(self) -> None:
        self._tree: TreeRows | None = None
        self._tree_key: tuple | None = None
        self._flags = Flags.none()
        self._flags_frame: int | None = None
        self._seen_selected: int | None = None
        self._reveal: int | None = None  # node to open and scroll to in the tree
        self._log_end = None  # (frame, lines) of the log's last block at the last draw
        self._log_scroll_to: int | None = None
        #: The log widget's text as drawn at the last frame: (frame, lines) blocks, each
        #: ``# frame N`` and that frame's log lines (tests compare it with the report).
        self.log_blocks: list[tuple[int, list[str]]] = []
        #: Screen rectangle (min, max) of each tree row drawn at the last frame, by node id.
        self.row_rects: dict[int, tuple] = {}
        #: The timeline's (x, y, width, height) on screen at the last frame.
        self.timeline_rect: tuple[float, float, float, float] | None = None
        #: The tree's rows as drawn at the last frame: (name, "L W E" flags text).
        self.tree_drawn: list[tuple[str, str]] = []

    # -- the frame -----------------------------------------------------------------------
    def draw(self) -> None:
        host = self.ov.host
        width, height = self.ov.wnd.size
        left, right = panel_widths(width)
        selected = host.renderer.selected
        if selected != self._seen_selected:
            self._reveal = selected
            self._seen_selected = selected
        entry = self.ov.shown_entry
        self._update_flags(entry)
        flags = imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize
        flags |= imgui.WindowFlags_.no_collapse | imgui.WindowFlags_.no_saved_settings

        imgui.set_next_window_pos(imgui.ImVec2(0, 0))
        imgui.set_next_window_size(imgui.ImVec2(left, height))
        imgui.begin("Scene graph   (Tab hides)", None, flags)
        self._status(entry)
        self._tree_table(height)
        self._selected(entry)
        self._collision()
        self._view_settings()
        self._keys()
        imgui.end()

        imgui.set_next_window_pos(imgui.ImVec2(width - right, 0))
        imgui.set_next_window_size(imgui.ImVec2(right, height))
        imgui.begin("Frames", None, flags)
        self._timeline()
        self._counters(entry)
        self._log()
        imgui.end()

    def _update_flags(self, entry) -> None:
        frame = None if entry is None else entry.frame
        if frame == self._flags_frame and self._flags_frame is not None:
            return
        self._flags_frame = frame
        if entry is None or entry.report is None:
            self._flags = Flags.none()
        else:
            self._flags = Flags.of_report(entry.report, int(self.ov.host.graph.capacity_ids))

    # -- left panel ----------------------------------------------------------------------
    def _status(self, entry) -> None:
        host, c = self.ov.host, self.colors
        imgui.text(f"frame {host.frame}   " + ("paused" if host.paused else "running"))
        error = getattr(host, "reload_error", None)
        if error:
            imgui.push_style_color(imgui.Col_.text, _vec4(c.local))
            imgui.text_wrapped(f"reload failed, showing the last good scene: {error}")
            imgui.pop_style_color()
        if self.ov.pinned is not None:
            imgui.text_colored(_vec4(c.note), f"showing frame {self.ov.pinned} (timeline)")
            imgui.same_line()
            if imgui.small_button("back to live"):
                self.ov.pin(None)
        buttons = (
            ("Resume" if host.paused else "Pause", host.toggle_pause, True),
            ("Step", host.request_step, host.paused),
            ("Touch", host.touch_selected, host.renderer.selected is not None),
            ("Motion: on" if host.motion_on else "Motion: off", host.toggle_motion, True),
        )
        style = imgui.get_style()
        room, used = imgui.get_content_region_avail().x, None
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
        # Legend of the flags, in their colours.
        for letter, what, color in (
            ("L", "local", c.local),
            ("W", "world", c.world),
            ("E", "to renderer", c.executed),
        ):
            imgui.text_colored(_vec4(color), letter)
            imgui.same_line(0.0, 4.0)
            imgui.text_colored(_vec4(c.dim), what)
            imgui.same_line(0.0, 12.0)
        imgui.new_line()

    def _tree_rows(self) -> TreeRows:
        graph = self.ov.host.graph
        key = (id(graph), int(graph.capacity_ids), len(graph), self._structure_version())
        if self._tree is None or key != self._tree_key:
            self._tree = TreeRows(graph)
            self._tree_key = key
        return self._tree

    def _structure_version(self) -> int:
        """Changes whenever a frame re-parented, added or removed nodes."""
        return sum(
            1 for e in self.ov.history if e.report is not None and e.report.structure_changed
        )

    def _tree_table(self, height: float) -> None:
        host, c = self.ov.host, self.colors
        tree = self._tree_rows()
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
        if not imgui.begin_table("tree", 4, table_flags, imgui.ImVec2(0.0, table_h)):
            return
        fixed = imgui.TableColumnFlags_.width_fixed
        imgui.table_setup_scroll_freeze(0, 1)
        imgui.table_setup_column("node", imgui.TableColumnFlags_.width_stretch)
        for letter in "LWE":
            imgui.table_setup_column(letter, fixed, imgui.calc_text_size("W").x + 6.0)
        imgui.table_headers_row()

        selected = host.renderer.selected
        reveal = set()
        if self._reveal is not None and self._reveal in tree.row_of:
            reveal = set(ancestors(graph.parents(), self._reveal))
        base = imgui.TreeNodeFlags_.open_on_arrow | imgui.TreeNodeFlags_.open_on_double_click
        base |= imgui.TreeNodeFlags_.span_all_columns
        stack: list[int] = []
        r, rows, n = 0, 0, len(tree)
        ids, depths, ends, has_children = tree.ids, tree.depths, tree.ends, tree.has_children
        while r < n and rows < MAX_TREE_ROWS:
            node_id, depth = int(ids[r]), int(depths[r])
            while stack and stack[-1] >= depth:
                imgui.tree_pop()
                stack.pop()
            local, world, executed = self._flags.of(node_id)
            imgui.table_next_row()
            imgui.table_next_column()
            flags = base
            leaf = not has_children[r]
            if leaf:
                flags |= imgui.TreeNodeFlags_.leaf | imgui.TreeNodeFlags_.no_tree_push_on_open
            if node_id == selected:
                flags |= imgui.TreeNodeFlags_.selected
            if not leaf:
                if node_id in reveal:
                    imgui.set_next_item_open(True, imgui.Cond_.always)
                elif tree.open_all or depth == 0:
                    imgui.set_next_item_open(True, imgui.Cond_.once)
            color = c.local if local else c.world if world else c.text
            imgui.push_style_color(imgui.Col_.text, _vec4(color))
            label = printable(graph.name_of(node_id))
            opened = imgui.tree_node_ex(f"{label}##{node_id}", flags)
            imgui.pop_style_color()
            self.row_rects[node_id] = (imgui.get_item_rect_min(), imgui.get_item_rect_max())
            self.tree_drawn.append((label, flag_text(local, world, executed)))
            if imgui.is_item_clicked() and not imgui.is_item_toggled_open():
                host.select(node_id)
                self._seen_selected = node_id  # chosen here: no need to scroll
            if self._reveal == node_id:
                imgui.set_scroll_here_y(0.5)
                self._reveal = None
            for on, letter, on_color in (
                (local, "L", c.local),
                (world, "W", c.world),
                (executed, "E", c.executed),
            ):
                imgui.table_next_column()
                imgui.text_colored(_vec4(on_color if on else c.off), letter if on else ".")
            rows += 1
            if not leaf and opened:
                stack.append(depth)
                r += 1
            elif not leaf:
                r = int(ends[r])
            else:
                r += 1
        while stack:
            imgui.tree_pop()
            stack.pop()
        if r < n:
            imgui.table_next_row()
            imgui.table_next_column()
            imgui.text_disabled(f"... first {MAX_TREE_ROWS} rows shown")
        imgui.end_table()
        if self._reveal is not None and self._reveal not in tree.row_of:
            self._reveal = None

    def _selected(self, entry) -> None:
        c = self.colors
        if not imgui.collapsing_header("Selected node", imgui.TreeNodeFlags_.default_open):
            return
        host = self.ov.host
        node_id = host.renderer.selected
        graph = host.graph
        if node_id is None or self._tree_rows().row_of.get(node_id) is None:
            imgui.text_disabled("click a node in the view or in the tree")
            return
        frame = entry.frame if entry is not None else host.frame
        report = entry.report if entry is not None else None
        why = cause_text(report, node_id, frame) if entry is not None else "no frame yet"
        local, world, executed = self._flags.of(node_id)
        color = c.local if local else c.world if world else c.dim
        imgui.text_colored(_vec4(color), why)
        imgui.text_colored(
            _vec4(c.dim), f"flags in frame {frame}: {flag_text(local, world, executed)}"
        )
        details = node_details(graph, node_id)
        if imgui.begin_table("details", 2, imgui.TableFlags_.sizing_fixed_fit):
            for label, value in details:
                imgui.table_next_row()
                imgui.table_next_column()
                imgui.text_colored(_vec4(c.dim), label)
                imgui.table_next_column()
                imgui.text(value)
            imgui.end_table()
        node = graph.node(node_id)
        for title, matrix in (
            ("local matrix", node.local_matrix),
            ("world matrix", node.world_matrix),
        ):
            imgui.text_colored(_vec4(c.dim), title)
            for row in matrix_rows(matrix):
                imgui.text(row)

    def _collision(self) -> None:
        """The collision demo: which test ran this frame and its inputs."""
        host = self.ov.host
        reading = getattr(host, "collision_reading", None)
        if reading is None:
            return
        imgui.set_next_item_open(True, imgui.Cond_.once)
        if not imgui.collapsing_header("Collision"):
            return
        c = self.colors
        if reading.hit:
            imgui.text_colored(_vec4(c.local), "overlap: YES (both drawn red)")
        else:
            imgui.text("overlap: no")
        imgui.text(f"test: {reading.test}   rectangle at {reading.angle:.1f} deg")
        imgui.text(f"s = {reading.s:+.3f}   t = {reading.t:+.3f}   (disk in rect frame)")
        imgui.text(f"size {reading.width:g} x {reading.height:g}   radius {reading.radius:g}")
        imgui.text(f"motion: {host.collision.mode} (M switches, S stops)")

    def _view_settings(self) -> None:
        if not imgui.collapsing_header("View"):
            return
        ov, host = self.ov, self.ov.host
        changed, fade = imgui.slider_float("glow fade (s)", ov.highlight.fade, 0.05, 3.0, "%.2f")
        if changed:
            ov.highlight.fade = float(fade)
        renderer = host.renderer
        _, renderer.show_grid = imgui.checkbox("grid (G)", renderer.show_grid)
        imgui.same_line()
        _, renderer.show_links = imgui.checkbox("lines (B)", renderer.show_links)
        imgui.same_line()
        _, ov.show_names = imgui.checkbox("names (N)", ov.show_names)
        if imgui.checkbox("glow in the view", ov.glow_in_view)[0]:
            ov.glow_in_view = not ov.glow_in_view
            ov.push()

    def _keys(self) -> None:
        if not imgui.collapsing_header("Keys"):
            return
        if imgui.begin_table("keys", 2, imgui.TableFlags_.sizing_fixed_fit):
            for key, what in self.ov.key_help:
                imgui.table_next_row()
                imgui.table_next_column()
                imgui.text_colored(_vec4(self.colors.note), key)
                imgui.table_next_column()
                imgui.text_wrapped(what)
            imgui.end_table()

    # -- right panel ---------------------------------------------------------------------
    def _timeline(self) -> None:
        c, ov = self.colors, self.ov
        history = ov.history
        frames, local, world = history.counts()
        imgui.text_colored(_vec4(c.dim), "timeline (click a frame)")
        avail = imgui.get_content_region_avail().x
        origin = imgui.get_cursor_screen_pos()
        imgui.invisible_button("timeline", imgui.ImVec2(max(avail, 1.0), TIMELINE_HEIGHT))
        self.timeline_rect = (origin.x, origin.y, avail, TIMELINE_HEIGHT)
        hovered, clicked = imgui.is_item_hovered(), imgui.is_item_clicked()
        draw = imgui.get_window_draw_list()
        x0, y0 = origin.x, origin.y
        y1 = y0 + TIMELINE_HEIGHT
        draw.add_rect_filled(origin, imgui.ImVec2(x0 + avail, y1), _u32((0.0, 0.0, 0.0, 0.45)))
        n = len(frames)
        slot = avail / max(history.capacity, 1)
        top = float(max(int(world.max()) if n else 1, 1))
        world_col, local_col = _u32(c.world), _u32(c.local)
        for i in np.flatnonzero(world).tolist():
            xa = x0 + i * slot
            xb = xa + max(slot, 1.0)
            h = max(1.0, (TIMELINE_HEIGHT - 2.0) * world[i] / top)
            draw.add_rect_filled(imgui.ImVec2(xa, y1 - h), imgui.ImVec2(xb, y1), world_col)
            if local[i]:
                hl = max(1.0, (TIMELINE_HEIGHT - 2.0) * local[i] / top)
                draw.add_rect_filled(imgui.ImVec2(xa, y1 - hl), imgui.ImVec2(xb, y1), local_col)
        shown = ov.shown_entry
        if shown is not None and n:
            i = int(np.searchsorted(frames, shown.frame))
            xa = x0 + i * slot
            draw.add_rect(
                imgui.ImVec2(xa - 1.0, y0), imgui.ImVec2(xa + max(slot, 1.0) + 1.0, y1),
                _u32(c.note if ov.pinned is not None else c.text),
            )  # fmt: skip
        if hovered and n:
            i = timeline_index(imgui.get_mouse_pos().x, x0, slot * n, n)
            if i is not None:
                imgui.set_tooltip(f"frame {frames[i]}: {local[i]} local, {world[i]} world")
                if clicked:
                    ov.pin(int(frames[i]))
        span = f"frames {frames[0]} to {frames[-1]}" if n else "no frames yet"
        imgui.text_colored(_vec4(c.dim), span)

    def _counters(self, entry) -> None:
        c, ov = self.colors, self.ov
        if not imgui.collapsing_header("Counters", imgui.TreeNodeFlags_.default_open):
            return
        if entry is None:
            imgui.text_disabled("no frame yet")
            return
        imgui.text_colored(_vec4(c.dim), f"frame {entry.frame}")
        if imgui.begin_table("counters", 2, imgui.TableFlags_.sizing_fixed_fit):
            for label, value in counter_rows(entry.stats):
                imgui.table_next_row()
                imgui.table_next_column()
                imgui.text_colored(_vec4(c.dim), label)
                imgui.table_next_column()
                imgui.text(value)
            imgui.end_table()
        if ov.deterministic:
            imgui.text_colored(_vec4(c.dim), "times: not shown headless")
        else:
            imgui.text(ov.timings.row())
            fps = "paused" if ov.host.paused else f"{ov.timings.fps:.1f}"
            imgui.text(f"frames per second: {fps}")

    def _log(self) -> None:
        c, ov = self.colors, self.ov
        if not imgui.collapsing_header("Log", imgui.TreeNodeFlags_.default_open):
            return
        blocks = ov.history.log(LOG_LINES)
        self.log_blocks = blocks
        lines: list[str] = []
        starts: dict[int, int] = {}
        for frame, block in blocks:
            starts[frame] = len(lines)
            lines.extend(block)
        end = (blocks[-1][0], len(lines)) if blocks else None
        new_content = end != self._log_end
        self._log_end = end
        shown = ov.shown_entry
        shown_frame = shown.frame if shown is not None else None
        child_flags = imgui.ChildFlags_.borders
        line_h = imgui.get_text_line_height_with_spacing()
        room = max(imgui.get_content_region_avail().y, 8 * line_h)
        imgui.begin_child("log", imgui.ImVec2(0.0, room), child_flags,
                          imgui.WindowFlags_.horizontal_scrollbar)  # fmt: skip
        at_bottom = imgui.get_scroll_y() >= imgui.get_scroll_max_y() - 1.0
        clipper = imgui.ListClipper()
        clipper.begin(len(lines), line_h)
        while clipper.step():
            for k in range(clipper.display_start, clipper.display_end):
                text = lines[k]
                if text.startswith("#"):
                    pinned = shown_frame is not None and text == f"# frame {shown_frame}"
                    color = c.note if pinned and ov.pinned is not None else c.dim
                elif text.startswith("*"):
                    color = c.local
                elif text.startswith("="):
                    color = c.world
                else:
                    color = c.dim
                imgui.text_colored(_vec4(color), text)
        clipper.end()
        if not lines:
            imgui.text_disabled("no frame has recomputed anything yet")
        if ov.pinned is not None and self._log_scroll_to != ov.pinned:
            self._log_scroll_to = ov.pinned
            if ov.pinned in starts:
                imgui.set_scroll_y(starts[ov.pinned] * line_h)
        elif ov.pinned is None:
            self._log_scroll_to = None
            if new_content and at_bottom:
                imgui.set_scroll_here_y(1.0)
        imgui.end_child()

    def block_of(self, frame: int) -> list[str] | None:
        """The log lines the panel shows for `frame` (without its ``# frame`` line)."""
        for f, block in self.log_blocks:
            if f == frame:
                return block[1:]
        return None
