"""Shared pieces of the attach tests: the tree10 program with its scripted changes, the
wire round trip without sockets, and how to compare a mirror with its program."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from viewer.attach.protocol import (
    ProgramLimits,
    decode_frame,
    decode_structure,
    encode_frame,
    encode_structure,
)
from viewer.io import load_scene
from viewer.scene.errors import HierarchyError
from viewer.scene.graph import SceneGraph

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


def wire(frame, known: np.ndarray, last: int, limits: ProgramLimits | None = None):
    """A publisher's frame through the bytes and the viewer's checks, as a socket would
    carry it: (the decoded frame, the ids now known)."""
    structure = None
    if frame.structure is not None:
        structure = decode_structure(encode_structure(frame.structure), limits or ProgramLimits())
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


def locals_by_name(graph) -> dict[str, np.ndarray]:
    """Each live node's local position, quaternion and scale, as one row of 10."""
    pos, rot, scl = graph.local_values()
    return {graph.name_of(i): np.concatenate((pos[i], rot[i], scl[i]))
            for i in graph.alive_ids().tolist()}  # fmt: skip


def assert_mirrors(mirror_graph, graph) -> None:
    """The viewer's copy equals the program's graph: tree, local values, world matrices."""
    assert tree_of(mirror_graph) == tree_of(graph)
    for by_name in (worlds_by_name, locals_by_name):
        mine, theirs = by_name(mirror_graph), by_name(graph)
        for name, value in theirs.items():
            np.testing.assert_allclose(mine[name], value, rtol=0, atol=1e-9, err_msg=name)


def random_graph(data) -> SceneGraph:
    """A random hierarchy of 1 to 12 nodes (hypothesis draws it)."""
    graph = SceneGraph()
    count = data.draw(st.integers(1, 12), label="nodes")
    for k in range(count):
        parent = data.draw(st.integers(-1, k - 1), label="parent")
        graph.add(f"N{k}", None if parent < 0 else f"N{parent}",
                  position=(k * 0.5, 1.0, -0.25 * k), euler=(10.0 * k, 5.0, 0.0))  # fmt: skip
    return graph


def random_edit(graph: SceneGraph, data, serial: list[int]) -> None:
    """One random edit of any kind the protocol carries (``serial``: a counter for
    new names)."""
    alive = [graph.name_of(i) for i in graph.alive_ids().tolist()]
    kinds = ["touch", "move", "add", "remove", "reparent", "reorder", "rename", "nothing"]
    kind = data.draw(st.sampled_from(kinds))
    pick = st.sampled_from(alive) if alive else st.none()
    node = data.draw(pick)
    serial[0] += 1
    try:
        if kind == "add" or node is None:
            graph.add(f"A{serial[0]}", node)
        elif kind == "touch":
            graph.touch(node)
        elif kind == "move":
            value = data.draw(st.floats(-50, 50, allow_nan=False))
            graph[node].local_position = (value, -value, 0.5)
            graph[node].local_scale = (1.0, 1.0 + abs(value) / 100, 1.0)
        elif kind == "remove":
            graph.remove(node, keep_children=data.draw(st.booleans()))
        elif kind == "reparent":
            target = data.draw(st.sampled_from([None, *alive]))
            graph.set_parent(node, target, keep_world=data.draw(st.booleans()))
        elif kind == "reorder":
            parent = graph[node].parent
            roots = [n.name for n in graph if n.parent is None]
            siblings = [n.name for n in parent.children] if parent else roots
            other = data.draw(st.sampled_from(siblings))
            if other != node:
                graph.set_parent(node, parent, before=other)
        elif kind == "rename":
            graph.rename(node, f"R{serial[0]}")
    except HierarchyError:
        pass  # a cycle or a shear the core refuses: no edit, as in a real program


def run_node_suite(client: Path, package: str, passes: int) -> None:
    """A publisher's own Node tests (``node --test test/`` in `client`, which start
    ``sgview listen`` with this Python): all `passes` of them pass. `package`: the folder
    under node_modules that ``npm ci`` there puts in place."""
    from needs import missing, need_gl

    need_gl().release()
    if shutil.which("node") is None:
        missing("needs Node.js (node) on PATH")
    if not (client / "node_modules" / package).is_dir():
        where = client.relative_to(ROOT)
        missing(f"needs {where}/node_modules (cd {where} && npm ci)")
    env = dict(os.environ, SGVIEW_PYTHON=sys.executable, PYTHONPATH=str(ROOT))
    run = subprocess.run(
        ["node", "--test", "test/"], cwd=client, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert f"# pass {passes}" in run.stdout and "# fail 0" in run.stdout
