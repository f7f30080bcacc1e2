"""The pictures of getting-started.md's "change it yourself", made with the mouse path.

    .venv/bin/python docs/make_edit_images.py             # writes docs/images/edit-*.png

A headless sgview on tree10 (motion off, Obj3 turned 30 degrees so that keeping the
world pose shows): the Edit section open with Obj8 selected, then Obj8's tree row
dragged onto Obj3's with the mouse events a window sends (keep world pose on), then Obj3
moved with K held: Obj8 follows its new parent, glowing orange.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(REPO))

SIZE = (1200, 1040)
#: (picture, what it shows).
SHOTS = [
    ("edit-inspector", "Obj8 selected, the Edit section open: fields, world values"),
    ("edit-scale", "E, then Obj5's x scale handle dragged: Obj5 red, its subtree orange"),
    ("edit-reparented", "Obj8 dragged onto Obj3, world pose kept"),
    ("edit-follows", "K held on Obj3: Obj8 follows its new parent"),
]


class App:
    """A headless app run frame by frame (as tests/overlay/app_driver.py does)."""

    def __init__(self, scene):
        import moderngl_window as mglw
        import numpy as np
        from moderngl_window.context.headless import Window

        from viewer.render.context import GL_VERSION
        from viewer.timing import FixedTimer
        from viewer.window.app import SgviewApp
        from viewer.window.run_options import RunOptions
        from viewer.window.runner import session_for

        self.window = Window(title="docs", size=SIZE, resizable=False, gl_version=GL_VERSION,
                             vsync=False, samples=0, backend="egl")  # fmt: skip
        mglw.activate_context(window=self.window)
        timer, options = FixedTimer(), RunOptions(size=SIZE, samples=0)
        source = session_for(scene, options, fixed_step=timer.step, caller=np.geterr())
        self.app = SgviewApp(ctx=self.window.ctx, wnd=self.window, timer=timer,
                             source=source, options=options)  # fmt: skip
        self.window.config = self.app
        self.window.set_default_viewport()

    def frame(self, n: int = 1):
        for _ in range(n):
            self.app.on_render(0.0, 1.0 / 60.0)
        return self.app.grab()

    def drag(self, start, end, steps: int = 6) -> None:
        app = self.app
        app.on_mouse_position_event(int(start[0]), int(start[1]), 0, 0)
        self.frame()
        app.on_mouse_press_event(int(start[0]), int(start[1]), 1)
        self.frame()
        for k in range(1, steps + 1):
            x = start[0] + (end[0] - start[0]) * k / steps
            y = start[1] + (end[1] - start[1]) * k / steps
            app.on_mouse_drag_event(int(x), int(y), 0, 0)
            app.on_mouse_position_event(int(x), int(y), 0, 0)
            self.frame()
        app.on_mouse_release_event(int(end[0]), int(end[1]), 1)
        self.frame()

    def row(self, node_id):
        (x0, y0), (x1, y1) = self.app.overlay.panel.scene.tree.row_rects[node_id]
        return (x0 + x1) / 2, (y0 + y1) / 2


def make(out: Path) -> list[Path]:
    from PIL import Image

    from viewer.io import load_scene

    os.chdir(REPO)  # the file named as a user would: scenes/tree10.toml
    scene = load_scene("scenes/tree10.toml")
    scene.events = []
    scene.graph["Obj3"].local_euler = (0.0, 0.0, 30.0)
    d = App(scene)
    session = d.app.session
    session.motion_on = False
    g = session.graph
    d.frame(3)
    session.select(g["Obj8"].id)
    d.app.overlay.panel.scene.edit.open_next = True
    written = []

    def shot(name, img):
        path = out / f"{name}.png"
        Image.fromarray(img).save(path)
        written.append(path)

    shot("edit-inspector", d.frame(4))
    session.select(g["Obj5"].id)
    shot("edit-scale", scale_drag(d, g["Obj5"]))
    session.editing.undo()
    session.select(g["Obj8"].id)
    d.drag(d.row(g["Obj8"].id), d.row(g["Obj3"].id))
    assert g["Obj8"].parent == g["Obj3"], session.messages.edit
    shot("edit-reparented", d.frame(1))
    session.select(g["Obj3"].id)
    session.editing.held.press("up")
    d.frame(20)
    img = d.frame(1)
    session.editing.held.release("up")
    shot("edit-follows", img)
    d.app.finish()
    d.window.destroy()
    return written


def scale_drag(d: App, node):
    """Press E and drag the node's x scale handle half a handle out; the picture taken
    while the button is still down (the glow shows), then the drag ends and E again."""
    import viewer.gizmo as gizmo

    app = d.app
    app.key_down("E")
    view_proj = app.camera.view_projection(SIZE)
    radius = gizmo.node_radius(app.bounds, node.id)
    h = gizmo.scale_handles(node.world_matrix, view_proj, SIZE, False, radius).handles
    grab = h.origin + 0.9 * (h.tips[0] - h.origin)
    end = grab + 0.5 * (h.tips[0] - h.origin)
    app.on_mouse_position_event(int(grab[0]), int(grab[1]), 0, 0)
    d.frame()
    app.on_mouse_press_event(int(grab[0]), int(grab[1]), 1)
    for k in range(1, 7):
        p = grab + (end - grab) * k / 6
        app.on_mouse_drag_event(int(p[0]), int(p[1]), 0, 0)
        d.frame()
    img = d.frame()
    app.on_mouse_release_event(int(end[0]), int(end[1]), 1)
    app.key_down("E")
    d.frame()
    return img


#: The GIF of the re-parenting walk, done with the mouse alone.
GIF = "edit-reparent-walk.gif"


def make_gif(out: Path, scale: float = 0.45) -> Path:
    """The walk as a GIF: click Obj8 in the view, drag its tree row onto Obj3's (world
    pose kept), click Obj3 in the view, drag Obj3's y handle up: Obj8 follows."""
    import numpy as np
    from PIL import Image

    import viewer.gizmo as gizmo
    from viewer.io import load_scene

    os.chdir(REPO)
    scene = load_scene("scenes/tree10.toml")
    scene.events = []
    scene.graph["Obj3"].local_euler = (0.0, 0.0, 30.0)
    d = App(scene)
    session = d.app.session
    session.motion_on = False
    g = session.graph
    frames = []

    def keep(n: int = 1) -> None:
        for _ in range(n):
            img = Image.fromarray(d.frame())
            small = img.resize((int(SIZE[0] * scale), int(SIZE[1] * scale)), Image.LANCZOS)
            frames.append(small.quantize(colors=96, method=Image.Quantize.MEDIANCUT))

    def click_node(name: str) -> None:
        x, y = d.app.camera.project(g[name].world_position, SIZE)[0, :2]
        d.app.on_mouse_position_event(int(x), int(y), 0, 0)
        keep()  # the panels learn where the mouse is (not over them)
        d.app.on_mouse_press_event(int(x), int(y), 1)
        keep()
        d.app.on_mouse_release_event(int(x), int(y), 1)

    keep(2)
    click_node("Obj8")
    keep(4)
    start, end = d.row(g["Obj8"].id), d.row(g["Obj3"].id)
    app = d.app
    app.on_mouse_position_event(int(start[0]), int(start[1]), 0, 0)
    keep()
    app.on_mouse_press_event(int(start[0]), int(start[1]), 1)
    keep()
    for k in range(1, 9):
        x = start[0] + (end[0] - start[0]) * k / 8
        y = start[1] + (end[1] - start[1]) * k / 8
        app.on_mouse_drag_event(int(x), int(y), 0, 0)
        app.on_mouse_position_event(int(x), int(y), 0, 0)
        keep()
    app.on_mouse_release_event(int(end[0]), int(end[1]), 1)
    keep(6)
    assert g["Obj8"].parent == g["Obj3"], session.messages.edit
    click_node("Obj3")
    keep(3)
    assert session.selected == g["Obj3"].id
    view_proj = app.camera.view_projection(SIZE)
    radius = gizmo.node_radius(app.bounds, g["Obj3"].id)
    h = gizmo.handles(g["Obj3"].world_matrix, view_proj, SIZE, False, radius)
    grab = h.origin + 0.8 * (h.tips[1] - h.origin)
    app.on_mouse_position_event(int(grab[0]), int(grab[1]), 0, 0)
    app.on_mouse_press_event(int(grab[0]), int(grab[1]), 1)
    for k in range(1, 17):
        p = grab + np.array([0.0, -6.0 * k])
        app.on_mouse_drag_event(int(p[0]), int(p[1]), 0, -6)
        keep()
    app.on_mouse_release_event(int(p[0]), int(p[1]), 1)
    keep(10)
    d.app.finish()
    d.window.destroy()
    path = out / GIF
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=110, loop=0,
                   optimize=True)  # fmt: skip
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DOCS / "images")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in make(args.out):
        print(path)
    print(make_gif(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
