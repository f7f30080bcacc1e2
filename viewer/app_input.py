"""Keys and mouse for the viewer: what each input does to the scene, camera and overlay.

A mixin of `viewer.app.SgviewApp`: the overlay sees every event first and keeps those
aimed at its panels; the rest become the session's actions, camera moves or view toggles
(`viewer.controls` lists them for --help, the README and the panel). Held movement keys
are only recorded here (`HeldKeys`); the session applies them once per simulated frame.
"""

from __future__ import annotations

#: Mouse travel (pixels) below which a press-release counts as a click.
CLICK_SLOP = 4


class InputHandlers:
    """moderngl-window's input callbacks for `SgviewApp`."""

    def on_key_event(self, key, action, modifiers) -> None:
        keys = self.wnd.keys
        if self.overlay is not None:
            self.overlay.forward("key_event", key, action, modifiers)
            if self.overlay.wants_keyboard:
                return
        held = {keys.H: "left", keys.J: "down", keys.K: "up", keys.L: "right", keys.R: "turn"}
        session = self.session
        if key in held:
            if action == keys.ACTION_PRESS:
                session.held.press(held[key])
            elif action == keys.ACTION_RELEASE:
                session.held.release(held[key])
            session.reverse_turn = bool(modifiers.shift)
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
            self.capture.request_shot()
        elif key == keys.SPACE:
            session.toggle_pause()
        elif key == keys.PERIOD:
            session.request_step()
        elif key == keys.S:
            session.toggle_motion()
        elif key == keys.O:
            self.camera.toggle_projection()
        elif key == keys.G:
            self.renderer.show_grid = not self.renderer.show_grid
        elif key == keys.B:
            self.renderer.show_links = not self.renderer.show_links
        elif key == keys.T:
            session.touch_selected()
        elif key == keys.M:
            session.switch_collision_mode()
        elif self.overlay is not None and key == keys.TAB:
            self.overlay.visible = not self.overlay.visible
        elif self.overlay is not None and key == keys.N:
            self.overlay.show_names = not self.overlay.show_names

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
            if self.overlay.wants_mouse:  # a click on a panel is the panel's
                self._press = None
                return
        self._press = (x, y)
        self._dragged = 0.0

    def on_mouse_drag_event(self, x: int, y: int, dx: int, dy: int) -> None:
        if self.overlay is not None:
            self.overlay.forward("mouse_drag_event", x, y, dx, dy)
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
            self.overlay.forward("mouse_release_event", x, y, button)
        if button == 1 and self._press is not None and self._dragged < CLICK_SLOP:
            self.select_at(x + 0.5, y + 0.5)
        self._press = None

    def on_mouse_scroll_event(self, x_offset: float, y_offset: float) -> None:
        if self.overlay is not None:
            self.overlay.forward("mouse_scroll_event", x_offset, y_offset)
            if self.overlay.wants_mouse:
                return
        self.camera.zoom(y_offset)
