"""Keys and mouse for the viewer: what each input does to the scene, camera and overlay.

A mixin of `viewer.window.app.SgviewApp`: the overlay sees every event first and keeps those
aimed at its panels; the rest become the session's actions, camera moves or view toggles
(`viewer.keys.controls` lists them for --help, the README and the panel). Held movement keys
are only recorded here (`HeldKeys`); the session applies them once per simulated frame.
A key event becomes a key name of the key table first (`key_down` / `key_up`), which is
also where scripted keys (`--keys`, `viewer.keys.script`) come in: both go the same way.
"""

from __future__ import annotations

import viewer.gizmo as gizmo
from viewer.io.ranges import WORLD_REACH
from viewer.session.opening import SCENE_SUFFIXES
from viewer.window.file_dialog import OpenDialog, start_folder

#: Mouse travel (pixels) below which a press-release counts as a click.
CLICK_SLOP = 4
#: Keys by their character's code, which pyglet (and GLFW, for [ and ]) use as key
#: symbols: moderngl-window's key table has no "?" (pyglet's QUESTION, sent where "?" is
#: Shift+/ on some systems), and names pyglet's "{" and "}" as its brackets.
CHARACTER_KEYS = {ord("?"): "?", ord("["): "[", ord("]"): "]"}
#: The movement keys, held down for as many frames as they are held: key -> action.
HELD = {"H": "left", "J": "down", "K": "up", "L": "right", "R": "turn", "Shift+R": "turn"}


def _key_names(keys) -> dict:
    """moderngl-window key code -> the key table's name for it (see viewer.keys.controls)."""
    return {
        keys.SPACE: "Space", keys.PERIOD: ".", keys.T: "T", keys.H: "H", keys.J: "J",
        keys.K: "K", keys.L: "L", keys.R: "R", keys.S: "S", keys.M: "M", keys.TAB: "Tab",
        keys.G: "G", keys.N: "N", keys.B: "B", keys.F: "F", keys.HOME: "Home", keys.O: "O",
        keys.P: "P", keys.C: "C", keys.ESCAPE: "Esc", keys.A: "A", keys.F1: "F1", keys.X: "X",
        keys.E: "E", keys.V: "V",
        # "?" is Shift+/ on most layouts; a layout with "?" elsewhere still has F1.
        keys.SLASH: "?", keys.LEFT_BRACKET: "[", keys.RIGHT_BRACKET: "]", keys.NUMBER_0: "0",
    }  # fmt: skip


class InputHandlers:
    """moderngl-window's input callbacks for `SgviewApp`."""

    #: Where the button went down in the 3D view (None: on a panel, or no press seen:
    #: a release may come without one, e.g. a double-click's second that closed a dialog).
    _press: tuple[int, int] | None = None
    _dragged = 0.0

    def on_key_event(self, key, action, modifiers) -> None:
        keys = self.wnd.keys
        if self.overlay is not None:
            self.overlay.forward("key_event", key, action, modifiers)
            if self.overlay.wants_keyboard and action != keys.ACTION_RELEASE:
                return  # typed into a field; a release still ends a held key's move
        name = CHARACTER_KEYS.get(key) if isinstance(key, int) else None
        name = name or _key_names(keys).get(key)
        if key == keys.Z and modifiers.ctrl:
            name = "Ctrl+Shift+Z" if modifiers.shift else "Ctrl+Z"
        elif key == keys.S and modifiers.ctrl:
            name = "Ctrl+S"
        elif key == keys.O and modifiers.ctrl:
            name = "Ctrl+O"
        if name is None:
            return
        if name == "R" and modifiers.shift:
            name = "Shift+R"
        if action == keys.ACTION_PRESS:
            self.key_down(name)
        elif action == keys.ACTION_RELEASE:
            self.key_up(name)

    def key_down(self, name: str) -> None:
        """Key `name` (as the key table spells it) went down: from the keyboard or a
        script (`viewer.keys.script`)."""
        session = self.session
        if name in HELD:
            session.held.press(HELD[name])
            if HELD[name] == "turn":
                session.reverse_turn = name == "Shift+R"
        elif name == "Esc":
            self.quit()
        elif name == "F":
            self.renderer.frame_camera(self.camera)
        elif name == "Home":
            self.camera.reset()
        elif name == "P":
            self.capture.request_shot()
        elif name == "Space":
            session.toggle_pause()
        elif name == ".":
            session.request_step()
        elif name == "S":
            session.toggle_motion()
        elif name == "O":
            self.camera.toggle_projection()
        elif name == "C":
            self.cycle_view()
        elif name == "G":
            self.renderer.show_grid = not self.renderer.show_grid
        elif name == "B":
            self.renderer.show_links = not self.renderer.show_links
        elif name == "T":
            session.touch_selected()
        elif name == "X":
            session.gizmo_local = not session.gizmo_local
        elif name == "E":
            session.gizmo_scale = not session.gizmo_scale
        elif name == "Ctrl+S":
            session.save()
        elif name == "Ctrl+O":
            folder = start_folder(session)
            why = self._dialog().start(folder=folder)
            if why is not None and self.overlay is not None:
                self.overlay.browser.start(folder, SCENE_SUFFIXES)  # the window's own
            elif why is not None:
                session.open_error = why
        elif name in ("Ctrl+Z", "Ctrl+Shift+Z"):
            session.undo() if name == "Ctrl+Z" else session.redo()
        elif name == "M":
            session.switch_collision_mode()
        elif name == "0":
            self.restart()
        elif name == "A":
            self.renderer.show_axes = not self.renderer.show_axes
        elif self.overlay is not None and name in ("?", "F1"):
            self.overlay.toggle_help()
        elif self.overlay is not None and name in ("[", "]"):
            self.overlay.jump_to_event(-1 if name == "[" else 1)
        elif self.overlay is not None and name == "V":
            self.overlay.replay_shown()
        elif self.overlay is not None and name == "Tab":
            self.overlay.visible = not self.overlay.visible
        elif self.overlay is not None and name == "N":
            self.overlay.show_names = not self.overlay.show_names

    def key_up(self, name: str) -> None:
        """Key `name` was released (only the held movement keys care)."""
        if name in HELD:
            self.session.release_key(HELD[name])

    def play_script(self, redraw: int) -> None:
        """Before redraw number `redraw`: the scripted releases, presses and clicks."""
        script = self.options.script
        for name in script.releases.get(redraw, ()):
            self.key_up(name)
        for name in script.presses.get(redraw, ()):
            self.key_down(name)
        for x, y in script.clicks.get(redraw, ()):
            self.select_at(x + 0.5, y + 0.5)  # the pixel's centre, as a mouse click

    def on_files_dropped_event(self, x: int, y: int, paths: list) -> None:
        """Files dropped on the window: open the first scene file among them."""
        for path in paths:
            if str(path).lower().endswith(SCENE_SUFFIXES):
                self.open_file(path)
                return
        if paths:
            self.open_file(paths[0])  # not a scene file: says so in the panel

    def _dialog(self) -> OpenDialog:
        if getattr(self, "_open_dialog", None) is None:
            self._open_dialog = OpenDialog()
        return self._open_dialog

    def poll_open(self) -> None:
        """Once per redraw: open the file picked in the dialog (Ctrl+O) or asked for by
        the panel (`Session.request_open`)."""
        picked = self._dialog().poll() if getattr(self, "_open_dialog", None) else None
        picked = picked or self.session.take_open_request()
        if picked is not None:
            self.open_file(picked)

    def open_file(self, path) -> bool:
        """Show the scene file `path` (dropped, from the recent list or the dialog);
        a bad one leaves the scene on show and says why in the panel."""
        if self.session.open_file(path, prepare=self._prepare_renderer):
            self._scene_replaced()
            return True
        return False

    def on_mouse_position_event(self, x: int, y: int, dx: int, dy: int) -> None:
        if self.overlay is not None:
            self.overlay.forward("mouse_position_event", x, y, dx, dy)

    def on_unicode_char_entered(self, char: str) -> None:
        if self.overlay is not None:
            self.overlay.forward("unicode_char_entered", char)

    def on_resize(self, width: int, height: int) -> None:
        if self.overlay is not None:
            self.overlay.forward("resize", width, height)

    def on_mouse_press_event(self, x: int, y: int, button: int) -> None:
        if self.overlay is not None:
            self.overlay.forward("mouse_press_event", x, y, button)
        if getattr(self, "_gizmo_drag", None) is not None:
            if button != 1:
                return  # another button during a gizmo drag: the drag goes on
            self._end_gizmo_drag()  # a left press again: the release was lost
        if self.overlay is not None and self.overlay.takes_mouse(x, y):  # a panel's click
            self._press = None
            return
        self._press = (x, y)
        self._dragged = 0.0
        self._gizmo_drag = self._grab_gizmo(x, y) if button == 1 else None

    def on_mouse_drag_event(self, x: int, y: int, dx: int, dy: int) -> None:
        if self.overlay is not None:
            self.overlay.forward("mouse_drag_event", x, y, dx, dy)
            if self._press is None:  # the drag started on a panel
                return
        self._dragged += abs(dx) + abs(dy)
        if getattr(self, "_gizmo_drag", None) is not None:
            self._drag_gizmo(x, y)
            return
        buttons = self.wnd.mouse_states
        if buttons.right or (buttons.left and self.wnd.modifiers.shift):
            self.camera.pan(dx, dy, self.wnd.size[1])
        elif buttons.left:
            self.camera.orbit(dx, dy)

    def on_mouse_release_event(self, x: int, y: int, button: int) -> None:
        if self.overlay is not None:
            self.overlay.forward("mouse_release_event", x, y, button)
        if getattr(self, "_gizmo_drag", None) is not None:
            if button != 1:
                return  # not the button that drags the gizmo
            self._end_gizmo_drag()
        elif button == 1 and self._press is not None and self._dragged < CLICK_SLOP:
            self.select_at(x + 0.5, y + 0.5)
        self._press = None

    # -- the gizmo (viewer/gizmo) --------------------------------------------------------
    def _end_gizmo_drag(self) -> None:
        self._gizmo_drag = None
        self.session.editor.history.end("gizmo")  # the whole drag: one undo step
        self.session.note_edit()

    def _grab_gizmo(self, x: int, y: int):
        """A press on the selected node's gizmo starts an undo step and returns
        (node, drag, label); None when it misses (then the drag orbits)."""
        session = self.session
        node = session.selected_node() if session.collision is None else None
        if node is None:
            return None
        size = tuple(self.wnd.size)
        view_proj = self.camera.view_projection(size)
        grabbed = gizmo.grab(node, view_proj, size, session.gizmo_local, session.gizmo_scale, x, y)
        if grabbed is None:
            return None
        label = grabbed.label(session.graph.name_of(node.id))
        session.editor.history.begin(label, "gizmo")
        return node, grabbed.drag, label

    def _drag_gizmo(self, x: int, y: int) -> None:
        """The node follows the mouse through the drag's setter (snapped with Ctrl).
        The drag's step is opened again when something closed it mid-drag (Ctrl+Z, a
        held key let go): the rest of the drag is one more step, never unrecorded."""
        node, drag, label = self._gizmo_drag
        self.session.editor.history.begin(label, "gizmo")
        try:
            drag.apply(node, x, y, bool(self.wnd.modifiers.ctrl))
        except ValueError as exc:  # a singular parent: say so, leave the node
            self.session.editor.message = str(exc).splitlines()[0]
        if self.session.paused:
            self.session.request_step(still=True)  # the drag shows (and glows) while paused

    def on_mouse_scroll_event(self, x_offset: float, y_offset: float) -> None:
        if self.overlay is not None:
            self.overlay.forward("mouse_scroll_event", x_offset, y_offset)
            if self.overlay.takes_mouse():
                return
        # a hundred notches per event at most (0.9 ** -1e6 overflows); zooming out without
        # end would overflow the view matrix: a scene lies within WORLD_REACH of the
        # origin, so a hundred times that is far enough to see it all
        self.camera.zoom(max(-100.0, min(100.0, float(y_offset))))
        self.camera.distance = min(self.camera.distance, 100.0 * WORLD_REACH)
