"""A layout that fits (issue 34, item 5): at the default 1280x720 and at the notebook's
640x360 no panel text is cut off at the right edge of its window or table column, read
from ImGui's own item rectangles while the panels draw (every text, button, checkbox,
field label and tree row is wrapped to record where it ended against the clip rectangle
it was drawn in); the selected node's matrices start folded, so the Edit section stays
in the left panel; a long name is shortened in the tree with the whole name on hover."""

from __future__ import annotations

from pathlib import Path

import app_driver
import pytest
from imgui_bundle import imgui
from overlay_helpers import tree10

from viewer.embed.api import scene_for
from viewer.io.loader import load_scene

SCENES = Path(__file__).resolve().parents[2] / "scenes"
#: The imgui calls that draw one item with text, wrapped by `ClipCheck`.
TEXT_ITEMS = (
    "text", "text_colored", "text_disabled", "text_wrapped", "bullet_text", "button",
    "small_button", "checkbox", "radio_button", "selectable", "collapsing_header",
    "input_float3", "input_float4", "input_text", "slider_float", "table_header",
)  # fmt: skip


class ClipCheck:
    """Records each text item drawn past the right edge of the clip rectangle it was
    drawn in (a window, a table cell): (what, how many pixels)."""

    def __init__(self, monkeypatch) -> None:
        self.cut: list[tuple[str, float]] = []
        self.items = 0
        for name in TEXT_ITEMS:
            monkeypatch.setattr(imgui, name, self._wrap(getattr(imgui, name), name))
        tree_node = imgui.tree_node_ex
        monkeypatch.setattr(imgui, "tree_node_ex", self._tree_node(tree_node))
        new_frame = imgui.new_frame

        def fresh_pass() -> None:  # only the pass that is rendered counts (a table that
            self.cut, self.items = [], 0  # is new sizes its columns on the next pass)
            new_frame()

        monkeypatch.setattr(imgui, "new_frame", fresh_pass)

    def _clip_right(self) -> float:
        return imgui.get_window_draw_list().get_clip_rect_max().x

    def _wrap(self, call, name):
        def wrapped(*args, **kwargs):
            right = self._clip_right()
            if name == "collapsing_header":  # every section open: all of it checked
                imgui.set_next_item_open(True, imgui.Cond_.always)
            out = call(*args, **kwargs)
            self.items += 1
            end = imgui.get_item_rect_max().x
            scrolls = imgui.internal.get_current_window().scrollbar_x  # the log scrolls
            if end > right + 1.0 and not scrolls:  # also below the fold: scrolled to
                label = next((a for a in args if isinstance(a, str)), name)
                self.cut.append((f"{name}: {label}", end - right))
            return out

        return wrapped

    def _tree_node(self, call):
        def wrapped(label, *args, **kwargs):
            right = self._clip_right()
            x = imgui.get_cursor_screen_pos().x
            out = call(label, *args, **kwargs)
            self.items += 1
            shown = label.split("##")[0]
            end = x + imgui.get_tree_node_to_label_spacing() + imgui.calc_text_size(shown).x
            if end > right + 1.0:
                self.cut.append((f"tree row: {shown}", end - right))
            return out

        return wrapped


LONG = "b_RightUpperArm_and_a_very_long_joint_name_026"


@pytest.mark.parametrize("size", [(1280, 720), (800, 450), (640, 360)])
def test_no_panel_text_is_cut_off(drive, monkeypatch, size):
    monkeypatch.setattr(app_driver, "SIZE", size)
    graph = tree10()
    graph.add(LONG, "Obj8")  # deep in the tree: the longest row
    scene = scene_for(graph)
    d = drive(scene, still=True, touches={2: ["Obj2"]})
    d.run(3)
    session, ov = d.app.session, d.app.overlay
    session.select(scene.graph[LONG].id)
    ov.panel.scene.edit.open_next = True
    d.frame(2)
    panel = ov.panel
    for k in (0, 1):
        panel._folded[k] = None  # narrow pictures fold the panels: open them, as a click
    monkeypatch.setattr("viewer.overlay.panel.panels_folded", lambda width: (False, False))
    d.frame(2)
    check = ClipCheck(monkeypatch)
    d.frame(2)
    assert check.items > 60  # the panels drew, and were checked
    cut = check.cut
    d.press("LEFT_BRACKET")  # a frame picked on the timeline: its own lines
    session.select(None)
    d.frame(2)
    check.cut = cut + check.cut
    assert check.cut == [], "\n".join(f"{w}: {p:.0f}" for w, p in check.cut)
    rows = dict(panel.scene.tree.tree_drawn)
    assert LONG in rows  # the row is there (shortened on screen, whole in its tooltip)


def test_the_matrices_start_folded_and_the_edit_section_stays_in_view(drive, monkeypatch):
    monkeypatch.setattr(app_driver, "SIZE", (1280, 720))
    d = drive(load_scene(SCENES / "tree10.toml"), still=True)
    d.frame()
    d.app.session.select(d.app.session.graph["Obj5"].id)
    d.frame(2)
    scene = d.app.overlay.panel.scene
    assert not scene.matrices_open
    top, bottom = scene.edit_header_y
    assert bottom <= 720  # the Edit header shows without scrolling the panel
