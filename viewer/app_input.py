"""Keys and mouse for the viewer: what each input does to the scene, camera and overlay.

A mixin of `viewer.app.SgviewApp`: the overlay sees every event first and keeps those
aimed at its panels; the rest become actions (`viewer.controls` lists them for --help,
the README and the panel). Held movement keys are only recorded here (`HeldKeys`); the
frame loop applies them once per simulated frame.
"""

from __future__ import annotations

from viewer.io.ranges import WORLD_REACH

#: Mouse travel (pixels) below which a press-release counts as a click.
CLICK_SLOP = 4


class InputHandlers:
    """moderngl-window's input callbacks for `SgviewApp`."""

    def on_key_event(self, key, action, modifiers) -> None:
        keys = self.wnd.keys
        if self.overlay is not None:
            self.overlay.key_event(key, action, modifiers)
            if self.overlay.wants_keyboard:
                return
        held = {keys.H: "left", keys.J: "down", keys.K: "up", keys.L: "right", keys.R: "turn"}
        if key in held:
            if action == keys.ACTION_PRESS:
                self.held.press(held[key])
            elif action == keys.ACTION_RELEASE:
                self.held.release(held[key])
            return
        if action != keys.ACTION_PRESS:
            return
        if key == keys.ESCAPE:
            self.quit()
        elif key == keys.F:
            self.renderer.frame_camera(self.camera)
        elif key == keys.HOME:
            self.camera.reset()
        elif key == keys.P:
            self._want_shot = True
        elif key == keys.SPACE:
            self.toggle_pause()
        elif key == keys.PERIOD:
            self.request_step()
        elif key == keys.S:
            self.toggle_motion()
        elif key == keys.O:
            self.camera.toggle_projection()
        elif key == keys.G:
            self.renderer.show_grid = not self.renderer.show_grid
        elif key == keys.B:
            self.renderer.show_links = not self.renderer.show_links
        elif key == keys.T:
            self.touch_selected()
        elif key == keys.M and self.collision is not None:
            self.collision.switch_mode()
        elif self.overlay is not None and key == keys.TAB:
            self.overlay.visible = not self.overlay.visible
        elif self.overlay is not None and key == keys.N:
            self.overlay.show_names = not self.overlay.show_names

    def on_mouse_position_event(self, x: int, y: int, dx: int, dy: int) -> None:
        if self.overlay is not None:
            self.overlay.mouse_position_event(x, y, dx, dy)

    def on_unicode_char_entered(self, char: str) -> None:
        if self.overlay is not None:
            self.overlay.unicode_char_entered(char)

    def on_resize(self, width: int, height: int) -> None:
        if self.overlay is not None:
            self.overlay.resize(width, height)

    def on_mouse_press_event(self, x: int, y: int, button: int) -> None:
        if self.overlay is not None:
            self.overlay.mouse_press_event(x, y, button)
            if self.overlay.wants_mouse:  # a click on a panel is the panel's
                self._press = None
                return
        self._press = (x, y)
        self._dragged = 0.0

    def on_mouse_drag_event(self, x: int, y: int, dx: int, dy: int) -> None:
        if self.overlay is not None:
            self.overlay.mouse_drag_event(x, y, dx, dy)
            if self._press is None:  # the drag started on a panel
                return
        self._dragged += abs(dx) + abs(dy)
        buttons = self.wnd.mouse_states
        if buttons.right or (buttons.left and self.wnd.modifiers.shift):
            self.camera.pan(dx, dy, self.wnd.size[1])
        elif buttons.left:
            self.camera.orbit(dx, dy)

    def on_mouse_release_event(self, x: int, y: int, button: int) -> None:
        if self.overlay is not None:
            self.overlay.mouse_release_event(x, y, button)
        if button == 1 and self._press is not None and self._dragged < CLICK_SLOP:
            self.select_at(x + 0.5, y + 0.5)
        self._press = None

    def on_mouse_scroll_event(self, x_offset: float, y_offset: float) -> None:
        if self.overlay is not None:
            self.overlay.mouse_scroll_event(x_offset, y_offset)
            if self.overlay.wants_mouse:
                return
        # a hundred notches per event at most (0.9 ** -1e6 overflows); zooming out without
        # end would overflow the view matrix: a scene lies within WORLD_REACH of the
        # origin, so a hundred times that is far enough to see it all
        self.camera.zoom(max(-100.0, min(100.0, float(y_offset))))
        self.camera.distance = min(self.camera.distance, 100.0 * WORLD_REACH)
