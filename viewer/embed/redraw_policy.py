"""When a view that draws on demand (the notebook widget) needs its next frame.

A window redraws at the display's rate; a notebook widget renders in the kernel and sends
every frame over the network, so it draws only when the picture can change: after an
input event or a change made in a cell (the widget asks for those itself), and for as
long as this says the picture is still moving. No GL: it reads the session and whether
anything still glows.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["needs_next_frame", "simulation_moves"]


class _Held(Protocol):
    def active(self) -> bool: ...


class _Editing(Protocol):
    held: _Held


class SessionState(Protocol):
    """What the policy reads of `viewer.session.session.Session`."""

    paused: bool
    motion_on: bool
    editing: _Editing  # its held movement keys
    frame_callbacks: list

    @property
    def scene(self): ...  # viewer.content.scene.Scene
    @property
    def animation(self): ...  # AnimationPlayer or None


def simulation_moves(session: SessionState) -> bool:
    """Whether the next simulated frame may change the scene: it runs (not paused) and
    a motion, a playing animation, the collision demo's motion, an `on_frame` callback
    (the user's own code, which may change anything) or a held movement key drives it."""
    if session.paused:
        return False
    if session.frame_callbacks or session.editing.held.active():
        return True
    if not session.motion_on:
        return False
    scene = session.scene
    player = session.animation
    return bool(scene.motions) or scene.collision is not None or bool(player and player.playing)


def needs_next_frame(session: SessionState, *, glowing: bool) -> bool:
    """Whether to draw again right after this frame: the scene moves, or a glow is still
    fading (a glow fades with simulated time, so while paused it stays as it is)."""
    return simulation_moves(session) or (glowing and not session.paused)
