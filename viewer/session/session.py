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
and is not a frame. A frame that only shows an edit while paused (the scene clock held)
runs no scripted events or touches: those are numbered by the scene's own frames.
"""

from __future__ import annotations

import sys
import time as clock
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from viewer.animation import AnimationPlayer, apply_animation
from viewer.collision.demo import CollisionDemo, Reading
from viewer.content.motion import apply_events, apply_motions
from viewer.content.scene import Scene
from viewer.errors import SgviewError, floats_raise
from viewer.io.errors import SceneError
from viewer.io.ranges import reach_reason
from viewer.io.watch import SceneWatcher, watch_scene
from viewer.keys.controls import HeldKeys, apply_held, held_direction
from viewer.keys.references import carry_names
from viewer.palette import HIT_COLOR
from viewer.scene.errors import HierarchyError
from viewer.scene.node import Node
from viewer.scene.report import FrameReport
from viewer.session.edits import Editor
from viewer.session.opening import RecentFiles, open_scene, save_as, save_as_suggestion, save_target
from viewer.session.reload_check import try_scene
from viewer.text import brief, one_line, printable

__all__ = ["Frame", "FrameError", "Session", "window_title"]


class FrameError(SgviewError, RuntimeError):
    """A simulated frame failed in one of sgview's own phases (one line: the scene,
    the frame, the phase and the underlying error)."""


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
    #: What the user or the scene's script did in this frame: (kind, what) pairs, kind
    #: "touch", "edit" or "clip" (the overlay's timeline marks them).
    events: list[tuple[str, str]] = field(default_factory=list)
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
        self._load_limits = dict(load_limits or {})
        #: Why the last file dropped or picked did not open (the scene on show stayed).
        self.open_error: str | None = None
        #: Files opened in this session, newest first (`open_file`).
        self.recent = RecentFiles()
        self._open_request = None
        #: The gizmo's axes: the node's own (True) or the world's (X switches).
        self.gizmo_local = False
        #: The gizmo's mode: scale (True) or move and turn (E switches).
        self.gizmo_scale = False
        if scene.source is not None:
            self.recent.add(scene.source)
        self.touches = dict(touches or {})
        #: Events since the last frame, handed on with the next one (`Frame.events`).
        self._events: list[tuple[str, str]] = []
        #: The scene whose start `_start_pose` holds (`restart` goes back to it).
        self._posed_scene: Scene | None = None
        self.fixed_step = fixed_step
        self.log = log
        self._out, self._err = out, err
        self.frame = 0
        #: The frames the scene has stepped: the scripted events and ``--touch`` touches
        #: are numbered by it (a frame that only shows an edit while paused is none).
        self._scene_frames = 0
        self.time = 0.0  # scene time: advances only while the motion runs
        self._moving_frames = 0
        self.motion_on = not still
        self.paused = False
        self._step_requested = False
        #: The requested step only shows an edit, a picked or scrubbed pose: the scene
        #: clock holds (paused means the scene's time stands still).
        self._clock_held = False
        self.held = HeldKeys()
        #: Shift held with R: turn the other way.
        self.reverse_turn = False
        #: The error of the last save that did not load, shown until a good save.
        self.reload_error: str | None = None
        self.last_report: FrameReport | None = None
        #: Called as ``callback(graph, frame, t)`` in every simulated frame, before the
        #: update (see the module notes); an exception stops the frame and propagates.
        self.frame_callbacks: list[Callable[[object, int, float], None]] = []
        #: numpy's error state for the callbacks (the caller's; sgview's own phases raise).
        self.callback_errstate: dict[str, str] = np.geterr()
        self._use(scene, layout=layout)

    def _use(self, scene: Scene, *, layout: bool = True) -> None:
        self.scene = scene
        if layout:
            with self._phase("the layout"):
                scene.graph.update()  # lay out the loaded scene; not a frame
        self.selected: int | None = None
        #: The user's edits and their undo history (a new scene starts a new history).
        self.editor = Editor(scene.graph)
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
            return self._step_with_events(dt)
        if self._step_requested:
            self._step_requested = False
            try:
                return self._step_with_events(self.fixed_step or dt)
            finally:
                self._clock_held = False
        return None

    def _step_with_events(self, dt: float) -> Frame:
        """`step`, with the frame's events (`Frame.events`): the scripted events and
        ``--touch`` touches of the frame, the held keys' edit, and the touches and clip
        changes asked for since the last frame."""
        if self._posed_scene is not self.scene:  # the first frame of a scene: its start
            self._start_pose, self._posed_scene = self._pose(), self.scene
        held = self.held.active()
        if not self._clock_held:  # an edit shown while paused is no step of the script
            number = self._scene_frames + 1
            for event in self.scene.events:
                if event.frame == number and event.node in self.graph:
                    self._note("touch" if event.touch else "edit", event.node)
            for name in self.touches.get(number, ()):
                if name in self.graph:  # the user may have deleted it
                    self._note("touch", name)
        if held and self._keys_act():
            what = "collision demo" if self.collision is not None else None
            self._note("edit", what or self.graph.name_of(self.selected))
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
            with self._phase("the scripted events"):
                apply_events(scene, self._scene_frames)
            with self._phase("the touches"):
                for name in self.touches.get(self._scene_frames, ()):
                    if name in graph:  # the user may have deleted it
                        graph.touch(graph[name])
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
            self._selected_node()  # a callback may have removed it: clear the selection
        t0 = clock.perf_counter()
        with self._phase("the held keys"):
            self._apply_held_keys()
        phases.append(("keys", t0, clock.perf_counter()))
        t0 = clock.perf_counter()
        with self._phase("the update"):
            report = graph.update()
            reason = reach_reason(graph, report.world_updated) if self.frame_callbacks else None
        if reason is not None:  # a callback's value: the picture keeps the last good frame
            raise FrameError(f"frame {self.frame}: after on_frame, {reason}")  # names made safe
        t1 = clock.perf_counter()
        phases.append(("update", t0, t1))
        self.last_report = report
        weights = scene.geometry.take_changed()
        if self.log:
            self._print_log(report, weights)
        with self._phase("the collision test"):
            recolor = self._test_collision()
        return Frame(self.frame, report, dt, 1000.0 * (t1 - t0), phases, recolor,
                     weights=weights)  # fmt: skip

    @contextmanager
    def _phase(self, what: str) -> Iterator[None]:
        """One of sgview's own phases of a frame: numpy raises, and an error from a
        layer below becomes one `FrameError` line."""
        try:
            with floats_raise():
                yield
        except SgviewError:
            raise
        except Exception as exc:
            source = self.scene.source
            where = "the scene" if source is None else printable(source, 120)
            raise FrameError(f"{where}: frame {self.frame}: {what} failed ({brief(exc)})") from None

    def _print_log(self, report: FrameReport, weights=frozenset()) -> None:
        names = [printable(self.graph.name_of(i)) for i in sorted(weights)]
        lines = [*report.log_lines(), *(f"~Weights      : {name}~" for name in names)]
        if lines:
            (self._out or sys.stdout).write(f"# frame {self.frame}\n" + "\n".join(lines) + "\n")

    def _apply_held_keys(self) -> None:
        actions = self.held.take()
        history = self.editor.history
        if not actions:
            history.end("keys")  # a key hold is one undo step, closed when the keys are up
            return
        demo = self.collision
        if self._keys_act():
            what = "the collision demo" if demo is not None else self.graph.name_of(self.selected)
            history.begin(f"move {printable(what)}", "keys")
        if demo is not None:
            dx, dy = held_direction(actions)
            if dx or dy:
                demo.move_disk(dx, dy)
            if "turn" in actions:
                demo.turn_rect(-1 if self.reverse_turn else 1)
        elif (node := self._selected_node()) is not None:
            apply_held(node, actions, self.reverse_turn)
        if not self.held.down:
            history.end("keys")  # a tap, already let go: this frame was all of it

    def _keys_act(self) -> bool:
        """Whether the movement keys move something: the collision demo's nodes (while
        none is deleted), else the selection."""
        if self.collision is not None:
            return self.collision.intact
        return self._selected_node() is not None

    def selected_node(self) -> Node | None:
        """The selected node's handle (None: nothing selected, or it was removed)."""
        return self._selected_node()

    def _selected_node(self) -> Node | None:
        """The selected node; None, and the selection cleared, once it was removed (by an
        `on_frame` callback, say)."""
        if self.selected is None:
            return None
        try:
            return self.graph.node(self.selected)
        except (KeyError, HierarchyError):
            self.selected = None
            return None

    def _test_collision(self) -> dict[int, tuple[float, float, float]]:
        """After the update: disk against rectangle; both drawn red while they overlap."""
        demo = self.collision
        if demo is None:
            return {}
        if not demo.intact:  # the user deleted one of its nodes: nothing to test
            self.collision_reading = None
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
    def poll_reload(self, prepare: Callable[[Scene], object] | None = None) -> Scene | None:
        """Swap in the scene file's new contents after a save (returns the new scene).

        A transaction (viewer/session/reload_check.py): the new scene is loaded, run for one
        simulated frame and handed to `prepare` (the window's GPU set-up for it) before it
        replaces the current one; whatever fails on the way, in any layer, keeps the last
        good scene on show and says why in one line (`reload_error`, and stderr). The
        touches and the selection carry over by node name."""
        if self.watcher is None:
            return None
        result = self.watcher.poll()
        if result is None:
            return None
        display = str(self.watcher.path)
        try:
            if isinstance(result, Exception):
                raise result
            try_scene(result, display, time=self.time, motion_on=self.motion_on)
            if prepare is not None:
                with floats_raise():
                    prepare(result)
        except Exception as exc:
            self._reload_failed(exc, display)
            return None
        self.reload_error = None
        self.replace_scene(result)
        print(f"sgview: reloaded {printable(self.watcher.path, None)}",
              file=self._out or sys.stdout, flush=True)  # fmt: skip
        return result

    def open_file(self, path, prepare: Callable[[Scene], object] | None = None) -> bool:
        """Show the scene file ``path`` instead (dropped on the window, or from the
        dialog or the recent list): the reload transaction on another file, so a bad one
        is one line in the panel (`reload_error`) and the current scene stays. A new
        scene: frame 0, no touches, no selection, a new undo history. True if opened."""
        try:
            scene = open_scene(path, load_limits=self._load_limits, time=self.time,
                               motion_on=self.motion_on)  # fmt: skip
            if prepare is not None:
                with floats_raise():
                    prepare(scene)
        except Exception as exc:
            if not isinstance(exc, SgviewError):  # from `prepare`: say which file it was
                exc = SceneError(f"cannot show it ({brief(exc)})", file=str(path))
            self.open_error = one_line(exc)
            print(f"sgview: not opened, keeping the scene on show: {self.open_error}",
                  file=self._err or sys.stderr, flush=True)  # fmt: skip
            return False
        self.open_error = self.reload_error = None
        self._use(scene, layout=False)  # try_scene laid it out already
        self.touches, self.frame, self._scene_frames = {}, 0, 0
        self.watcher = watch_scene(scene, **self._load_limits)
        self.recent.add(path)
        print(f"sgview: opened {printable(path, None)}", file=self._out or sys.stdout,
              flush=True)  # fmt: skip
        return True

    def request_open(self, path) -> None:
        """Ask the window to open ``path`` at its next redraw (the panel's recent list:
        the window owns the GPU state a new scene needs)."""
        self._open_request = path

    def take_open_request(self):
        """The path `request_open` asked for, once (None: none)."""
        path, self._open_request = self._open_request, None
        return path

    def recent_folder(self) -> str:
        """Where the open dialog starts: the folder of the newest recent file."""
        return str(self.recent.paths[0].parent) if self.recent.paths else "."

    @property
    def save_suggestion(self) -> str:
        """The path the panel's "save as" field offers
        (`viewer.session.opening.save_as_suggestion`)."""
        return save_as_suggestion(self.scene)

    def save(self, path=None) -> bool:
        """Ctrl+S: write the scene to ``path``, or to the file it came from when its
        format has a writer (`viewer.session.opening`); the outcome is the editor's message."""
        running = self.scene.motions
        if self.collision is not None:  # it runs one mode's, re-anchored: the file has both
            self.scene.motions = self.collision.file_motions
        try:
            target = path if path is not None else save_target(self.scene)
            notes = save_as(self.scene, target)
        except SgviewError as exc:
            self.editor.message = one_line(exc)
            return False
        finally:
            self.scene.motions = running
        self.watcher = watch_scene(self.scene, **self._load_limits)
        self.editor.message = one_line(f"saved {printable(target, None)}" + (
            f" ({len(notes)} notes: {notes[0]})" if notes else ""))  # fmt: skip
        return True

    def _reload_failed(self, exc: Exception, display: str) -> None:
        if not isinstance(exc, SgviewError):  # from `prepare`: say which file it was
            exc = SceneError(f"cannot show the reloaded scene ({brief(exc)})", file=display)
        self.reload_error = one_line(exc)
        print(f"sgview: reload failed, keeping the last good scene: {self.reload_error}",
              file=self._err or sys.stderr, flush=True)  # fmt: skip

    def replace_scene(self, scene: Scene) -> None:
        """Show `scene` instead (the clock, pause state and view toggles carry over; the
        touches and the selection too, by node name, with a note for each name the new
        scene lacks)."""
        selected = None if self.selected is None else self.graph.name_of(self.selected)
        touches, node_id, notes = carry_names(scene, self.touches, selected)
        self._use(scene)
        self.touches = touches
        self.selected = node_id
        for note in notes:
            print(f"sgview: note: {note}", file=self._err or sys.stderr, flush=True)

    # -- actions: keys, panel buttons, scripts ------------------------------------------
    def select(self, node_id: int | None) -> None:
        """Select a node (None: clear)."""
        self.selected = None if node_id is None else int(node_id)

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self._step_requested = self._clock_held = False

    def request_step(self, still: bool = False) -> None:
        """While paused: simulate exactly one frame at the next `advance`; ``still``: with
        the scene clock held, to show an edit (a Step asked for too moves it on)."""
        if self.paused:
            self._clock_held = still and (self._clock_held or not self._step_requested)
            self._step_requested = True

    def toggle_motion(self) -> None:
        self.motion_on = not self.motion_on

    def release_key(self, action: str) -> None:
        """A movement key went up: with none left down, the hold's undo step ends now
        (not at the next frame, which does not come while paused)."""
        self.held.release(action)
        if not self.held.down:
            self.editor.history.end("keys")

    def touch_selected(self) -> None:
        node = self._selected_node()
        if node is not None:
            self.graph.touch(node)
            self._note("touch", self.graph.name_of(self.selected))

    def undo(self) -> None:
        """Ctrl+Z: undo the last edit (`viewer.session.edits`); what came back glows."""
        if self.editor.undo():
            self.note_edit()

    def redo(self) -> None:
        """Ctrl+Shift+Z: do the last undone edit again."""
        if self.editor.redo():
            self.note_edit()

    def edit(self, action: str, *args):
        """An edit from the panel: `viewer.session.edits.Editor`'s ``action`` (set_field,
        reparent, delete, duplicate, add_child) with ``args``, one undo step; a new
        node (duplicate, add_child) becomes the selection. Returns what the action did."""
        result = getattr(self.editor, action)(*args)
        if action in ("duplicate", "add_child") and result is not None:
            self.selected = int(result)
        self.note_edit()
        return result

    def note_edit(self) -> None:
        """An edit from the panel or an undo: a timeline event, shown even while paused;
        a selection whose node went away is cleared."""
        self._note("edit", self.editor.message or "edit")
        self._selected_node()
        if self.paused:
            self._show_now()

    def pick_animation(self, choice: int | str | None) -> None:
        """Play the clip `choice` (index or name) from its start; None: animation off."""
        if self.animation is not None:
            self.animation.pick(choice)
            self._note("clip", "off" if choice is None else str(choice))
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
        """While paused, an edit, a picked or scrubbed pose shows through one frame with
        the scene clock held."""
        self.request_step(still=True)

    # -- restart -------------------------------------------------------------------------
    def _pose(self) -> tuple:
        """The scene's starting point for `restart`: live ids, their local values, the
        motions and the clip."""
        ids = self.graph.alive_ids().copy()
        pos, rot, scl = (a[ids].copy() for a in self.graph.local_values())
        player = self.animation
        return ids, pos, rot, scl, list(self.scene.motions), player and player.index

    def restart(self) -> FrameReport:
        """Back to frame 0: the local values, motions and clip the scene started with, the
        clock at 0, so the scripted events and ``--touch`` touches play again. Returns the
        layout update that puts the nodes back (not a frame; a renderer uploads its
        executed nodes). Nodes added since the start stay where they are."""
        if self._posed_scene is not self.scene:  # no frame yet: nothing to go back to
            return self.graph.update()
        ids, pos, rot, scl, motions, clip = self._start_pose
        alive = set(self.graph.alive_ids().tolist())
        keep = [k for k, i in enumerate(ids.tolist()) if i in alive]  # removed: skipped
        if keep:
            self.graph.set_locals(ids[keep], positions=pos[keep], rotations=rot[keep],
                                  scales=scl[keep])  # fmt: skip
        self.scene.motions = motions
        if self.collision is not None:
            self.collision.reset()
        if clip is not None:
            self.animation.pick(clip)
        self.frame, self.time, self._moving_frames, self._scene_frames = 0, 0.0, 0, 0
        self._events, self._step_requested, self._clock_held = [], False, False
        self.held.clear()
        self.last_report = self.collision_reading = None
        return self.graph.update()

    def switch_collision_mode(self) -> None:
        """M in the collision demo: the rectangle oscillates or revolves."""
        if self.collision is not None:
            self.collision.switch_mode(self.time)
