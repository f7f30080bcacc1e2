"""The left panel's "Animation" section: the scene's glTF clips, play / pause and scrub.

Shown only when the scene has animations. It reads the player through the scene's
controls (`SceneControls.animation`) and changes it only through their actions, the same
a script calls, so that a scrub while paused still reaches the graph (the session steps one
frame to show it).
"""

from __future__ import annotations

from imgui_bundle import imgui

from viewer.animation import AnimationPlayer
from viewer.session.source import SceneControls
from viewer.text import printable

from .overlay_state import OverlayState
from .widgets import COLORS, button, vec4

#: The combo's first entry: no clip plays.
NO_CLIP = "none"


class AnimationSection:
    """Draws the section; `rects` keeps where its controls were drawn, by name ("clip",
    "clip 0" ... while the list is open, "play", "time"), as (x0, y0, x1, y1) pixels."""

    def __init__(self, overlay: OverlayState) -> None:
        self.ov = overlay
        self.rects: dict[str, tuple[float, float, float, float]] = {}

    def _remember(self, name: str) -> None:
        lo, hi = imgui.get_item_rect_min(), imgui.get_item_rect_max()
        self.rects[name] = (lo.x, lo.y, hi.x, hi.y)

    def draw(self) -> None:
        self.rects.clear()
        controls = self.ov.host.controls
        player = controls.animation if controls is not None else None
        if controls is None or player is None:
            return
        imgui.set_next_item_open(True, imgui.Cond_.once)
        if not imgui.collapsing_header("Animation"):
            return
        self._clip_list(controls, player)
        clip = player.current
        label = ("Pause" if player.playing else "Play") + "##clip"
        if button(
            label,
            "stop or play the clip (the time slider beside moves it)",
            enabled=clip is not None,
        ):
            controls.toggle_animation()
        self._remember("play")
        duration = clip.duration if clip is not None else 0.0
        imgui.same_line()
        imgui.begin_disabled(not duration > 0.0)
        imgui.set_next_item_width(-1.0)
        changed, t = imgui.slider_float(
            "##time", player.clip_time, 0.0, max(duration, 1e-6), f"%.2f / {duration:.2f} s"
        )
        self._remember("time")
        imgui.end_disabled()
        if changed:
            controls.scrub_animation(float(t))
        dim = vec4(COLORS.dim)
        stopped = ["motion stopped (S): the clip waits; scrubbing shows"]
        for note in (stopped if clip is not None and not controls.motion_on else []) + player.notes:
            imgui.push_style_color(imgui.Col_.text, dim)  # wrapped: read whole at any width
            imgui.text_wrapped(printable(note, None))
            imgui.pop_style_color()

    def _clip_list(self, controls: SceneControls, player: AnimationPlayer) -> None:
        """A combo of the clip names (from the file) and "none"."""
        names = [NO_CLIP, *player.names]
        current = 0 if player.index is None else player.index + 1
        imgui.set_next_item_width(-1.0)
        opened = imgui.begin_combo("##clip", printable(names[current]))
        self._remember("clip")
        if not opened:
            return
        for i, name in enumerate(names):
            label = NO_CLIP if i == 0 else printable(name)
            if imgui.selectable(f"{label}##clip{i}", i == current)[0]:
                controls.pick_animation(None if i == 0 else i - 1)
            self._remember(f"clip {i}")
        imgui.end_combo()
