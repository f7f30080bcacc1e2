"""When a view that draws on demand (the notebook widget) needs its next frame.

A window redraws at the display's rate; a notebook widget renders in the kernel and sends
every frame over the network, so it draws only when the picture can change: after an
input event or a change made in a cell (the widget asks for those itself), and for as
long as this says the picture is still moving. No GL: it reads the session and whether
anything still glows.
"""

from __future__ import annotations

from collections.abc import Sized
from typing import Protocol

__all__ = ["SessionState", "needs_next_frame", "simulation_moves"]


class _HeldKeys(Protocol):
    def active(self) -> bool: ...


class _Editing(Protocol):
    @property
    def held(self) -> _HeldKeys:
        """The movement keys held down (`viewer.keys.controls.HeldKeys`)."""
        ...


class _CollisionDemo(Protocol):
    """A scene's collision demo (`viewer.content.scene.CollisionSpec`): its two nodes."""

    @property
    def disk(self) -> str: ...
    @property
    def rect(self) -> str: ...


class _Scene(Protocol):
    """What the policy reads of `viewer.content.scene.Scene`."""

    @property
    def motions(self) -> Sized: ...
    @property
    def collision(self) -> _CollisionDemo | None: ...


class _Player(Protocol):
    """What the policy reads of `viewer.animation.AnimationPlayer`."""

    @property
    def playing(self) -> bool: ...


class SessionState(Protocol):
    """What the policy reads of `viewer.session.session.Session` (read-only here)."""

    @property
    def paused(self) -> bool: ...
    @property
    def motion_on(self) -> bool: ...
    @property
    def editing(self) -> _Editing: ...
    @property
    def frame_callbacks(self) -> Sized:
        """The `on_frame` callbacks; the policy asks only whether there are any."""
        ...

    @property
    def scene(self) -> _Scene: ...
    @property
    def animation(self) -> _Player | None: ...


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
