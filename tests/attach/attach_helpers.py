"""Shared pieces of the attach tests: the tree10 program with its scripted changes, the
wire round trip without sockets, and how to compare a mirror with its program."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from viewer.attach.protocol import (
    Limits,
    decode_frame,
    decode_structure,
    encode_frame,
    encode_structure,
)
from viewer.io import load_scene

ROOT = Path(__file__).parents[2]
TREE10 = ROOT / "scenes" / "tree10.toml"


def tree10():
    """The seed's Obj1..Obj10 tree, laid out (its first update done)."""
    graph = load_scene(TREE10).graph
    graph.update()
    return graph


def scripted_step(graph, k: int) -> None:
    """The program's changes before its ``k``-th update (k = 0, 1, ...): touches, moves,
    and from k = 6 on the structural edits (add, rename, re-parent, remove)."""
    names = [f"Obj{i}" for i in range(1, 11)]
    if k < 6:
        graph.touch(names[(3 * k + 1) % 10])
        graph[names[(5 * k + 2) % 10]].local_position = (0.1 * k, 1.0, -0.5 * k)
    elif k == 6:
        graph.add("Added", graph["Obj3"], position=(1.0, 2.0, 3.0))
    elif k == 7:
        graph.rename("Obj10", "Renamed")
    elif k == 8:
        graph.set_parent("Obj9", "Obj4", keep_world=True)
    elif k == 9:
        graph.remove("Obj8")
    else:
        graph.touch(names[k % 7])


def wire(frame, known: np.ndarray, last: int, limits: Limits | None = None):
    """A publisher's frame through the bytes and the viewer's checks, as a socket would
    carry it: (the decoded frame, the ids now known)."""
    structure = None
    if frame.structure is not None:
        structure = decode_structure(encode_structure(frame.structure), limits or Limits())
        known = np.sort(structure.ids)
    decoded = decode_frame(encode_frame(frame), known, last)
    decoded.structure = structure
    return decoded, known


def tree_of(graph) -> list[tuple[str, str | None]]:
    """The hierarchy as (name, parent's name) in pre-order."""
    parents = graph.parents()
    out = []
    for i in graph.alive_ids().tolist():
        p = int(parents[i])
        out.append((graph.name_of(i), None if p < 0 else graph.name_of(p)))
    return out


def worlds_by_name(graph) -> dict[str, np.ndarray]:
    world = graph.world_matrices()
    return {graph.name_of(i): world[i].copy() for i in graph.alive_ids().tolist()}
