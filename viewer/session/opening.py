"""Opening a scene file in the running viewer, saving the edited one, the recent files.

Why apart from the session: opening is live reload's transaction on another file. The
file is loaded with the session's caps and tried for one simulated frame
(`viewer.session.reload_check.try_scene`) before it may replace the scene on show, so a bad file
(any layer: parsing, limits, a pose that overflows) is one `SceneError` line and the
current scene stays. Saving writes through the existing writers: the native TOML writer
(`viewer.io.save_scene`) for ``.toml``, the lossless glTF export
(`viewer.io.gltf_write.export.save_gltf`) for ``.gltf`` / ``.glb``.
"""

from __future__ import annotations

from pathlib import Path

from viewer.content.scene import Scene
from viewer.io.bundled import scene_dir
from viewer.io.errors import SceneError
from viewer.io.gltf_write.export import save_gltf
from viewer.io.loader import SUFFIXES, file_signature, load_scene
from viewer.io.save import save_scene
from viewer.session.reload_check import try_scene

#: What can be saved (a writer's format).
SCENE_SUFFIXES = (".toml", ".gltf", ".glb")
#: What can be opened (dropped on the window, or through the dialog): OpenUSD too.
OPEN_SUFFIXES = SUFFIXES
#: Entries the recent-files list keeps.
MAX_RECENT = 8


def open_scene(path: str | Path, *, load_limits: dict, time: float, motion_on: bool) -> Scene:
    """``path`` loaded and run for one frame at scene time ``time``; a one-line
    SceneError naming the file when anything on the way fails."""
    path = Path(path)
    if path.suffix.lower() not in OPEN_SUFFIXES:
        raise SceneError(f"cannot open it: sgview opens {', '.join(OPEN_SUFFIXES)} files",
                         file=str(path))  # fmt: skip
    scene = load_scene(path, **load_limits)
    try_scene(scene, str(path), time=time, motion_on=motion_on)
    return scene


def save_target(scene: Scene) -> Path:
    """The file Ctrl+S writes: the one the scene came from, when a writer has its format
    and it is not one of sgview's bundled scenes (those stay as shipped); else a
    SceneError saying a path must be given."""
    source = scene.source
    if source is not None and _read_only(source):
        raise SceneError("not saved: sgview does not write OpenUSD; give a .toml, .gltf or "
                         ".glb path to save to", file=str(source))  # fmt: skip
    if source is None or Path(source).suffix.lower() not in SCENE_SUFFIXES:
        raise SceneError("not saved: this scene has no file of its own; give a path to save to")
    folder = scene_dir()
    if folder is not None and Path(source).resolve().parent == folder.resolve():
        raise SceneError("not saved: it is one of sgview's bundled scenes; give a path of your "
                         "own to save to", file=str(source))  # fmt: skip
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
        if source is not None and _read_only(source):  # an OpenUSD stage: as glTF
            return Path(source).with_suffix(".glb").name
        return "scene.toml"


def _read_only(path) -> bool:
    """A file sgview opens but has no writer for (OpenUSD)."""
    suffix = Path(path).suffix.lower()
    return suffix in OPEN_SUFFIXES and suffix not in SCENE_SUFFIXES


def save_as(scene: Scene, path: str | Path) -> list[str]:
    """Write ``scene`` to ``path`` in the format its suffix names; returns the writer's
    notes (what the format could not carry). The scene then counts as that file's, as
    it is now on disk (live reload does not read the save back). SceneError on failure."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SCENE_SUFFIXES:
        raise SceneError("cannot save as that: use a .toml, .gltf or .glb name", file=str(path))
    if suffix == ".toml":
        save_scene(scene, path)
        notes: list[str] = []
    else:
        notes = save_gltf(scene, path)
    scene.source, scene.source_stamp = path, file_signature(path)
    return [*notes, *scene.save_notes]


class RecentFiles:
    """The files opened lately, newest first, each once (at most `MAX_RECENT`)."""

    def __init__(self) -> None:
        self.paths: list[Path] = []

    def add(self, path: str | Path) -> None:
        path = Path(path).resolve()
        self.paths = [path] + [p for p in self.paths if p != path][: MAX_RECENT - 1]
