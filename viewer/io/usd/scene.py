"""A USD stage as a `Scene`: the model of read.py added by the shared builder, with each
node's prim path and inspector rows kept on the scene (`Scene.node_paths`,
`Scene.describe_node`)."""

from __future__ import annotations

from pathlib import Path

from viewer.content.scene import Scene
from viewer.io._build import UniqueNames, add_model
from viewer.io.limits import Limits
from viewer.io.ranges import check_world_reach
from viewer.io.usd.inspect import PrimInspector
from viewer.io.usd.read import UsdModel, model_of_stage, read_usd
from viewer.scene.graph import SceneGraph

__all__ = ["scene_of_model", "scene_of_stage", "usd_scene"]


def scene_of_model(model: UsdModel, display: str, limits: Limits) -> Scene:
    """A new scene holding `model`, its nodes keyed by prim path."""
    scene = Scene(graph=SceneGraph(), title=model.title, source=model.path)
    ids = add_model(scene, model, None, "", UniqueNames(), display, limits)
    scene.includes.clear()  # a stage is no include: the writers write each node
    scene.node_paths = dict(zip(ids.tolist(), model.keys, strict=True))
    scene.describe_node = PrimInspector(model.stage, scene.node_paths, model.root_line)
    scene.save_notes = _save_notes(model)
    check_world_reach(scene, display)
    return scene


#: Save notes the USD writer (write.py) leaves out: it keeps prim paths and meshes, and
#: says in its own note that the scene is written at its current pose.
PATHS_NOTE = "USD prim paths are not written (each node keeps its prim's name)"
TIME_SAMPLES_NOTE = "the stage's time samples ({:,} baked channels) are not written"
TOML_MESHES_NOTE = (
    "USD meshes go into .gltf and .glb files only (a .toml file has no "
    'mesh of its own: mesh = "none")'
)


def _save_notes(model: UsdModel) -> list[str]:
    """What the native and glTF writers do not carry over from a stage, one line per kind."""
    notes = [PATHS_NOTE]
    channels = sum(len(clip.channels) for clip in model.clips)
    if channels:
        notes.append(TIME_SAMPLES_NOTE.format(channels))
    instanced = model.geometry.instanced
    if instanced:
        count = sum(len(item.locals) for item in instanced)
        notes.append(f"PointInstancer instances ({count:,}) are not written")
    sheared = sum(key.endswith("[shear]") for key in model.keys)
    if sheared:
        notes.append(f"{sheared:,} sheared prims are written as two nodes each ([shear] above)")
    if model.surfaces:
        notes.append("UsdPreviewSurface materials are written as base colours")
    if model.mesh_data:
        notes.append(TOML_MESHES_NOTE)
    return notes


def usd_scene(path: Path, display: str, limits: Limits) -> Scene:
    """Open a USD file as a scene."""
    return scene_of_model(read_usd(path, display, limits), display, limits)


def scene_of_stage(stage, display: str, limits: Limits) -> Scene:
    """A user's own open stage as a scene (no file read)."""
    layer = stage.GetRootLayer()
    path = Path(layer.realPath or layer.identifier or "stage.usda")
    return scene_of_model(model_of_stage(stage, path, display, limits), display, limits)
