"""The scene files room: opening a file in the running viewer, live reload of the one on
show, saving the edited scene, the recent files. It hands the session a checked scene
(`SceneFiles.take`); only the session swaps it in.

Opening is live reload's transaction on another file. The
file is loaded with the session's caps and tried for one simulated frame
(`viewer.session.reload_check.try_scene`) before it may replace the scene on show, so a bad file
(any layer: parsing, limits, a pose that overflows) is one `SceneError` line and the
current scene stays. Saving writes through the existing writers: the native TOML writer
(`viewer.io.save_scene`) for ``.toml``, the lossless glTF export
(`viewer.io.gltf_write.export.save_gltf`) for ``.gltf`` / ``.glb``, the OpenUSD writer
(`viewer.io.usd.write.save_usd`) for ``.usda`` / ``.usdc`` / ``.usdz``; a scene read
from a stage saved to its own file keeps the stage's layers: its edits are written as
opinions in the root layer, or in the edit layer (``--edit-layer``), never flattened
(`viewer.io.usd.edits.save_edits`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from viewer.content.motion import Motion
from viewer.content.scene import Scene
from viewer.errors import SgviewError, interrupted
from viewer.io.bundled import file_title, scene_dir
from viewer.io.errors import SceneError
from viewer.io.gltf_write.export import save_gltf
from viewer.io.limits import Limits
from viewer.io.loader import SUFFIXES, file_signature, load_scene
from viewer.io.save import save_scene, save_target_reason
from viewer.io.usd import USD_WRITE_SUFFIXES, is_stage_scene
from viewer.io.watch import SceneWatcher, watch_scene
from viewer.session.messages import Messages
from viewer.session.reload_check import try_scene
from viewer.text import brief, one_line, printable

#: What can be saved (a writer's format); OpenUSD's only where usd-core is installed
#: (`viewer.io.save.save_target_reason` says so).
SCENE_SUFFIXES = (".toml", ".gltf", ".glb", *USD_WRITE_SUFFIXES)
#: What can be opened (dropped on the window, or through the dialog): OpenUSD too.
OPEN_SUFFIXES = SUFFIXES
#: Entries the recent-files list keeps.
MAX_RECENT = 8


def open_scene(
    path: str | Path, *, load_limits: dict[str, int], time: float, motion_on: bool
) -> Scene:
    """``path`` loaded and run for one frame at scene time ``time``; a one-line
    SceneError naming the file when anything on the way fails."""
    path = Path(path)
    if path.suffix.lower() not in OPEN_SUFFIXES:
        raise SceneError(
            f"cannot open it: sgview opens {', '.join(OPEN_SUFFIXES)} files", file=str(path)
        )
    scene = load_scene(path, **load_limits)
    try_scene(scene, str(path), time=time, motion_on=motion_on)
    return scene


def save_target(scene: Scene) -> Path:
    """The file Ctrl+S writes: the one the scene came from, when a writer has its format
    (a stage's own file: its edits, `is_stage_scene`) and it is not one of sgview's
    bundled scenes (those stay as shipped); else a SceneError saying a path must be
    given."""
    source = scene.source
    if source is None or (
        Path(source).suffix.lower() not in SCENE_SUFFIXES and not is_stage_scene(scene)
    ):
        raise SceneError("not saved: this scene has no file of its own; give a path to save to")
    folder = scene_dir()
    if folder is not None and Path(source).resolve().parent == folder.resolve():
        raise SceneError(
            "not saved: it is one of sgview's bundled scenes; give a path of your own to save to",
            file=str(source),
        )
    return Path(source)


def save_as_suggestion(scene: Scene) -> str:
    """What the "save as" field offers: the file Ctrl+S writes when there is one; for a
    bundled scene its name in the working folder (one click must not overwrite a file
    sgview ships); else ``scene.toml``."""
    try:
        return str(save_target(scene))
    except SceneError:
        source = scene.source
        if source is not None and Path(source).suffix.lower() in SCENE_SUFFIXES:
            return Path(source).name
        return "scene.toml"


def save_as(
    scene: Scene,
    path: str | Path,
    *,
    edit_layer: str | Path | None = None,
    load_limits: dict[str, int] | None = None,
) -> list[str]:
    """Write ``scene`` to ``path`` in the format its suffix names; returns the writer's
    notes (what the format could not carry). A stage's scene saved to its own file
    writes its edits into the stage's layers instead (the root layer, or `edit_layer`;
    the stage read again within `load_limits`). The scene then counts as that file's, as
    it is now on disk (live reload does not read the save back), titled as written there
    (the default scene's note left out: `file_title`). SceneError on failure."""
    path = Path(path)
    suffix = path.suffix.lower()
    own_stage = is_stage_scene(scene) and path.resolve() == Path(str(scene.source)).resolve()
    reason = None if own_stage else save_target_reason(path)
    if reason is not None:
        raise SceneError(reason, file=str(path))
    notes: list[str] = []
    if own_stage:
        from viewer.io.usd.edits import save_edits  # pxr: only when USD is written

        limits = Limits(**(load_limits or {}))
        notes = save_edits(scene, limits, edit_layer)
    elif suffix == ".toml":
        save_scene(scene, path)
    elif suffix in USD_WRITE_SUFFIXES:
        from viewer.io.usd.write import save_usd  # pxr: only when USD is written

        notes = save_usd(scene, path)  # the scene's own notes that hold for USD among them
    else:
        notes = save_gltf(scene, path)
    if suffix not in USD_WRITE_SUFFIXES and not own_stage:
        notes = [*notes, *scene.save_notes]
    scene.source, scene.source_stamp = path, file_signature(path)
    scene.title = file_title(scene.title)  # that file's scene now, as it is titled there
    return notes


class RecentFiles:
    """The files opened lately, newest first, each once (at most `MAX_RECENT`)."""

    def __init__(self) -> None:
        self.paths: list[Path] = []

    def add(self, path: str | Path) -> None:
        path = Path(path).resolve()
        self.paths = [path] + [p for p in self.paths if p != path][: MAX_RECENT - 1]


@dataclass(frozen=True)
class Checked:
    """A scene that passed its first frame (its GPU set-up comes next): `path` the file
    it came from; `reloaded`: the file on show saved again (False: another file opened)."""

    scene: Scene
    path: str | Path
    reloaded: bool


class SceneFiles:
    """The file of the scene on show, watched for saves, and the files asked for."""

    def __init__(
        self,
        scene: Scene,
        load_limits: dict[str, int],
        messages: Messages,
        edit_layer: str | Path | None = None,
    ) -> None:
        self.load_limits = dict(load_limits)
        self.messages = messages
        #: Where a stage's edits go at a save to its own file (None: its root layer).
        self.edit_layer = edit_layer
        #: Files opened in this session, newest first.
        self.recent = RecentFiles()
        if scene.source is not None:
            self.recent.add(scene.source)
        self.watcher: SceneWatcher | None = watch_scene(scene, **self.load_limits)
        self._asked: str | Path | None = None  # the path asked for, as given

    def request_open(self, path: str | Path) -> None:
        """Open ``path`` at the next `take` (dropped on the window, picked in the dialog
        or the recent list: the window owns the GPU state a new scene needs)."""
        self._asked = path

    def save_suggestion(self, scene: Scene) -> str:
        """The path the panel's "save as" field offers for `scene` (`save_as_suggestion`)."""
        return save_as_suggestion(scene)

    def recent_folder(self) -> str:
        """Where the open dialog starts: the folder of the newest recent file."""
        return str(self.recent.paths[0].parent) if self.recent.paths else "."

    def take(self, *, time: float, motion_on: bool) -> Checked | None:
        """The scene to show next, checked: the file asked for, else the scene file's new
        contents after a save; None when there is none. The scene is loaded and run for
        one frame (`try_scene`: a saved scene at scene time `time`, an opened one at 0,
        where it starts); whatever fails on the way, in any layer, is one line on the
        channel and the scene on show stays. Its GPU state is built after this, by the
        runner, which then swaps it in or `refuse`s it."""
        asked, self._asked = self._asked, None
        saved = None if asked is not None or self.watcher is None else self.watcher.poll()
        if asked is not None:
            return self._check(
                asked,
                reloaded=False,
                load=lambda: open_scene(
                    asked, load_limits=self.load_limits, time=0.0, motion_on=motion_on
                ),
            )
        if saved is None or self.watcher is None:
            return None
        watched = self.watcher.path

        def load_saved() -> Scene:
            if isinstance(saved, Exception):  # the save did not load
                raise saved
            try_scene(saved, str(watched), time=time, motion_on=motion_on)
            return saved

        return self._check(watched, reloaded=True, load=load_saved)

    def _check(
        self, path: str | Path, *, reloaded: bool, load: Callable[[], Scene]
    ) -> Checked | None:
        """The transaction's first half: `load` the scene (loaded and run for a frame);
        a failure is the channel's line (`refuse`) and None."""
        try:
            return Checked(load(), path, reloaded)
        except Exception as exc:
            if interrupted(exc):
                raise
            self._refused(path, reloaded, exc)
            return None

    def refuse(self, checked: Checked, error: Exception) -> None:
        """The transaction's second half failed: `checked`'s GPU state could not be
        built. One line on the channel (naming the file), and the scene on show stays."""
        self._refused(checked.path, checked.reloaded, error)

    def _refused(self, path: str | Path, reloaded: bool, exc: Exception) -> None:
        if not isinstance(exc, SgviewError):  # from outside sgview's checks: name the file
            what = "the reloaded scene" if reloaded else "it"
            exc = SceneError(f"cannot show {what} ({brief(exc)})", file=str(path))
        if reloaded:
            self.messages.failed(
                "reload", one_line(exc), "reload failed, keeping the last good scene"
            )
        else:
            self.messages.failed("open", one_line(exc), "not opened, keeping the scene on show")

    def shown(self, checked: Checked) -> None:
        """The session swapped `checked` in: watch its file, list it, say so."""
        self.messages.reload = None
        if checked.reloaded:
            self.messages.tell(f"reloaded {printable(checked.path, None)}")
            return
        self.messages.open = None
        self.watcher = watch_scene(checked.scene, **self.load_limits)
        self.recent.add(checked.path)
        self.messages.tell(f"opened {printable(checked.path, None)}")

    def save(
        self, scene: Scene, path: str | Path | None = None, motions: list[Motion] | None = None
    ) -> bool:
        """Write `scene` to ``path``, or to the file it came from when its format has a
        writer; with `motions` (the collision demo's file motions) in place of the
        running ones. The outcome is the channel's edit line."""
        running = scene.motions
        if motions is not None:
            scene.motions = motions
        try:
            target = path if path is not None else save_target(scene)
            notes = save_as(scene, target, edit_layer=self.edit_layer, load_limits=self.load_limits)
        except SgviewError as exc:
            self.messages.refuse(one_line(exc))
            return False
        finally:
            scene.motions = running
        self.watcher = watch_scene(scene, **self.load_limits)
        where = Path(target).resolve()  # "saved my.toml" did not say which folder
        self.messages.edited(
            one_line(
                f"saved {printable(where, None)}"
                + (f" ({len(notes)} notes: {notes[0]})" if notes else "")
            )
        )
        return True
