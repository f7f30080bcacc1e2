"""`save_gltf`: write a scene as glTF 2.0 (``.glb``, or ``.gltf`` with its ``.bin`` and
image files beside it, or everything inside it as data URIs), keeping what was loaded.

- Nodes come from the live graph, in pre-order: names, parent links, transforms. A node
  read from a glTF file and not changed since is written exactly as read (its
  ``matrix``, or its TRS values); otherwise its current local TRS. A node driven by a
  motion is written at the motion's rest value (the motion is an animation channel).
- Everything a loaded glTF file holds besides its nodes (meshes with all attributes,
  morph targets and extensions, materials, textures, samplers, images with their
  original bytes, skins, animations with their samplers as read, cameras, lights,
  instancing, node extras and extensions) is carried over from the file as read
  (gltf_read/source.py, carry.py), its binary data re-packed into one new buffer.
  Several glTF files included by a TOML scene merge into one document.
- Nodes without a glTF source are drawn with sgview's meshes (builtin.py).
- The scene's motions become one more animation, "sgview motions" (motion.py).

What cannot be carried over is returned as one-line notes, one per kind.
"""

from __future__ import annotations

from collections import Counter
from itertools import compress
from pathlib import Path

import numpy as np

from viewer.content.scene import Look, Scene
from viewer.io.bundled import file_title
from viewer.io.errors import SceneError
from viewer.io.gltf_read.node_table import TRS_DEFAULTS
from viewer.io.gltf_read.scene import collector_paused
from viewer.io.gltf_read.source import GltfSource
from viewer.io.gltf_write.builtin import BuiltinMeshes
from viewer.io.gltf_write.carry import Output, carry
from viewer.io.gltf_write.container import GltfExport, glb_bytes, gltf_files, json_bytes
from viewer.io.gltf_write.motion import motion_channels
from viewer.io.gltf_write.pack import Packer
from viewer.io.gltf_write.remap import remap_node
from viewer.io.paths import write_whole
from viewer.text import brief

__all__ = ["GLTF_SUFFIXES", "build_gltf", "save_gltf"]

GLTF_SUFFIXES = (".gltf", ".glb")
#: Extensions whose data the export takes out (decoded views are written plain).
_CARRIED_AWAY = {"EXT_meshopt_compression"}
_TRS_FIELDS = ("matrix", "translation", "rotation", "scale")


def save_gltf(scene: Scene, path: str | Path, *, embed: bool = False) -> list[str]:
    """Write `scene` to `path` (``.glb`` or ``.gltf``); return the notes about what was not
    carried over. A ``.gltf`` gets its buffer in ``<stem>.bin`` and its images in
    ``<stem>_<n>.<ext>`` beside it, or (`embed`) everything as data URIs inside it.
    Raises SceneError when the scene cannot be exported or the files cannot be written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".glb", ".gltf"):  # never glTF under another format's name
        raise SceneError("cannot save glTF under that name: use .gltf or .glb", file=str(path))
    glb = suffix == ".glb"
    with collector_paused():  # a million nodes' entries hold no cycles: see read_gltf
        try:
            export = build_gltf(scene)
            files = [] if glb else gltf_files(export, path.stem, embed)
            text = glb_bytes(export) if glb else json_bytes(export.doc)
        except SceneError:
            raise
        except Exception as exc:  # malformed carried data (a NaN in its extras, a lone
            # surrogate in a name): one clear line, never a traceback, nothing written
            raise SceneError(
                f"cannot export the scene as glTF ({brief(exc)})", file=str(path)
            ) from None
    for name, data in files:  # the resources first: the .gltf names them
        write_whole(path.with_name(name), data)
    write_whole(path, text)
    return export.notes


# ---------------------------------------------------------------------------- the document
def build_gltf(scene: Scene) -> GltfExport:
    """The glTF document of `scene` (see the module docstring)."""
    graph = scene.graph
    out = Output()
    packer = Packer(out.arrays["bufferViews"], out.arrays["accessors"])
    builtin = BuiltinMeshes(scene, packer, out.arrays["meshes"], out.arrays["materials"])
    notes: Counter = Counter()
    ids = graph.alive_ids()  # pre-order: a parent before its children
    index_of = dict(zip(ids.tolist(), range(len(ids)), strict=True))
    trs = _local_values(scene, ids)
    trs_tables = _trs_tables(trs)
    sourced = _sourced_nodes(scene, index_of)
    from_file = sorted({k for _src, node_map in sourced for k in node_map.values()})
    nodes, roots = _node_entries(scene, ids, trs_tables, from_file, builtin)
    for s, (src, node_map) in enumerate(sourced):
        sh = carry(out, packer, src, node_map, notes)
        rows = np.asarray(src.rows)
        written = np.fromiter(node_map.values(), np.int64, len(node_map))
        source_rows = rows[np.fromiter(node_map, np.int64, len(node_map))]
        same = np.ones(len(node_map), bool)
        for now, then in zip(trs, src.rest, strict=True):  # unchanged, to rounding: the graph
            # normalises quaternions once more
            same &= np.isclose(now[written], then[source_rows], rtol=1e-13, atol=1e-15).all(1)
        for j, (gi, k) in enumerate(node_map.items()):
            src_node = src.doc["nodes"][gi]
            nodes[k].update(remap_node(src_node, sh, out.skins_of[s]))
            if same[j]:  # the transform exactly as read, a matrix included
                nodes[k].update(
                    {f: list(src_node[f]) for f in _TRS_FIELDS if isinstance(src_node.get(f), list)}
                )
            else:
                nodes[k].update(_trs_of_row(trs_tables, k))
    _motions(scene, out, packer, index_of, notes)
    doc: dict = {"asset": {"version": "2.0", "generator": "sgview"}}
    if len(set(out.copyright)) == 1:
        doc["asset"]["copyright"] = out.copyright[0]
    doc["scene"] = 0
    title = file_title(scene.title)  # the default scene's note is not the file's
    doc["scenes"] = [{"name": title, "nodes": roots} if roots else {"name": title}]
    if nodes:
        doc["nodes"] = nodes
    for name, items in out.arrays.items():
        if items:
            doc[name] = items
    root_ext = dict(out.root_extensions)
    if out.lights:
        root_ext["KHR_lights_punctual"] = {"lights": out.lights}
    if out.variants:
        root_ext["KHR_materials_variants"] = {"variants": out.variants}
    if root_ext:
        doc["extensions"] = root_ext
    # sgview's own node entries hold no extensions: only the others are walked
    rest = {key: value for key, value in doc.items() if key != "nodes"}
    found = _extensions_in(rest) | _extensions_in([nodes[k] for k in from_file])
    used = sorted(found | (out.declared - _CARRIED_AWAY))
    if used:
        doc["extensionsUsed"] = used
        required = sorted(out.required & set(used))
        if required:
            doc["extensionsRequired"] = required
    lines = [f"{count} {what}" if count else what for what, count in notes.items()]
    if packer.dataless and not packer.blob:  # buffer 0 comes first and needs one byte
        packer.blob += b"\0\0\0\0"
    return GltfExport(doc, packer.blob, out.image_data, packer.dataless, lines, packer.meshopt)


def _sourced_nodes(scene: Scene, index_of: dict[int, int]) -> list[tuple]:
    """Per glTF file the scene loaded: (its source, {glTF node index: written index}) for
    its nodes still in the graph."""
    found = []
    for inc in scene.includes:
        src = inc.source
        if not isinstance(src, GltfSource):  # None: not read from a glTF file
            continue
        ids = np.asarray(inc.ids).tolist()
        node_map = {}
        for gi, row in enumerate(np.asarray(src.rows).tolist()):
            if row >= 0 and ids[row] in index_of:
                node_map[gi] = index_of[ids[row]]
        found.append((src.with_doc(), node_map))  # parsed once for this save
    return found


def _local_values(scene: Scene, ids: np.ndarray) -> tuple[np.ndarray, ...]:
    """(positions, rotations, scales) of the nodes `ids` as written: their current
    values, a channel driven by a motion at the motion's rest value."""
    pos, rot, scl = (np.array(a[ids], dtype=np.float64) for a in scene.graph.local_values())
    row = np.full(scene.graph.capacity_ids, -1, np.int64)
    row[ids] = np.arange(len(ids))
    into = {"position": pos, "rotation": rot, "scale": scl}
    for m in scene.motions:
        rows = row[m.ids]
        keep = rows >= 0
        into[m.channel][rows[keep]] = m.rest[keep]
    return pos, rot, scl


class _Column:
    """One TRS field of the written rows: the rows that differ from its default (ascending)
    and their glTF lists, with the place of each row among them (-1: the default)."""

    def __init__(self, key: str, values: np.ndarray, default: np.ndarray) -> None:
        self.key = key
        self.rows = np.flatnonzero((values != default).any(axis=1))
        self.values: list[list[float]] = values[self.rows].tolist()
        self.at = np.full(len(values), -1, np.int64)
        self.at[self.rows] = np.arange(self.rows.size)

    def get(self, k: int) -> list[float] | None:
        at = int(self.at[k])
        return None if at < 0 else self.values[at]


def _trs_tables(trs: tuple[np.ndarray, ...]) -> list[_Column]:
    """Per TRS field, the rows that differ from the default and their glTF lists; found
    for all rows at once."""
    return [
        _Column(key, values, np.asarray(default))
        for (key, default), values in zip(TRS_DEFAULTS.items(), trs, strict=True)
    ]


def _trs_of_row(tables: list[_Column], k: int) -> dict:
    """Row `k`'s non-default TRS fields."""
    return {c.key: value for c in tables if (value := c.get(k)) is not None}


def _set_all(nodes: list[dict], rows: list[int], key: str, values) -> None:
    """``nodes[row][key] = value`` for each row and value (a plain loop: faster here than
    ``map`` over ``dict.__setitem__``)."""
    for row, value in zip(rows, values):
        nodes[row][key] = value


def _node_entries(
    scene: Scene,
    ids: np.ndarray,
    trs_tables: list[_Column],
    from_file: list[int],
    builtin: BuiltinMeshes,
) -> tuple[list[dict], list[int]]:
    """The glTF node entries of the nodes `ids` (rows in pre-order) and the root rows.
    Each entry holds its name, then (unless its row is in `from_file`, filled later from
    its file) its TRS fields and mesh, then its children: one pass per field over the
    rows that have it, so the key order is the same in every entry."""
    graph = scene.graph
    nodes: list[dict] = [{"name": name} for name in graph.peek.names_of(ids)]
    own_rows = np.ones(len(ids), bool)
    own_rows[from_file] = False
    for column in trs_tables:
        own = own_rows[column.rows].tolist()
        _set_all(
            nodes,
            list(compress(column.rows.tolist(), own)),
            column.key,
            compress(column.values, own),
        )
    rows = np.flatnonzero(own_rows)
    pivot = Look(mesh="none")
    looks = [pivot if look is None else look for look in map(scene.looks.get, ids[rows].tolist())]
    _, first, which = np.unique(
        np.fromiter(map(id, looks), np.int64, len(looks)), return_index=True, return_inverse=True
    )
    meshes = np.full(first.size, -1, np.int64)  # looks are shared: one lookup per distinct look
    for u in np.argsort(first).tolist():  # in row order, as the meshes are numbered
        look = looks[int(first[u])]
        index = builtin.mesh(look.mesh, look.size, look.color)
        meshes[u] = -1 if index is None else index
    mesh = meshes[which.reshape(-1)]
    drawn = np.flatnonzero(mesh >= 0)
    _set_all(nodes, rows[drawn].tolist(), "mesh", mesh[drawn].tolist())
    row_of = np.full(graph.capacity_ids, -1, np.int64)
    row_of[ids] = np.arange(len(ids))
    parent_ids = graph.parents()[ids]
    parent_rows = np.where(parent_ids < 0, -1, row_of[np.maximum(parent_ids, 0)])
    children = np.flatnonzero(parent_rows >= 0)  # rows in order: each parent's in order
    by_parent = children[np.argsort(parent_rows[children], kind="stable")]
    parents, starts = np.unique(parent_rows[by_parent], return_index=True)
    flat, bounds = by_parent.tolist(), [*starts.tolist(), len(by_parent)]
    kids = map(flat.__getitem__, map(slice, bounds, bounds[1:]))
    _set_all(nodes, parents.tolist(), "children", kids)
    return nodes, np.flatnonzero(parent_rows < 0).tolist()


def _motions(scene: Scene, out: Output, packer: Packer, index_of: dict, notes: Counter) -> None:
    """The scene's motions as the animation "sgview motions"."""
    motions = [m for m in scene.motions if len(m)]
    if not motions:
        return
    channels, _horizon, motion_notes = motion_channels(motions)
    for line in motion_notes:
        notes[line] = 0
    samplers, targets, inputs = [], [], {}
    for ch in channels:
        if ch.node not in index_of:
            continue
        key = ch.times.tobytes()
        if key not in inputs:
            inputs[key] = packer.accessor(ch.times, bounds=True)
        output = packer.accessor(ch.values)
        samplers.append({"input": inputs[key], "output": output, "interpolation": ch.interpolation})
        targets.append(
            {"sampler": len(samplers) - 1, "target": {"node": index_of[ch.node], "path": ch.path}}
        )
    if targets:
        out.arrays["animations"].append(
            {"name": "sgview motions", "channels": targets, "samplers": samplers}
        )


def _extensions_in(value: object) -> set[str]:
    """The names of every extension used anywhere in a JSON document."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ext = item.get("extensions")
            if isinstance(ext, dict):
                found.update(k for k in ext if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list) and item and isinstance(item[0], (dict, list)):
            stack.extend(item)  # lists of numbers or strings hold no extension
    return found
