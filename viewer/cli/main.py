"""`sgview`: the command line.

Everything that can go wrong before a GL context exists (bad arguments, a scene that does
not load, an unknown --touch name, no display) is reported in one line on stderr with
exit status 2; GL, shader or recording failures later exit with status 1, also in one line
(a shader compile error names the file and line), never with a traceback. The arguments
themselves (the parser, its value types and --help) are `viewer/cli/args.py`.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from viewer.cli.interrupt import Ending, ctrl_c_anywhere, ended
from viewer.errors import SgviewError
from viewer.text import one_line, printable, quoted

#: The command's name in its messages: `viewer.cli.args.PROG`, not imported from there, so
#: that importing this module takes no time before `main` handles Ctrl+C (the arguments
#: need the loaders' limits, and with them numpy).
PROG = "sgview"

HEADLESS_HINT = "sgview SCENE --headless --frames 60 --screenshot out.png"
#: The same for `sgview listen`: its frames are the program's, so the log is what to ask for.
LISTEN_HINT = "sgview listen --headless --frames 60 --log"


class UsageError(SgviewError):
    """A problem with the command line or its inputs: one line, exit status 2."""


#: Files larger than this, and generated scenes of this many nodes, get a progress line.
BIG_FILE_BYTES = 8 * 1024 * 1024
BIG_GENERATED = 100_000


@contextmanager
def _progress(what: str | None):
    """One line on stderr before slow work and its time after (nothing if `what` is None)."""
    if what is None:
        yield
        return
    start = time.perf_counter()
    print(f"{PROG}: {what} ...", file=sys.stderr, flush=True)
    yield
    print(f"{PROG}: {what}: done in {time.perf_counter() - start:.1f} s", file=sys.stderr)


def load(args):
    """The scene the arguments ask for; `UsageError` with one line if it cannot be had."""
    from viewer.io import SceneError, default_scene, generate_scene, load_scene

    if args.scene and args.generate:
        raise UsageError("give either SCENE or --generate, not both")
    try:
        if args.generate:
            count = args.generate.rpartition(":")[2].replace("_", "").replace(",", "")
            big = count.isdigit() and BIG_GENERATED <= int(count) <= args.max_nodes
            with _progress(f"generating {args.generate}" if big else None):
                return generate_scene(args.generate, max_nodes=args.max_nodes)
        if args.scene:
            path = scene_path(args)
            big = path.is_file() and path.stat().st_size > BIG_FILE_BYTES
            with _progress(f"loading {printable(path, None)}" if big else None):
                return load_scene(path, **load_limits(args))
        return default_scene()
    except SceneError as exc:
        raise UsageError(one_line(exc) or repr(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot read {args.scene}: {exc.strerror or exc}") from None


def _unknown_scene(given: str) -> str:
    """The error for a SCENE that is neither a file nor a bundled scene's name."""
    from viewer.io.bundled import closest_scene

    close = closest_scene(given)
    hint = f"; did you mean {close!r}?" if close else ""
    what = "no scene file" if Path(given).suffix else "no scene file or bundled scene"
    return f"{what} named {given!r}{hint} ({PROG} --list-scenes lists the bundled scenes)"


def scene_path(args):
    """The file SCENE names (a path, or a bundled scene's name); `UsageError` suggesting
    the closest bundled name when there is none. None without SCENE."""
    from viewer.io.bundled import resolve

    if not args.scene:
        return None
    path = resolve(args.scene)
    if not path.exists():
        raise UsageError(_unknown_scene(args.scene))
    return path


def load_limits(args) -> dict:
    """The `load_scene` caps the flags ask for (also used by live reload)."""
    return {
        "max_nodes": args.max_nodes,
        "max_buffer_bytes": args.max_buffer_mb,
        "max_json_bytes": args.max_json_mb,
    }


def check_outputs(args) -> None:
    """`UsageError` naming the flag when an output file cannot be written: checked before
    the scene is loaded or a frame drawn, so a long run cannot end in that error. Missing
    parent folders are made here, once for every writer."""
    from viewer.io.paths import SCREENSHOT, prepare_output

    if getattr(args, "gltf_embed", False) and (
        args.save is None or args.save.suffix.lower() != ".gltf"
    ):
        raise UsageError("--gltf-embed goes with --save OUT.gltf")
    if getattr(args, "edit_layer", None) is not None and args.save is not None:
        raise UsageError("--edit-layer goes with a run whose Ctrl+S saves, not with --save")
    for flag in ("save", "screenshot", "record", "dump_world", "trace"):
        path = getattr(args, flag, None)
        if path is None:
            continue
        problem = prepare_output(path, SCREENSHOT if flag == "screenshot" else None)
        if problem is not None:
            name = "--" + flag.replace("_", "-")
            raise UsageError(f"{name} {printable(path)}: {problem}")


def _no_node(flag: str, name: str, scene) -> str:
    """The error for a flag naming no node of `scene`, with the likely meant name."""
    from viewer.text import closest_name

    graph = scene.graph
    close = closest_name(name, (graph.name_of(i) for i in graph.alive_ids().tolist()))
    hint = f"; did you mean {quoted(close)}?" if close is not None else ""
    return f"{flag} {printable(name)}: no node named {quoted(name)} in {quoted(scene.title)}{hint}"


def options_from(args, scene):
    """Check the per-run requests against the scene and turn them into `RunOptions`."""
    from viewer.render.offscreen import Recorder, RecordError
    from viewer.window.run_options import RunOptions

    frames = args.frames if args.frames is not None else (1 if args.headless else None)
    touches: dict[int, list[str]] = {}
    for name, frame in args.touch:
        if name not in scene.graph:
            raise UsageError(_no_node("--touch", name, scene))
        if frames is not None and frame > frames:
            raise UsageError(
                f"--touch {printable(name)}@{frame}: the run stops after frame {frames}"
            )
        touches.setdefault(frame, []).append(name)
    name = args.select
    if name is not None and name not in scene.graph:
        raise UsageError(_no_node("--select", name, scene))
    if args.record is not None:
        try:  # fail before any frame is drawn
            Recorder.check(args.record)
        except RecordError as exc:
            raise UsageError(str(exc)) from None
    if args.samples < 0:
        raise UsageError(f"--samples must be 0 or more, got {args.samples}")
    script = _script(args, frames)
    if args.animation is not None:
        pick_animation(scene, args.animation)
    view = pick_camera(scene, args.camera) if args.camera is not None else None
    if args.variant is not None:
        pick_variant(scene, args.variant)
    glow = args.glow
    if glow is None:  # not given: a model file's materials stay readable under the rim
        # glow (an animated model recomputes every node each frame, and the fill would
        # tint all of them); the teaching scenes (TOML, bundled, generated) keep the fill
        from viewer.io.loader import SUFFIXES

        suffix = scene.source.suffix.lower() if scene.source is not None else ""
        glow = "rim" if suffix in SUFFIXES and suffix != ".toml" else "fill"
    return RunOptions(
        size=args.size,
        frames=frames,
        still=args.still,
        log=args.log,
        touches=touches,
        screenshot=args.screenshot,
        record=args.record,
        dump_world=args.dump_world,
        samples=args.samples,
        overlay=args.overlay,
        panels=args.panels,
        select=args.select,
        glow=glow,
        tone_mapping=args.tone_mapping,
        exposure=args.exposure,
        environment=args.environment,
        load_limits=load_limits(args),
        script=script,
        trace=args.trace,
        view=view,
        edit_layer=_edit_layer(args, scene),
    )


def _edit_layer(args, scene) -> Path | None:
    """`--edit-layer FILE`, for a scene read from an OpenUSD stage only."""
    if getattr(args, "edit_layer", None) is None:
        return None
    from viewer.io.usd import is_stage_scene

    if not is_stage_scene(scene):
        raise UsageError(
            f"--edit-layer {printable(args.edit_layer)}: the scene is no OpenUSD stage; "
            "edit layers are for .usd, .usda, .usdc scenes"
        )
    return args.edit_layer


def _script(args, frames: int | None):
    """--keys and --click as one `KeyScript` (one line on a bad spec)."""
    from viewer.keys.script import ScriptError, parse_clicks, parse_keys

    parts = {}
    for option, parse, spec in (
        ("--keys", parse_keys, args.keys or ""),
        ("--click", parse_clicks, args.click),
    ):
        try:  # the error names the option the user gave
            parts[option] = parse(spec)
        except ScriptError as exc:
            raise UsageError(f"{option}: {exc}") from None
        last = parts[option].last_frame
        if frames is not None and last > frames:
            raise UsageError(f"{option}: frame {last} is after the last frame ({frames})")
    return parts["--keys"].add(parts["--click"])


def pick_animation(scene, choice: str) -> None:
    """`--animation NAME|INDEX|none`: select the clip that plays (`UsageError` if none is)."""

    player = scene.animation
    names = [] if player is None else player.names
    if choice.strip().lower() == "none":
        if player is not None:
            player.pick(None)
        return
    # picked before the run, at scene clock 0: frame N poses t = N/60, as the default clip
    if choice in names:
        player.pick(choice, clock=0.0)
        return
    if choice.strip().isdigit() and int(choice) < len(names):
        player.pick(int(choice), clock=0.0)
        return
    listing = ", ".join(f"{i}: {quoted(n, 40)}" for i, n in enumerate(names[:8]))
    more = ", ..." if len(names) > 8 else ""
    known = f"its animations are {listing}{more}" if names else "it has no animations"
    raise UsageError(
        f"--animation {quoted(choice, 60)}: no such animation in {quoted(scene.title)} ({known})"
    )


def pick_variant(scene, choice: str) -> None:
    """`--variant NAME`: every glTF part in its material for KHR_materials_variants variant
    NAME (`UsageError` naming the file's variants if it has no such one)."""
    from viewer.materials import variant_names, with_variant

    names = variant_names(scene.surfaces)
    if choice not in names:
        listing = ", ".join(quoted(n, 40) for n in names[:12])
        more = ", ..." if len(names) > 12 else ""
        known = f"its variants are {listing}{more}" if names else "it has no material variants"
        raise UsageError(
            f"--variant {quoted(choice, 60)}: no such variant in {quoted(scene.title)} ({known})"
        )
    for key, surface in scene.surfaces.items():
        scene.surfaces[key] = with_variant(surface, choice)


def pick_camera(scene, choice: str) -> int:
    """`--camera INDEX|NAME`: the index into the scene's glTF cameras (`UsageError` if
    none matches)."""
    names = [cam.name for cam in scene.cameras]
    if choice in names:
        return names.index(choice)
    if choice.strip().isdigit() and int(choice) < len(names):
        return int(choice)
    listing = ", ".join(f"{i}: {quoted(n, 40)}" for i, n in enumerate(names[:8]))
    more = ", ..." if len(names) > 8 else ""
    known = f"its cameras are {listing}{more}" if names else "it has no cameras"
    raise UsageError(
        f"--camera {quoted(choice, 60)}: no such camera in {quoted(scene.title)} ({known})"
    )


def list_scenes() -> int:
    """`--list-scenes`: the bundled scenes, by name and title."""
    from viewer.io.bundled import bundled_scenes

    scenes = bundled_scenes()
    if not scenes:
        print(f"{PROG}: the bundled scenes were not found", file=sys.stderr)
        return 1
    width = max(len(name) for name, _, _ in scenes)
    for name, title, _ in scenes:
        print(f"{name:<{width}}  {title}")
    print(f"\nopen one with: {PROG} {scenes[0][0]}")
    return 0


def save(args) -> int:
    """`--save`: load, write the native format or glTF, exit (no window, no GL)."""
    from viewer.io import SceneError, save_scene
    from viewer.io.gltf_write.export import GLTF_SUFFIXES, save_gltf
    from viewer.io.save import save_target_reason
    from viewer.io.usd import USD_WRITE_SUFFIXES

    reason = save_target_reason(args.save)  # before anything is loaded or written
    if reason is not None:
        return _failed(f"{PROG}: --save {printable(args.save)}: {reason}", 2)
    try:
        check_outputs(args)
        scene = load(args)
        notes = []
        if args.save.suffix.lower() in GLTF_SUFFIXES:
            notes = save_gltf(scene, args.save, embed=args.gltf_embed)
        elif args.save.suffix.lower() in USD_WRITE_SUFFIXES:
            from viewer.io.usd.write import save_usd  # pxr: only when USD is written

            notes = save_usd(scene, args.save)  # the scene's own notes that hold among them
        else:
            save_scene(scene, args.save)
        if args.save.suffix.lower() not in USD_WRITE_SUFFIXES:
            notes = [*notes, *scene.save_notes]
    except (UsageError, SceneError) as exc:
        return _failed(f"{PROG}: {one_line(exc)}", 2)
    for note in notes:
        print(f"{PROG}: note: {one_line(note)}", file=sys.stderr)
    print(
        f"{PROG}: saved {quoted(scene.title)} ({len(scene.graph)} nodes) to "
        f"{printable(args.save, None)}"
    )
    return 0


def _print_notes(scene) -> None:
    """The loaders' one-line notes (what a file had that the viewer leaves out)."""

    player = scene.animation
    for note in [] if player is None else player.notes:
        print(f"{PROG}: note: {one_line(note)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `sgview` console script; returns the exit status.

    Ctrl+C at any point (a large file loading, a reload, frames running) exits with 130,
    SIGTERM with 143, silently and whatever error the interrupt surfaced as on its way
    (`viewer.cli.interrupt`); an error no layer turned into a one-line `SgviewError` (a
    bug) is still one line, with exit status 1 (``SGVIEW_DEBUG=1`` shows its traceback
    instead)."""
    ending = Ending()
    try:
        with ctrl_c_anywhere(ending):
            try:
                status = _reported(argv)
            except KeyboardInterrupt:  # caught inside: what it unwound is released there
                status = 130
    except KeyboardInterrupt:  # a repeat raised as the guard closed
        status = 130
    return status if ending.status is None else ending.status


def _reported(argv: list[str] | None) -> int:
    """`_main`, with an error that reached this far as one line and its exit status."""
    try:
        return _main(argv)
    except SgviewError as exc:
        return _failed(f"{PROG}: {one_line(exc) or type(exc).__name__}", 1)
    except Exception as exc:
        if os.environ.get("SGVIEW_DEBUG") and ended() is None:
            raise
        from viewer.text import brief

        line = f"{PROG}: internal error ({brief(exc)}); SGVIEW_DEBUG=1 shows where"
        return _failed(line, 1)


def _failed(line: str, status: int) -> int:
    """Say `line` on stderr and give `status`; once SIGINT or SIGTERM came, nothing is
    said and the status is the signal's: the failure is the interrupt's doing (numba
    makes a SystemError of a KeyboardInterrupt in a callback, a loader a SceneError)."""
    signalled = ended()
    if signalled is not None:
        return signalled
    print(line, file=sys.stderr)
    return status


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["listen"]:
        return _listen(argv[1:])
    from viewer.cli.args import build_parser

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.list_scenes:
        return list_scenes()
    if args.save is not None:
        return save(args)
    from viewer.scene.coldstart import start

    try:  # mistakes in the arguments first: they matter with or without a display
        check_outputs(args)
        scene_path(args)
        # The first run after an install: compile in the background, show frames now. Its
        # note waits until the arguments are known to be good (one line for a mistake).
        cold = start(announce=False, also=("viewer.render.glow_loops",))
        scene = load(args)
        options = options_from(args, scene)
        check_display(args)
        _print_notes(scene)
        if cold is not None:
            cold.announce()
    except UsageError as exc:
        return _failed(f"{PROG}: {one_line(exc)}", 2)
    return _run(scene, options, args)


def check_display(args, hint: str = HEADLESS_HINT) -> None:
    """`UsageError` when a window is asked for and there is no display (`hint`: the
    headless command to suggest)."""
    if not args.headless:
        from viewer.render.context import display_available

        if not display_available():
            raise UsageError(
                f"no display found (DISPLAY is not set); render headless instead: {hint}"
            )


def _listen(argv: list[str]) -> int:
    """`sgview listen ...`: listen for programs (`viewer.cli.listen`), then run as for a scene."""
    from viewer.attach.server import ListenError
    from viewer.cli.args import listen_parser
    from viewer.cli.listen import ListenUsageError, prepare

    args = listen_parser().parse_args(argv)
    try:
        check_outputs(args)
        check_display(args, LISTEN_HINT)
        scene, options, listener, source = prepare(args)
    except (UsageError, ListenUsageError, ListenError) as exc:
        return _failed(f"{PROG}: {one_line(exc)}", 2)
    try:
        return _run(scene, options, args, source)
    finally:
        # Its thread stops before the interpreter exits: a daemon thread still serving a
        # program at exit can be ended inside native code, which aborts the process.
        listener.close()


def _run(scene, options, args, source=None) -> int:
    """Run the window (or headless) on `scene` (`source`: makes the run's frame source,
    `viewer.window.runner.SourceMaker`; None: the scene's session); a failure is one line
    and its exit status."""
    from viewer.render.context import ContextError, GLError
    from viewer.render.offscreen import RecordError
    from viewer.render.shaders import ShaderError
    from viewer.session.session import FrameError
    from viewer.window.runner import WindowError, run

    try:
        run(scene, options, headless=args.headless, backend=args.backend, source=source)
    except WindowError as exc:
        reason = one_line(exc, 160)
        hint = HEADLESS_HINT if source is None else LISTEN_HINT
        return _failed(
            f"{PROG}: cannot open a window ({reason}); render headless instead: {hint}",
            2,
        )
    except (ContextError, RecordError, ShaderError, FrameError) as exc:
        return _failed(f"{PROG}: {one_line(exc) or type(exc).__name__}", 1)
    except GLError as exc:  # a GL call failed while running: no traceback either
        return _failed(f"{PROG}: OpenGL error: {one_line(exc) or type(exc).__name__}", 1)
    except BrokenPipeError:  # `sgview ... --log | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 0
    except OSError as exc:  # writing an output failed after all (a full disk, ...)
        where = f" {printable(exc.filename)}" if getattr(exc, "filename", None) else ""
        return _failed(f"{PROG}: cannot write{where}: {exc.strerror or one_line(exc)}", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
