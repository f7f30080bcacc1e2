"""glTF nodes read column-wise: a fast path for large, plain node hierarchies.

Why: ``json.loads`` makes a dict, lists and float objects for every node (about 700 bytes
a node, 16 s and 1.45 GB for a million), and the importer then walks them one by one.
Here msgspec decodes the ``nodes`` array in chunks into typed records of the fields the
importer reads for every node (name, children, TRS, mesh), turned into numpy columns
chunk by chunk, so the records of one chunk are all that exists at a time. A node with
any other field (camera, skin, matrix, weights, extensions, extras, ...) also keeps its
whole JSON object, parsed by ``json`` as the checked parse does, for the readers of those
fields.

Everything outside ``nodes`` is parsed by ``json`` from its own text, as in the checked
parse. The fast path never decides what is valid: anything it does not take as certainly
fine (a JSON or UTF-8 error, a field of another type, a child index out of range or given
twice, a TRS of the wrong length, a number that is not finite, a zero quaternion, a
negative mesh) makes `fast_parse` return None, and the caller parses the whole file with
``json`` and checks each node object (the checked parse), whose checks then name the
problem (tests/io/test_gltf_node_table.py compares both ways on generated files).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import attrgetter, is_not
from types import MappingProxyType

import msgspec
import numpy as np

__all__ = ["TRS_DEFAULTS", "TRS_WIDTHS", "NodeTable", "fast_parse"]

#: The TRS fields in glTF's order, each with its value where a node leaves it out.
TRS_DEFAULTS = {
    "translation": (0.0, 0.0, 0.0),
    "rotation": (0.0, 0.0, 0.0, 1.0),
    "scale": (1.0, 1.0, 1.0),
}
#: The TRS fields and their widths, as read column-wise.
TRS_WIDTHS = {f: len(default) for f, default in TRS_DEFAULTS.items()}
#: Nodes decoded at once: their records are what the fast path holds beyond the columns.
_CHUNK = 1 << 14
#: The JSON object of a node with nothing but the columns' fields (one, shared, read-only).
_PLAIN: Mapping = MappingProxyType({})


class _Plain(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A node with only the fields read column-wise (JSON null: absent, as for ``json``)."""

    name: str | None = None
    children: list[int] | None = None
    translation: tuple[float, float, float] | None = None  # another length: checked parse
    rotation: tuple[float, float, float, float] | None = None
    scale: tuple[float, float, float] | None = None
    mesh: int | None = None


class _Known(_Plain, forbid_unknown_fields=False):
    """The column fields of a node that has others too."""


_PLAIN_LIST = msgspec.json.Decoder(list[_Plain])
_KNOWN = msgspec.json.Decoder(_Known)
_ONE_PLAIN = msgspec.json.Decoder(_Plain)
_RAWS = msgspec.json.Decoder(list[msgspec.Raw])
_TOP = msgspec.json.Decoder(dict[str, msgspec.Raw])


@dataclass
class NodeTable:
    """The nodes of a file, by glTF node index.

    `names[i]`: the node's name or None. Node i's children are
    ``child_flat[child_start[i]:child_start[i + 1]]``. `trs[field]`: (the nodes giving the
    field, their values as a (k, width) float64 array). `mesh[i]`: its mesh index, -1
    for none. `objects[i]`: the node's JSON object when it has other fields too, else an
    empty read-only mapping (the document's ``nodes`` list for every other reader)."""

    names: list[str | None]
    child_start: np.ndarray
    child_flat: np.ndarray
    trs: dict[str, tuple[np.ndarray, np.ndarray]]
    mesh: np.ndarray
    objects: list[Mapping]
    #: The nodes whose `objects` entry is their JSON object (they have other fields).
    others: np.ndarray

    def __len__(self) -> int:
        return len(self.names)

    def links(self) -> tuple[list, list[int]]:
        """Each node's children list (None: it has none) and its parent (-1: none), as
        `nodes._links` gives them (the table holds no node with two parents)."""
        flat = self.child_flat.tolist()
        bounds = self.child_start.tolist()
        kids = [flat[a:b] if a < b else None for a, b in zip(bounds, bounds[1:])]
        return kids, self.parents().tolist()

    def parents(self) -> np.ndarray:
        """Each node's parent (-1: none)."""
        n = len(self)
        parent = np.full(n, -1, np.int64)
        parent[self.child_flat] = np.repeat(np.arange(n), np.diff(self.child_start))
        return parent


def fast_parse(text: bytes | memoryview) -> tuple[dict, NodeTable] | None:
    """The document (its ``nodes`` list holding `NodeTable.objects`) and the node table,
    or None when the file is not one the fast path takes as certainly valid (see the
    module docstring): the caller then takes the checked parse."""
    try:
        top = _TOP.decode(text)
        if top.get("nodes") is None:
            return None
        doc: dict = {}
        for key, raw in top.items():
            doc[key] = None if key == "nodes" else json.loads(bytes(raw).decode("utf-8"))
        table = _table(_RAWS.decode(top.pop("nodes")))
    except Exception:  # any doubt: the checked parse says what is wrong
        return None
    if table is None:
        return None
    doc["nodes"] = table.objects
    return doc, table


def _table(raws: list) -> NodeTable | None:
    """The table of the nodes' raw texts (consumed: each chunk's are dropped once read, so
    that the fast path never holds more than ``json.loads`` would; tested)."""
    n = len(raws)
    names: list[str | None] = []
    objects: list[Mapping] = []
    start = np.zeros(n + 1, np.int64)  # the children counts, then their running sum
    mesh = np.empty(n, np.int64)
    flat: list[np.ndarray] = []
    others: list[np.ndarray] = []
    trs: dict[str, tuple[list, list]] = {f: ([], []) for f in TRS_WIDTHS}
    for at in range(0, n, _CHUNK):
        part = raws[:_CHUNK]
        del raws[:_CHUNK]
        try:
            records, objs = _PLAIN_LIST.decode(b"[" + b",".join(part) + b"]"), None
        except msgspec.ValidationError:  # a node with other fields: one by one
            records, objs = _one_by_one(part)
        del part
        end = at + len(records)
        if not _chunk_columns(records, at, start[at + 1 : end + 1], mesh[at:end], flat, trs):
            return None
        names += map(attrgetter("name"), records)
        if objs is None:
            objects += [_PLAIN] * len(records)
        else:
            objects += objs
            others.append(at + np.flatnonzero([o is not _PLAIN for o in objs]))
    children = np.concatenate([np.zeros(0, np.int64), *flat])
    if children.size:
        owners = np.repeat(np.arange(n), start[1:])
        if children.min() < 0 or children.max() >= n or (children == owners).any():
            return None
        if np.bincount(children, minlength=n).max() > 1:  # a node with two parents
            return None
    np.cumsum(start, out=start)
    values = {}
    for f, (rows, got) in trs.items():
        width = TRS_WIDTHS[f]
        values[f] = (
            np.concatenate([np.zeros(0, np.int64), *rows]),
            np.concatenate([np.zeros((0, width)), *got]),
        )
    others_column = np.concatenate([np.zeros(0, np.int64), *others])
    return NodeTable(names, start, children, values, mesh, objects, others_column)


def _chunk_columns(
    records: list, at: int, counts: np.ndarray, mesh: np.ndarray, flat: list, trs: dict
) -> bool:
    """Fill a chunk's children counts and meshes, append its children and TRS values;
    False when one is not certainly valid."""
    children = [r.children or () for r in records]
    counts[:] = np.fromiter(map(len, children), np.int64, len(records))
    flat.append(np.fromiter(chain.from_iterable(children), np.int64))
    meshes = list(map(attrgetter("mesh"), records))
    mesh[:] = np.fromiter([-1 if m is None else m for m in meshes], np.int64, len(meshes))
    if (mesh < -1).any() or np.count_nonzero(mesh == -1) != meshes.count(None):
        return False  # a negative mesh index
    for f, width in TRS_WIDTHS.items():
        given = list(map(attrgetter(f), records))
        present = np.fromiter(map(is_not, given, repeat(None)), bool, len(given))
        rows = np.flatnonzero(present)
        given = list(compress(given, present.tolist()))
        got = np.fromiter(chain.from_iterable(given), np.float64, width * len(given))
        got = got.reshape(len(given), width)
        if not np.isfinite(got).all():
            return False  # (a zero quaternion is refused for both ways by the scene's check)
        trs[f][0].append(at + rows)
        trs[f][1].append(got)
    return True


def _one_by_one(part: list) -> tuple[list, list[Mapping]]:
    """The records of a chunk with some nodes that have other fields, and each node's
    object (those with other fields parsed whole by ``json``, as the checked parse does: in one
    call per chunk, so that their keys are shared strings as in one document)."""
    records, objects, whole = [], [], []
    for j, raw in enumerate(part):
        try:
            records.append(_ONE_PLAIN.decode(raw))
            objects.append(_PLAIN)
        except msgspec.ValidationError:
            records.append(_KNOWN.decode(raw))  # a column field of another type: raises
            objects.append(_PLAIN)  # its own object below
            whole.append(j)
    parsed = json.loads((b"[" + b",".join(part[j] for j in whole) + b"]").decode("utf-8"))
    for j, obj in zip(whole, parsed, strict=True):
        objects[j] = obj
    return records, objects
