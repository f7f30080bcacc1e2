"""What the user is looking at and doing: one owner, no window, no GL.

A `Session` holds the scene on show and everything done to it: the scene clock, pause and
step, the selection, the held movement keys, touches (from keys or `--touch`), live reload
of the scene file and the collision demo. The window app, the headless runner and the
embedding API all drive a session the same way: `advance(dt)` once per redraw returns the
simulated `Frame` (or None while paused), and the caller hands its report to whatever
shows it. Actions (`select`, `toggle_pause`, `request_step`, `touch_selected`, ...) are
the same whether they come from a key, a panel button or a script.

Each simulated frame does, in order: the scene's scripted events for the frame, then the
touches asked for it; the motions and the glTF animation at scene time t (headless:
t = frame / 60 exactly)
unless stopped; the per-frame callbacks (`on_frame`: the user's own code, called with the
graph, the frame number and t); the held keys on the selection (or, in the collision demo,
on the disk and the rectangle); `graph.update()`; the collision test.
Frame 1 is the first frame; the layout update of a freshly loaded scene happens before it
and is not a frame.
"""

from __future__ import annotations

import sys
import time as clock
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from viewer.animation import AnimationPlayer, apply_animation
from viewer.collision.demo import CollisionDemo, Reading
from viewer.content.motion import apply_events, apply_motions
from viewer.content.scene import Scene
from viewer.controls import HeldKeys, apply_held, held_direction
from viewer.io.watch import SceneWatcher, watch_scene
from viewer.palette import HIT_COLOR
from viewer.scene.report import FrameReport
from viewer.text import one_line, printable

__all__ = ["Frame", "Session", "window_title"]


def window_title(title: str, selected: str | None = None) -> str:
    """ "sgview — TITLE[ — SELECTED]", with both made safe to show (they come from files)."""
    text = f"sgview — {printable(title)}"
    return text if selected is None else f"{text} — {printable(selected)}"


@dataclass
class Frame:
    """One simulated frame, as the session hands it on to the renderer and the overlay."""

    number: int
    report: FrameReport
    dt: float
    update_ms: float
    #: What the frame spent its time on: (phase, start, end), `time.perf_counter` seconds.
    phases: list[tuple[str, float, float]] = field(default_factory=list)
    #: Nodes whose base colour changes with this frame (the collision demo's overlap red).
    recolor: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    #: Nodes whose morph weights changed with this frame: a change that moved no matrix,
    #: so the report does not list them (the overlay shows them as "weights").
    weights: frozenset[int] = frozenset()


class Session:
    """The scene on show and the user's actions on it (see the module notes).

    Parameters
    ----------
    scene : Scene
    still : bool
        Start with the scene's motion stopped (S toggles it).
    touches : dict[int, list[str]]
        Node names to touch at the start of each frame number.
    fixed_step : float or None
        Seconds per frame of a reproducible clock (headless); None: the `dt` given.
    load_limits : dict
        `load_scene` caps, reused when the scene file is reloaded.
    log : bool
        Print ``# frame N`` and the frame's update log for each frame that recomputed.
    out, err : text streams, default sys.stdout / sys.stderr at the time of printing
    layout : bool
        Update the graph once before frame 1 (not a frame). False: what is pending in the
        graph is frame 1's change (`viewer.render_image` shows it glowing).
    """

    def __init__(
        self,
        scene: Scene,
        *,
        still: bool = False,
        touches: dict[int, list[str]] | None = None,
        fixed_step: float | None = None,
        load_limits: dict | None = None,
        log: bool = False,
        out: TextIO | None = None,
        err: TextIO | None = None,
        layout: bool = True,
    ) -> None:
        # Made first: a save during the rest of the set-up must count as a change.
        self.watcher: SceneWatcher | None = watch_scene(scene, **(load_limits or {}))
        self.touches = dict(touches or {})
        self.fixed_step = fixed_step
        self.log = log
        self._out, self._err = out, err
        self.frame = 0
        self.time = 0.0  # scene time: advances only while the motion runs
        self._moving_frames = 0
        self.motion_on = not still
        self.paused = False
        self._step_requested = False
        self.held = HeldKeys()
        #: Shift held with R: turn the other way.
        self.reverse_turn = False
        #: The error of the last save that did not load, shown until a good save.
        self.reload_error: str | None = None
        self.last_report: FrameReport | None = None
        #: Called as ``callback(graph, frame, t)`` in every simulated frame, before the
        #: update (see the module notes); an exception stops the frame and propagates.
        self.frame_callbacks: list[Callable[[object, int, float], None]] = []
        self._use(scene, layout=layout)

    def _use(self, scene: Scene, *, layout: bool = True) -> None:
        if layout:
            scene.graph.update()  # lay out the loaded scene; not a frame
        self.scene = scene
        self.selected: int | None = None
        self.collision = CollisionDemo(scene) if scene.collision is not None else None
        self.collision_reading: Reading | None = None
        self._drawn_hit = False

    @property
    def graph(self):
        return self.scene.graph

    @property
    def animation(self) -> AnimationPlayer | None:
        """The scene's glTF animation player; None when its files have no animation."""
        player = self.scene.animation
        return player if player is not None and player.clips else None

    @property
    def collision_mode(self) -> str | None:
        """The collision demo's motion mode ("oscillate" / "revolve"); None elsewhere."""
        return None if self.collision is None else self.collision.mode

    @property
    def title(self) -> str:
        """The window title: the scene's, and the selected node's name."""
        selected = None if self.selected is None else self.graph.name_of(self.selected)
        return window_title(self.scene.title, selected)

    # -- the clock -----------------------------------------------------------------------
    def advance(self, dt: float) -> Frame | None:
        """Once per redraw: simulate a frame unless paused (a requested step runs one)."""
        if not self.paused:
            return self.step(dt)
        if self._step_requested:
            self._step_requested = False
            return self.step(self.fixed_step or dt)
        return None

    def step(self, dt: float) -> Frame:
        """Simulate one frame of `dt` seconds (see the module notes for the order)."""
        self.frame += 1
        scene, graph = self.scene, self.graph
        t0 = clock.perf_counter()
        apply_events(scene, self.frame)
        for name in self.touches.get(self.frame, ()):
            graph.touch(graph[name])
        if self.motion_on:
            self._moving_frames += 1
            if self.fixed_step is not None:  # exact multiples: no summed rounding
                self.time = self._moving_frames * self.fixed_step
            else:
                self.time += dt
            apply_motions(scene, self.time)
        apply_animation(scene, self.time, running=self.motion_on)
        phases = [("motions", t0, clock.perf_counter())]
        for callback in self.frame_callbacks:
            start = clock.perf_counter()
            callback(graph, self.frame, self.time)
            phases.append(("on_frame", start, clock.perf_counter()))
        t0 = clock.perf_counter()
        self._apply_held_keys()
        phases.append(("keys", t0, clock.perf_counter()))
        t0 = clock.perf_counter()
        report = graph.update()
        t1 = clock.perf_counter()
        phases.append(("update", t0, t1))
        self.last_report = report
        weights = scene.geometry.take_changed()
        if self.log:
            self._print_log(report, weights)
        recolor = self._test_collision()
        return Frame(self.frame, report, dt, 1000.0 * (t1 - t0), phases, recolor, weights)

    def _print_log(self, report: FrameReport, weights=frozenset()) -> None:
        names = [printable(self.graph.name_of(i)) for i in sorted(weights)]
        lines = [*report.log_lines(), *(f"~Weights      : {name}~" for name in names)]
        if lines:
            print(f"# frame {self.frame}", *lines, sep="\n", file=self._out or sys.stdout)

    def _apply_held_keys(self) -> None:
        actions = self.held.take()
        if not actions:
            return
        demo = self.collision
        if demo is not None:
            dx, dy = held_direction(actions)
            if dx or dy:
                demo.move_disk(dx, dy)
            if "turn" in actions:
                demo.turn_rect(-1 if self.reverse_turn else 1)
        elif self.selected is not None:
            apply_held(self.graph.node(self.selected), actions, self.reverse_turn)

    def _test_collision(self) -> dict[int, tuple[float, float, float]]:
        """After the update: disk against rectangle; both drawn red while they overlap."""
        demo = self.collision
        if demo is None:
            return {}
        self.collision_reading = reading = demo.read()
        if reading.hit == self._drawn_hit:
            return {}
        self._drawn_hit = reading.hit
        return {
            node.id: HIT_COLOR if reading.hit else self.scene.look(node.id).color
            for node in (demo.disk, demo.rect)
        }

    # -- live reload ---------------------------------------------------------------------
    def poll_reload(self) -> Scene | None:
        """Swap in the scene file's new contents after a save (returns the new scene);
        a save that does not load keeps the last good scene and says why."""
        if self.watcher is None:
            return None
        result = self.watcher.poll()
        if result is None:
            return None
        if isinstance(result, Exception):
            self.reload_error = str(result)
            print(f"sgview: reload failed, keeping the last good scene: {one_line(result)}",
                  file=self._err or sys.stderr, flush=True)  # fmt: skip
            return None
        self.reload_error = None
        self.replace_scene(result)
        print(f"sgview: reloaded {printable(self.watcher.path, None)}",
              file=self._out or sys.stdout, flush=True)  # fmt: skip
        return result

    def replace_scene(self, scene: Scene) -> None:
        """Show `scene` instead (the clock, pause state and view toggles carry over)."""
        self._use(scene)

    # -- actions: keys, panel buttons, scripts ------------------------------------------
    def select(self, node_id: int | None) -> None:
        """Select a node (None: clear)."""
        self.selected = None if node_id is None else int(node_id)

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self._step_requested = False

    def request_step(self) -> None:
        """While paused: simulate exactly one frame at the next `advance`."""
        if self.paused:
            self._step_requested = True

    def toggle_motion(self) -> None:
        self.motion_on = not self.motion_on

    def touch_selected(self) -> None:
        if self.selected is not None:
            self.graph.touch(self.graph.node(self.selected))

    def pick_animation(self, choice: int | str | None) -> None:
        """Play the clip `choice` (index or name) from its start; None: animation off."""
        if self.animation is not None:
            self.animation.pick(choice)
            self._show_now()

    def toggle_animation(self) -> None:
        """Play or pause the current clip (the scene's other motion is not affected)."""
        player = self.animation
        if player is None or player.current is None:
            return
        if player.playing:
            player.pause()
        else:
            player.play()

    def scrub_animation(self, time: float) -> None:
        """Show the current clip at `time` seconds (a playing clip goes on from there)."""
        if self.animation is not None and self.animation.current is not None:
            self.animation.scrub(time)
            self._show_now()

    def _show_now(self) -> None:
        """While paused, a picked or scrubbed pose shows through one stepped frame."""
        self.request_step()

    def switch_collision_mode(self) -> None:
        """M in the collision demo: the rectangle oscillates or revolves."""
        if self.collision is not None:
            self.collision.switch_mode(self.time)
