"""Keys and mouse for the viewer window: what each input does to the scene, camera and
overlay.

`WindowInput` is the window app's (`viewer.window.app.SgviewApp`) input: the app hands
it moderngl-window's events, and it reads and acts on what `InputTarget` names. The
overlay sees every event first and keeps those aimed at its panels; the rest become the
session's actions, camera moves or view toggles. A key event becomes a key of the key
table (`viewer.keys.controls.KEYS`) first, which is also where scripted keys (`--keys`,
`viewer.keys.script`) come in; the key's action is then looked up in `ACTIONS`, one
entry per action of the table. Held movement keys are only recorded here; the session
applies them once per simulated frame. A drag on the gizmo is handed to the editing
room (`viewer.session.edits.Editing`), which records its undo step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from moderngl_window.context.base import BaseWindow, KeyModifiers

import viewer.gizmo as gizmo
from viewer.io.ranges import WORLD_REACH
from viewer.keys.controls import HELD_ACTIONS, KEY_BY_NAME, KEYS
from viewer.keys.script import KeyScript
from viewer.render.camera import Camera
from viewer.render.frame_view import ViewSettings
from viewer.render.scene_bounds import SceneBounds
from viewer.session.edits import Editing
from viewer.session.opening import OPEN_SUFFIXES
from viewer.session.source import FrameSource, SceneControls
from viewer.window.capture import Capture
from viewer.window.file_dialog import OpenDialog, start_folder

if TYPE_CHECKING:
    from viewer.overlay.overlay import Overlay

#: Mouse travel (pixels) below which a press-release counts as a click.
CLICK_SLOP = 4
#: How long (seconds) a first `0` from the keyboard waits for the second that restarts
#: over edits.
RESTART_ASK_S = 3.0
#: Keys by their character's code, which pyglet (and GLFW, for [ and ]) use as key
#: symbols: moderngl-window's key table has no "?" (pyglet's QUESTION, sent where "?" is
#: Shift+/ on some systems), and names pyglet's "{" and "}" as its brackets.
CHARACTER_KEYS = {ord("?"): "?", ord("["): "[", ord("]"): "]"}
#: Keys that also come as the character they type. pyglet reports a press of "?" only
#: while it thinks the key is up: the release comes as "/" when Shift is let go first
#: (as xdotool and many people do), so "?" stays "held" and later presses never arrive as
#: keys. Their characters always do: the press a key event missed is the character's.
TYPED_KEYS = frozenset("?")
#: The open line where the source on show opens no files (a connected program).
NO_FILES = "this view shows connected programs: open a file in another sgview"


class InputTarget(Protocol):
    """What the input reads and acts on: the app's window, frame source (`session`),
    camera, view settings, the scene's bounds (framing), overlay (None without panels) and
    capture, and its window actions."""

    wnd: BaseWindow
    session: FrameSource
    camera: Camera
    settings: ViewSettings
    bounds: SceneBounds
    overlay: Overlay | None
    capture: Capture

    def quit(self) -> None: ...
    def restart(self) -> None: ...
    def cycle_view(self) -> None: ...
    def select_at(self, x: float, y: float) -> int | None: ...
    def select_at_each(self, points: list[tuple[float, float]]) -> None: ...


def _overlay(act: Callable[[Overlay], object]) -> Callable[[WindowInput], None]:
    """An action on the overlay; nothing without panels."""

    def on(inp: WindowInput) -> None:
        overlay = inp.app.overlay
        if overlay is not None:
            act(overlay)

    return on


def _editing(act: Callable[[Editing], object]) -> Callable[[WindowInput], None]:
    """An action of the editing room; nothing where the source offers none."""

    def on(inp: WindowInput) -> None:
        editing = inp.app.session.editing
        if editing is not None:
            act(editing)

    return on


def _controls(act: Callable[[SceneControls], object]) -> Callable[[WindowInput], None]:
    """An action on a scene sgview runs itself; nothing for a source without controls."""

    def on(inp: WindowInput) -> None:
        controls = inp.app.session.controls
        if controls is not None:
            act(controls)

    return on


def _save(inp: WindowInput) -> None:
    files = inp.app.session.file_actions
    if files is not None:
        files.save()


def _flip_gizmo_local(editing: Editing) -> None:
    editing.gizmo_local = not editing.gizmo_local


def _flip_gizmo_scale(editing: Editing) -> None:
    editing.gizmo_scale = not editing.gizmo_scale


def _flip_panels(overlay: Overlay) -> None:
    overlay.visible = not overlay.visible


def _flip_names(overlay: Overlay) -> None:
    overlay.show_names = not overlay.show_names


def _flip_setting(name: str) -> Callable[[WindowInput], None]:
    """A view toggle of the app's `ViewSettings` (grid, links, axes)."""

    def on(inp: WindowInput) -> None:
        settings = inp.app.settings
        setattr(settings, name, not getattr(settings, name))

    return on


#: What each action of the key table does (the held movement keys aside).
ACTIONS: dict[str, Callable[[WindowInput], None]] = {
    "pause": lambda inp: inp.app.session.toggle_pause(),
    "step": lambda inp: inp.app.session.request_step(),
    "touch": _controls(lambda controls: controls.touch_selected()),
    "hold edits": _controls(lambda controls: controls.toggle_hold_edits()),
    "undo": _editing(lambda editing: editing.undo()),
    "redo": _editing(lambda editing: editing.redo()),
    "save": _save,
    "open": lambda inp: inp.start_dialog(),
    "gizmo axes": _editing(_flip_gizmo_local),
    "gizmo mode": _editing(_flip_gizmo_scale),
    "motion": _controls(lambda controls: controls.toggle_motion()),
    "collision mode": _controls(lambda controls: controls.switch_collision_mode()),
    "help": _overlay(lambda ov: ov.toggle_help()),
    "event before": _overlay(lambda ov: ov.jump_to_event(-1)),
    "event after": _overlay(lambda ov: ov.jump_to_event(1)),
    "replay": _overlay(lambda ov: ov.replay_shown()),
    "restart": lambda inp: inp.app.restart(),
    "panels": _overlay(_flip_panels),
    "grid": _flip_setting("show_grid"),
    "names": _overlay(_flip_names),
    "links": _flip_setting("show_links"),
    "axes": _flip_setting("show_axes"),
    "frame": lambda inp: inp.app.bounds.frame_camera(inp.app.camera),
    "home": lambda inp: inp.app.camera.reset(),
    "projection": lambda inp: inp.app.camera.toggle_projection(),
    "cameras": lambda inp: inp.app.cycle_view(),
    "screenshot": lambda inp: inp.app.capture.request_shot(),
    "quit": lambda inp: inp.app.quit(),
}


class WindowInput:
    """moderngl-window's input events for one `InputTarget` (see the module notes)."""

    app: InputTarget

    def __init__(self, app: InputTarget) -> None:
        self.app = app
        #: Where the button went down in the 3D view (None: on a panel, or no press seen:
        #: a release may come without one, e.g. a double-click's second that closed a
        #: dialog).
        self.view_press: tuple[float, float] | None = None
        self._dragged = 0.0
        #: The left button went down on the gizmo: the drag moves the node, not the camera.
        self._gizmo_held = False
        self._dialog: OpenDialog | None = None
        #: The last key press was a `TYPED_KEYS` key: its character is not a second press.
        self._typed_key_pressed = False
        keys = app.wnd.keys
        #: moderngl-window's key -> its name in the key table (`Key.code`); a window
        #: without keys (headless: all "undefined") has none.
        codes = {key.code for row in KEYS for key in row.keys}
        self._codes = {getattr(keys, code): code for code in codes}
        self._codes.pop("undefined", None)
        #: (code, Ctrl, Shift) -> the key table's name.
        self._names: dict[tuple[str | None, bool, bool], str] = {
            (k.code, k.ctrl, k.shift): k.name for k in KEY_BY_NAME.values()
        }

    # -- keys ----------------------------------------------------------------------------
    def key_event(self, key: str | int, action: str, modifiers: KeyModifiers) -> None:
        keys = self.app.wnd.keys
        overlay = self.app.overlay
        if action == keys.ACTION_PRESS:
            self._typed_key_pressed = False
        if overlay is not None:
            overlay.forward("key_event", key, action, modifiers)
            if overlay.wants_keyboard and action != keys.ACTION_RELEASE:
                return  # typed into a field; a release still ends a held key's move
        name = CHARACTER_KEYS.get(key) if isinstance(key, int) else None
        name = name or self.key_name(self._codes.get(key), modifiers.ctrl, modifiers.shift)
        if name is None:
            return
        if action == keys.ACTION_PRESS:
            self._typed_key_pressed = name in TYPED_KEYS
            if KEY_BY_NAME[name].action == "restart":
                self._restart_asked()
                return
            self.app.session.messages.answered()  # another key: a question waits no more
            self.key_down(name)
        elif action == keys.ACTION_RELEASE:
            self.key_up(name)

    def _restart_asked(self) -> None:
        """`0` from the keyboard. A restart empties the undo history, and the key sits
        among those typed into number fields (a click that missed the field lost the
        edits for good): over edits it asks first, and a second `0` within
        `RESTART_ASK_S` restarts. A script's or a notebook's `0` (`key_down`) restarts
        at once: it was written ahead."""
        messages, editing = self.app.session.messages, self.app.session.editing
        steps = 0 if editing is None else len(editing.history.done) + len(editing.history.undone)
        if steps and not messages.asked("restart"):
            edits = f"{steps} edit{'s' if steps > 1 else ''}"
            messages.ask(
                "restart", f"press 0 again to restart: {edits} will be lost", RESTART_ASK_S
            )
            return
        messages.answered()
        ACTIONS["restart"](self)

    def key_name(self, code: str | None, ctrl: bool, shift: bool) -> str | None:
        """The key table's name for a key pressed with these modifiers: the key as named
        with both, else with Ctrl only, Shift only, or neither ("?" is Shift+/, and
        Ctrl+H is still H)."""
        for c, s in ((ctrl, shift), (ctrl, False), (False, shift), (False, False)):
            name = self._names.get((code, c, s))
            if name is not None:
                return name
        return None

    def key_down(self, name: str) -> None:
        """Key `name` (as the key table spells it) went down: from the keyboard or a
        script (`viewer.keys.script`)."""
        action = KEY_BY_NAME[name].action
        if action in HELD_ACTIONS:
            controls = self.app.session.controls
            turn_back = action == "turn back"
            if controls is not None:
                controls.press_move_key("turn" if turn_back else action, turn_back)
        else:
            ACTIONS[action](self)

    def key_up(self, name: str) -> None:
        """Key `name` was released (only the held movement keys care)."""
        action = KEY_BY_NAME[name].action
        controls = self.app.session.controls
        if action in HELD_ACTIONS and controls is not None:
            controls.release_move_key("turn" if action == "turn back" else action)

    def play_script(self, script: KeyScript, redraw: int) -> None:
        """Before redraw number `redraw`: the scripted releases, presses and clicks."""
        for name in script.releases.get(redraw, ()):
            self.key_up(name)
        for name in script.presses.get(redraw, ()):
            self.key_down(name)
        clicks = script.clicks.get(redraw)
        if clicks:  # at the pixels' centres, as a mouse click
            self.app.select_at_each([(x + 0.5, y + 0.5) for x, y in clicks])

    def char_entered(self, char: str) -> None:
        """A typed character: ImGui's; a `TYPED_KEYS` key whose press did not come as a
        key event (see there) acts here, unless a field has the keyboard."""
        self.forward("unicode_char_entered", char)
        pressed, self._typed_key_pressed = self._typed_key_pressed, False
        typing = self.app.overlay is not None and self.app.overlay.wants_keyboard
        if char in TYPED_KEYS and not pressed and not typing:
            self.key_down(char)

    # -- files ---------------------------------------------------------------------------
    def dialog(self) -> OpenDialog:
        """The open dialog (Ctrl+O), made at first use."""
        if self._dialog is None:
            self._dialog = OpenDialog()
        return self._dialog

    def start_dialog(self) -> None:
        """Ctrl+O: the system's dialog (zenity, kdialog); without one, the window's own
        file browser (the overlay's), or the reason in the panel's open line."""
        session, overlay = self.app.session, self.app.overlay
        files = session.file_actions
        if files is None:
            session.messages.open = NO_FILES
            return
        folder = start_folder(session.scene, files.recent_folder())
        why = self.dialog().start(folder=folder)
        if why is not None and overlay is not None:
            overlay.browser.start(folder, OPEN_SUFFIXES)
        elif why is not None:
            session.messages.open = why

    def poll_dialog(self) -> None:
        """Once per redraw: the file picked in the dialog (Ctrl+O) is asked for."""
        picked = self._dialog.poll() if self._dialog is not None else None
        if picked is not None:
            self._open(picked)

    def files_dropped(self, x: int, y: int, paths: Sequence[str | Path]) -> None:
        """Files dropped on the window: the first scene file among them is asked for."""
        scenes = [path for path in paths if str(path).lower().endswith(OPEN_SUFFIXES)]
        if scenes or paths:  # not a scene file: the panel says so
            self._open((scenes or paths)[0])

    def _open(self, path: str | Path) -> None:
        """Ask the source to open `path`; one that opens no files says so."""
        files = self.app.session.file_actions
        if files is None:
            self.app.session.messages.open = NO_FILES
        else:
            files.request_open(path)

    # -- mouse ---------------------------------------------------------------------------
    def forward(self, event: str, *args: float | str) -> None:
        """An event only the overlay takes (the pointer's position, a character, a resize)."""
        if self.app.overlay is not None:
            self.app.overlay.forward(event, *args)

    def mouse_press(self, x: float, y: float, button: int) -> None:
        overlay = self.app.overlay
        if overlay is not None:
            overlay.forward("mouse_press_event", x, y, button)
        if self._gizmo_held:
            if button != 1:
                return  # another button during a gizmo drag: the drag goes on
            self._end_gizmo_drag()  # a left press again: the release was lost
        if overlay is not None and overlay.takes_mouse(x, y):  # a panel's click
            self.view_press = None
            return
        self.view_press = (x, y)
        self._dragged = 0.0
        self._gizmo_held = button == 1 and self._grab_gizmo(x, y)

    def mouse_drag(self, x: float, y: float, dx: float, dy: float) -> None:
        app = self.app
        if app.overlay is not None:
            app.overlay.forward("mouse_drag_event", x, y, dx, dy)
            if self.view_press is None:  # the drag started on a panel
                return
        self._dragged += abs(dx) + abs(dy)
        editing = app.session.editing
        if self._gizmo_held and editing is not None:
            editing.drag_to(x, y, bool(app.wnd.modifiers.ctrl))
            return
        buttons = app.wnd.mouse_states
        if buttons.right or (buttons.left and app.wnd.modifiers.shift):
            app.camera.pan(dx, dy, app.wnd.size[1])
        elif buttons.left:
            app.camera.orbit(dx, dy)

    def mouse_release(self, x: float, y: float, button: int) -> None:
        if self.app.overlay is not None:
            self.app.overlay.forward("mouse_release_event", x, y, button)
        if self._gizmo_held:
            if button != 1:
                return  # not the button that drags the gizmo
            self._end_gizmo_drag()
        elif button == 1 and self.view_press is not None and self._dragged < CLICK_SLOP:
            self.app.select_at(x + 0.5, y + 0.5)
        self.view_press = None

    def mouse_scroll(self, x_offset: float, y_offset: float) -> None:
        app = self.app
        if app.overlay is not None:
            app.overlay.forward("mouse_scroll_event", x_offset, y_offset)
            if app.overlay.takes_mouse():
                return
        # a hundred notches per event at most (0.9 ** -1e6 overflows); zooming out without
        # end would overflow the view matrix: a scene lies within WORLD_REACH of the
        # origin, so a hundred times that is far enough to see it all
        app.camera.zoom(max(-100.0, min(100.0, float(y_offset))))
        app.camera.distance = min(app.camera.distance, 100.0 * WORLD_REACH)

    # -- the gizmo (viewer/gizmo) --------------------------------------------------------
    def _end_gizmo_drag(self) -> None:
        self._gizmo_held = False
        editing = self.app.session.editing
        if editing is not None:
            editing.release()  # the whole drag: one undo step

    def _grab_gizmo(self, x: float, y: float) -> bool:
        """A press on the selected node's gizmo hands its drag to the editing room; False
        when it misses (then the drag orbits)."""
        session, wnd = self.app.session, self.app.wnd
        editing, controls = session.editing, session.controls
        if editing is None or (controls is not None and controls.collision_mode is not None):
            return False  # no editing room, or the collision demo (its keys move it)
        node = editing.selected_node()
        if node is None:
            return False
        size = wnd.size
        view_proj = self.app.camera.view_projection(size)
        radius = gizmo.node_radius(self.app.bounds, node.id)  # as the view draws it
        local, scale = editing.gizmo_local, editing.gizmo_scale
        grabbed = gizmo.grab(node, view_proj, size, radius, local, scale, x, y)
        if grabbed is None:
            return False
        editing.grab(node, grabbed.drag, grabbed.label(session.graph.name_of(node.id)))
        return True
