"""The session: the scene on show and its frame's schedule. No window, no GL.

A `Session` owns the scene clock, pause, step and restart, and runs each simulated
frame's phases in a fixed order (as Bevy's schedule runs its systems). The editing room
(`session.editing`, edits.py) owns what the user changes by hand and every undo step;
the files room (`session.files`, opening.py) opens, reloads and saves, handing back a
checked scene that only the session swaps in; both speak through one channel
(`session.messages`). A `Session` is a frame source (`viewer.session.source`) that offers
every capability: the frame runner (`viewer.frames.runner`) asks it for a candidate scene
(`poll`), builds the candidate's GPU state and `commit`s it, and calls `advance(dt)` once
per redraw: the simulated `Frame`, or None while paused.

A frame runs, in order: the scene's scripted events and the touches of its frame
(script.py); the motions and the glTF animation at scene time t (headless: t = frame /
60 exactly) unless stopped; the `on_frame` callbacks (the user's code: graph, frame, t);
the held keys on the selection (or the collision demo's disk and rectangle);
`graph.update()`; the collision test. Frame 1 is the first; the layout of a freshly
loaded scene comes before it and is not a frame. A frame that only shows an edit while
paused (the clock held) runs no script: that is numbered by the scene's own frames.
"""

from __future__ import annotations

import time as clock
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import numpy as np

import viewer.session.script as script
from viewer.animation import AnimationPlayer, apply_animation
from viewer.collision.demo import CollisionDemo, Reading
from viewer.content.motion import apply_motions
from viewer.content.scene import Scene
from viewer.errors import SgviewError, floats_raise, interrupted
from viewer.io.ranges import reach_reason
from viewer.keys.references import carry_names
from viewer.scene.graph import SceneGraph
from viewer.scene.report import FrameReport
from viewer.session.collision_check import CollisionCheck
from viewer.session.edits import Editing
from viewer.session.frame import Frame, FrameError, Phase, window_title
from viewer.session.messages import Messages
from viewer.session.opening import Checked, SceneFiles
from viewer.session.source import (
    Candidate,
    ErrState,
    FileActions,
    FrameCallback,
    SceneControls,
)
from viewer.session.start_pose import StartPose
from viewer.text import brief, printable

__all__ = ["Frame", "FrameError", "Session", "window_title"]


class Session:
    """The scene on show and its frame's schedule (see the module notes).

    `still`: the scene's motion starts stopped (S toggles it); `touches`: node names to
    touch at the start of each frame number; `fixed_step`: seconds per frame of a
    reproducible clock (headless; None: the `dt` given); `load_limits`: `load_scene` caps,
    reused for reloads and opened files; `log`: print each recomputing frame's update log;
    `out`, `err`: streams (default: sys.stdout / sys.stderr when printing); `layout`
    False: the graph's pending change is frame 1's (`viewer.render_image` shows it
    glowing) instead of a layout update before frame 1; `edit_layer`: where Ctrl+S
    writes the edits of a stage read from OpenUSD (None: its root layer)."""

    def __init__(
        self,
        scene: Scene,
        *,
        still: bool = False,
        touches: dict[int, list[str]] | None = None,
        fixed_step: float | None = None,
        load_limits: dict[str, int] | None = None,
        log: bool = False,
        out: TextIO | None = None,
        err: TextIO | None = None,
        layout: bool = True,
        edit_layer: str | Path | None = None,
    ) -> None:
        self.messages = Messages(out, err)  # the one channel to the panel and terminal
        # Made first: a save during the rest of the set-up must count as a change.
        self.files = SceneFiles(scene, load_limits or {}, self.messages, edit_layer)
        self.editing = Editing(scene.graph, self.messages, shown=self._edited)
        self.touches = dict(touches or {})
        #: Events since the last frame, handed on with the next one (`Frame.events`).
        self._events: list[tuple[str, str]] = []
        #: Where `restart` goes back to: the scene's start, taken at its first frame.
        self._start: StartPose | None = None
        self.fixed_step = fixed_step
        self.log = log
        self.frame = 0
        #: The scene's own frames, which number its script (an edit shown while paused is none).
        self._scene_frames = 0
        self.time = 0.0  # scene time: advances only while the motion runs
        self._moving_frames = 0
        self.motion_on = not still
        self._still_at_launch = still  # what `restart` goes back to
        self.paused = False
        self._step_requested = False
        #: Hold edits (W): while paused, an edit writes its values and marks its nodes,
        #: and the next step (`.`) or the resume executes it, so "a setter marks, the
        #: update computes" can be seen; off, an edit while paused shows at once.
        self.hold_edits = False
        #: The requested step only shows an edit or a picked pose: the scene clock holds.
        self._clock_held = False
        self.last_report: FrameReport | None = None
        #: ``callback(graph, frame, t)`` in every frame before the update; errors propagate.
        self.frame_callbacks: list[FrameCallback] = []
        #: numpy's error state for the callbacks (the caller's; sgview's own phases raise).
        self.callback_errstate: ErrState = np.geterr()
        self._offered: Checked | None = None  # what the last `poll` handed out
        self._use(scene, layout=layout)

    def _use(self, scene: Scene, *, layout: bool = True, selected: int | None = None) -> None:
        self.scene = scene
        if layout:
            with self._phase("the layout"):
                scene.graph.update()  # lay out the loaded scene; not a frame
        self.editing.use(scene.graph, selected)  # a new scene starts a new undo history
        self.collision = CollisionDemo(scene) if scene.collision is not None else None
        self._collision_check = (
            None if self.collision is None else CollisionCheck(scene, self.collision)
        )

    @property
    def graph(self) -> SceneGraph:
        return self.scene.graph

    def file_rows(self, node_id: int) -> tuple[tuple[str, str], ...]:  # a USD prim's path, ops
        describe = self.scene.describe_node
        return () if describe is None else describe(int(node_id))

    @property
    def animation(self) -> AnimationPlayer | None:
        """The scene's glTF animation player; None when its files have no animation."""
        player = self.scene.animation
        return player if player is not None and player.clips else None

    @property
    def collision_mode(self) -> str | None:  # "oscillate" / "revolve"; None: no demo
        return None if self.collision is None else self.collision.mode

    @property
    def collision_reading(self) -> Reading | None:  # None: no demo, or no test yet
        return None if self._collision_check is None else self._collision_check.reading

    @property
    def selected(self) -> int | None:  # the editing room's selection
        return self.editing.selected

    def select(self, node_id: int | None) -> None:
        self.editing.select(node_id)

    @property
    def title(self) -> str:
        """The window title: the scene's, and the selected node's name."""
        selected = None if self.selected is None else self.graph.name_of(self.selected)
        return window_title(self.scene.title, selected)

    # -- the clock -----------------------------------------------------------------------
    @property
    def ended(self) -> bool:
        """A scene always has a next frame: only a frame limit or the window ends a run."""
        return False

    def advance(self, dt: float) -> Frame | None:
        """Once per redraw: simulate a frame unless paused (a requested step runs one)."""
        if not self.paused:
            return self._step_with_events(dt)
        if self._step_requested:
            self._step_requested = False
            try:
                return self._step_with_events(self.fixed_step or dt)
            finally:
                self._clock_held = False
        return None

    def _step_with_events(self, dt: float) -> Frame:
        """`step`, with the frame's events (`Frame.events`): the script's, the held
        keys' edit, and the touches and clip changes asked for since the last frame."""
        if self._start is None or self._start.scene is not self.scene:  # its first frame
            self._start = StartPose(self.scene)
        held = self.editing.held.active()
        if not self._clock_held:  # an edit shown while paused is no step of the script
            for kind, name in script.events_of(self.scene, self.touches, self._scene_frames + 1):
                self._note(kind, name)
        if held and self.editing.keys_act(self.collision):
            selected = self.selected
            if self.collision is not None:
                self._note("edit", "collision demo")
            elif selected is not None:  # keys act only on a selection
                self._note("edit", self.graph.name_of(selected))
        frame = self.step(dt)
        frame.events, self._events = self._events, []
        return frame

    def _note(self, kind: str, what: str) -> None:
        """Remember an event for the next frame's `Frame.events`."""
        self._events.append((kind, printable(what)))

    def step(self, dt: float) -> Frame:
        """Simulate one frame of `dt` seconds (see the module notes for the order).

        sgview's own phases compute under `floats_raise`; a failure in one of them is a
        `FrameError` naming the scene, the frame and the phase. The `on_frame` callbacks
        run under `callback_errstate` (the caller's numpy settings) and their errors
        propagate as they are."""
        self.frame += 1
        scene, graph = self.scene, self.graph
        t0 = clock.perf_counter()
        if not self._clock_held:  # a frame that only shows an edit fires no script
            self._scene_frames += 1
            script.play(scene, self.touches, self._scene_frames, self._phase)
        moving = self.motion_on and not self._clock_held
        with self._phase("the motions"):
            if moving:
                self._moving_frames += 1
                if self.fixed_step is not None:  # exact multiples: no summed rounding
                    self.time = self._moving_frames * self.fixed_step
                else:
                    self.time += dt
                apply_motions(scene, self.time)
        with self._phase("the animation"):
            apply_animation(scene, self.time, running=moving)
        phases = [("motions", t0, clock.perf_counter())]
        for callback in self.frame_callbacks:
            start = clock.perf_counter()
            with np.errstate(**self.callback_errstate):
                callback(graph, self.frame, self.time)
            phases.append(("on_frame", start, clock.perf_counter()))
        if self.frame_callbacks:
            self.editing.selected_node()  # a callback may have removed it: clear it
        with self._phase("the held keys", phases, "keys"):
            self.editing.apply_held(self.collision)
        with self._phase("the update", phases, "update"):
            report = graph.update()
        if self.frame_callbacks and (reason := reach_reason(graph, report.world_updated)):
            raise FrameError(f"frame {self.frame}: after on_frame, {reason}")  # last good kept
        self.last_report = report
        weights = scene.geometry.take_changed()
        if self.log:
            self._print_log(report, weights)
        with self._phase("the collision test"):
            recolor = {} if self._collision_check is None else self._collision_check.run()
        update_ms = 1000.0 * (phases[-1][2] - phases[-1][1])
        return Frame(self.frame, report, dt, update_ms, phases, recolor, weights=weights)

    @contextmanager
    def _phase(
        self, what: str, timings: list[Phase] | None = None, name: str = ""
    ) -> Iterator[None]:
        """One of sgview's own phases of a frame: numpy raises, and an error from a
        layer below becomes one `FrameError` line; timed into `timings` as `name`."""
        start = clock.perf_counter()
        try:
            with floats_raise():
                yield
        except SgviewError:
            raise
        except Exception as exc:
            if interrupted(exc):
                raise
            source = self.scene.source
            where = "the scene" if source is None else printable(source, 120)
            raise FrameError(f"{where}: frame {self.frame}: {what} failed ({brief(exc)})") from None
        if timings is not None:
            timings.append((name, start, clock.perf_counter()))

    def _print_log(self, report: FrameReport, weights: frozenset[int] = frozenset()) -> None:
        instanced = {item.node for item in self.scene.geometry.instanced}
        what = {True: "~Instances    : ", False: "~Weights      : "}  # the node's own change
        lines = [
            *report.log_lines(),
            *(
                f"{what[i in instanced]}{printable(self.graph.name_of(i))}~"
                for i in sorted(weights)
            ),
        ]
        if lines:
            self.messages.log([f"# frame {self.frame}", *lines])

    # -- the frame source's swap (viewer/session/source.py) -------------------------------
    def poll(self) -> Candidate | None:
        """Once per redraw: the checked scene the files room hands back (a file asked for
        with `request_open`, or the scene file saved again), to be given its GPU state
        and then `commit`ted; None when there is none."""
        checked = self.files.take(time=self.time, motion_on=self.motion_on)
        self._offered = checked
        if checked is None:
            return None
        return Candidate(checked.scene, str(checked.path), fresh=not checked.reloaded)

    def _taken(self, candidate: Candidate) -> Checked:
        offered, self._offered = self._offered, None
        if offered is None or offered.scene is not candidate.scene:
            raise ValueError("a candidate is committed or rejected once, after its poll")
        return offered

    def commit(self, candidate: Candidate) -> None:
        """Swap in the candidate `poll` offered. A reloaded scene keeps the clock, touches
        and selection (by node name); an opened one starts at frame 0 and scene time 0
        with none (its clips and motions from their start, also when the motion is
        stopped: S then starts them there)."""
        checked = self._taken(candidate)
        if checked.reloaded:
            self.replace_scene(checked.scene)
        else:
            self._use(checked.scene, layout=False)  # try_scene laid it out already
            self.touches, self.frame, self._scene_frames = {}, 0, 0
            self.time, self._moving_frames = 0.0, 0
        self.files.shown(checked)

    def reject(self, candidate: Candidate, error: Exception) -> None:
        """The candidate's GPU state could not be built: one line, the scene on show stays."""
        self.files.refuse(self._taken(candidate), error)

    # -- capabilities (viewer/session/source.py): a scene file's session offers them all --
    @property
    def controls(self) -> SceneControls:
        return self

    @property
    def file_actions(self) -> FileActions:
        return self

    @property
    def programs(self) -> None:
        """A scene file's session shows no programs."""
        return None

    # -- scene files ---------------------------------------------------------------------
    @property
    def recent_paths(self) -> list[Path]:
        return self.files.recent.paths

    def request_open(self, path: str | Path) -> None:
        self.files.request_open(path)

    def recent_folder(self) -> str:
        return self.files.recent_folder()

    def save_suggestion(self) -> str:
        return self.files.save_suggestion(self.scene)

    def save(self, path: str | Path | None = None) -> bool:
        """Ctrl+S: write the scene to ``path``, or to the file it came from (the collision
        demo's with both its modes' motions); the outcome is the channel's edit line."""
        motions = None if self.collision is None else self.collision.file_motions
        return self.files.save(self.scene, path, motions)

    def replace_scene(self, scene: Scene) -> None:
        """Show `scene` instead, keeping the clock and pause state, and the touches and
        selection by node name (a note on stderr for each name the new scene lacks)."""
        selected = None if self.selected is None else self.graph.name_of(self.selected)
        touches, node_id, notes = carry_names(scene, self.touches, selected)
        self._use(scene, selected=node_id)
        self.touches = touches
        for note in notes:
            self.messages.warn(f"note: {note}")

    # -- actions: keys, panel buttons, scripts ------------------------------------------
    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self._step_requested = self._clock_held = False

    def request_step(self, still: bool = False) -> None:
        """While paused: simulate exactly one frame at the next `advance`; ``still``: with
        the scene clock held, to show an edit (a Step asked for too moves it on)."""
        if self.paused:
            self._clock_held = still and (self._clock_held or not self._step_requested)
            self._step_requested = True

    def toggle_hold_edits(self) -> None:
        self.hold_edits = not self.hold_edits

    def press_move_key(self, action: str, reverse: bool = False) -> None:
        """A movement key went down: held, it moves the selection each frame; paused, its
        press moves it one frame's step at once (as an edit is shown), not at a later step;
        paused with hold edits on, the step's values are written at once and wait, marked,
        for the next step."""
        self.editing.press_key(action, reverse, self.collision)
        if self.paused and self.editing.held.active() and self.editing.keys_act(self.collision):
            if self.hold_edits:
                self._move_now()
            else:
                self.request_step(still=True)

    def _move_now(self) -> None:
        """One frame's step of the held keys, outside a frame: the values and the marks
        only (the next frame's update executes them, and carries the edit's event)."""
        selected = self.selected
        if self.collision is not None:
            self._note("edit", "collision demo")
        elif selected is not None:
            self._note("edit", self.graph.name_of(selected))
        with self._phase("the held keys"):
            self.editing.apply_held(self.collision)

    def release_move_key(self, action: str) -> None:
        """A movement key went up: the held move or turn stops."""
        self.editing.release_key(action)

    @property
    def has_motion(self) -> bool:
        """Whether anything here moves with scene time (what S stops): the scene's
        motions, a glTF clip, the collision demo, or an `on_frame` callback (it gets the
        time)."""
        scene = self.scene
        return (
            any(len(m) for m in scene.motions)
            or scene.animation is not None
            or scene.collision is not None
            or bool(self.frame_callbacks)
        )

    def toggle_motion(self) -> None:
        self.motion_on = not self.motion_on

    def touch_selected(self) -> None:
        node = self.editing.selected_node()
        if node is not None:
            self.graph.touch(node)
            self._note("touch", self.graph.name_of(node.id))

    def _edited(self, event: str | None) -> None:
        """The editing room changed the graph: a timeline event (None: a drag's move),
        shown at once while paused (with hold edits on, left marked for the next step);
        a selection whose node went away is cleared."""
        if event is not None:
            self._note("edit", event)
        self.editing.selected_node()
        if self.paused and not self.hold_edits:
            self.request_step(still=True)  # shows at once while paused

    def pick_animation(self, choice: int | str | None) -> None:
        """Play the clip `choice` (index or name) from its start; None: animation off."""
        if self.animation is not None:
            self.animation.pick(choice)
            self._note("clip", "off" if choice is None else str(choice))
            self.request_step(still=True)  # shows at once while paused

    def toggle_animation(self) -> None:
        """Play or pause the current clip (the scene's other motion is not affected)."""
        player = self.animation
        if player is not None and player.current is not None:
            (player.pause if player.playing else player.play)()

    def scrub_animation(self, time: float) -> None:
        """Show the current clip at `time` seconds (a playing clip goes on from there)."""
        if self.animation is not None and self.animation.current is not None:
            self.animation.scrub(time)
            self.request_step(still=True)  # shows at once while paused

    # -- restart -------------------------------------------------------------------------
    def restart(self) -> FrameReport:
        """Back to frame 0 (`StartPose`: the first local values, motions and clip; the
        clock at 0: scripts play again), running as at launch: not paused, the motion on
        (off where the launch said --still). Returns the layout update (not a frame)."""
        self.paused, self.motion_on = False, not self._still_at_launch
        if self._start is None or self._start.scene is not self.scene:  # no frame yet
            return self.graph.update()
        self._start.put_back()
        if self.collision is not None:
            self.collision.reset()
        self.frame, self.time, self._moving_frames, self._scene_frames = 0, 0.0, 0, 0
        self._events, self._step_requested, self._clock_held = [], False, False
        self.editing.restart()
        self.last_report = None
        if self._collision_check is not None:
            self._collision_check.reading = None
        return self.graph.update()

    def switch_collision_mode(self) -> None:  # M: the rectangle oscillates or revolves
        if self.collision is not None:
            self.collision.switch_mode(self.time)
