"""The editing room: everything the user changes by hand, and the only opener and closer
of undo steps. No window, no GL.

It holds the selection, the held movement keys, the gizmo's modes and its drag, and the
undo history (`viewer.session.undo`) of the graph on show. Every edit is one step:
a command from the panel (`viewer.session.commands`: a typed value, a re-parent or
reorder, a deletion, a duplicate, a new empty child) through `run`; a gizmo drag, which
keeps the pose from the press and is committed as one step at the release (as the
three.js editor's viewport does); a key hold, one step from the first frame it moves
something until the last movement key goes up. Touches change no value and are not
steps. Each outcome or refusal is one line on the message channel (`Messages.edit`), and
`shown` tells the session that something changed (an event for the timeline, or None
for a drag's move: the session shows it at once while paused).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from viewer.collision.demo import CollisionDemo
from viewer.keys.controls import HeldKeys, apply_held, held_direction
from viewer.scene.errors import HierarchyError
from viewer.scene.graph import SceneGraph
from viewer.scene.node import Node
from viewer.session.commands import Command
from viewer.session.messages import Messages
from viewer.session.undo import EditHistory
from viewer.text import one_line, printable

__all__ = ["Drag", "Editing", "held_kinds", "hold_label"]


class Drag(Protocol):
    """A gizmo drag (`viewer.gizmo`: an axis, plane, ring or scale drag): moves its node
    to follow the mouse at (x, y), snapped when `snap`."""

    def apply(self, node: Node, x: float, y: float, snap: bool) -> None: ...


def held_kinds(actions: set[str]) -> set[str]:
    """What one frame of the held `actions` does: "move" (a direction), "turn" (R)."""
    kinds = {"turn"} if "turn" in actions else set()
    return kinds | ({"move"} if any(held_direction(actions)) else set())


def hold_label(name: str | None, kinds: set[str]) -> str:
    """The undo step's name for a key hold that did `kinds` to the node `name` (None: the
    collision demo, whose keys move the disk and turn the rectangle): an R hold is a turn
    about z, as the gizmo's ring drags are named, not a move."""
    if name is None:
        parts = ["move the disk"] if "move" in kinds or not kinds else []
        return " and ".join(parts + (["turn the rectangle"] if "turn" in kinds else []))
    if kinds == {"turn"}:
        return f"turn {name} about z"
    return f"move and turn {name}" if "turn" in kinds else f"move {name}"


class Editing:
    """The user's edits on the graph on show (see the module notes)."""

    def __init__(
        self,
        graph: SceneGraph,
        messages: Messages | None = None,
        shown: Callable[[str | None], None] | None = None,
    ) -> None:
        self.messages = messages if messages is not None else Messages()
        self._shown = shown or (lambda event: None)
        self.held = HeldKeys()
        #: Shift held with R: turn the other way.
        self.reverse_turn = False
        #: The gizmo's axes: the node's own (True) or the world's (X switches).
        self.gizmo_local = False
        #: The gizmo's mode: scale (True) or move and turn (E switches).
        self.gizmo_scale = False
        self._progress_line: str | None = None  # the edit line a lasting step set last
        self._hold_did: set[str] = set()  # what the key hold going on did: "move", "turn"
        self.use(graph)

    def use(self, graph: SceneGraph, selected: int | None = None) -> None:
        """Edit `graph` from now on (a new scene): a new history, and the edit line of
        the old one gone (it spoke of steps no longer there); a drag of the old scene's
        node moves nothing more."""
        self.graph = graph
        self.history = EditHistory(graph)
        self._say(None)
        self.selected = selected
        self._drag: tuple[Node, Drag, str] | None = None

    def restart(self) -> None:
        """The scene restarted (`0`): the undo history starts empty, so no undo brings
        back an edit of the run before; no key stays held, no drag goes on. The
        selection stays."""
        self.held.clear()
        self.use(self.graph, self.selected)

    @property
    def recording(self) -> bool:
        """Whether a lasting step (a drag, a key hold) is open."""
        return self.history.recording

    # -- the selection ---------------------------------------------------------------
    def select(self, node_id: int | None) -> None:
        """Select a node (None: clear)."""
        self.selected = None if node_id is None else int(node_id)

    def selected_node(self) -> Node | None:
        """The selected node; None, and the selection cleared, once it was removed (by
        an undo, or an `on_frame` callback)."""
        if self.selected is None:
            return None
        try:
            return self.graph.node(self.selected)
        except (KeyError, HierarchyError):
            self.selected = None
            return None

    # -- commands --------------------------------------------------------------------
    def run(self, command: Command) -> int | bool | None:
        """Do `command` as one undo step; a new node (duplicate, add child) becomes the
        selection. Returns what it did (the new node's id, else True; None when refused)."""
        result = self._run(command)
        if command.makes_node and result is not None:
            self.select(result)
        self._shown(self.messages.edit or "edit")
        return result

    def _run(self, command: Command) -> int | bool | None:
        graph = self.graph
        for node_id in command.nodes():
            if node_id is not None and not graph.peek.is_alive(node_id):
                name = printable(graph.name_of(node_id))
                self.messages.refuse(f"not done: {name} is no longer in the scene")
                return None
        recorded = self.history.recorded
        try:
            label = command.label(graph)  # a typed value that is no numbers fails here
            result = self.history.run(label, lambda: command.apply(graph), command.merge)
        except (HierarchyError, ValueError, TypeError) as exc:
            self.messages.refuse(one_line(exc))
            return None
        changed = self.history.recorded != recorded
        self._say(label if changed else f"{label}: nothing changed (it was so already)")
        return result if command.makes_node else True

    def _say(self, line: str | None) -> None:
        self.messages.edited(line)

    def undo(self) -> bool:
        """Undo the last step (an open drag or hold is closed first); what came back glows."""
        return self._step_back_or_on(self.history.undo, "undid", "nothing to undo")

    def redo(self) -> bool:
        """Do the last undone step again."""
        return self._step_back_or_on(self.history.redo, "redid", "nothing to redo")

    def _step_back_or_on(self, move: Callable[[], str | None], done: str, none: str) -> bool:
        label = move()
        self._say(none if label is None else f"{done}: {label}")
        if label is not None:
            self._shown(self.messages.edit)
        return label is not None

    # -- the gizmo's drag ------------------------------------------------------------
    def grab(self, node: Node, drag: Drag, label: str) -> None:
        """A press on the gizmo: `drag` (`viewer.gizmo`) moves `node` from here on; the
        pose now is what the drag's undo step goes back to."""
        self._drag = (node, drag, label)
        self.history.begin(label, "gizmo")

    def drag_to(self, x: float, y: float, snap: bool) -> None:
        """The node follows the mouse through the drag's setter (snapped with Ctrl). A
        step closed mid-drag (Ctrl+Z, a held key let go) opens again: the rest of the
        drag is one more step, never unrecorded."""
        if self._drag is None:
            return  # the scene was replaced since the press
        node, drag, label = self._drag
        self.history.begin(label, "gizmo")
        try:
            drag.apply(node, x, y, snap)
            self._in_progress("dragging: one step at the release")
        except ValueError as exc:  # a singular parent: say so, leave the node
            self.messages.refuse(str(exc).splitlines()[0])
        self._shown(None)  # the drag shows (and glows) while paused

    def release(self) -> None:
        """The drag's button went up: its step is committed."""
        if self._drag is None:
            return
        label, self._drag = self._drag[2], None
        self._close("gizmo")
        self._shown(label)

    # -- held keys -------------------------------------------------------------------
    def press_key(
        self, action: str, reverse: bool = False, demo: CollisionDemo | None = None
    ) -> None:
        """A movement key went down (`viewer.keys.controls.MOVES`, or "turn"); a press
        while nothing would move (`keys_act`) moves nothing later either."""
        self.held.press(action, tap=self.keys_act(demo))
        if action == "turn":
            self.reverse_turn = reverse

    def release_key(self, action: str) -> None:
        """A movement key went up: with none left down, the hold's step ends now (not at
        the next frame, which does not come while paused)."""
        self.held.release(action)
        if not self.held.down:
            self._close("keys")

    def keys_act(self, demo: CollisionDemo | None) -> bool:
        """Whether the movement keys move something: the collision demo's nodes (while
        none is deleted), else the selection."""
        if demo is not None:
            return demo.intact
        return self.selected_node() is not None

    def apply_held(self, demo: CollisionDemo | None) -> None:
        """One frame of the held keys on the selection or the collision demo (`demo`)."""
        actions = self.held.take()
        if not actions:
            self._close("keys")  # a key hold is one undo step, closed when the keys are up
            return
        if self.keys_act(demo):
            if not self.history.recording:
                self._hold_did = set()
            self._hold_did |= held_kinds(actions)
            node = None if demo is not None else self.selected_node()
            name = None if node is None else printable(node.name)
            label = hold_label(name, self._hold_did)
            self.history.begin(label, "keys")
            self.history.rename(label, "keys")  # an R joined to a K hold: "move and turn"
            self._in_progress("keys held: one step when let go")
        if demo is not None:
            dx, dy = held_direction(actions)
            if dx or dy:
                demo.move_disk(dx, dy)
            if "turn" in actions:
                demo.turn_rect(-1 if self.reverse_turn else 1)
        elif (node := self.selected_node()) is not None:
            apply_held(node, actions, self.reverse_turn)
        if not self.held.down:
            self._close("keys")  # a tap, already let go: this frame was all of it

    def _in_progress(self, how: str) -> None:
        """While a lasting step (a key hold, a drag) goes on, the edit line names it: it
        would otherwise keep the last edit's outcome until the step ended."""
        label = self.history.open_label
        if label is not None:
            self._progress_line = f"{label} ({how})"
            self._say(self._progress_line)

    def _close(self, by: str) -> None:
        """End the lasting step `by` ("gizmo", "keys") opened; once it is recorded, the
        edit line names it, as it names every other edit; a step that changed nothing
        says so."""
        recorded, label = self.history.recorded, self.history.open_label
        self.history.end(by)
        if self.history.recorded != recorded:
            self._say(self.history.done[-1].label)
        if label is None or self.history.open_label is not None:
            return  # no step was open, or it stays open (a drag's, at a key's release)
        named = self._progress_line is not None and self.messages.edit == self._progress_line
        if named and self.history.recorded == recorded:  # the line named it: say how it ended
            self._say(f"{label}: nothing changed")
        self._progress_line = None
