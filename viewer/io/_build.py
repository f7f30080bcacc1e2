"""Adding checked node data to a `SceneGraph` in bulk: shared by the loaders."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import compress, repeat
from operator import is_not

import numpy as np

from viewer.io.errors import SceneError
from viewer.io.gltf_read.scene import GltfModel
from viewer.io.limits import DEFAULT_LIMITS, Limits, channels_reason

from ..animation.player import AnimationPlayer
from ..animation.skin import Skin, SkinnedMesh, Skinning
from ..content.scene import Include, Scene
from ..scene.graph import SceneGraph

__all__ = ["UniqueNames", "add_many", "add_model"]


class UniqueNames:
    """The node names taken so far in one scene.

    `claim(name)` returns `name` if it is free, else the first free of ``name~2``,
    ``name~3``... It remembers where each name's search stopped, so claiming the same
    name n times costs O(n) in all, not O(n^2) (a glTF file may name every node alike).
    """

    def __init__(self, taken=()) -> None:
        self.taken: set[str] = set(taken)
        self._next: dict[str, int] = {}  # name -> the first suffix not yet known taken

    def claim(self, name: str) -> str:
        candidate = name
        if candidate in self.taken:
            k = self._next.get(name, 2)
            candidate = f"{name}~{k}"
            while candidate in self.taken:
                k += 1
                candidate = f"{name}~{k}"
            self._next[name] = k + 1
        self.taken.add(candidate)
        return candidate

    def claim_all(self, names: list[str]) -> list[str]:
        """`claim` of each name in turn. When the names are distinct and none is taken (a
        file's usual case) that is the names themselves: one set, no call per name."""
        fresh = set(names)
        if len(fresh) != len(names) or not self.taken.isdisjoint(fresh):
            return [self.claim(name) for name in names]
        if self.taken:
            self.taken |= fresh
        else:
            self.taken = fresh
        return list(names)


def _add_clips(scene: Scene, clips: list, notes: list[str]) -> None:
    """Give the scene a player for its animation clips (the first one plays), or add to it."""
    player = scene.animation
    if player is None or not player.clips:  # a fresh player: its clock starts at 0
        old_notes = [] if player is None else player.notes
        scene.animation = AnimationPlayer(clips, old_notes + notes)
        return
    player.clips.extend(clips)
    player.notes.extend(notes)


def _add_skins(scene: Scene, skinning: Skinning, ids: np.ndarray) -> None:
    """Add a model's skins to the scene's, with model rows turned into node ids."""
    on_ids = Skinning(
        [Skin(ids[s.joints], s.inverse_binds) for s in skinning.skins],
        [SkinnedMesh(int(ids[m.node]), m.mesh, m.skin, m.color) for m in skinning.meshes],
        dict(skinning.attributes),
    )
    existing = scene.skinning
    if existing is None:
        scene.skinning = on_ids
    else:
        existing.extend(on_ids)


def add_many(
    graph: SceneGraph,
    names: Sequence[str],
    parents: np.ndarray,
    positions: np.ndarray,
    rotations: np.ndarray | None,
    scales: np.ndarray | None,
    display: str,
) -> np.ndarray:
    """`graph.add_many`, checking that the new ids follow on from `graph.capacity_ids`.

    Callers compute parent ids before the call, so they rely on that numbering. None for
    rotations or scales: every node's is the identity's.
    """
    base = graph.capacity_ids
    try:
        ids = graph.add_many(
            names, parents, positions=positions, rotations=rotations, scales=scales
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise SceneError(f"cannot build the graph: {exc}", file=display) from None
    ids = np.asarray(ids, dtype=np.int64)
    if not np.array_equal(ids, base + np.arange(len(names))):
        raise SceneError("internal error: unexpected node ids from add_many", file=display)
    return ids


def _check_channels(scene: Scene, model: GltfModel, display: str) -> None:
    """The scene's animation channels, this include's copy counted, within the cap."""
    player = scene.animation
    have = 0 if player is None else sum(len(c.channels) for c in player.clips)
    reason = channels_reason(have + sum(len(c.channels) for c in model.clips))
    if reason is not None:
        raise SceneError(reason, file=display)


def add_model(
    scene: Scene,
    model: GltfModel,
    parent: int | None,
    prefix: str,
    used: UniqueNames,
    display: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> np.ndarray:
    """Add a glTF model's nodes to the scene's graph under node id `parent` (None: roots).

    Names are ``prefix + glTF name``, made unique with ``~2``, ``~3``... when taken.
    Records looks, meshes, animation clips and an `Include`. Returns the new ids. Refuses
    (`SceneError` naming `display`) when the scene would get more than ``limits.max_nodes``
    nodes.
    """
    graph = scene.graph
    n = len(model)
    limits.check_nodes(len(graph) + n, display or str(model.path))
    names = used.claim_all([prefix + name for name in model.names] if prefix else model.names)
    base = graph.capacity_ids
    root_parent = -1 if parent is None else parent
    parents = np.where(model.parents >= 0, model.parents + base, root_parent)
    ids = (
        add_many(
            graph,
            names,
            parents,
            model.positions,
            model.rotations,
            model.scales,
            display or str(model.path),
        )
        if n
        else np.zeros(0, dtype=np.int64)
    )
    drawn = list(map(is_not, model.looks, repeat(None)))
    # filter(None, ...) keeps the same Looks as `drawn` (a Look is never false)
    scene.looks.update(zip(compress(ids.tolist(), drawn), filter(None, model.looks)))
    scene.mesh_data.update(model.mesh_data)
    if model.surfaces:
        scene.surfaces.update(model.surfaces)
    scene.cameras += [replace(c, node=int(ids[c.node])) for c in model.cameras]
    scene.lights += [replace(light, node=int(ids[light.node])) for light in model.lights]
    if model.clips or model.notes:
        _check_channels(scene, model, display or str(model.path))
        _add_clips(scene, [clip.on_ids(ids) for clip in model.clips], model.notes)
    if model.skinning.meshes:
        _add_skins(scene, model.skinning, ids)
    if model.geometry or model.geometry.targets:
        scene.geometry.extend(model.geometry.on_ids(ids))
    scene.includes.append(
        Include(path=model.path.resolve(), parent=parent, ids=ids, source=model.source)
    )
    return ids
