"""Undo and redo of the user's edits: a command history on a graph, no window, no GL.

Every edit the user makes in the window (a field typed in, a re-parent or reorder, a
deletion, a duplicate, a new empty child, a gizmo drag, a held-key move) goes through
`EditHistory.run` or, for one that lasts (a drag, a held key), `begin` ... `end`: one
step each. A step keeps the graph's state from before it (`SceneGraph.snapshot`), so
undo puts the graph back exactly (same ids, sibling order, local values, bit for bit)
and marks what changed back, which then glows like any edit. Touches change no value
and are not steps. The snapshots are bounded: past `budget_bytes` the oldest steps are
dropped.
`Editor` is the set of edits the window offers, each one step, with a one-line message
for the panel (what was done, or why the core refused it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from viewer.scene.errors import HierarchyError
from viewer.scene.state import GraphState
from viewer.text import one_line, printable

T = TypeVar("T")

#: Memory the kept snapshots may take together; the oldest steps go first past it.
BUDGET_BYTES = 256 * 1024 * 1024
#: Steps kept at most, whatever their size.
MAX_STEPS = 500


@dataclass(frozen=True)
class Step:
    """One undoable edit: its label (shown in the panel) and the state to go back to."""

    label: str
    state: GraphState


class EditHistory:
    """The undo and redo stacks of one graph (see the module notes)."""

    def __init__(self, graph, budget_bytes: int = BUDGET_BYTES, max_steps: int = MAX_STEPS):
        self.graph = graph
        self.budget_bytes = budget_bytes
        self.max_steps = max_steps
        self.done: list[Step] = []
        self.undone: list[Step] = []
        self._open: Step | None = None
        self._opened_by: str | None = None  # who began the open step ("keys", "gizmo")

    # -- recording ------------------------------------------------------------------
    def run(self, label: str, edit: Callable[[], T]) -> T:
        """Do ``edit`` (a call of the graph's own setters) as one step labelled
        ``label``. An edit that raises changes nothing (the core's edits are checked
        first) and records nothing; one that leaves the graph as it was is no step."""
        self.end()
        before = self.graph.snapshot()
        result = edit()
        self._push(Step(label, before))
        return result

    def begin(self, label: str, by: str) -> None:
        """Start a step that lasts (a held key, a drag) for ``by`` (who will end it):
        the state now is what undo goes back to. A step already open stays open (a key
        held during a drag joins the drag's step)."""
        if self._open is None:
            self._open = Step(label, self.graph.snapshot())
            self._opened_by = by

    def end(self, by: str | None = None) -> None:
        """Close the open step: the one ``by`` began (the keys going up never close a
        drag's step, nor a drag's end a key hold's), or any with ``None``."""
        if by is not None and by != self._opened_by:
            return
        step, self._open, self._opened_by = self._open, None, None
        if step is not None:
            self._push(step)

    @property
    def recording(self) -> bool:
        """Whether a lasting step is open."""
        return self._open is not None

    def _push(self, step: Step) -> None:
        if step.state.same_as(self.graph.snapshot()):
            return  # nothing changed: no step
        self.done.append(step)
        self.undone.clear()
        total = sum(s.state.nbytes for s in self.done)
        while len(self.done) > 1 and (total > self.budget_bytes or len(self.done) > self.max_steps):
            total -= self.done.pop(0).state.nbytes

    # -- undo / redo ----------------------------------------------------------------
    def undo(self) -> str | None:
        """Go back one step; its label, or None when there is nothing to undo."""
        self.end()
        if not self.done:
            return None
        step = self.done.pop()
        self.undone.append(Step(step.label, self.graph.snapshot()))
        self.graph.restore(step.state)
        return step.label

    def redo(self) -> str | None:
        """Do again the step undone last; its label, or None when there is none."""
        self.end()
        if not self.undone:
            return None
        step = self.undone.pop()
        self.done.append(Step(step.label, self.graph.snapshot()))
        self.graph.restore(step.state)
        return step.label

    def labels(self) -> tuple[list[str], list[str]]:
        """The labels of the steps done (oldest first) and undone (next to redo first),
        for the panel."""
        return [s.label for s in self.done], [s.label for s in reversed(self.undone)]


#: The node fields an inspector edits, as the Node properties they set.
FIELDS = ("local_position", "local_rotation", "local_euler", "local_scale")
#: The name of a new empty child (with a number when taken).
EMPTY_NAME = "Empty"


class Editor:
    """The user's edits on one graph, each one undoable step of `history`: what the
    window's keys, inspector and tree panel call. An edit the core refuses changes
    nothing and leaves its one-line reason in `message` (shown in the panel);
    a successful one says what it did there."""

    def __init__(self, graph) -> None:
        self.graph = graph
        self.history = EditHistory(graph)
        #: The last edit's outcome or refusal, one line (None: nothing to say).
        self.message: str | None = None

    def _name(self, node_id: int) -> str:
        return printable(self.graph.name_of(node_id))

    def _gone(self, *node_ids: int | None) -> bool:
        """Whether a node the edit names was removed meanwhile (an undo while its tree
        row was being dragged): then the edit is refused, saying so in `message`."""
        for node_id in node_ids:
            if node_id is not None and not self.graph.peek.is_alive(node_id):
                self.message = f"not done: {self._name(node_id)} is no longer in the scene"
                return True
        return False

    def _run(self, label: str, edit: Callable[[], T]) -> tuple[bool, T | None]:
        """(done, what ``edit`` returned); refused: (False, None), the reason in `message`."""
        last = self.history.done[-1] if self.history.done else None
        try:
            result = self.history.run(label, edit)
        except (HierarchyError, ValueError, TypeError) as exc:
            self.message = one_line(exc)
            return False, None
        changed = bool(self.history.done) and self.history.done[-1] is not last
        self.message = label if changed else f"{label}: nothing changed (it was so already)"
        return True, result

    def set_field(self, node_id: int, field: str, value) -> bool:
        """Set one local field (`FIELDS`) of a node through its setter; False if refused."""
        if field not in FIELDS:
            raise ValueError(f"not an editable field: {field!r}")
        if self._gone(node_id):
            return False
        node = self.graph.node(node_id)
        label = f"set {self._name(node_id)}.{field}"
        return self._run(label, lambda: setattr(node, field, value))[0]

    def reparent(self, node_id: int, parent_id: int | None, keep_world: bool = True) -> bool:
        """Make ``node_id`` the last child of ``parent_id`` (None: a root), keeping its
        world pose exactly when ``keep_world`` (refused when it cannot: docs/semantics.md
        section 4); False, with the reason in `message`, if refused."""
        if self._gone(node_id, parent_id):
            return False
        node = self.graph.node(node_id)
        parent = None if parent_id is None else self.graph.node(parent_id)
        where = "a root" if parent is None else f"child of {self._name(parent_id)}"
        label = f"re-parent {self._name(node_id)}: {where}"
        return self._run(label, lambda: node.set_parent(parent, keep_world=keep_world))[0]

    def place(self, node_id: int, sibling_id: int, where: str, keep_world: bool = True) -> bool:
        """Put ``node_id`` just ``where`` ("before" or "after") ``sibling_id``, under that
        sibling's parent: a reorder among its siblings, or a re-parent to that place
        (keeping the world pose as `reparent` does); False, with the reason in
        `message`, if refused (a move into its own subtree, shear)."""
        if where not in ("before", "after"):
            raise ValueError(f"where must be 'before' or 'after', got {where!r}")
        if self._gone(node_id, sibling_id):
            return False
        node, sibling = self.graph.node(node_id), self.graph.node(sibling_id)
        parent = sibling.parent
        label = f"move {self._name(node_id)} {where} {self._name(sibling_id)}"
        return self._run(
            label,
            lambda: node.set_parent(parent, keep_world=keep_world, **{where: sibling}),
        )[0]

    def delete(self, node_id: int) -> bool:
        """Remove the node and its subtree."""
        if self._gone(node_id):
            return False
        node = self.graph.node(node_id)
        label = f"delete {self._name(node_id)}"
        return self._run(label, lambda: self.graph.remove(node))[0]

    def duplicate(self, node_id: int) -> int | None:
        """Clone the node's subtree beside it (the core's `clone`); the copy's id."""
        if self._gone(node_id):
            return None
        node = self.graph.node(node_id)
        copy = self._run(f"duplicate {self._name(node_id)}", node.clone)[1]
        return None if copy is None else copy.id

    def add_child(self, node_id: int | None) -> int | None:
        """A new empty node (identity transform) as the last child of ``node_id``
        (None: a root); its id."""
        if self._gone(node_id):
            return None
        parent = None if node_id is None else self.graph.node(node_id)
        name, k = EMPTY_NAME, 1
        while name in self.graph:
            k += 1
            name = f"{EMPTY_NAME}{k}"
        where = "a root" if parent is None else f"under {self._name(node_id)}"
        child = self._run(f"add {name} {where}", lambda: self.graph.add(name, parent))[1]
        return None if child is None else child.id

    def undo(self) -> bool:
        label = self.history.undo()
        self.message = "nothing to undo" if label is None else f"undid: {label}"
        return label is not None

    def redo(self) -> bool:
        label = self.history.redo()
        self.message = "nothing to redo" if label is None else f"redid: {label}"
        return label is not None
