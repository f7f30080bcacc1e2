"""A user's own open stage, live: edits their code makes through pxr show as propagation.

`LiveStage(stage)` builds the scene once (read.py) and listens to
``Usd.Notice.ObjectsChanged`` for that stage. The notices are only collected when they
arrive; the session applies them once per frame, before its update (`on_frame`, a frame
callback), so what an edit changed is exactly what that frame recomputes and glows:

- a changed transform property (an ``xformOp:`` attribute or ``xformOpOrder``) of a prim
  that is a node is a **local change** of that prim: its local values are set from USD's
  local matrix at the frame's time code (rule 2: the same value changes nothing);
- a resync (a prim added, removed, re-parented, made inactive, a reference or variant
  changed) is a **structural change**: the nodes of the resynced subtree are removed and
  the subtree is read again from the stage, its new nodes dirty, with what they draw:
  meshes and shapes (read anew where the stage had none), and the GPU instances of its
  PointInstancers in place of the removed nodes' ones;
- a PointInstancer's instance data (positions, orientations, scales, prototype
  indices, prototypes...) edited: its instances are read again, the node's own change
  (no matrix of it moves: `Geometry.set_instances`, or `Geometry.replace_instanced`
  when it now draws another number of instances, which the renderer takes at its next
  frame), and its instance channel baked again;
- anything else (a colour, points) changes no transform: noted, not shown.

Each change is one line in `lines` (and on `out` when given) with its reason, e.g.
``usd: /World/Arm: local change (xformOp:rotateZ)``. A prim whose stack becomes sheared,
or stops being so, is resynced (its node count changes).

Time samples follow the edits: a changed transform property bakes that prim's frames again
(timeline.py: pxr at every keyed frame's time code) and replaces its channels in the
stage's clip (none left when it no longer varies); a resync bakes the prims it reads
again. So an ``op.Set(value, time)`` shows on the frames whose time codes it changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

import numpy as np
from pxr import Sdf, Tf, Usd, UsdGeom

from viewer.animation.clip import Clip
from viewer.animation.player import AnimationPlayer
from viewer.content.scene import Look
from viewer.io.limits import DEFAULT_LIMITS, Budget
from viewer.io.usd.instancer import INSTANCE_ATTRIBUTES, instanced_nodes
from viewer.io.usd.read import CLIP_NAME, mesh_prefix, model_of_stage, prim_channels, read_gprim
from viewer.io.usd.scene import scene_of_model
from viewer.io.usd.textures import TextureReader
from viewer.io.usd.timeline import bake, timeline_of
from viewer.io.usd.traverse import Visibility, walk_prims
from viewer.io.usd.xforms import column_matrices, split_shear, split_trs
from viewer.text import printable

__all__ = ["LiveStage"]


def _is_transform(prop: str) -> bool:
    return prop.startswith("xformOp:") or prop == "xformOpOrder"


class LiveStage:
    """The scene of a user's stage and the notices that keep it in step (module notes)."""

    def __init__(self, stage: Usd.Stage, display: str = "stage", out: TextIO | None = None):
        self.stage = stage
        self.display = display
        self.out = out
        path = Path(stage.GetRootLayer().realPath or "stage.usda")
        self.scene = scene_of_model(
            model_of_stage(stage, path, display, DEFAULT_LIMITS), display, DEFAULT_LIMITS
        )
        self.timeline = timeline_of(stage, display)
        self._prefix = mesh_prefix(path)
        self._folder = path.parent if path.exists() else None
        self._drawn: dict[str, tuple[str, tuple] | None] = {}  # this frame's `_mesh_of`
        self.lines: list[str] = []
        self._changed: dict[str, set[str]] = {}  # prim path -> changed property names
        self._resynced: set[str] = set()
        self._index: dict[str, int] | None = None  # prim path -> node (see `_node_of`)
        self._listener = Tf.Notice.Register(Usd.Notice.ObjectsChanged, self._notice, stage)

    def close(self) -> None:
        """Stop listening to the stage."""
        if self._listener is not None:
            self._listener.Revoke()
            self._listener = None

    # -- collecting (pxr calls this during the user's edit) -----------------------------
    def _notice(self, notice, sender) -> None:
        for path in notice.GetResyncedPaths():
            if not path.IsPropertyPath():  # an added or removed property is no resync here
                self._resynced.add(str(path.GetPrimPath()))
                continue
            self._changed.setdefault(str(path.GetPrimPath()), set()).add(path.name)
        for path in notice.GetChangedInfoOnlyPaths():
            prim = str(path.GetPrimPath())
            self._changed.setdefault(prim, set()).add(path.name if path.IsPropertyPath() else "")

    # -- applying (the session calls this before each frame's update) -------------------
    def on_frame(self, graph, frame: int, t: float) -> None:
        """Apply the changes collected since the last frame."""
        resynced, self._resynced = self._resynced, set()
        changed, self._changed = self._changed, {}
        self._drawn = {}
        code = Usd.TimeCode(self.timeline.code_at(t))
        for path in _outermost(resynced):
            self._resync(path, code)
        cache = UsdGeom.XformCache(code)
        for path, props in sorted(changed.items()):
            if any(path == r or path.startswith(r.rstrip("/") + "/") for r in resynced):
                continue  # read again whole above
            moved = sorted(p for p in props if _is_transform(p))
            node = self._node_of(path)
            placed = sorted(props & {*INSTANCE_ATTRIBUTES, "prototypes"})
            if placed and node is not None and not moved:
                self._instances(path, node, code, placed)
            elif not moved:
                self._say(
                    f"{path}: no transform changed ({', '.join(sorted(props)) or 'metadata'}"
                    "): not shown"
                )
            elif node is None:
                self._say(f"{path}: {', '.join(moved)} changed on a prim that is no node")
            else:
                self._local(path, node, cache, moved)

    def _say(self, text: str) -> None:
        line = f"usd: {printable(text, 200)}"
        self.lines.append(line)
        if self.out is not None:
            print(line, file=self.out)

    def _node_of(self, path: str) -> int | None:
        """The node of a prim path (`node_paths` holds live nodes only: a resync drops
        the removed ones), through a reverse index rebuilt after each resync."""
        if self._index is None:
            self._index = {key: node for node, key in self.scene.node_paths.items()}
        return self._index.get(path)

    def _local(self, path: str, node: int, cache, moved: list[str]) -> None:
        prim = self.stage.GetPrimAtPath(path)
        local = column_matrices([cache.GetLocalTransformation(prim)[0]])
        t, q, s, exact = split_trs(local)
        animated, times, frames = bake([prim], self.timeline, self.display, DEFAULT_LIMITS)
        split = split_trs(frames[:, 0]) if animated else None
        sheared = self._node_of(path + "[shear]") is not None
        if not exact[0] or sheared or (split is not None and not split[3].all()):
            self._resync(path, Usd.TimeCode(cache.GetTime()), why="its stack's shear changed")
            return
        self.scene.graph.set_locals([node], positions=t, rotations=q, scales=s)
        channels = prim_channels(times, frames[:, 0], node, None, split) if animated else []
        baked = self._play({node}, channels)
        self._say(
            f"{path}: local change ({', '.join(moved)})"
            + (f"; its time samples baked again ({len(times):,} keys)" if animated else "")
            + ("; no longer animated" if baked and not animated else "")
        )

    def _instances(self, path: str, node: int, code, placed: list[str]) -> None:
        """A PointInstancer's instance data edited: its instances read again at the
        frame's time code (a change of the node's own) and its instance channel baked
        again; where it now draws another number of instances (or other meshes), its
        items are replaced (`Geometry.replace_instanced`: the renderer rebuilds)."""
        geometry = self.scene.geometry
        old = [(i.mesh, i.locals.shape) for i in geometry.instanced if i.node == node]
        prim = self.stage.GetPrimAtPath(path)
        budget = Budget(DEFAULT_LIMITS, format="USD")
        items, channels = instanced_nodes(
            prim, node, code, self._mesh_of, self.display, budget, self.timeline
        )
        if [(i.mesh, i.locals.shape) for i in items] != old:
            geometry.replace_instanced([node], items)
            drawn = sum(len(i.locals) for i in items)
            placed = [*placed, f"it now draws {drawn:,} instance matrices"]
        elif items:
            geometry.set_instances(node, np.concatenate([i.locals.reshape(-1) for i in items]))
        self._play({node}, channels, paths={"instances"})
        self._say(
            f"{path}: instances changed ({', '.join(placed)})"
            + ("; their time samples baked again" if channels else "")
        )

    def _mesh_of(self, gprim) -> tuple[str, tuple] | None:
        """(mesh key, colour) of a gprim (its prototype's, inside an instance), read into
        the scene where it has no such mesh yet; None when it draws nothing."""
        source = gprim.GetPrimInPrototype() if gprim.IsInstanceProxy() else gprim
        key = f"{self._prefix}#{source.GetPath()}"
        if key not in self._drawn:
            read = _Read()
            budget = Budget(DEFAULT_LIMITS, format="USD")
            notes: set[str] = set()
            textures = TextureReader(self._folder, self.display, budget)
            self._drawn[key] = read_gprim(
                read,
                source,
                key,
                Usd.TimeCode(self.timeline.start),
                self.display,
                budget,
                notes,
                textures,
            )
            for name, table in (
                ("mesh_data", self.scene.mesh_data),
                ("surfaces", self.scene.surfaces),
            ):
                for k, value in getattr(read, name).items():
                    table.setdefault(k, value)  # a mesh already uploaded stays as drawn
            for note in sorted(notes):
                self._say(note)
        return self._drawn[key]

    def _play(self, nodes: set[int], channels: list, paths: set[str] | None = None) -> bool:
        """Replace the channels of `nodes` (those of `paths` only, when given) in the
        stage's clip by `channels` (a player and a clip made when there were none);
        whether any of `nodes` had such channels."""
        player = self.scene.animation
        clip = (
            None if player is None else next((c for c in player.clips if c.name == CLIP_NAME), None)
        )
        old = () if clip is None else clip.channels
        kept = tuple(c for c in old if c.node not in nodes or (paths and c.path not in paths))
        if clip is None and not channels:
            return False
        new = Clip(CLIP_NAME, kept + tuple(channels))
        if player is None or not player.clips:
            self.scene.animation = AnimationPlayer([new])  # clip time = the scene clock
        elif clip is None:
            player.clips.append(new)
        else:
            player.clips[player.clips.index(clip)] = new
        return len(kept) != len(old)

    def _resync(self, path: str, code, why: str = "resynced") -> None:
        """Remove the nodes at and below `path`, read the subtree again from the stage."""
        scene, graph = self.scene, self.scene.graph
        self._index = None
        alive = set(graph.alive_ids().tolist())
        under = {
            n: k for n, k in scene.node_paths.items() if n in alive and k != "/" and _below(k, path)
        }
        tops = [n for n in under if (up := graph.node(n).parent) is None or up.id not in under]
        for n in tops:
            graph.remove(graph.node(n))
        for n in under:
            scene.node_paths.pop(n, None)
            scene.looks.pop(n, None)
        prim = self.stage.GetPrimAtPath(path)
        added, channels, items = (
            self._add_subtree(prim, code) if prim and prim.IsActive() else (0, [], [])
        )
        geometry = self.scene.geometry
        if items or any(item.node in under for item in geometry.instanced):
            geometry.replace_instanced(under, items)
        self._play(set(under), channels)
        self._index = None
        self._say(f"{path}: structural change ({why}: {len(under)} nodes removed, {added} added)")

    def _parent_node(self, path: Sdf.Path) -> int | None:
        """The node of the nearest ancestor prim that has one (else the stage's root)."""
        probe = path.GetParentPath()
        while probe != Sdf.Path.absoluteRootPath and not probe.isEmpty:
            node = self._node_of(str(probe))
            if node is not None:
                return node
            probe = probe.GetParentPath()
        return self._node_of("/")

    def _add_subtree(self, prim, code) -> tuple[int, list, list]:
        """Read `prim`'s subtree as new nodes: (how many, the channels of its animated
        prims, baked as read.py bakes them, and the GPU instances of its instancers)."""
        cache = UsdGeom.XformCache(code)
        rows = walk_prims(self.stage, self.display, DEFAULT_LIMITS, cache, roots=[prim])
        if not len(rows):
            return 0, [], []
        local = column_matrices(rows.locals)
        t, q, s, exact = split_trs(local)
        animated, times, frames = bake(rows.prims, self.timeline, self.display, DEFAULT_LIMITS)
        splits = [split_trs(frames[:, j]) for j in range(len(animated))]
        for j, i in enumerate(animated):
            exact[i] &= bool(splits[j][3].all())
        outer_of: dict[int, int] = {}
        top = self._parent_node(prim.GetPath())
        root = self._node_of("/")
        graph, scene = self.scene.graph, self.scene
        ids: list[int] = []
        for i in range(len(rows.prims)):
            parent = rows.parents[i]
            parent_id = (root if rows.resets[i] else top) if parent < 0 else ids[parent]
            parent_node = None if parent_id is None else graph.node(parent_id)
            name = rows.names[i]
            if not exact[i]:
                st, su, ss, sv = split_shear(local[i : i + 1])
                outer = graph.add(
                    name + "[shear]", parent_node, position=st[0], rotation=su[0], scale=ss[0]
                )
                scene.node_paths[outer.id] = rows.paths[i] + "[shear]"
                outer_of[i] = outer.id
                node = graph.add(name, outer, rotation=sv[0])
            else:
                node = graph.add(name, parent_node, position=t[i], rotation=q[i], scale=s[i])
            ids.append(node.id)
            scene.node_paths[node.id] = rows.paths[i]
        channels, items = self._draws(rows, ids, code)
        for j, i in enumerate(animated):
            outer_id = outer_of.get(i)
            split = None if outer_id is not None else splits[j]
            channels += prim_channels(times, frames[:, j], ids[i], outer_id, split)
        return len(ids), channels, items

    def _draws(self, rows, ids: list[int], code) -> tuple[list, list]:
        """What the new nodes draw, as read.py reads it: each visible gprim's look, each
        visible PointInstancer's GPU instances; (their instance channels, the items)."""
        visibility = Visibility(code)
        budget = Budget(DEFAULT_LIMITS, format="USD")
        channels, items = [], []
        for i in rows.drawn:
            prim, node = rows.prims[i], ids[i]
            if visibility.hidden(prim):
                continue
            if prim.IsA(UsdGeom.PointInstancer):
                got, played = instanced_nodes(
                    prim, node, code, self._mesh_of, self.display, budget, self.timeline
                )
                items += got
                channels += played
            elif (drawn := self._mesh_of(prim)) is not None:
                self.scene.looks[node] = Look(mesh=drawn[0], size=(1.0, 1.0, 1.0), color=drawn[1])
        return channels, items


class _Read:
    """Where `read_gprim` puts a mesh it reads (copied into the scene where new)."""

    def __init__(self) -> None:
        self.mesh_data: dict = {}
        self.surfaces: dict = {}


def _below(key: str, path: str) -> bool:
    key = key.removesuffix("[shear]")
    return key == path or key.startswith(path.rstrip("/") + "/")


def _outermost(paths: set[str]) -> list[str]:
    """The paths not below another of them, sorted."""
    out: list[str] = []
    for path in sorted(paths):
        if not any(_below(path, kept) for kept in out):
            out.append(path)
    return out
