"""Peek, never pull; pending is visible (issue 23, items 1 and 2), through the app's key
path in a headless window (`drive`, tests/overlay/app_driver.py).

- A frame drawn with every panel open, the help window and the names, with a node
  selected, leaves the core's state byte-identical to the same frames drawn without the
  overlay, while nodes are marked and not executed (a touch, a queued edit, a new node).
- Paused, select Obj2, T: before any step the tree shows Obj2 "L W E" and its subtree
  ". W E", the panel says they are pending, and the view draws them in the pending look
  (hatched stripes of the glow colour, outlined), unlike the executed solid glow; "." runs
  the step and the usual solid colours follow.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from core_state import core_state
from imgui_bundle import imgui

from viewer.io import load_scene

REPO = Path(__file__).resolve().parents[2]
SUBTREE = ("Obj5", "Obj8", "Obj9")  # below Obj2 in tree10


def tree10():
    scene = load_scene(REPO / "scenes" / "tree10.toml")
    scene.events = []
    return scene


def paused_edits(d) -> list[dict]:
    """The same user actions in any app: pause, select Obj2, T, a queued value edit and a
    new node while paused, a step. The core's state after each drawn frame."""
    states = []
    d.frame(3)
    d.press("SPACE")
    g = d.app.session.graph
    d.app.session.select(g["Obj2"].id)
    d.frame()
    d.press("T")
    d.frame()
    states.append(core_state(g))
    g["Obj3"].local_position = (2.5, 0.5, 0.0)  # queued: its subtree is marked on a read
    d.frame(2)
    states.append(core_state(g))
    g.add("Late", parent="Obj4", position=(0.0, -1.0, 0.0))  # the layout is out of date
    d.frame()
    states.append(core_state(g))
    d.press("PERIOD")
    d.frame(2)
    states.append(core_state(g))
    return states


def test_watching_with_every_panel_open_leaves_the_core_byte_identical(drive, monkeypatch):
    real = imgui.collapsing_header
    monkeypatch.setattr(imgui, "collapsing_header", lambda *a, **k: real(*a, **k) or True)
    watched = drive(tree10(), still=True)
    watched.app.overlay.show_help = True
    assert watched.app.overlay.show_names
    seen = paused_edits(watched)
    tree = dict(watched.app.overlay.panel.scene.tree.tree_drawn)
    assert "Late" in tree  # the panels did read the new structure
    plain = drive(tree10(), still=True, overlay=False)
    assert plain.app.overlay is None
    alone = paused_edits(plain)
    for k, (a, b) in enumerate(zip(seen, alone, strict=True)):
        assert a.keys() == b.keys()
        differ = [(name, a[name], b[name]) for name in a if a[name] != b[name]]
        assert not differ, f"state {k}: the overlay changed {differ}"
    assert seen[0]["pending"] == [] and seen[1]["pending"] == [watched.app.session.graph["Obj3"].id]


def mean_rgb(img, box) -> np.ndarray:
    x0, y0, x1, y1 = box
    return img[y0:y1, x0:x1].reshape(-1, 3).astype(float)


def node_patch(d, img, name, r=5) -> np.ndarray:
    g = d.app.session.graph
    x, y = d.app.camera.project(g.peek.world_matrix(g[name].id)[0][:3, 3], (800, 400))[0, :2]
    return img[int(y) - r : int(y) + r, int(x) - r : int(x) + r].reshape(-1, 3).astype(float)


def orange(px) -> np.ndarray:
    return (px[:, 0] > 170) & (px[:, 1] > 80) & (px[:, 1] < 160) & (px[:, 2] < 70)


def red(px) -> np.ndarray:
    return (px[:, 0] > 160) & (px[:, 1] < 80) & (px[:, 2] < 80)


def red_share(px) -> float:
    """Share of red among the pixels that are not the selection box's yellow lines."""
    box = (px[:, 0] > 240) & (px[:, 1] > 220)
    return float(red(px[~box]).mean())


def test_a_paused_touch_shows_pending_flags_and_look_before_the_step(drive):
    d = drive(tree10(), still=True)
    d.frame(3)
    d.press("SPACE")
    g = d.app.session.graph
    d.app.session.select(g["Obj2"].id)
    before = d.frame()
    frame = d.app.session.frame
    d.press("T")
    pending = d.frame()
    assert d.app.session.frame == frame  # nothing executed yet
    tree = dict(d.app.overlay.panel.scene.tree.tree_drawn)
    assert tree["Obj2"] == "L W E"
    assert all(tree[n] == ". W E" for n in SUBTREE)
    assert tree["Obj3"] == tree["Obj4"] == ". . ."
    assert d.app.overlay.panel._flags.pending
    assert g.peek.marked and g["Obj2"].id in g.peek.flags().pending
    # The pending look: stripes of the glow colour over the node's own colour, so a
    # patch of a marked node holds both; an untouched node is unchanged.
    for name in SUBTREE:
        px = node_patch(d, pending, name)
        share = orange(px).mean()
        assert 0.2 < share < 0.8, (name, share)
    assert 0.2 < red_share(node_patch(d, pending, "Obj2")) < 0.8
    np.testing.assert_array_equal(node_patch(d, pending, "Obj3"), node_patch(d, before, "Obj3"))
    assert (
        d.app.overlay.names_drawn
        and dict(d.app.overlay.names_drawn)["Obj5"] != dict(d.app.overlay.names_drawn)["Obj3"]
    )  # the names speak of the marks too

    d.press("PERIOD")
    executed = d.frame()
    assert d.app.session.frame == frame + 1
    tree = dict(d.app.overlay.panel.scene.tree.tree_drawn)
    assert tree["Obj2"] == "L W E" and all(tree[n] == ". W E" for n in SUBTREE)
    assert not d.app.overlay.panel._flags.pending and not g.peek.marked
    for name in SUBTREE:  # executed: the solid glow, no stripes left
        assert orange(node_patch(d, executed, name)).mean() > 0.9, name
    assert red_share(node_patch(d, executed, "Obj2")) > 0.9


@pytest.mark.parametrize("style", ["rim", "heat"])
def test_the_pending_look_shows_in_every_glow_style(drive, style):
    d = drive(tree10(), still=True, glow=style)
    d.frame(3)
    d.press("SPACE")
    g = d.app.session.graph
    d.app.session.select(g["Obj2"].id)
    d.frame()
    d.press("T")
    img = d.frame()
    for name in SUBTREE:
        assert 0.2 < orange(node_patch(d, img, name)).mean() < 0.8, (style, name)


#: The graph's pulling reads (each may recompute, flush the marking, clear flags, bump
#: versions): a watcher calls their `peek` twins instead.
PULLS = re.compile(
    r"(?<!peek)\.(world_matrices|world_versions|alive_ids|depths|parents|local_values)\("
    r"|(?<!peek)\.(world_matrix|world_position|world_rotation|world_euler|lossy_scale"
    r"|local_matrix|local_euler|local_position|local_rotation|local_scale|dirty)\b"
    r"|\b(graph|g)\.(node|update|touch)\("
)


def test_the_watchers_read_the_core_only_through_peek():
    """The overlay's modules and the trace never call a pulling read of the graph (the
    byte-identical test above checks the paths one session takes; this, every line)."""
    watchers = sorted((REPO / "viewer" / "overlay").glob("*.py")) + [REPO / "viewer/trace.py"]
    found = []
    for path in watchers:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if PULLS.search(code):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert found == []
