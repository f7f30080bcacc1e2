"""`load_scene`: open any supported scene file, by its suffix.

``.toml`` is the native format (toml_scene.py); ``.gltf`` and ``.glb`` are glTF 2.0
(gltf_scene.py). Loading reads the files and builds a new `Scene`; it has no other
effect (no caches, no writes), so the viewer can call it again to reload.

Whatever the input, the only exception that leaves `load_scene` is `SceneError`. The
checks in the parsers are meant to catch every problem with a precise message; the last
line of defence below turns anything they missed into a SceneError too, with the type of
the underlying error, so a malformed file never ends in a traceback.
"""

from __future__ import annotations

from pathlib import Path

from ..scene.graph import SceneGraph
from ..scene.scene import Scene
from ._build import add_model
from .errors import SceneError
from .gltf_scene import read_gltf
from .toml_scene import load_toml_scene

__all__ = ["load_gltf_scene", "load_scene"]

SUFFIXES = (".toml", ".gltf", ".glb")


def load_scene(path: str | Path) -> Scene:
    """Load a ``.toml``, ``.gltf`` or ``.glb`` scene file.

    Parameters
    ----------
    path : str or Path
        The file; relative paths inside it are resolved against its folder.

    Raises
    ------
    SceneError
        For any problem, with a one-line message naming the file (as given), the line when
        known, the node and the field.
    """
    try:
        display = str(path)
        file = Path(path)
    except TypeError:
        raise SceneError(f"expected a file path, got {type(path).__name__}") from None
    try:
        suffix = file.suffix.lower()
        if suffix == ".toml":
            return load_toml_scene(file, display)
        if suffix in (".gltf", ".glb"):
            return load_gltf_scene(file, display)
        raise SceneError(
            f"unknown file type {file.suffix or '(none)'!r}; expected {', '.join(SUFFIXES)}",
            file=display,
        )
    except SceneError:
        raise
    except RecursionError:
        raise SceneError("the file is nested too deeply to load", file=display) from None
    except Exception as exc:  # the last line of defence, see the module docstring
        text = " ".join(f"{type(exc).__name__}: {exc}".split())[:160]
        raise SceneError(f"cannot load the scene ({text})", file=display) from None


def load_gltf_scene(path: str | Path, display: str | None = None) -> Scene:
    """Open a glTF file as a scene of its own: its roots become the graph's roots."""
    path = Path(path)
    model = read_gltf(path, display)
    scene = Scene(graph=SceneGraph(), title=model.title, source=path)
    add_model(scene, model, None, "", set(), display or str(path))
    return scene
