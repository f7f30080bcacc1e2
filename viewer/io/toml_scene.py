"""The native scene format: TOML read with toml_rs (a compiled TOML 1.0 parser).

`parse_scene_text` turns the text into a `Scene` in three steps: check every table and
value (raising `SceneError` with the file, line, node and field), order the nodes so every
parent comes before its children (parents may be named before or after their children in
the file), then build the graph with one `SceneGraph.add_many` call. glTF files named by a
node's ``mesh`` or by an ``[[include]]`` table are added under their host afterwards
(each file is read once however often it is named; it must lie in the scene file's folder
or below). The node count is checked against `Limits.max_nodes` before anything is built.
The format is documented in docs/scene-format.md.
"""

from __future__ import annotations

import stat
from pathlib import Path

import numpy as np
import toml_rs

from viewer.io import _fields as F
from viewer.io._build import UniqueNames, add_many, add_model
from viewer.io.errors import SceneError, decode_utf8, describe
from viewer.io.gltf_read.scene import GltfModel, collector_paused, read_gltf
from viewer.io.limits import DEFAULT_LIMITS, Budget, Limits
from viewer.io.ranges import check_world_reach
from viewer.io.toml_nodes import NodeColumns, NotVouched, parse_nodes
from viewer.io.toml_order import node_order
from viewer.io.toml_plain import merge_plain, split_plain
from viewer.io.toml_precheck import (
    MAX_TOML_BYTES,
    blanked,
    density_problem,
    sparse_at_a_glance,
    toml_problem,
)
from viewer.io.toml_sections import (
    NodeSpec,
    gltf_path,
    parse_camera,
    parse_collision,
    parse_event,
)

from ..content.motion import Motion, merge_motions
from ..content.motion_kinds import KINDS
from ..content.scene import Scene
from ..scene.graph import SceneGraph
from ..text import one_line

__all__ = ["load_toml_scene", "parse_scene_text"]

TOP_KEYS = ("scene", "camera", "node", "event", "include", "collision")
SCENE_KEYS = ("title",)
INCLUDE_KEYS = ("file", "parent")


def load_toml_scene(
    path: str | Path, display: str | None = None, *, limits: Limits = DEFAULT_LIMITS
) -> Scene:
    """Load a native ``.toml`` scene file."""
    path = Path(path)
    display = str(path) if display is None else display
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) and not path.is_dir():
            raise SceneError("expected a scene file, got a pipe or device", file=display)
        if stat.S_ISREG(info.st_mode) and info.st_size > MAX_TOML_BYTES:
            raise SceneError(
                f"the file is {info.st_size:,} bytes, over the limit of {MAX_TOML_BYTES:,} "
                "for a scene file (convert a larger scene to glTF, or use --generate)",
                file=display,
            )
        data = path.read_bytes()
    except FileNotFoundError:
        raise SceneError("file not found", file=display) from None
    except IsADirectoryError:
        raise SceneError("expected a scene file, got a directory", file=display) from None
    except OSError as exc:
        raise SceneError(f"cannot read the file ({exc.strerror or exc})", file=display) from None
    text = decode_utf8(data, "the file", display)
    return parse_scene_text(
        text, display, base_dir=path.parent, source=path, limits=limits, encoded=data
    )


def _decode(text: str, display: str, fast: bool, encoded: bytes | None):
    """The parsed document, with `fast` its plain [[node]] tables read column-wise
    (toml_plain.py: the document's ``node`` list then holds None at their rows); the
    whole text through the parser where that reader does not vouch for the file."""
    # a file the density rule might refuse is read the usual way, which applies it
    glance = fast and sparse_at_a_glance(text, encoded)
    split = split_plain(text, encoded) if glance else None
    if split is not None:
        rest, plain = split
        try:
            doc = _read_toml(rest, display)
        except SceneError:  # the whole file again, for the error it gives
            doc = None
        items = None if doc is None else merge_plain(doc.get("node"), plain)
        if doc is not None and items is not None:
            doc["node"] = items
            return doc, plain
    return _read_toml(text, display), None


def _read_toml(text: str, display: str) -> dict:
    """The parsed TOML (toml_rs, read as TOML 1.0), its errors turned into SceneError at
    the right line; text that would cost the parser far more than its size, or nest deeper
    than its stack allows, is refused first (toml_precheck.py)."""
    bare = blanked(text)
    dense = density_problem(text, bare)
    if dense is not None:
        raise SceneError(f"invalid scene file: {dense}", file=display)
    problem = toml_problem(text, bare)
    if problem is not None:
        line, why = problem
        raise SceneError(f"invalid scene file: {why}", file=display, line=line)
    del bare  # as large as the text: not kept while the parser builds its tables
    try:
        return toml_rs.loads(text, toml_version="1.0.0")
    except toml_rs.TOMLDecodeError as exc:
        # "TOML parse error at line L, column C", the line with a caret, then the reason
        reason = next((s for s in reversed(str(exc).splitlines()) if s.strip()), "")
        column = f" (column {exc.colno})" if getattr(exc, "colno", None) else ""
        at_line = getattr(exc, "lineno", None) or None
        raise SceneError(
            f"invalid TOML: {one_line(reason, 120)}{column}", file=display, line=at_line
        ) from None
    except ValueError as exc:  # a number with more digits than Python converts
        raise SceneError(f"invalid TOML: {one_line(exc, 120)}", file=display) from None


def parse_scene_text(
    text: str,
    display: str = "<scene>",
    *,
    base_dir: str | Path = ".",
    source: Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
    encoded: bytes | None = None,
) -> Scene:
    """Parse native-format text into a `Scene`.

    Parameters
    ----------
    text : str
        The TOML text.
    display : str
        How to name the file in error messages.
    base_dir : str or Path
        Folder that relative glTF paths are resolved against.
    source : Path, optional
        Recorded as `Scene.source`.
    limits : Limits
        Caps on the node count and on glTF sizes (see limits.py).
    encoded : bytes, optional
        The text's UTF-8 bytes, where the caller has them (a file's): not encoded again.
    """
    with collector_paused():  # millions of tables and specs, no reference cycles
        try:
            return _parse(text, display, Path(base_dir), source, limits, encoded)
        except NotVouched:  # a plain block with a value out of range: parse_node names it
            return _parse(text, display, Path(base_dir), source, limits, None, fast=False)


def _parse(text, display: str, base_dir: Path, source, limits: Limits, encoded, fast=True):
    doc, plain = _decode(text, display, fast, encoded)
    locator = F.Locator(text)
    top = F.Where(display, locator)
    F.check_keys(top, doc, TOP_KEYS)

    title = source.stem if source is not None else "untitled"
    if "scene" in doc:
        where = F.Where(display, locator, section="scene", label="[scene]")
        table = F.table(where, None, doc["scene"])
        F.check_keys(where, table, SCENE_KEYS)
        if "title" in table:
            title = F.string(where, "title", table["title"])
    camera = parse_camera(doc, display, locator)

    node_items = _array(doc, "node", top)
    limits.check_nodes(len(node_items), display)
    nodes = parse_nodes(node_items, display, locator, base_dir, plain)
    del node_items, plain  # read into `nodes`
    doc.pop("node", None)
    order, parent_rows, row_of = node_order(nodes.names, nodes.parents, display, locator)

    graph = SceneGraph()
    scene = Scene(graph=graph, title=title, camera=camera, source=source)
    ids = _build(graph, nodes, order, parent_rows, display)
    looks = nodes.looks if order is None else [nodes.looks[row] for row in order]
    scene.looks.update(zip(ids.tolist(), looks, strict=True))
    id_by_row = ids.copy()  # each row's node id
    if order is not None:
        id_by_row[np.asarray(order, dtype=np.int64)] = ids
    scene.motions = _motions(nodes.extras, id_by_row)

    # glTF files: a node's mesh first (file order), then [[include]] tables; the names
    # taken (a set of every name) only made for a scene that has them
    has_gltf = doc.get("include") or any(spec.gltf is not None for spec in nodes.extras)
    used = UniqueNames(nodes.names if has_gltf else ())
    models: dict[Path, GltfModel] = {}
    budget = Budget(limits)  # one for all the glTF files of the scene

    def read(file: Path) -> GltfModel:  # once per file; errors inside it name that file
        key = file.resolve()
        if key not in models:
            models[key] = read_gltf(file, limits=limits, budget=budget)
        return models[key]

    for spec in nodes.extras:
        if spec.gltf is not None:
            model = read(spec.gltf)
            host = int(id_by_row[spec.index])
            add_model(scene, model, host, spec.name + "/", used, display, limits)
    for i, item in enumerate(_array(doc, "include", top)):
        where = F.Where(display, locator, "include", i, label=f"include {i + 1}")
        table = F.table(where, None, item)
        F.check_keys(where, table, INCLUDE_KEYS)
        if "file" not in table:
            raise where.error("file", "missing the path of a .gltf or .glb file")
        file = gltf_path(where, "file", table["file"], base_dir)
        parent, pname = None, ""
        if "parent" in table:
            pname = F.string(where, "parent", table["parent"], what="a node name")
            if pname not in row_of:
                raise where.error("parent", f"unknown node {pname!r}")
            parent = int(id_by_row[row_of[pname]])
        model = read(file)
        add_model(scene, model, parent, pname + "/" if pname else "", used, display, limits)

    scene.events = [
        parse_event(item, i, display, locator, graph)
        for i, item in enumerate(_array(doc, "event", top))
    ]
    scene.collision = parse_collision(doc, display, locator, row_of.keys())
    check_world_reach(scene, display)
    return scene


# ---------------------------------------------------------------------------- sections
def _array(doc: dict, key: str, top: F.Where) -> list:
    value = doc.get(key, [])
    if isinstance(value, dict):
        raise top.error(key, f"expected [[{key}]] tables (an array of tables), got [{key}]")
    if not isinstance(value, list):
        raise top.error(key, f"expected [[{key}]] tables, got {describe(value)}")
    return value


def _build(graph: SceneGraph, nodes: NodeColumns, order, parent_rows, display: str):
    """The nodes added to `graph` in `order` (None: file order, already a pre-order);
    their ids, by position in the order."""
    n = len(nodes.names)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    base = graph.capacity_ids
    if order is None:
        names, parents = nodes.names, np.where(parent_rows >= 0, parent_rows + base, -1)
        positions, rotations, scales = nodes.positions, nodes.rotations, nodes.scales
    else:
        rows = np.asarray(order, dtype=np.int64)
        slot = np.empty(n, dtype=np.int64)
        slot[rows] = np.arange(n)
        prow = parent_rows[rows]
        parents = np.where(prow >= 0, slot[np.maximum(prow, 0)] + base, -1)
        names = [nodes.names[row] for row in order]
        positions, rotations = nodes.positions[rows], nodes.rotations[rows]
        scales = nodes.scales[rows]
    return add_many(graph, names, parents, positions, rotations, scales, display)


def _motions(specs: list[NodeSpec], id_by_row: np.ndarray) -> list[Motion]:
    """One `Motion` per kind over every node of `specs` that has it; rests are the file's
    values."""
    rows: dict[str, list[tuple[int, dict, NodeSpec]]] = {}
    for spec in specs:
        for kind, params in spec.motions:
            rows.setdefault(kind, []).append((int(id_by_row[spec.index]), params, spec))
    motions = []
    for kind, items in rows.items():
        channel = KINDS[kind].channel
        rest = [getattr(spec, channel) for _id, _params, spec in items]
        params = {name: np.array([p[name] for _, p, _ in items]) for name in KINDS[kind].names}
        motions.append(
            Motion.make(kind, [i for i, _, _ in items], np.array(rest, dtype=np.float64), **params)
        )
    return merge_motions(motions)
