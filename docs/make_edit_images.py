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
    ("edit-reparented", "Obj8 dragged onto Obj3, world pose kept"),
    ("edit-follows", "K held on Obj3: Obj8 follows its new parent"),
]


class App:
    """A headless app run frame by frame (as tests/overlay/app_driver.py does)."""

    def __init__(self, scene):
        import moderngl_window as mglw
        from moderngl_window.context.headless import Window

        from viewer.app import SgviewApp
        from viewer.render.context import GL_VERSION
        from viewer.run_options import RunOptions
        from viewer.timing import FixedTimer

        self.window = Window(title="docs", size=SIZE, resizable=False, gl_version=GL_VERSION,
                             vsync=False, samples=0, backend="egl")  # fmt: skip
        mglw.activate_context(window=self.window)
        self.app = SgviewApp(ctx=self.window.ctx, wnd=self.window, timer=FixedTimer(),
                             scene=scene, options=RunOptions(size=SIZE, samples=0))  # fmt: skip
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
    d.drag(d.row(g["Obj8"].id), d.row(g["Obj3"].id))
    assert g["Obj8"].parent == g["Obj3"], session.editor.message
    shot("edit-reparented", d.frame(1))
    session.select(g["Obj3"].id)
    session.held.press("up")
    d.frame(20)
    img = d.frame(1)
    session.held.release("up")
    shot("edit-follows", img)
    d.app.finish()
    d.window.destroy()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DOCS / "images")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in make(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
