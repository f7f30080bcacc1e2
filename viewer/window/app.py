"""The window glue: one `SgviewApp` shows a frame source in a window or headless.

The app is a moderngl-window `WindowConfig`. It runs in a pyglet window with the real
clock, or in moderngl-window's headless window (EGL) with a fixed 1/60 s step; either way
`run_window_config_instance` drives it, and each redraw is the frame runner's
(`viewer.frames.runner.FrameRunner`): the app is its screen, owning what has GL in it (the
renderer of the scene on show, the overlay, the picture) and the camera, and the runner
conducts the stages, from the frame source's candidate scene and frame to the capture.

What the user does lives in the frame source (`viewer.session.source`: a scene file's
`Session`, or a connected program's `ProgramSource`); what is written out in
`viewer/window/capture.py`; keys and mouse in `viewer/window/input.py`; what a run asks for in
`viewer/window/run_options.py`; opening the window and running the loop in
`viewer/window/runner.py`.
"""

from __future__ import annotations

import time as clock
from typing import TYPE_CHECKING

import moderngl_window as mglw
import numpy as np
from moderngl_window.context.base import BaseWindow, KeyModifiers
from moderngl_window.timers.base import BaseTimer
from numpy.typing import NDArray

from viewer.collision.ray import pick
from viewer.content.scene import Scene
from viewer.frames.runner import FrameRunner, Phase
from viewer.io.ranges import camera_gap_reason
from viewer.keys.references import camera_name, carry_camera
from viewer.progress import Progress
from viewer.render.camera import ORTHOGRAPHIC, Camera, pixel_ray
from viewer.render.context import GL_VERSION, GLContext
from viewer.render.file_view import view_of
from viewer.render.frame_view import FrameViews, ViewSettings
from viewer.render.lights import Lighting
from viewer.render.renderer import Renderer
from viewer.render.scene_bounds import SceneBounds
from viewer.session.frame import Frame
from viewer.session.source import Candidate, FrameSource
from viewer.timing import FixedTimer
from viewer.trace import TraceWriter
from viewer.window.capture import Capture, say_saved
from viewer.window.input import WindowInput
from viewer.window.run_options import RunOptions

if TYPE_CHECKING:
    from viewer.overlay.overlay import Overlay

__all__ = ["SgviewApp"]


class SgviewApp(mglw.WindowConfig):
    """The viewer's window: one session, one camera, one renderer, the overlay."""

    gl_version = GL_VERSION
    title = "sgview"
    resizable = True
    samples = 4
    # None is what moderngl-window reads as "do not clear" and "leave logging as it is",
    # although its annotations name only tuples and ints.
    clear_color = None  # type: ignore[assignment]  # the renderer clears
    hidden_window_framerate_limit = 0
    log_level = None  # type: ignore[assignment]

    def __init__(
        self,
        *,
        source: FrameSource,
        options: RunOptions,
        ctx: GLContext,
        wnd: BaseWindow,
        timer: BaseTimer,
    ) -> None:
        super().__init__(ctx=ctx, wnd=wnd, timer=timer)
        #: Keys, mouse and dropped files (viewer/window/input.py).
        self.input = WindowInput(self)
        self.options = options
        fixed = isinstance(self.timer, FixedTimer)
        #: The frame source on show: a scene file's `Session` or a `ProgramSource`.
        self.session = source
        scene = source.scene
        self.last_image: NDArray[np.uint8] | None = None
        self._lighting = Lighting(options.tone_mapping, options.exposure, options.environment)
        #: How the picture shows (toggles, glow), for as long as the app runs.
        self.settings = ViewSettings()
        self._views = FrameViews()  # one `FrameView` per redraw
        #: The scene's shapes: picking and framing (the renderer lays out its buffers by them).
        self.bounds = SceneBounds(scene)
        self.renderer = Renderer(self.ctx, scene, self._lighting, self.bounds)
        self._scene_on_show: Scene = scene
        self.camera = Camera(fov=scene.camera.fov)
        self.overlay: Overlay | None = None
        if not options.overlay:  # the content and nothing else
            self.settings.bare()
        if options.overlay:
            from viewer.overlay.overlay import Overlay

            self.overlay = Overlay(
                self.session,
                self.wnd,
                self.renderer,
                self.camera,
                self.settings,
                deterministic=fixed,
            )
            self.overlay.glow_style = options.glow
            self.overlay.visible = options.panels  # off: glow and names only (Tab shows)
        self._fit_view_to_panels()
        self.bounds.frame_camera(self.camera)
        self._apply_camera_spec()
        self.camera.set_home()
        #: The glTF camera looked through (index into the scene's cameras), or None.
        self.view: int | None = options.view
        self._follow_view(enter=True)
        self.capture = Capture(
            self.ctx,
            self.buffer_size,
            screenshot=options.screenshot,
            record=options.record,
            dump_world=options.dump_world,
        )
        #: Each redraw's stages (viewer/frames/runner.py), with this app as their screen.
        self.runner = FrameRunner(
            source,
            self,
            frames=options.frames,
            fixed=fixed,
            trace=TraceWriter(options.trace) if options.trace is not None else None,
            # a long headless run's progress on a terminal
            progress=Progress(options.frames) if fixed and options.frames else None,
        )
        self.wnd.exit_key = None  # Esc is handled in on_key_event (see quit)
        if options.select is not None:
            self.session.select(self.session.graph[options.select].id)
        self._show_title()

    # -- the frame: the runner's stages, of which this app is the screen ---------------
    def on_render(self, time: float, frame_time: float) -> None:
        self.input.poll_dialog()  # a file picked in the dialog is asked for
        self.runner.redraw(frame_time)
        if self.runner.done:
            self.capture.save_screenshot(self.wnd.fbo, self.buffer_size)
            if self.options.keep_image:
                self.last_image = self.grab()
            self.wnd.close()

    def build(self, scene: Scene) -> Renderer:
        """The swap's GPU half: a renderer for the candidate scene (a failure here keeps
        the scene on show and its renderer)."""
        return Renderer(self.ctx, scene, self._lighting, SceneBounds(scene))

    def use(self, built: Renderer, candidate: Candidate) -> None:
        """The swap committed: the candidate's renderer replaces the old one; the camera
        and view settings stay (a reloaded scene's file camera carried over by name)."""
        old, self.renderer = self.renderer, built
        previous, self._scene_on_show = self._scene_on_show, candidate.scene
        self.bounds = built.bounds
        old.release()
        if len(old.graph) == 0:  # nothing was framed yet (`sgview listen` waiting): frame now
            self.bounds.frame_camera(self.camera)
        if self.overlay is not None:  # an opened file's frames count from 0 again
            self.overlay.reset(built, fresh=self.session.frame == 0)
        if candidate.scene.source is not None and candidate.scene.source == previous.source:
            self.view, notes = carry_camera(
                candidate.scene.cameras, camera_name(previous.cameras, self.view)
            )
            for note in notes:
                self.session.messages.warn(f"note: {note}")

    def play_script(self, redraw: int) -> None:
        self.input.play_script(self.options.script, redraw)

    def upload(self, frame: Frame) -> int:
        """Hand one simulated frame to the renderer (matrices, glow stamps, colours);
        returns every byte the frame wrote to the GPU."""
        sync_bytes = self.renderer.sync(frame.report, frame.dt)
        if frame.weights:  # morph weights changed: the node's own change, no matrix moved
            sync_bytes += self.renderer.light(sorted(frame.weights))
        for node_id, rgb in frame.recolor.items():
            sync_bytes += self.renderer.set_colors([node_id], rgb)
        return sync_bytes

    def report(self, frame: Frame, upload_ms: float, sync_bytes: int) -> None:
        if self.overlay is not None:
            self.overlay.frame_done(
                frame.number,
                frame.report,
                frame.dt,
                frame.update_ms,
                upload_ms,
                sync_bytes,
                frame.events,
                weights=frame.weights,
                received=frame.received,
            )

    def capture_frame(self, frame: Frame | None) -> None:
        eventful = frame is not None and bool(frame.events)
        self.capture.frame_drawn(self.wnd.fbo, self.buffer_size, eventful=eventful)

    def wants_picture(self) -> bool:
        return self.capture.wants_picture

    def restart(self) -> None:
        """Key 0: the scene from frame 0 again (`SceneControls.restart`), with no glow (no
        frame has run yet), the overlay's timeline and totals afresh; a source that cannot
        restart (a connected program) offers no controls, and nothing happens."""
        controls = self.session.controls
        if controls is None:
            return
        controls.restart()
        self.renderer.restart()
        if self.overlay is not None:
            self.overlay.restart()

    def draw(self, frame_time: float = 0.0, seen: bool = True) -> list[Phase]:
        """Draw the scene, then the overlay over it, into the window's framebuffer.

        `seen` False: nobody will look at this picture (a headless frame before the last
        one, not recorded), so neither the scene nor the panels are drawn (a long headless
        --log run spent nearly all its time drawing pictures nobody saw). --trace records
        the run as it goes without it: such a redraw has no draw phase (forcing the drawing
        made a 100,000-node trace 10 to 60 times slower than the run it measured).
        """
        phases: list[Phase] = []
        t0 = clock.perf_counter()
        self._show_title()
        self._fit_view_to_panels()
        self._follow_view()
        if self.overlay is not None:  # the slow replay's clock, also in unseen frames:
            self.overlay.tick(frame_time)  # before the scene, which shows what it lit
        if seen:
            view = self._views.extract(
                self.session.graph,
                self.settings,
                self.wnd.fbo,
                self.buffer_size,
                selected=self.session.selected,
                bounds=self.bounds,
            )
            self.renderer.draw(view, self.camera)
            phases.append(("draw", t0, clock.perf_counter()))
        t1 = clock.perf_counter()
        if self.overlay is not None and seen:
            self.overlay.draw(frame_time)
            phases.append(("overlay", t1, clock.perf_counter()))
        if self.overlay is not None:
            self.overlay.note_draw_time(1000.0 * (clock.perf_counter() - t0))
        return phases

    def _show_title(self) -> None:
        """The title names the scene and the selected node (set only when it changes)."""
        title = self.session.title
        if title != self.wnd.title:
            self.wnd.title = title

    def _fit_view_to_panels(self) -> None:
        """Centre the 3D picture between the overlay's panels (and frame it there)."""
        if self.overlay is not None:
            self.camera.shift_x, self.camera.frame_aspect = self.overlay.view_fit()

    def _follow_view(self, enter: bool = False) -> None:
        """Look through the chosen glTF camera (`enter`: start to), wherever its node is
        now; once the user orbits, pans, zooms or frames, the orbit camera has taken
        over and the choice is dropped."""
        cameras = self.session.scene.cameras
        if self.view is not None and (
            self.view >= len(cameras) or (self.camera.through is None and not enter)
        ):
            self.view = None  # left by a camera move, or a reload took the camera away
        if self.view is not None:
            world = self.session.graph.peek.world_matrices()  # as drawn
            self.camera.look_through(view_of(cameras, self.view, world))

    def cycle_view(self) -> None:
        """The C key: the next camera of the file, after the last the orbit camera."""
        count = len(self.session.scene.cameras)
        if self.view is None or self.camera.through is None:
            self.view = 0 if count else None
        else:
            self.view = self.view + 1 if self.view + 1 < count else None
        if self.view is None:
            self.camera.leave_view()
        self._follow_view(enter=True)

    # -- input: moderngl-window's callbacks, handed to `WindowInput` ----------------------
    def on_key_event(self, key: str | int, action: str, modifiers: KeyModifiers) -> None:
        self.input.key_event(key, action, modifiers)

    def key_down(self, name: str) -> None:
        """Key `name` of the key table went down (a script's, or a notebook's)."""
        self.input.key_down(name)

    def key_up(self, name: str) -> None:
        self.input.key_up(name)

    def on_mouse_press_event(self, x: float, y: float, button: int) -> None:
        self.input.mouse_press(x, y, button)

    def on_mouse_drag_event(self, x: float, y: float, dx: float, dy: float) -> None:
        self.input.mouse_drag(x, y, dx, dy)

    def on_mouse_release_event(self, x: float, y: float, button: int) -> None:
        self.input.mouse_release(x, y, button)

    def on_mouse_scroll_event(self, x_offset: float, y_offset: float) -> None:
        self.input.mouse_scroll(x_offset, y_offset)

    def on_mouse_position_event(self, x: float, y: float, dx: float, dy: float) -> None:
        self.input.forward("mouse_position_event", x, y, dx, dy)

    def on_unicode_char_entered(self, char: str) -> None:
        self.input.char_entered(char)

    def on_resize(self, width: int, height: int) -> None:
        self.input.forward("resize", width, height)

    def on_files_dropped_event(self, x: int, y: int, paths: list[str]) -> None:
        self.input.files_dropped(x, y, paths)

    # -- window actions ----------------------------------------------------------------
    def select_at(self, x: float, y: float) -> int | None:
        """Select the node under window position (x, y); return its id or None."""
        self.select_at_each([(x, y)])
        return self.session.selected

    def select_at_each(self, points: list[tuple[float, float]]) -> None:
        """`select_at` for each point in turn (a redraw's scripted clicks): the camera
        matrix and the node boxes, which cannot change between them, computed once."""
        size = self.wnd.size
        view_projection = self.camera.view_projection(size)
        ids, worlds, lo, hi = self.bounds.node_boxes()
        for x, y in points:
            origin, direction = pixel_ray(view_projection, size, x, y)
            index, _ = pick(origin, direction, worlds, lo, hi)
            self.session.select(int(ids[index]) if index >= 0 else None)

    def quit(self) -> None:
        """Close the window; --screenshot gets the current picture if no frame limit did."""
        self._last_screenshot()
        self.wnd.close()

    def on_close(self) -> None:
        # The window's close button: the window is still alive here, unlike after Esc's
        # wnd.close(), which is why Esc goes through quit() instead.
        self._last_screenshot()

    def _last_screenshot(self) -> None:
        if self.capture.screenshot_pending:
            self.draw()
            self.capture.save_screenshot(self.wnd.fbo, self.buffer_size)

    @property
    def buffer_size(self) -> tuple[int, int]:
        return self.wnd.buffer_size

    def grab(self) -> NDArray[np.uint8]:
        """The image just drawn, (h, w, 3) uint8, resolved out of multisampling."""
        return self.capture.grab(self.wnd.fbo, self.buffer_size)

    def finish(self) -> None:
        """After the last frame: close the recording, write --dump-world and --trace."""
        self.runner.finish()
        if self.options.trace is not None:
            say_saved("trace", self.options.trace)
        self.capture.finish(self.session.graph, self.session.scene.node_paths)
        if self.overlay is not None:
            self.overlay.release()  # its panel keeps what it showed last (tests read it)

    def _apply_camera_spec(self) -> None:
        """Apply the scene file's [camera]; what it leaves out stays framed on the scene."""
        spec = self.session.scene.camera
        self.camera.projection = spec.projection
        if spec.position is not None:
            center, radius = self.bounds.sphere()
            target = spec.target if spec.target is not None else center
            if camera_gap_reason(spec.position, target) is not None:
                # only without a target (the file's pair is checked at load): the eye is
                # at the scene's centre, so look down -Z from there
                target = np.asarray(spec.position, dtype=np.float64) - (0.0, 0.0, radius)
            self.camera.look_from(spec.position, target)
        elif spec.target is not None:
            self.camera.target = np.asarray(spec.target, dtype=np.float64)
        if spec.projection == ORTHOGRAPHIC and spec.height:
            # The orthographic view shows `height` units: move the eye to the distance at
            # which the perspective view would show the same (see Camera).
            self.camera.distance = spec.height / (self.camera.ortho_height / self.camera.distance)
        # Whatever the file asks for, no part of the scene starts out of view or under the
        # panels: step back along the chosen direction as far as that needs.
        fit = self.camera.fit_distance(support=self.bounds.support)
        self.camera.distance = max(self.camera.distance, fit)
