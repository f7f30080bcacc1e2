"""`viewer.show` and `viewer.render_image`: the viewer on a graph built in your own code.

A `SceneGraph` made in a script has no scene file, so `scene_for` wraps it in a `Scene`:
a look per node from `meshes` (built-in mesh kinds, by node, name or id, or a callable),
nothing that moves on its own. `show` then runs the same app, session and frame loop as
the `sgview` command (`viewer.window.runner.run`), with the user's `on_frame` as a per-frame
callback of the session; `render_image` is a one-frame headless `show` that hands back
the picture instead of writing it.

Every argument is checked before any GL (`viewer.embed.args`), with the loaders' ranges
and rules, and a `show` or `render_image` from inside a running one (an `on_frame`
callback) is refused with a `ReentryError` rather than reaching the GL and panel contexts
that are in use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar, Unpack

import numpy as np

import viewer.embed.args as A
from viewer.content.scene import Look, Scene
from viewer.embed.args import (
    CameraArg,
    ClickArg,
    FrameCallback,
    MeshSpec,
    PathArg,
    RenderKeywords,
    ShowKeywords,
    ShowOptions,
    WidgetKeywords,
)
from viewer.errors import SgviewError
from viewer.image import Image
from viewer.keys.script import KeyScript, parse_clicks, parse_keys
from viewer.scene.graph import SceneGraph
from viewer.scene.report import FrameReport
from viewer.text import quoted

if TYPE_CHECKING:
    from pxr import Usd

    from viewer.embed.widget import SgviewWidget

__all__ = [
    "DEFAULT_LOOK",
    "Image",
    "Look",
    "ReentryError",
    "ShowOptions",
    "ShowResult",
    "render_image",
    "scene_for",
    "show",
    "widget",
]

#: How a node not listed in `meshes` is drawn: a unit cube, as in a scene file.
DEFAULT_LOOK = Look()


@dataclass
class ShowResult:
    """What a `show` run did."""

    #: Frames simulated (paused redraws do not count).
    frames: int
    #: The report of the last simulated frame (None if none ran).
    report: FrameReport | None
    #: Files written, None where not asked for.
    screenshot: Path | None = None
    record: Path | None = None
    trace: Path | None = None


def scene_for(
    graph: SceneGraph,
    meshes: MeshSpec = None,
    title: str | None = None,
    camera: CameraArg | None = None,
) -> Scene:
    """A `Scene` around `graph`, drawn as `meshes` says.

    `meshes` maps nodes (a `Node`, its name or its id) to a built-in mesh kind
    (`viewer.content.scene.BUILTIN_MESHES`, e.g. ``"sphere"``; ``"none"``: not drawn) or to
    a `Look` (mesh, size, colour); or it is a callable ``node -> kind | Look | None``.
    Nodes it leaves out (or maps to None) get `DEFAULT_LOOK`, a unit cube. `camera` is a
    `CameraSpec` or a mapping of its fields (``position``, ``target``, ``fov``, ...);
    None frames the whole graph.
    """
    if not isinstance(graph, SceneGraph):
        raise A.ArgumentError(f"graph: expected a SceneGraph, got a {type(graph).__name__}")
    meshes = A.meshes_spec(meshes)
    title = A.text("title", title)
    looks: dict[int, Look] = {}
    if callable(meshes):
        for node in graph:
            value = meshes(node)
            looks[node.id] = DEFAULT_LOOK if value is None else A.look(value, repr(node.name))
    else:
        for key, value in (meshes or {}).items():
            looks[A.node_id(graph, key, "meshes")] = A.look(value, repr(key))
        for node in graph:
            looks.setdefault(node.id, DEFAULT_LOOK)
    spec = A.camera_spec(camera)
    scene = Scene(graph=graph, title=title or "your graph", looks=looks, camera=spec)
    A.check_reach(scene)
    return scene


def _script(keys: str | KeyScript | None, clicks: ClickArg | None) -> KeyScript:
    keys = A.keys(keys)
    script = keys if isinstance(keys, KeyScript) else parse_keys(keys or "")
    return KeyScript().add(script).add(parse_clicks(A.clicks(clicks)))


def show(
    graph: SceneGraph | Scene | Usd.Stage,
    *,
    options: ShowOptions | None = None,
    **keywords: Unpack[ShowKeywords],
) -> ShowResult | SgviewWidget:
    """Open the viewer on `graph` (a `SceneGraph`, a loaded `Scene`, or a ``pxr.Usd.Stage``
    followed live: viewer/io/usd/live.py): the window (or,
    `headless`, EGL with no window), or in a Jupyter notebook the live widget.

    The options below are keywords, or the fields of one `ShowOptions` given as
    `options` (a keyword given besides overrides its field).

    Parameters
    ----------
    on_frame : callable ``(graph, frame, t)``, optional
        Called once per simulated frame before ``graph.update()``, with the frame number
        (1, 2, ...) and the scene time t in seconds (headless: exactly frame / 60). What it
        changes is what that frame recomputes, glows and logs. Paused, it is not called,
        except for a step ('.'); S stops the scene clock, so t stays put while stopped.
        An exception raised in it stops the run and propagates with its traceback (the
        window and GL context are released first).
    meshes : see `scene_for`; nodes not listed are unit cubes (`DEFAULT_LOOK`).
    headless : render with no window and return after `frames` frames (default 1).
    frames : stop after this many frames drawn (window: None runs until it is closed).
    size : (width, height) in pixels; None: 1280x720 in a window, 640x360 in a notebook.
    screenshot, record, log, trace, overlay :
        As the command's ``--screenshot PNG``, ``--record OUT.gif|mp4``, ``--log``,
        ``--trace OUT.json`` and ``--no-overlay`` (`overlay=False`).
    panels : False: the overlay without its panels (``--no-panels``): the glow, the names,
        the grid and the lines over the whole picture; Tab shows the panels.
    keys, clicks :
        Scripted input, as ``--keys`` and ``--click``: e.g. ``keys="L@1-80,T@90"``,
        ``clicks=["320,180@5"]`` (see `viewer.keys.script`).
    select : name of a node selected at the start.
    camera : see `scene_for`.
    widget : None: inside a Jupyter kernel, and with none of the arguments that run to an
        end (`headless`, `frames`, `screenshot`, `record`, `trace`, `keys`, `clicks`),
        return the live notebook widget (`widget`, with `size` 640x360 unless given);
        elsewhere open the window. True: the widget; False: the window.

    Returns
    -------
    ShowResult
        Frames simulated, the last frame's report and the files written; in a notebook
        the `viewer.embed.widget.SgviewWidget` instead (it returns at once and stays live).
    """
    opts = A.options_for("show", options, keywords, A.SHOW_TAKES)
    _not_running("show")
    graph, on_frame = _live_stage(graph, opts.on_frame, opts.log)
    opts = replace(opts, on_frame=on_frame)
    runs_to_end = opts.headless or opts.frames is not None
    runs_to_end = runs_to_end or opts.keys is not None or opts.clicks is not None
    runs_to_end = runs_to_end or any(
        v is not None for v in (opts.screenshot, opts.record, opts.trace)
    )
    in_widget = opts.widget
    if in_widget is None:
        from viewer.embed.notebook import in_jupyter_kernel

        in_widget = not runs_to_end and in_jupyter_kernel()
    if A.flag("widget", in_widget):
        if runs_to_end:
            raise A.ArgumentError(
                "widget=True: headless, frames, screenshot, record, trace, keys and clicks "
                "are for a run to an end; a widget stays live"
            )
        size = (640, 360) if opts.size is None else opts.size
        return _widget(graph, replace(opts, size=size))
    return _show_to_end(graph, opts)


def _show_to_end(graph: SceneGraph | Scene, opts: ShowOptions) -> ShowResult:
    """`show` in the window or headless, to the end of the run."""
    from viewer.window.runner import RunOptions, WindowError, run, session_for

    headless = A.flag("headless", opts.headless)
    overlay = A.flag("overlay", opts.overlay)
    panels = A.flag("panels", opts.panels)
    log = A.flag("log", opts.log)
    frames = A.frames(opts.frames)
    if headless and frames is None:
        frames = 1
    on_frame = A.callback("on_frame", opts.on_frame)
    scene = _scene_of(graph, opts)
    _check_select(scene, opts.select)
    for name, value in (
        ("screenshot", opts.screenshot),
        ("record", opts.record),
        ("trace", opts.trace),
    ):
        A.out_path(name, value)
    options = RunOptions(
        size=A.size((1280, 720) if opts.size is None else opts.size),
        frames=frames,
        log=log,
        overlay=overlay,
        panels=panels,
        select=opts.select,
        screenshot=_path(opts.screenshot),
        record=_path(opts.record),
        trace=_path(opts.trace),
        script=_script(opts.keys, opts.clicks),
        on_frame=[on_frame] if on_frame is not None else [],
    )
    if options.record is not None:
        from viewer.render.offscreen import Recorder

        Recorder.check(options.record)
    _check_outputs(screenshot=options.screenshot, record=options.record, trace=options.trace)
    if not headless:
        from viewer.render.context import display_available

        if not display_available():
            raise WindowError(
                "no display found (DISPLAY is not set); pass headless=True to render "
                "without a window"
            )
    caller = np.geterr()  # what `run` gives a session it makes: the caller's settings
    source = _Kept(lambda step: session_for(scene, options, fixed_step=step, caller=caller))
    with _running():
        run(scene, options, headless=headless, source=source)
    session = source.made[-1]
    return ShowResult(
        frames=session.frame,
        report=session.last_report,
        screenshot=options.screenshot,
        record=options.record,
        trace=options.trace,
    )


_S = TypeVar("_S")


class _Kept(Generic[_S]):
    """A run's frame source maker (`viewer.window.runner.SourceMaker`) that keeps what it
    made, so the run's result can be read from the source's own type."""

    def __init__(self, make: Callable[[float | None], _S]) -> None:
        self._make = make
        self.made: list[_S] = []

    def __call__(self, fixed_step: float | None) -> _S:
        self.made.append(self._make(fixed_step))
        return self.made[-1]


def _scene_of(graph: SceneGraph | Scene, opts: ShowOptions) -> Scene:
    if isinstance(graph, Scene):
        return graph
    return scene_for(graph, opts.meshes, opts.title, opts.camera)


def _check_select(scene: Scene, select: str | None) -> None:
    if A.text("select", select) is not None and select not in scene.graph:
        raise A.UnknownNodeError(f"select: no node named {quoted(select)} in the graph")


def _live_stage(
    graph: SceneGraph | Scene | Usd.Stage, on_frame: FrameCallback | None, log: bool
) -> tuple[SceneGraph | Scene, FrameCallback | None]:
    """A ``pxr.Usd.Stage`` in place of a graph: its live scene (viewer/io/usd/live.py),
    whose notices are applied in each frame before the user's `on_frame`; anything else
    as given."""
    from viewer.io.usd import is_stage

    if not is_stage(graph):
        return graph, on_frame
    import sys

    from viewer.io.usd.live import LiveStage

    user = A.callback("on_frame", on_frame)
    live = LiveStage(graph, out=sys.stdout if log is True else None)

    def apply_then_user(g: SceneGraph, frame: int, t: float) -> None:
        live.on_frame(g, frame, t)
        if user is not None:
            user(g, frame, t)

    return live.scene, apply_then_user


def widget(
    graph: SceneGraph | Scene | Usd.Stage,
    *,
    options: ShowOptions | None = None,
    **keywords: Unpack[WidgetKeywords],
) -> SgviewWidget:
    """The viewer live in a Jupyter notebook: a `viewer.embed.widget.SgviewWidget` (jupyter_rfb).

    Shown as a cell's result, it is the window's view in the page: drag to orbit, right
    drag or Shift+drag to pan, wheel to zoom, click to select, the window's keys once the
    view has focus (click it), the glow and the panels; `on_frame` runs once per simulated
    frame as in `show`. It renders in the kernel (headless EGL) only when the picture can
    change, and a cell that changes the graph shows in the view when the cell ends.
    `graph` is a `SceneGraph` (drawn as `meshes` says, see `scene_for`), a loaded
    `Scene` or a ``pxr.Usd.Stage`` (followed live, as in `show`); the other arguments
    (``on_frame``, ``meshes``, ``size`` (640x360), ``overlay``, ``panels``, ``log``,
    ``title``, ``select``, ``camera``, as keywords or a `ShowOptions`) are `show`'s,
    `glow` is ``"fill"``, ``"rim"`` or ``"heat"``. Needs the ``notebook`` extra
    (``pip install 'sgview[notebook]'``).
    """
    opts = A.options_for("widget", options, keywords, A.WIDGET_TAKES)
    _not_running("widget")
    graph, on_frame = _live_stage(graph, opts.on_frame, opts.log)
    size = (640, 360) if opts.size is None and "size" not in keywords else opts.size
    return _widget(graph, replace(opts, on_frame=on_frame, size=size))


def _widget(graph: SceneGraph | Scene, opts: ShowOptions) -> SgviewWidget:
    from viewer.render.renderer import GLOW_STYLES
    from viewer.window.runner import RunOptions, session_for

    on_frame = A.callback("on_frame", opts.on_frame)
    scene = _scene_of(graph, opts)
    _check_select(scene, opts.select)
    glow = opts.glow
    if glow not in GLOW_STYLES:
        raise A.ArgumentError(f"glow: expected one of {', '.join(GLOW_STYLES)}, got {glow!r}")
    options = RunOptions(
        size=A.size(opts.size),
        overlay=A.flag("overlay", opts.overlay),
        panels=A.flag("panels", opts.panels),
        log=A.flag("log", opts.log),
        select=opts.select,
        glow=glow,
        on_frame=[on_frame] if on_frame is not None else [],
    )
    try:
        from viewer.embed.widget import SgviewWidget
    except ImportError as exc:
        raise ImportError(
            f"viewer.widget needs the notebook extra: pip install 'sgview[notebook]' ({exc})"
        ) from None
    session = session_for(scene, options, fixed_step=None, caller=np.geterr())
    return SgviewWidget(session, options)


def _check_outputs(**paths: Path | None) -> None:
    """Before any GL: a `ValueError` naming the argument when an output cannot be written
    (a folder, a path under a file, a device, ...); missing folders are made."""
    from viewer.io.paths import SCREENSHOT, prepare_output

    for name, path in paths.items():
        if path is None:
            continue
        problem = prepare_output(path, SCREENSHOT if name == "screenshot" else None)
        if problem is not None:
            raise ValueError(f"{name}={str(path)!r}: {problem}")


def render_image(
    graph: SceneGraph,
    *,
    options: ShowOptions | None = None,
    **keywords: Unpack[RenderKeywords],
) -> Image:
    """One headless frame of `graph` as it is now: an (H, W, 3) uint8 array.

    The changes made since the graph's last ``update()`` are that frame's change: with the
    overlay on they glow (red: the node's own value changed; orange: only its world
    matrix, through an ancestor) — so this calls ``graph.update()`` once. A graph never
    updated is laid out first instead, and nothing glows. ``panels=False`` keeps the glow
    and the names but leaves the panels out, so the picture is all scene; with panels, a
    narrow picture folds them (below 760 pixels the right one, below 480 both) so the 3D
    view keeps most of it. `meshes` and `camera`: see `scene_for`; ``size`` (640x360),
    ``meshes``, ``overlay``, ``panels`` and ``camera`` are keywords or the fields of a
    `ShowOptions`. In a Jupyter notebook the result shows as a picture; elsewhere
    ``PIL.Image.fromarray(img).save("out.png")`` writes it.
    """
    from viewer.window.runner import RunOptions, run

    opts = A.options_for("render_image", options, keywords, A.RENDER_TAKES)
    _not_running("render_image")
    scene = scene_for(graph, opts.meshes, None, opts.camera)
    size = (640, 360) if opts.size is None and "size" not in keywords else opts.size
    run_options = RunOptions(
        size=A.size(size),
        frames=1,
        overlay=A.flag("overlay", opts.overlay),
        keep_image=True,
        panels=A.flag("panels", opts.panels),
        layout=graph.frame == 0,
    )
    with _running():
        app = run(scene, run_options, headless=True)
    return np.ascontiguousarray(app.last_image).view(Image)


class ReentryError(SgviewError, RuntimeError):
    """`show` or `render_image` called while the viewer runs (from an `on_frame`
    callback): one GL context and one panel context at a time."""


_RUN = {"active": False}


def _not_running(name: str) -> None:
    if _RUN["active"]:
        raise ReentryError(
            f"viewer.{name} was called while the viewer is running (from an on_frame "
            "callback?); call it after show returns"
        )


@contextmanager
def _running() -> Iterator[None]:
    _RUN["active"] = True
    try:
        yield
    finally:
        _RUN["active"] = False


def _path(value: PathArg | None) -> Path | None:
    return None if value is None else Path(value)
