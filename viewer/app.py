"""The frame loop, shared by the window and the headless mode, and the input map.

One `SgviewApp` (a moderngl-window `WindowConfig`) runs in both modes: in a pyglet window
with the real clock, or in moderngl-window's headless window (EGL) with a fixed 1/60 s
step. Either way `run_window_config_instance` drives it and each frame does, in order:

1. the scene's scripted events for this frame, then the `--touch` requests for it;
2. the scene's motions and its glTF animation at time t (headless: t = frame / 60),
   unless stopped (`--still`, `S`), and the held movement keys (H J K L R) on the
   selected node;
3. `graph.update()`, which returns the frame report;
4. `renderer.sync(report)`: upload the executed nodes' world matrices; the overlay takes
   the report (glow, history, counters);
5. `--log` output, drawing (scene, then the overlay), and capturing the image when asked.

While paused (Space) no frame is simulated: the same picture is drawn again, glow
included, until Space resumes or `.` simulates exactly one frame.

Frame 1 is the first frame drawn; the graph's initial update, which lays out the loaded
scene, happens before it and is not logged.
"""

from __future__ import annotations

import json
import sys
import time as clock
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import moderngl_window as mglw
import numpy as np
from moderngl_window.timers.base import BaseTimer

from viewer.animation import apply_animation
from viewer.app_input import InputHandlers
from viewer.collision.demo import HIT_COLOR, CollisionDemo
from viewer.controls import KEY_HELP, MOUSE_HELP, MOVES, HeldKeys, apply_held
from viewer.io.watch import watch_scene
from viewer.render.camera import ORTHOGRAPHIC, Camera, pick
from viewer.render.context import GL_VERSION, ContextError, read_rgb
from viewer.render.offscreen import FPS, Recorder, save_png
from viewer.render.renderer import Renderer
from viewer.scene.motion import apply_events, apply_motions
from viewer.timing import FixedTimer

__all__ = [
    "KEY_HELP", "MOUSE_HELP", "FixedTimer", "RunOptions", "SgviewApp", "dump_world", "run"
]  # fmt: skip


@dataclass
class RunOptions:
    """What a run should do besides showing the scene (see viewer.cli for the flags)."""

    size: tuple[int, int] = (1280, 720)
    frames: int | None = None  # stop after this many frames (None: until the window closes)
    still: bool = False
    log: bool = False
    touches: dict[int, list[str]] = field(default_factory=dict)  # frame -> node names
    screenshot: Path | None = None
    record: Path | None = None
    dump_world: Path | None = None
    samples: int = 4
    out: TextIO | None = None  # None: sys.stdout at the time of printing
    overlay: bool = True  # the debug overlay: glow, names, panels (--no-overlay: off)
    select: str | None = None  # node selected at the start
    load_limits: dict = field(default_factory=dict)  # load_scene caps, reused by live reload


class SgviewApp(InputHandlers, mglw.WindowConfig):
    """The viewer: one scene, one camera, one renderer, driven frame by frame."""

    gl_version = GL_VERSION
    title = "sgview"
    resizable = True
    samples = 4
    clear_color = None  # the renderer clears
    hidden_window_framerate_limit = 0
    log_level = None

    def __init__(self, *, scene, options: RunOptions, **kwargs):
        super().__init__(**kwargs)
        self.scene = scene
        self.graph = scene.graph
        self.options = options
        #: Live reload of the scene file (None for generated and built-in scenes). Made
        #: first: a save during the rest of the set-up (the window already shows its
        #: title) must count as a change.
        self.watcher = watch_scene(scene, **options.load_limits)
        #: The error of the last save that did not load, shown until a good save.
        self.reload_error: str | None = None
        self.frame = 0
        self.time = 0.0  # scene time: advances only while the motion runs
        self._moving_frames = 0
        self.motion_on = not options.still  # S
        self.paused = False  # Space: no frame is simulated while paused
        self._step_requested = False  # '.': simulate one frame while paused
        self.held = HeldKeys()
        self.graph.update()  # lay out the loaded scene; not a logged frame
        self.renderer = Renderer(self.ctx, scene)
        self._start_collision(scene)
        self.overlay = None
        if options.overlay:
            from viewer.overlay.overlay import Overlay

            self.overlay = Overlay(
                self, deterministic=isinstance(self.timer, FixedTimer),
                key_help=KEY_HELP + MOUSE_HELP,
            )  # fmt: skip
        self.camera = Camera(fov=scene.camera.fov)
        self._fit_view_to_panels()
        self.renderer.frame_camera(self.camera)
        self._apply_camera_spec()
        self.camera.set_home()
        self.last_report = None
        self.shots_saved: list[Path] = []
        self._want_shot = False
        self._screenshot_done = False
        self._press: tuple[int, int] | None = None
        self._dragged = 0.0
        self._resolve = None
        self.recorder = Recorder(options.record, self.buffer_size) if options.record else None
        self.wnd.title = f"sgview — {scene.title}"
        self.wnd.exit_key = None  # Esc is handled in on_key_event (see quit)
        if options.select is not None:
            self.select(self.graph[options.select].id)

    # -- the frame ---------------------------------------------------------------------
    def step(self, dt: float):
        """Advance the scene by one frame of `dt` seconds; return the frame report."""
        self.frame += 1
        self._poll_reload()
        scene, graph = self.scene, self.graph
        apply_events(scene, self.frame)
        for name in self.options.touches.get(self.frame, ()):
            graph.touch(graph[name])
        if self.motion_on:
            self._moving_frames += 1
            if isinstance(self.timer, FixedTimer):  # exact multiples, no summed rounding
                self.time = self._moving_frames * self.timer.step
            else:
                self.time += dt
            apply_motions(scene, self.time)
            apply_animation(scene, self.time)
        self._apply_held_keys()
        t0 = clock.perf_counter()
        report = graph.update()
        t1 = clock.perf_counter()
        sync_bytes = self.renderer.sync(report)
        self._test_collision()
        t2 = clock.perf_counter()
        self.last_report = report
        if self.overlay is not None:
            self.overlay.frame_done(
                self.frame, report, dt, 1000.0 * (t1 - t0), 1000.0 * (t2 - t1), sync_bytes
            )
        if self.options.log:
            lines = report.log_lines()
            if lines:
                out = self.options.out or sys.stdout
                print(f"# frame {self.frame}", *lines, sep="\n", file=out)
        return report

    def _poll_reload(self) -> None:
        """Swap in the scene file's new contents after a save; keep the old on error."""
        if self.watcher is None:
            return
        result = self.watcher.poll()
        if result is None:
            return
        if isinstance(result, Exception):
            self.reload_error = str(result)
            print(f"sgview: reload failed, keeping the last good scene: {result}",
                  file=sys.stderr, flush=True)  # fmt: skip
            return
        self.reload_error = None
        self.replace_scene(result)
        print(f"sgview: reloaded {self.watcher.path}", file=self.options.out or sys.stdout,
              flush=True)  # fmt: skip

    def replace_scene(self, scene) -> None:
        """Show ``scene`` instead of the current one, keeping the camera and view toggles."""
        old = self.renderer
        scene.graph.update()  # lay out the new scene; not a logged frame
        renderer = Renderer(self.ctx, scene)
        renderer.show_grid, renderer.show_links = old.show_grid, old.show_links
        old.release()
        self.renderer, self.scene, self.graph = renderer, scene, scene.graph
        self._start_collision(scene)
        self.wnd.title = f"sgview — {scene.title}"
        if self.overlay is not None:
            self.overlay.reset()

    def _apply_held_keys(self) -> None:
        """H J K L R held down: move or turn the selected node by one frame's step (in the
        collision demo: move the disk, turn the rectangle)."""
        actions = self.held.take()
        if actions and self.collision is not None:
            dx = sum(int(np.sign(MOVES[a][0])) for a in actions if a in MOVES)
            dy = sum(int(np.sign(MOVES[a][1])) for a in actions if a in MOVES)
            if dx or dy:
                self.collision.move_disk(dx, dy)
            if "turn" in actions:
                self.collision.turn_rect(-1 if self.wnd.modifiers.shift else 1)
        elif actions and self.renderer.selected is not None:
            apply_held(self.graph.node(self.renderer.selected), actions, self.wnd.modifiers.shift)

    def _start_collision(self, scene) -> None:
        """The collision demo, for a scene with a [collision] table (else None)."""
        self.collision = CollisionDemo(scene) if scene.collision is not None else None
        self.collision_reading = None
        self._collision_drawn_hit = False

    def _test_collision(self) -> None:
        """After the frame's update: test disk against rectangle; red while they overlap."""
        demo = self.collision
        if demo is None:
            return
        self.collision_reading = reading = demo.read()
        if reading.hit == self._collision_drawn_hit:
            return
        self._collision_drawn_hit = reading.hit
        for node in (demo.disk, demo.rect):
            color = HIT_COLOR if reading.hit else self.scene.look(node.id).color
            self.renderer.set_colors([node.id], color)

    def on_render(self, time: float, frame_time: float) -> None:
        if not self.paused:
            self.step(frame_time)
        elif self._step_requested:
            self._step_requested = False
            self.step(1.0 / FPS)
        else:
            self._poll_reload()
        self.draw(frame_time, seen=self._frame_seen())
        last = self.options.frames is not None and self.frame >= self.options.frames
        if self.recorder is not None:
            self.recorder.add(self.grab())
        if self._want_shot:
            self._want_shot = False
            path = _next_free(Path.cwd(), "sgview-{:04d}.png")
            save_png(self.grab(), path)
            self.shots_saved.append(path)
            print(f"screenshot saved: {path}", file=self.options.out or sys.stdout, flush=True)
        if last:
            self._save_screenshot()
            self.wnd.close()

    def draw(self, frame_time: float = 0.0, *, seen: bool = True) -> None:
        """Draw the scene, then the overlay over it, into the window's framebuffer.

        `seen` False: nobody will look at this picture (a headless frame before the last
        one, not recorded), so the overlay's panels are not drawn.
        """
        t0 = clock.perf_counter()
        self._fit_view_to_panels()
        self.renderer.draw(self.wnd.fbo, self.camera, self.buffer_size)
        if self.overlay is not None and seen:
            self.overlay.draw(frame_time)
        if self.overlay is not None:
            self.overlay.note_draw_time(1000.0 * (clock.perf_counter() - t0))

    def _frame_seen(self) -> bool:
        """Whether the picture of the current frame is shown or saved (see `draw`)."""
        if not isinstance(self.timer, FixedTimer) or self.options.frames is None:
            return True
        last = self.frame >= self.options.frames
        return last or self.recorder is not None or self._want_shot

    def _fit_view_to_panels(self) -> None:
        """Centre the 3D picture between the overlay's panels (and frame it there)."""
        if self.overlay is not None:
            self.camera.shift_x, self.camera.frame_aspect = self.overlay.view_fit()

    # -- actions (keys and the panel's buttons) ----------------------------------------
    def select(self, node_id: int | None) -> None:
        """Select a node (None: clear); the title names it."""
        self.renderer.selected = None if node_id is None else int(node_id)
        name = "" if node_id is None else f" — {self.graph.name_of(int(node_id))}"
        self.wnd.title = f"sgview — {self.scene.title}{name}"

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self._step_requested = False

    def request_step(self) -> None:
        """While paused: simulate exactly one frame at the next redraw."""
        if self.paused:
            self._step_requested = True

    def toggle_motion(self) -> None:
        self.motion_on = not self.motion_on

    def touch_selected(self) -> None:
        if self.renderer.selected is not None:
            self.graph.touch(self.graph.node(self.renderer.selected))

    def _save_screenshot(self) -> None:
        """Write --screenshot from the image just drawn (once per run)."""
        if self.options.screenshot is not None and not self._screenshot_done:
            save_png(self.grab(), self.options.screenshot)
            self._screenshot_done = True

    def quit(self) -> None:
        """Close the window; --screenshot gets the current picture if no frame limit did."""
        if self.options.screenshot is not None and not self._screenshot_done:
            self.draw()
            self._save_screenshot()
        self.wnd.close()

    def on_close(self) -> None:
        # The window's close button: the window is still alive here, unlike after Esc's
        # wnd.close(), which is why Esc goes through quit() instead.
        if self.options.screenshot is not None and not self._screenshot_done:
            self.draw()
            self._save_screenshot()

    @property
    def buffer_size(self) -> tuple[int, int]:
        return tuple(self.wnd.buffer_size)

    def grab(self) -> np.ndarray:
        """The image just drawn, (h, w, 3) uint8, resolved out of multisampling."""
        size = self.buffer_size
        if self._resolve is None or self._resolve.size != size:
            if self._resolve is not None:
                self._resolve.release()
            self._resolve = self.ctx.framebuffer(color_attachments=[self.ctx.renderbuffer(size, 4)])
        return read_rgb(self.ctx, self.wnd.fbo, size, self._resolve)

    def finish(self) -> None:
        """After the last frame: close the recording, write --dump-world."""
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None
        if self.options.dump_world is not None:
            dump_world(self.graph, self.options.dump_world)
        if self.overlay is not None:
            self.overlay.release()  # its panel keeps what it showed last (tests read it)

    # -- camera / view state -----------------------------------------------------------
    def _apply_camera_spec(self) -> None:
        """Apply the scene file's [camera]; what it leaves out stays framed on the scene."""
        spec = self.scene.camera
        self.camera.projection = spec.projection
        if spec.position is not None:
            center, _ = self.renderer.bounds()
            target = spec.target if spec.target is not None else center
            self.camera.look_from(spec.position, target)
        elif spec.target is not None:
            self.camera.target = np.asarray(spec.target, dtype=np.float64)
        if spec.projection == ORTHOGRAPHIC and spec.height:
            # The orthographic view shows `height` units: move the eye to the distance at
            # which the perspective view would show the same (see Camera).
            self.camera.distance = spec.height / (self.camera.ortho_height / self.camera.distance)

    def select_at(self, x: float, y: float) -> int | None:
        """Select the node under window position (x, y); return its id or None."""
        origin, direction = self.camera.ray(x, y, tuple(self.wnd.size))
        ids, worlds, lo, hi = self.renderer.node_boxes()
        index, _ = pick(origin, direction, worlds, lo, hi)
        self.select(int(ids[index]) if index >= 0 else None)
        return self.renderer.selected


def dump_world(graph, path) -> Path:
    """Write {name: world matrix as nested lists (row-major, column vectors)} as JSON."""
    path = Path(path)
    world = graph.world_matrices()
    rows = [
        f"  {json.dumps(graph.name_of(int(i)))}: {json.dumps(world[int(i)].tolist())}"
        for i in graph.alive_ids()
    ]
    path.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")
    return path


def _next_free(folder: Path, pattern: str) -> Path:
    n = 1
    while (folder / pattern.format(n)).exists():
        n += 1
    return folder / pattern.format(n)


class WindowError(RuntimeError):
    """The window could not be opened (no usable display or GL driver)."""


def run(scene, options: RunOptions, *, headless: bool, backend: str | None = None) -> SgviewApp:
    """Open a window (or a headless EGL one) on `scene` and run until done; return the app."""
    if headless:
        from moderngl_window.context.headless import Window

        timer: BaseTimer = FixedTimer()
        backend = backend or "egl"
    else:
        from moderngl_window.context.pyglet import Window
        from moderngl_window.timers.clock import Timer

        timer = Timer()
    try:
        window = Window(
            title=f"sgview — {scene.title}",
            size=options.size,
            resizable=not headless,
            gl_version=GL_VERSION,
            vsync=not headless,
            samples=options.samples,
            backend=backend,
        )
    except Exception as exc:  # pyglet and EGL raise many kinds; report them in one line
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        if headless:
            raise ContextError(f"cannot create a headless OpenGL context ({reason})") from exc
        raise WindowError(reason) from exc
    mglw.activate_context(window=window)
    app = SgviewApp(ctx=window.ctx, wnd=window, timer=timer, scene=scene, options=options)
    window.config = app
    window.swap_buffers()  # as create_window_config_instance: settles the buffer size
    window.set_default_viewport()
    try:
        mglw.run_window_config_instance(app)
    finally:
        app.finish()
    return app
