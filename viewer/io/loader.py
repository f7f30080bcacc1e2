"""`load_scene`: open any supported scene file, by its suffix.

``.toml`` is the native format (toml_scene.py); ``.gltf`` and ``.glb`` are glTF 2.0
(gltf_read/); ``.usd``, ``.usda``, ``.usdc`` and ``.usdz`` are OpenUSD (usd/, through
usd-core, imported only when such a file is opened). Loading reads the files and builds
a new `Scene`; it has no other effect (no caches, no writes), so the viewer can call it
again to reload.

Whatever the input, the only exception that leaves `load_scene` is `SceneError`. The
checks in the parsers are meant to catch every problem with a precise message; the last
line of defence below turns anything they missed into a SceneError too, with the type of
the underlying error, so a malformed file never ends in a traceback. numpy computes
under `floats_raise` here: an overflow the checks missed is such an error, not a warning
printed before the result.
"""

from __future__ import annotations

from pathlib import Path

from viewer.heap import return_free_heap
from viewer.io._build import UniqueNames, add_model
from viewer.io.errors import SceneError
from viewer.io.gltf_read.scene import read_gltf
from viewer.io.limits import (
    DEFAULT_LIMITS,
    MAX_BUFFER_BYTES,
    MAX_JSON_BYTES,
    MAX_NODES,
    Limits,
    draw_reason,
    skinning_reason,
)
from viewer.io.ranges import check_world_reach
from viewer.io.toml_scene import load_toml_scene
from viewer.io.usd import USD_SUFFIXES, missing_reason

from ..content.scene import Scene
from ..errors import floats_raise
from ..scene.graph import SceneGraph
from ..text import brief

__all__ = ["file_signature", "load_gltf_scene", "load_scene", "load_usd_scene"]

SUFFIXES = (".toml", ".gltf", ".glb", *USD_SUFFIXES)


def load_scene(
    path: str | Path,
    *,
    max_nodes: int = MAX_NODES,
    max_buffer_bytes: int = MAX_BUFFER_BYTES,
    max_json_bytes: int = MAX_JSON_BYTES,
) -> Scene:
    """Load a ``.toml``, ``.gltf``, ``.glb`` or OpenUSD (``.usd``, ``.usda``, ``.usdc``,
    ``.usdz``) scene file.

    Parameters
    ----------
    path : str or Path
        The file; relative paths inside it are resolved against its folder, and may not
        leave it.
    max_nodes : int, keyword-only
        Refuse a scene with more nodes (glTF includes count), see limits.py.
    max_buffer_bytes : int, keyword-only
        Refuse a glTF file or buffer larger than this, or more vertex, index and keyframe
        data from all the scene's glTF files together, see limits.py.
    max_json_bytes : int, keyword-only
        Refuse more glTF JSON text than this in all the scene's glTF files together (and
        JSON whose parsed form would take more than 8 times this), see limits.py.

    Raises
    ------
    SceneError
        For any problem, with a one-line message naming the file (as given), the line when
        known, the node and the field.
    ValueError
        When a limit is not a positive whole number.
    """
    limits = Limits.make(max_nodes, max_buffer_bytes, max_json_bytes)
    try:
        display = str(path)
        file = Path(path)
    except TypeError:
        raise SceneError(f"expected a file path, got {type(path).__name__}") from None
    try:
        stamp = file_signature(file)  # before reading: a later save must look like a change
        suffix = file.suffix.lower()
        if suffix in SUFFIXES:
            load = load_toml_scene if suffix == ".toml" else load_gltf_scene
            if suffix in USD_SUFFIXES:
                load = load_usd_scene
            with floats_raise():  # a numpy warning is a SceneError, never printed
                scene = load(file, display, limits=limits)
            reason = skinning_reason(scene, limits) or draw_reason(scene, limits)
            if reason is not None:
                raise SceneError(reason, file=display)
            scene.source_stamp = stamp
            return scene
        if file.is_dir():
            raise SceneError(
                f"a folder, not a scene file; expected {', '.join(SUFFIXES)}", file=display
            )
        raise SceneError(
            f"unknown file type {file.suffix or '(none)'!r}; expected {', '.join(SUFFIXES)}",
            file=display,
        )
    except SceneError:
        raise
    except RecursionError:
        raise SceneError("the file is nested too deeply to load", file=display) from None
    except Exception as exc:  # the last line of defence, see the module docstring
        raise SceneError(f"cannot load the scene ({brief(exc)})", file=display) from None


def file_signature(path: Path) -> tuple[int, int] | None:
    """What changes when a file is saved: (modification time in ns, size); None: missing."""
    try:
        st = Path(path).stat()
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_size)


def load_gltf_scene(
    path: str | Path, display: str | None = None, *, limits: Limits = DEFAULT_LIMITS
) -> Scene:
    """Open a glTF file as a scene of its own: its roots become the graph's roots."""
    path = Path(path)
    model = read_gltf(path, display, limits=limits)
    scene = Scene(graph=SceneGraph(), title=model.title, source=path)
    add_model(scene, model, None, "", UniqueNames(), display or str(path), limits)
    del model  # what the graph copied goes before the check's arrays come (peak memory)
    return_free_heap()  # and what reading the file left free in the heap
    check_world_reach(scene, display or str(path))
    return scene


def load_usd_scene(
    path: str | Path, display: str | None = None, *, limits: Limits = DEFAULT_LIMITS
) -> Scene:
    """Open an OpenUSD file as a scene; without usd-core, one line says how to install it."""
    display = display or str(path)
    reason = missing_reason()
    if reason is not None:
        raise SceneError(reason, file=display)
    from viewer.io.usd.scene import usd_scene  # pxr loads here, and only here

    return usd_scene(Path(path), display, limits)
