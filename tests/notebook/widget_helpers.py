"""Driving a notebook widget from Python as the browser would: jupyter_rfb event dicts."""

from __future__ import annotations

import numpy as np

import viewer
from viewer.scene import SceneGraph


def tree() -> SceneGraph:
    """Obj1 with children Obj2, Obj3, Obj4 spread along x; Obj5 under Obj2."""
    g = SceneGraph()
    g.add("Obj1", position=(0, 3, 0))
    for name, x in (("Obj2", -4), ("Obj3", 0), ("Obj4", 4)):
        g.add(name, parent="Obj1", position=(x, -3, 0))
    g.add("Obj5", parent="Obj2", position=(0, -3, 0))
    return g


def make(graph=None, **kwargs):
    """A widget on `graph` (default `tree()`), with its first frame drawn."""
    widget = viewer.widget(tree() if graph is None else graph, **kwargs)
    widget.get_frame()
    return widget


def screen_of(widget, name: str) -> tuple[float, float]:
    """Where node `name`'s origin is on the widget's picture (pixels, top left 0, 0)."""
    width, height = widget.image.shape[1], widget.image.shape[0]
    world = widget.session.graph[name].world_position
    clip = widget.app.camera.view_projection((width, height)) @ np.append(world, 1.0)
    ndc = clip[:3] / clip[3]
    return (ndc[0] + 1) / 2 * width, (1 - ndc[1]) / 2 * height


def pointer(kind: str, x: float, y: float, button: int = 1, buttons=(), modifiers=()) -> dict:
    return {"type": kind, "event_type": kind, "x": x, "y": y, "button": button,
            "buttons": tuple(buttons), "modifiers": tuple(modifiers)}  # fmt: skip


def click(widget, x: float, y: float, button: int = 1) -> None:
    widget.handle_event(pointer("pointer_down", x, y, button, (button,)))
    widget.handle_event(pointer("pointer_up", x, y, button, ()))


def drag(widget, start, end, button: int = 1, modifiers=(), steps: int = 5) -> None:
    (x0, y0), (x1, y1) = start, end
    widget.handle_event(pointer("pointer_down", x0, y0, button, (button,), modifiers))
    for k in range(1, steps + 1):
        x, y = x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps
        widget.handle_event(pointer("pointer_move", x, y, 0, (button,), modifiers))
    widget.handle_event(pointer("pointer_up", x1, y1, button, (), modifiers))


def key(widget, name: str, modifiers=()) -> None:
    """Press and release a key as the browser names it ("t", " ", "Tab", ...)."""
    for kind in ("key_down", "key_up"):
        widget.handle_event({"type": kind, "event_type": kind, "key": name,
                             "modifiers": tuple(modifiers)})  # fmt: skip


class DrawRequests:
    """Counts the widget's `request_draw` calls (jupyter_rfb's own is not run: there is
    no browser)."""

    def __init__(self, widget):
        self.count = 0
        widget.request_draw = self

    def __call__(self) -> None:
        self.count += 1

    def take(self) -> int:
        count, self.count = self.count, 0
        return count


def glow_red_share(image: np.ndarray, x: float, y: float, radius: int = 8) -> float:
    """Share of the pixels around (x, y) that show the glow's red (an own change)."""
    x, y = round(x), round(y)
    patch = image[max(y - radius, 0) : y + radius, max(x - radius, 0) : x + radius].astype(int)
    r, g, b = patch[..., 0], patch[..., 1], patch[..., 2]
    return float(np.mean((r > 150) & (r > g + 80) & (r > b + 80)))
