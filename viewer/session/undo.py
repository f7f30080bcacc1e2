"""Undo and redo: the step stacks of one graph, no window, no GL.

A step keeps the graph's state from before it (`SceneGraph.snapshot`), so undo puts the
graph back exactly (same ids, sibling order, local values, bit for bit) and marks what
changed back, which then glows like any edit; no edit needs inverse code of its own.
A step is recorded around one call (`run`) or lasts (`begin` ... `end`: a gizmo drag, a
key hold). Consecutive steps with the same merge key within `MERGE_SECONDS` are one
(three numbers of one field typed one after another), the way the three.js editor's
History merges updatable commands. The snapshots are bounded: past `budget_bytes` the
oldest steps are dropped. Only the editing room (`viewer.session.edits`) records steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TypeVar

from viewer.scene.graph import SceneGraph
from viewer.scene.state import GraphState

T = TypeVar("T")

#: Memory the kept snapshots may take together; the oldest steps go first past it.
BUDGET_BYTES = 256 * 1024 * 1024
#: Steps kept at most, whatever their size.
MAX_STEPS = 500
#: Seconds within which a step merges into the one before it with the same merge key.
MERGE_SECONDS = 3.0


@dataclass
class Step:
    """One undoable edit: its label (shown in the panel) and the state to go back to;
    `merge`: what a following step must name to merge into it (None: never), `at`: when
    it was last recorded (`time.monotonic` seconds)."""

    label: str
    state: GraphState
    merge: Hashable | None = None
    at: float = 0.0


class EditHistory:
    """The undo and redo stacks of one graph (see the module notes)."""

    def __init__(self, graph: SceneGraph, budget_bytes: int = BUDGET_BYTES) -> None:
        self.graph = graph
        self.clock: Callable[[], float] = time.monotonic  # seconds; tests set their own
        self.budget_bytes = budget_bytes
        self.max_steps = MAX_STEPS
        self.done: list[Step] = []
        self.undone: list[Step] = []
        self._open: Step | None = None
        self._mergeable = False  # whether the last step is the newest thing done
        #: Changes recorded so far (a new step or one merged into the last): counts up.
        self.recorded = 0
        self._opened_by: str | None = None  # who began the open step ("keys", "gizmo")

    # -- recording ------------------------------------------------------------------
    def run(self, label: str, edit: Callable[[], T], merge: Hashable | None = None) -> T:
        """Do ``edit`` (a call of the graph's own setters) as one step labelled
        ``label``. An edit that raises changes nothing (the core's edits are checked
        first) and records nothing; one that leaves the graph as it was is no step. With
        a `merge` key equal to the last step's, within `MERGE_SECONDS` of it, the edit
        joins that step under the new label (undo goes back to before both)."""
        self.end()
        before = self.graph.snapshot()
        result = edit()
        if before.same_as(self.graph.snapshot()):
            return result  # nothing changed: no step, and the last step stays as it was
        now = self.clock()
        last = self.done[-1] if self.done else None
        if (
            self._mergeable
            and merge is not None
            and last is not None
            and last.merge == merge
            and now - last.at <= MERGE_SECONDS
        ):
            last.label, last.at = label, now
            self.recorded += 1
            if last.state.same_as(self.graph.snapshot()):  # typed back to where it began
                self.done.pop()
            return result
        self._push(Step(label, before, merge, now), changed=True)
        self._mergeable = True
        return result

    def begin(self, label: str, by: str) -> None:
        """Start a step that lasts (a held key, a drag) for ``by`` (who will end it):
        the state now is what undo goes back to. A step already open stays open (a key
        held during a drag joins the drag's step)."""
        if self._open is None:
            self._open = Step(label, self.graph.snapshot())
            self._opened_by = by

    def rename(self, label: str, by: str) -> None:
        """Name the open step anew, where ``by`` began it (a key hold says what it did
        once it did it; a drag's step keeps its name while a key joins it)."""
        if self._open is not None and self._opened_by == by:
            self._open.label = label

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

    @property
    def open_label(self) -> str | None:
        """The label of the lasting step open (None: none is)."""
        return None if self._open is None else self._open.label

    def _push(self, step: Step, changed: bool = False) -> None:
        self._mergeable = False
        if not changed and step.state.same_as(self.graph.snapshot()):
            return  # nothing changed: no step
        self.done.append(step)
        self.undone.clear()
        self.recorded += 1
        total = sum(s.state.nbytes for s in self.done)
        while len(self.done) > 1 and (total > self.budget_bytes or len(self.done) > self.max_steps):
            total -= self.done.pop(0).state.nbytes

    # -- undo / redo ----------------------------------------------------------------
    def undo(self) -> str | None:
        """Go back one step; its label, or None when there is nothing to undo."""
        self.end()
        if not self.done:
            return None
        self._mergeable = False
        step = self.done.pop()
        self.undone.append(Step(step.label, self.graph.snapshot()))
        self.graph.restore(step.state)
        return step.label

    def redo(self) -> str | None:
        """Do again the step undone last; its label, or None when there is none."""
        self.end()
        if not self.undone:
            return None
        self._mergeable = False
        step = self.undone.pop()
        self.done.append(Step(step.label, self.graph.snapshot()))
        self.graph.restore(step.state)
        return step.label

    def labels(self) -> tuple[list[str], list[str]]:
        """The labels of the steps done (oldest first) and undone (next to redo first),
        for the panel."""
        return [s.label for s in self.done], [s.label for s in reversed(self.undone)]
