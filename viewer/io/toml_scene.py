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
from itertools import repeat
from operator import attrgetter
from pathlib import Path

import numpy as np
import toml_rs

from viewer.io import _fields as F
from viewer.io._build import UniqueNames, add_many, add_model
from viewer.io.errors import SceneError, decode_utf8, describe
from viewer.io.gltf_read.scene import GltfModel, collector_paused, read_gltf
from viewer.io.limits import DEFAULT_LIMITS, Budget, Limits
from viewer.io.ranges import check_world_reach
from viewer.io.toml_nodes import NotVouched, parse_nodes
from viewer.io.toml_plain import PlainNodes, merge_plain, split_plain
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
from ..text import one_line, printable

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
    return parse_scene_text(text, display, base_dir=path.parent, source=path, limits=limits)


def _decode(text: str, display: str, fast: bool) -> tuple[dict, PlainNodes | None]:
    """The parsed document, with `fast` its plain [[node]] tables read column-wise
    (toml_plain.py: the document's ``node`` list then holds None at their rows); the
    whole text through the parser where that reader does not vouch for the file."""
    # a file the density rule might refuse is read the usual way, which applies it
    split = split_plain(text) if fast and sparse_at_a_glance(text) else None
    if split is not None:
        rest, plain = split
        try:
            doc = _read_toml(rest, display)
        except SceneError:  # the whole file again, for the error it gives
            doc = None
        items = None if doc is None else merge_plain(doc.get("node"), plain)
        if items is not None:
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
        line = getattr(exc, "lineno", None) or None
        raise SceneError(
            f"invalid TOML: {one_line(reason, 120)}{column}", file=display, line=line
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
    """
    with collector_paused():  # millions of tables and specs, no reference cycles
        try:
            return _parse(text, display, Path(base_dir), source, limits, fast=True)
        except NotVouched:  # a plain block with a value out of range: parse_node names it
            return _parse(text, display, Path(base_dir), source, limits, fast=False)


def _parse(text, display: str, base_dir: Path, source: Path | None, limits: Limits, fast):
    doc, plain = _decode(text, display, fast)
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
    specs = parse_nodes(node_items, display, locator, base_dir, plain)
    order, parent_rows = _order(specs, display, locator)

    graph = SceneGraph()
    scene = Scene(graph=graph, title=title, camera=camera, source=source)
    ids = _build(graph, specs, order, parent_rows, display)
    ordered = [specs[row] for row in order]
    id_list = ids.tolist()
    id_of = dict(zip([spec.name for spec in ordered], id_list, strict=True))
    scene.looks.update(zip(id_list, [spec.look for spec in ordered], strict=True))
    scene.motions = _motions(specs, id_of)

    # glTF files: a node's mesh first (file order), then [[include]] tables
    used = UniqueNames(id_of)
    models: dict[Path, GltfModel] = {}
    budget = Budget(limits)  # one for all the glTF files of the scene

    def read(file: Path) -> GltfModel:  # once per file; errors inside it name that file
        key = file.resolve()
        if key not in models:
            models[key] = read_gltf(file, limits=limits, budget=budget)
        return models[key]

    for spec in specs:
        if spec.gltf is not None:
            model = read(spec.gltf)
            add_model(scene, model, id_of[spec.name], spec.name + "/", used, display, limits)
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
            if pname not in id_of:
                raise where.error("parent", f"unknown node {pname!r}")
            parent = id_of[pname]
        model = read(file)
        add_model(scene, model, parent, pname + "/" if pname else "", used, display, limits)

    scene.events = [
        parse_event(item, i, display, locator, graph)
        for i, item in enumerate(_array(doc, "event", top))
    ]
    scene.collision = parse_collision(doc, display, locator, set(id_of))
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


def _order(specs: list[NodeSpec], display: str, locator: F.Locator):
    """Pre-order of the nodes (roots and siblings in file order) and each row's parent row.

    A file without a fault (names unique, parents known, no cycle: then the pre-order
    reaches every node) is ordered in one pass; one with a fault goes through
    `_checked_order`, which names the first."""
    row_of = dict(zip(map(attrgetter("name"), specs), range(len(specs))))
    if len(row_of) == len(specs):
        row_of[None] = -1  # no parent (names are strings: None is no name)
        parents = list(map(row_of.get, map(attrgetter("parent"), specs), repeat(-2)))
        parent_rows = np.array(parents, dtype=np.int64)
        if not ((parent_rows == -2) | (parent_rows == np.arange(len(specs)))).any():
            order = list(range(len(specs))) if _in_preorder(parents) else _preorder(parent_rows)
            if len(order) == len(specs):  # else a cycle kept some nodes from the roots
                return order, parent_rows
    return _checked_order(specs, display, locator)


def _checked_order(specs: list[NodeSpec], display: str, locator: F.Locator):
    """`_order`, node by node: raises naming the first duplicate name, unknown or own
    parent, or parent cycle."""
    row_of: dict[str, int] = {}
    for row, spec in enumerate(specs):
        if spec.name in row_of:
            where = F.Where(display, locator, "node", spec.index, spec.name)
            first = specs[row_of[spec.name]].index + 1
            raise where.error("name", f"duplicate name: node {first} has the same name")
        row_of[spec.name] = row
    parent_rows = np.full(len(specs), -1, dtype=np.int64)
    for row, spec in enumerate(specs):
        if spec.parent is None:
            continue
        where = F.Where(display, locator, "node", spec.index, spec.name)
        if spec.parent == spec.name:
            raise where.error("parent", "a node cannot be its own parent")
        if spec.parent not in row_of:
            raise where.error("parent", f"unknown parent {spec.parent!r}")
        parent_rows[row] = row_of[spec.parent]
    # cycles: walk up from each node; a walk that meets itself is a cycle
    state = np.zeros(len(specs), dtype=np.int8)  # 0 new, 1 on the current walk, 2 done
    for start in range(len(specs)):
        path = []
        row = start
        while row >= 0 and state[row] == 0:
            state[row] = 1
            path.append(row)
            row = int(parent_rows[row])
        if row >= 0 and state[row] == 1:
            cycle = path[path.index(row) :]
            loop = [*cycle, row]
            if len(loop) > 7:  # a 200,000-node cycle: its start and end, and its length
                shown = [printable(specs[r].name, 40) for r in loop[:3]]
                tail = [printable(specs[r].name, 40) for r in loop[-2:]]
                names = " -> ".join([*shown, f"... ({len(cycle):,} nodes) ...", *tail])
            else:
                names = " -> ".join(printable(specs[r].name, 40) for r in loop)
            first = min(cycle)
            where = F.Where(display, locator, "node", specs[first].index, specs[first].name)
            raise where.error("parent", f"parent cycle: {names}")
        for r in path:
            state[r] = 2
    return _preorder(parent_rows), parent_rows


def _in_preorder(parent_rows: list[int]) -> bool:
    """Whether the rows are already in `_preorder`'s order (as --save writes them): each
    row's parent is the row before it or one of that row's ancestors."""
    path: list[int] = []  # from a root down to the row before
    for row, parent in enumerate(parent_rows):
        if parent < 0:
            path.clear()
        else:
            while path and path[-1] != parent:
                path.pop()
            if not path:
                return False
        path.append(row)
    return True


def _preorder(parent_rows: np.ndarray) -> list[int]:
    """The rows reachable from the roots, in pre-order (siblings in row order)."""
    children: list[list[int]] = [[] for _ in range(len(parent_rows))]
    roots = []
    for row, p in enumerate(parent_rows.tolist()):
        (children[p] if p >= 0 else roots).append(row)
    order: list[int] = []
    stack = roots[::-1]
    while stack:
        row = stack.pop()
        order.append(row)
        stack.extend(children[row][::-1])
    return order


def _build(graph: SceneGraph, specs, order, parent_rows, display: str) -> np.ndarray:
    n = len(order)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    base = graph.capacity_ids
    slot = np.empty(len(specs), dtype=np.int64)
    slot[np.asarray(order, dtype=np.int64)] = np.arange(n)
    rows = np.asarray(order, dtype=np.int64)
    prow = parent_rows[rows]
    parents = np.where(prow >= 0, slot[np.maximum(prow, 0)] + base, -1)
    ordered = [specs[r] for r in order]
    return add_many(
        graph,
        [spec.name for spec in ordered],
        parents,
        np.array([spec.position for spec in ordered], dtype=np.float64).reshape(n, 3),
        _stacked([spec.rotation for spec in ordered]).reshape(n, 4),
        np.array([spec.scale for spec in ordered], dtype=np.float64).reshape(n, 3),
        display,
    )


def _stacked(arrays: list[np.ndarray]) -> np.ndarray:
    """``np.array(arrays)``, each distinct array object converted once: a large file's
    rotations are a few shared read-only arrays."""
    distinct = dict(zip(map(id, arrays), arrays))
    slot = dict(zip(distinct, range(len(distinct))))
    table = np.array(list(distinct.values()), dtype=np.float64)
    return table[np.fromiter(map(slot.__getitem__, map(id, arrays)), np.int64, len(arrays))]


def _motions(specs: list[NodeSpec], id_of: dict[str, int]) -> list[Motion]:
    """One `Motion` per kind over every node that has it; rests are the file's values."""
    rows: dict[str, list[tuple[int, dict, NodeSpec]]] = {}
    for spec in specs:
        for kind, params in spec.motions:
            rows.setdefault(kind, []).append((id_of[spec.name], params, spec))
    motions = []
    for kind, items in rows.items():
        channel = KINDS[kind].channel
        rest = [getattr(spec, channel) for _id, _params, spec in items]
        params = {name: np.array([p[name] for _, p, _ in items]) for name in KINDS[kind].names}
        motions.append(
            Motion.make(kind, [i for i, _, _ in items], np.array(rest, dtype=np.float64), **params)
        )
    return merge_motions(motions)
