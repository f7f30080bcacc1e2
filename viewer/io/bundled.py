"""The demonstration scenes that ship with sgview, found in a checkout or an install.

In a source checkout they are the top-level `scenes/` folder; in an installed wheel the
same files are the `viewer/scenes` package data. `sgview --list-scenes` lists them and
`sgview NAME` opens one by name, so an installed sgview needs no checkout; a misspelt
name gets the closest bundled one suggested (`closest_scene`).
"""

from __future__ import annotations

import difflib
import tomllib
from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent
#: What the built-in default scene's title adds to its own words, said on screen only: a
#: copy saved under a path of its own is that file's scene, not the default.
DEFAULT_TITLE_NOTE = " (the default scene; tree10 is it still)"


def file_title(title: str) -> str:
    """The title a saved file gets: the default scene's note left out (with it, a reopened
    copy would claim to be the default scene)."""
    return title.removesuffix(DEFAULT_TITLE_NOTE)


@cache
def scene_dir() -> Path | None:
    """The folder of the bundled `.toml` scenes, or None if it cannot be found."""
    for folder in (_PACKAGE.parent / "scenes", _PACKAGE / "scenes"):
        if (folder / "tree10.toml").is_file():
            return folder
    return None


def bundled_scenes() -> list[tuple[str, str, Path]]:
    """``(name, title, path)`` of each bundled scene, sorted by name."""
    folder = scene_dir()
    if folder is None:
        return []
    out = []
    for path in sorted(folder.glob("*.toml")):
        try:
            title = tomllib.loads(path.read_text(encoding="utf-8"))["scene"]["title"]
        except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError):
            title = path.stem
        out.append((path.stem, str(title), path))
    return out


def resolve(name_or_path: str) -> Path:
    """A path as given when it exists; else the bundled scene of that name, if any."""
    path = Path(name_or_path)
    if path.exists() or path.suffix:
        return path
    for name, _, bundled in bundled_scenes():
        if name == name_or_path:
            return bundled
    return path


def closest_scene(name: str) -> str | None:
    """The bundled scene name most like `name` (a typo's likely meaning), or None when no
    name is close; the file suffix and folders of `name` are ignored."""
    stem = Path(name).stem.lower()
    names = [bundled for bundled, _, _ in bundled_scenes()]
    close = difflib.get_close_matches(stem, names, n=1, cutoff=0.6)
    return close[0] if close else None
