"""Playing a scene's animation clips on the scene clock, and the frame loop's hook.

`AnimationPlayer` is the state a user controls (which clip, playing or paused, where in
it): small, pure Python, so a panel can drive it (`pick`, `play`, `pause`, `scrub`).
`apply_animation(scene, t)` is the one call the frame loop makes each simulated frame,
next to ``apply_motions(scene, t)``: it advances the player to the scene clock `t` and
writes the clip's pose through the core's bulk setter (`SceneGraph.set_locals`), so the
frame report flags exactly the animated nodes whose values changed as local-dirty; morph
weights and GPU instance matrices go to the scene's geometry (`Geometry.set_weights`,
`Geometry.set_instances`), which records who changed.

The clock: while a clip plays from the start, clip time equals the scene clock (headless
frame N is at t = N/60 s), modulo the clip's duration (clips loop). Pausing freezes clip
time; playing again continues from there at the next frame.
While the scene's motion is stopped (S) the frame loop still calls it, with
``running=False``: clip time stands still, and only a clip picked or a time scrubbed since
the last frame is applied, so the panel's controls show at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .clip import Clip

__all__ = ["AnimationPlayer", "apply_animation"]


class AnimationPlayer:
    """The clips of a scene and which one plays; the first plays by default.

    Attributes
    ----------
    clips : list of Clip
    index : int or None
        The current clip (None: animation off).
    playing : bool
    time : float
        Clip time in seconds before looping (`clip_time` is the looped value).
    notes : list of str
        One-line notes from loading (channels that were skipped, and why).
    """

    def __init__(self, clips: Sequence[Clip] = (), notes: Sequence[str] = ()) -> None:
        self.clips: list[Clip] = list(clips)
        self.notes: list[str] = list(notes)
        self.index: int | None = 0 if self.clips else None
        self.playing = bool(self.clips)
        self.time = 0.0
        self._anchor: tuple[float, float] | None = (0.0, 0.0)  # (scene clock, clip time)
        self._moved = False  # picked or scrubbed while paused: apply that pose once

    # -- what a panel shows -------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return [clip.name for clip in self.clips]

    @property
    def current(self) -> Clip | None:
        return None if self.index is None else self.clips[self.index]

    @property
    def clip_time(self) -> float:
        """Where in the current clip the pose is taken: `time` looped over its duration."""
        clip = self.current
        if clip is None or not clip.duration > 0.0:
            return 0.0
        return math.fmod(self.time, clip.duration) if self.time >= 0.0 else 0.0

    # -- what a panel does --------------------------------------------------------------
    def pick(self, choice: int | str | None, clock: float | None = None) -> None:
        """Select a clip by index or name (None: animation off) and start it from 0.

        `clock`: the scene clock at which the clip starts (clip time 0), as before a run
        (`--animation`: 0, so frame N poses t = N/60 like the default clip); None: at the
        next frame, wherever the scene clock is then."""
        if choice is None:
            self.index, self.playing = None, False
            return
        if isinstance(choice, str):
            if choice not in self.names:
                raise KeyError(f"no animation named {choice!r}")
            choice = self.names.index(choice)
        if not 0 <= choice < len(self.clips):
            raise IndexError(f"animation index {choice} out of range 0..{len(self.clips) - 1}")
        self.index, self.time, self.playing = choice, 0.0, True
        self._anchor = None if clock is None else (float(clock), 0.0)
        self._moved = True

    def play(self) -> None:
        if self.index is not None and not self.playing:
            self.playing, self._anchor = True, None

    def pause(self) -> None:
        self.playing = False

    def scrub(self, time: float) -> None:
        """Jump to clip time `time` (seconds); a playing clip continues from there."""
        if not math.isfinite(time):
            raise ValueError(f"expected a finite time, got {time!r}")
        self.time = max(0.0, float(time))
        self._anchor, self._moved = None, True

    # -- the frame loop -----------------------------------------------------------------
    def advance(self, clock: float, running: bool = True) -> bool:
        """Move clip time along with the scene clock `clock` (seconds) while playing;
        whether the pose must be applied (playing, or picked or scrubbed since).

        `running` False: the scene's motion is stopped (S), so clip time stands still
        and only a pose picked or scrubbed since the last frame is applied (a scrub
        must show even then; re-applying the same pose every frame would fight the
        user's own edits of the joints)."""
        moved, self._moved = self._moved, False
        if not (self.playing and running):
            return moved
        if self._anchor is None:  # just picked, resumed or scrubbed: continue from here
            self._anchor = (clock, self.time)
        start_clock, start_time = self._anchor
        self.time = start_time + (clock - start_clock)
        return True


def apply_animation(scene, t: float, running: bool = True) -> None:
    """The frame loop's hook: advance the scene's player to clock `t`, apply the pose.

    `running` False (motion stopped): apply only a pose picked or scrubbed since."""
    player = scene.animation
    if player is None or player.current is None:
        return
    if not player.advance(t, running):
        return  # paused: leave the nodes to the user
    pose = player.current.pose(player.clip_time)
    for node, weights in player.current.weights(player.clip_time).items():
        scene.geometry.set_weights(node, weights)
    for node, matrices in player.current.instances(player.clip_time).items():
        scene.geometry.set_instances(node, matrices)
    graph = scene.graph
    for path, (ids, values) in pose.items():
        if path == "translation":
            graph.set_locals(ids, positions=values, skip_removed=True)
        elif path == "rotation":
            graph.set_locals(ids, rotations=values, skip_removed=True)
        else:
            graph.set_locals(ids, scales=values, skip_removed=True)
