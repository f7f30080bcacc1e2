"""OpenUSD scenes (.usda, .usdc, .usdz) read through Pixar's own bindings (usd-core).

`pxr` is imported only by the modules of this package, and only when a USD file is opened
(viewer/io/loader.py imports `read.py` lazily): without usd-core every other format still
works, and opening a USD file says how to install it. No GL here.

- stage.py opens a stage within the load's budgets, refuses what pxr cannot open in one
  `SceneError` line naming the file, prim and property, and notes composition errors;
- xforms.py turns each prim's op stack, as USD evaluates it, into local values;
- traverse.py walks the prims into a node list (paths, parents, local matrices);
- shapes.py and looks.py give meshes, implicit shapes and their materials;
- instancer.py turns PointInstancers into GPU instances;
- timeline.py bakes time-sampled transforms into an animation clip;
- read.py assembles all of it into a model the shared builder adds to a scene;
- write.py writes a scene as a stage (`--save out.usda`, Save as), samples.py its
  animation as time samples;
- edits.py writes the edits of a stage's scene back into its layers (Ctrl+S);
- live.py follows a user's own stage through ``Usd.Notice.ObjectsChanged``.
"""

__all__ = [
    "INSTALL_HINT",
    "USD_SUFFIXES",
    "USD_WRITE_SUFFIXES",
    "is_stage",
    "is_stage_scene",
    "missing_reason",
]

from pathlib import Path

#: The file suffixes opened as USD.
USD_SUFFIXES = (".usd", ".usda", ".usdc", ".usdz")
#: The file suffixes written as USD (write.py): ``.usd`` names no one format.
USD_WRITE_SUFFIXES = (".usda", ".usdc", ".usdz")
#: What a user without usd-core is told.
INSTALL_HINT = "pip install 'sgview[usd]'"


def missing_reason() -> str | None:
    """Why USD files cannot be opened here (usd-core missing), or None when they can."""
    try:
        import pxr.Usd  # noqa: F401
    except ImportError:
        return f"OpenUSD files need usd-core, which is not installed: {INSTALL_HINT}"
    return None


def is_stage(value: object) -> bool:
    """Whether `value` is a ``pxr.Usd.Stage`` (told without importing pxr)."""
    kind = type(value)
    return kind.__name__ == "Stage" and kind.__module__.startswith("pxr.Usd")


def is_stage_scene(scene) -> bool:
    """Whether `scene` (a `Scene`) was read from an OpenUSD stage on disk, its nodes keyed
    by prim path: saved to that file, its edits go into the stage's layers (edits.py)."""
    source = scene.source
    return (
        source is not None
        and Path(source).suffix.lower() in USD_SUFFIXES
        and bool(scene.node_paths)
    )
