"""The edits the panel asks for, as typed commands: what to do, by node id.

Each command names the nodes it needs (`nodes`: an edit naming a node an undo took away
is refused), says in words what it does (`label`, the undo step's name in the panel) and
does it through the core's own setters (`apply`), both on the graph it is run on. Undo
needs no inverse here: the history keeps a snapshot from before each step
(`viewer.session.undo`). A typed value (`SetField`) has a merge key: the numbers of
one field typed one after another are one step. `makes_node`: the result is a new node's
id, which becomes the selection. The editing room (`viewer.session.edits.Editing.run`)
runs them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from viewer.scene.errors import ShearError
from viewer.scene.graph import SceneGraph
from viewer.scene.node import Node
from viewer.text import printable

__all__ = ["AddChild", "Command", "Delete", "Duplicate", "Place", "Reparent", "SetField"]

#: The name of a new empty child (with a number when taken).
EMPTY_NAME = "Empty"
#: The node fields an inspector edits: field -> (verb, what follows the numbers).
FIELDS = {
    "local_position": ("move", ""),
    "local_euler": ("rotate", "°"),
    "local_rotation": ("rotate", " (quaternion)"),
    "local_scale": ("scale", ""),
}


def _name(graph: SceneGraph, node_id: int) -> str:
    return printable(graph.name_of(node_id))


def _set_parent(
    node: Node, parent: Node | None, keep_world: bool, remedy: str | None, **place: Node
) -> None:
    """``node.set_parent``; a refusal for shear names `remedy` (what the user can do
    where the edit came from) instead of the Python argument, when one is given."""
    try:
        node.set_parent(parent, keep_world=keep_world, **place)
    except ShearError as exc:
        if remedy is None:
            raise
        raise exc.with_remedy(remedy) from None


def numbers(values: Iterable[float]) -> str:
    """``(0, 0, 30)``: each number short (4 significant digits), never ``-0``."""
    return "(" + ", ".join(f"{round(float(v), 4) + 0.0:.4g}" for v in values) + ")"


@dataclass(frozen=True)
class SetField:
    """A value typed into the inspector: one local field (`FIELDS`) of a node."""

    node_id: int
    field: str
    value: tuple[float, ...]

    def __post_init__(self) -> None:
        if self.field not in FIELDS:
            raise ValueError(f"not an editable field: {self.field!r}")

    def nodes(self) -> tuple[int | None, ...]:
        return (self.node_id,)

    def label(self, graph: SceneGraph) -> str:
        verb, unit = FIELDS[self.field]
        return f"{verb} {_name(graph, self.node_id)} to {numbers(self.value)}{unit}"

    def apply(self, graph: SceneGraph) -> None:
        setattr(graph.node(self.node_id), self.field, self.value)

    @property
    def merge(self) -> Hashable:
        return ("set", self.node_id, self.field)

    makes_node = False


@dataclass(frozen=True)
class Reparent:
    """Make a node the last child of another (None: a root), keeping its world pose
    exactly when `keep_world` (refused when it cannot: docs/semantics.md section 4;
    `shear_remedy`: that refusal's way out in the words of where the edit came from)."""

    node_id: int
    parent_id: int | None
    keep_world: bool = True
    shear_remedy: str | None = None

    def nodes(self) -> tuple[int | None, ...]:
        return (self.node_id, self.parent_id)

    def label(self, graph: SceneGraph) -> str:
        where = "a root" if self.parent_id is None else f"child of {_name(graph, self.parent_id)}"
        return f"re-parent {_name(graph, self.node_id)}: {where}"

    def apply(self, graph: SceneGraph) -> None:
        parent = None if self.parent_id is None else graph.node(self.parent_id)
        _set_parent(graph.node(self.node_id), parent, self.keep_world, self.shear_remedy)

    merge = None
    makes_node = False


@dataclass(frozen=True)
class Place:
    """Put a node just `where` ("before" or "after") a sibling, under that sibling's
    parent: a reorder among its siblings, or a re-parent to that place (keeping the
    world pose as `Reparent` does)."""

    node_id: int
    sibling_id: int
    where: str
    keep_world: bool = True
    shear_remedy: str | None = None

    def __post_init__(self) -> None:
        if self.where not in ("before", "after"):
            raise ValueError(f"where must be 'before' or 'after', got {self.where!r}")

    def nodes(self) -> tuple[int | None, ...]:
        return (self.node_id, self.sibling_id)

    def label(self, graph: SceneGraph) -> str:
        return f"move {_name(graph, self.node_id)} {self.where} {_name(graph, self.sibling_id)}"

    def apply(self, graph: SceneGraph) -> None:
        sibling = graph.node(self.sibling_id)
        place = {self.where: sibling}
        node = graph.node(self.node_id)
        _set_parent(node, sibling.parent, self.keep_world, self.shear_remedy, **place)

    merge = None
    makes_node = False


@dataclass(frozen=True)
class Delete:
    """Remove a node and its subtree."""

    node_id: int

    def nodes(self) -> tuple[int | None, ...]:
        return (self.node_id,)

    def label(self, graph: SceneGraph) -> str:
        return f"delete {_name(graph, self.node_id)}"

    def apply(self, graph: SceneGraph) -> None:
        graph.remove(graph.node(self.node_id))

    merge = None
    makes_node = False


@dataclass(frozen=True)
class Duplicate:
    """Clone a node's subtree beside it (the core's `clone`); its result is the copy's id."""

    node_id: int

    def nodes(self) -> tuple[int | None, ...]:
        return (self.node_id,)

    def label(self, graph: SceneGraph) -> str:
        return f"duplicate {_name(graph, self.node_id)}"

    def apply(self, graph: SceneGraph) -> int:
        return graph.node(self.node_id).clone().id

    merge = None
    makes_node = True


@dataclass(frozen=True)
class AddChild:
    """A new empty node (identity transform) as the last child of a node (None: a root),
    named `EMPTY_NAME` (with a number when taken); its result is the new node's id."""

    node_id: int | None

    def nodes(self) -> tuple[int | None, ...]:
        return (self.node_id,)

    @staticmethod
    def _free_name(graph: SceneGraph) -> str:
        name, k = EMPTY_NAME, 1
        while name in graph:
            k += 1
            name = f"{EMPTY_NAME}{k}"
        return name

    def label(self, graph: SceneGraph) -> str:
        where = "a root" if self.node_id is None else f"under {_name(graph, self.node_id)}"
        return f"add {self._free_name(graph)} {where}"

    def apply(self, graph: SceneGraph) -> int:
        parent = None if self.node_id is None else graph.node(self.node_id)
        return graph.add(self._free_name(graph), parent).id

    merge = None
    makes_node = True


Command = SetField | Reparent | Place | Delete | Duplicate | AddChild
