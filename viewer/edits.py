"""Undo and redo of the user's edits: a command history on a graph, no window, no GL.

Every edit the user makes in the window (a field typed in, a re-parent, a deletion, a
duplicate, a new empty child, a held-key move) goes through `EditHistory.run` or, for
a move that lasts as long as a key is held, `begin` ... `end`: one step each. A step
keeps the graph's state from before it (`SceneGraph.snapshot`), so undo puts the graph
back exactly (same ids, sibling order, local values, bit for bit) and marks what
changed back, which then glows like any edit. Touches change no value and are not
steps. The snapshots are bounded: past `budget_bytes` the oldest steps are dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from viewer.scene.state import GraphState

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

    def begin(self, label: str) -> None:
        """Start a step that lasts (a held key, a drag): the state now is what undo
        goes back to; `end` closes it. A step already open stays open."""
        if self._open is None:
            self._open = Step(label, self.graph.snapshot())

    def end(self) -> None:
        """Close the step `begin` opened (nothing when none is open)."""
        step, self._open = self._open, None
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
