"""The overlay's Dear ImGui context, with ImPlot's: made with sgview's look, fed the
window's events, rendered over the picture, freed.

The overlay decides what to draw and which events the panels take; this is the ImGui
side of the window, through moderngl-window's ImGui integration (imgui-bundle 1.6.3).
Mouse events go through ImGui's input queue (`feed`), which hands a press and its release
to separate frames: the integration writes the button state directly, so a click shorter
than a frame (a quick click at 15 frames per second, a script's) would be lost.
"""

from __future__ import annotations

from typing import cast

from imgui_bundle import imgui, implot
from moderngl_window.context.base import BaseWindow, KeyModifiers
from moderngl_window.integrations.imgui_bundle import ModernglWindowRenderer

from . import keyboard

#: What a window event (a moderngl-window callback) carries: positions, sizes, buttons and
#: keys, a key's action and modifiers, a typed character.
WindowEventArg = int | float | str | KeyModifiers

#: The panels' background: opaque, so that the names, gizmo and grid drawn under the
#: panels never show through them (a long name would print over the Frames panel's
#: counters).
WINDOW_BG = (0.07, 0.08, 0.10, 1.0)


class ImguiIO:
    """One ImGui (and ImPlot) context for the window `wnd`; `alive` until `release`."""

    def __init__(self, wnd: BaseWindow) -> None:
        self.wnd = wnd
        self._context = imgui.create_context()
        imgui.set_current_context(self._context)
        # ImPlot (shipped with imgui-bundle) draws the totals' plot through ImGui's own
        # draw lists, so moderngl-window's ImGui renderer draws it too.
        self._plot_context = implot.create_context()
        implot.set_current_context(self._plot_context)
        io = imgui.get_io()
        io.set_ini_filename("")  # no imgui.ini in the user's folder
        io.set_log_filename("")
        style = imgui.get_style()
        style.window_rounding = 0.0
        style.set_color_(imgui.Col_.window_bg, imgui.ImVec4(*WINDOW_BG))
        # moderngl-window's ImGui integration has no annotations
        self._renderer = ModernglWindowRenderer(wnd)  # type: ignore[no-untyped-call]
        self._edit_keys = keyboard.EditKeys()
        #: The mouse's last place in the window (pixels; -1: not seen yet).
        self.pointer = (-1.0, -1.0)

    @property
    def alive(self) -> bool:
        return self._context is not None

    def use(self) -> bool:
        """Make this context current (ImGui's calls go to it); False once released."""
        if self._context is None:
            return False
        imgui.set_current_context(self._context)
        implot.set_current_context(self._plot_context)
        return True

    def feed(self, event: str, args: tuple[WindowEventArg, ...]) -> None:
        """Give ImGui one window event (a moderngl-window callback name and arguments):
        a key with its modifiers and editing letters (`keyboard.EditKeys`), the
        mouse through ImGui's input queue, anything else to the integration."""
        if event == "key_event":
            # the event's name says what it carries: (key, action, modifiers)
            key, action, modifiers = cast(tuple[int | str, int | str, KeyModifiers], args)
            self._edit_keys.send(self.wnd.keys, key, action, modifiers)
        io = imgui.get_io()
        if event in ("mouse_position_event", "mouse_drag_event"):
            self.pointer = pointer_of(args)
            io.add_mouse_pos_event(*self.pointer)
        elif event in ("mouse_press_event", "mouse_release_event"):
            self.pointer = pointer_of(args)
            button = args[2]
            io.add_mouse_pos_event(*self.pointer)
            mouse = self.wnd.mouse
            buttons = {mouse.left: 0, mouse.right: 1, mouse.middle: 2}
            index = buttons.get(button) if isinstance(button, int) else None
            if index is not None:
                io.add_mouse_button_event(index, event == "mouse_press_event")
        elif event == "mouse_scroll_event":
            io.add_mouse_wheel_event(*pointer_of(args))
        else:
            getattr(self._renderer, event)(*args)

    def render(self) -> None:
        """Draw the frame ImGui just laid out into the window's framebuffer."""
        self.wnd.fbo.use()
        self._renderer.render(imgui.get_draw_data())

    def release(self) -> None:
        """Free the contexts and their GL objects."""
        if not self.use():
            return
        self._renderer.shutdown()  # type: ignore[no-untyped-call]  # (unannotated, as above)
        implot.destroy_context(self._plot_context)
        imgui.destroy_context(self._context)
        self._context = None


def pointer_of(args: tuple[WindowEventArg, ...]) -> tuple[float, float]:
    """The two numbers a mouse event starts with (a position, or a wheel's offsets)."""
    x, y = args[0], args[1]
    if not isinstance(x, int | float) or not isinstance(y, int | float):
        raise TypeError(f"a mouse event's position must be numbers, not {x!r}, {y!r}")
    return float(x), float(y)
