"""The viewer's keys and mouse, written once: the key table `KEYS` says each key's name,
the window library's key for it, its action and its help, and everything else is built
from it: the window's dispatch (`viewer.window.input`), the names a key script may use
(`viewer.keys.script`), `--help`, the README, docs/viewer.md, the panel's Keys section
and the help window (`KEY_HELP` and `MOUSE_HELP`).

Most keys act once when pressed. The movement keys (`HELD_ACTIONS`) act on every
simulated frame while held: `HeldKeys` tracks them, and `apply_held` moves or turns the
selected node by `MOVE_STEP` / `TURN_STEP` per frame. A tap shorter than a frame still
moves one step. Opposite keys held together do not cancel: H wins over L and J over K,
as in the classic collision demo.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Key:
    """One key: its `name` (as the help, scripts and the dispatch spell it), `code`
    (moderngl-window's name for the key pressed, with Ctrl and Shift as the name says)
    and the `action` it asks for (`viewer.window.input` does it)."""

    name: str
    code: str
    action: str

    @property
    def ctrl(self) -> bool:
        return "Ctrl+" in self.name

    @property
    def shift(self) -> bool:
        return "Shift+" in self.name


@dataclass(frozen=True)
class KeyRow:
    """One row of the help: its keys, and what they do."""

    keys: tuple[Key, ...]
    help: str

    @property
    def shown(self) -> str:
        """The keys as the help lists them: "H J K L", "[ ]"; "R, Shift+R", "?, F1"."""
        names = [key.name for key in self.keys]
        return (" " if all(len(name) == 1 for name in names) else ", ").join(names)


def _row(help: str, *keys: tuple[str, str, str]) -> KeyRow:
    return KeyRow(tuple(Key(*key) for key in keys), help)


# fmt: off
#: The key table: one row of the help each, in the order the help lists them.
KEYS = (
    _row("pause / resume the simulation (the glow stays while paused)",
         ("Space", "SPACE", "pause")),
    _row("step one frame while paused", (".", "PERIOD", "step")),
    _row("touch the selected node (see it glow, in the panel and in --log)", ("T", "T", "touch")),
    _row("move the selected node left / down / up / right, 0.05 per frame (held; H wins "
         "over L, J over K; paused, each press moves it one step at once); collision "
         "scene: the disk",
         ("H", "H", "left"), ("J", "J", "down"), ("K", "K", "up"), ("L", "L", "right")),
    _row("turn the selected node +1 / -1 degree per frame about Z (held); "
         "collision scene: the rectangle", ("R", "R", "turn"), ("Shift+R", "R", "turn back")),
    _row("undo / redo the last edit (a gizmo drag, a held move, a typed value, a re-parent "
         "or reorder, a deletion, a duplicate, a new child; touches are not edits): the "
         "whole scene goes back to its state before that edit, so nodes the motion turned "
         "since turn back too; the panel lists them",
         ("Ctrl+Z", "Z", "undo"), ("Ctrl+Shift+Z", "Z", "redo")),
    _row("hold edits on / off: while paused, an edit (a move key, a typed value, a drag, an "
         "undo) writes its values and leaves them marked, pending, until . or Space executes "
         "them; running, edits apply at the next frame either way", ("W", "W", "hold edits")),
    _row("save the edited scene to the file it came from (.toml, .gltf, .glb: the format's "
         "own writer; an OpenUSD stage: its edits, as opinions in its root layer or the "
         "--edit-layer file)", ("Ctrl+S", "S", "save")),
    _row("open a scene file (the system's file dialog: zenity or kdialog on Linux; without "
         "one, a file browser in the window); or drop a .toml, .gltf, .glb or OpenUSD file "
         "on the window; the Edit section lists the recent ones", ("Ctrl+O", "O", "open")),
    _row("gizmo axes: the world's / the selected node's own", ("X", "X", "gizmo axes")),
    _row("gizmo mode: move and turn / scale", ("E", "E", "gizmo mode")),
    _row("start / stop the scene's motion", ("S", "S", "motion")),
    _row("collision scene: switch the rectangle between oscillating and revolving",
         ("M", "M", "collision mode")),
    # "?" is Shift+/ on most layouts; a layout with "?" elsewhere still has F1.
    _row("show / hide the help: every key and mouse input in one window",
         ("?", "SLASH", "help"), ("F1", "F1", "help")),
    _row("timeline: show the frame of the event (touch, edit, reload, clip change) before / "
         "after the one shown; after the last, back to live",
         ("[", "LEFT_BRACKET", "event before"), ("]", "RIGHT_BRACKET", "event after")),
    _row("replay the frame shown slowly (live, the newest frame that recomputed something): "
         "its recomputed nodes light one by one in the order update() ran them, each with "
         "its log lines (the Frames panel sets the speed); again: stop", ("V", "V", "replay")),
    _row("restart the scene from frame 0 (its first pose, motions and clip), running as at "
         "launch (not paused, motion on unless --still): its scripted events and --touch "
         "touches play again; the undo history starts empty (over edits, a first 0 asks and "
         "a second within 3 s restarts; a --keys script's 0 restarts at once)",
         ("0", "NUMBER_0", "restart")),
    _row("show / hide the panels (the glow, the names and the selected node's gizmo stay; N "
         "hides the names, a click on empty space drops the selection and its gizmo)",
         ("Tab", "TAB", "panels")),
    _row("show / hide the ground grid", ("G", "G", "grid")),
    _row("show / hide the node names", ("N", "N", "names")),
    _row("show / hide the parent-child lines", ("B", "B", "links")),
    _row("show / hide the world axes: a dashed tripod beside the scene (X pink, Y green, "
         "Z blue)", ("A", "A", "axes")),
    _row("frame the whole scene", ("F", "F", "frame")),
    _row("reset the camera", ("Home", "HOME", "home")),
    _row("switch between perspective and orthographic projection",
         ("O", "O", "projection")),
    _row("look through the glTF file's cameras in turn, then the orbit camera again",
         ("C", "C", "cameras")),
    _row("save a screenshot sgview-NNNN.png in the working folder and name it on stderr",
         ("P", "P", "screenshot")),
    _row("quit", ("Esc", "ESCAPE", "quit")),
)
# fmt: on
#: Every key of the table, by name.
KEY_BY_NAME = {key.name: key for row in KEYS for key in row.keys}
#: The actions of the movement keys, held down for as many frames as they are held.
HELD_ACTIONS = frozenset({"left", "down", "up", "right", "turn", "turn back"})
#: The help's key rows, as (keys, what they do).
KEY_HELP = tuple((row.shown, row.help) for row in KEYS)
MOUSE_HELP = (
    (
        "left drag",
        "orbit; on the selected node's gizmo: a handle moves it along that axis only, a "
        "square in that plane only (Ctrl: steps of 0.25), a ring turns it about that axis "
        "(Ctrl: 15 degree steps); in scale mode (E) a box-tipped handle scales it along "
        "that axis, the centre square uniformly (Ctrl: factor steps of 0.1); one undo step "
        "per drag",
    ),
    ("right drag, Shift+left drag", "pan"),
    ("wheel", "zoom"),
    ("left click", "select a node (outlined, named in the title); click empty space to clear"),
)

#: Distance a held H / J / K / L moves the selected node per frame (parent's space).
MOVE_STEP = 0.05
#: Degrees a held R turns the selected node per frame, about its parent's Z axis.
TURN_STEP = 1.0
#: What each held action does: a translation, or a turn direction.
MOVES = {
    "left": (-MOVE_STEP, 0.0, 0.0),
    "down": (0.0, -MOVE_STEP, 0.0),
    "up": (0.0, MOVE_STEP, 0.0),
    "right": (MOVE_STEP, 0.0, 0.0),
}

#: Opposite actions per axis (x, y), the winner first when both are held.
_OPPOSITES = (("left", "right"), ("down", "up"))


class HeldKeys:
    """Actions held down (names of `MOVES`, or "turn"), read once per simulated frame."""

    def __init__(self) -> None:
        self.down: set[str] = set()
        self._tapped: set[str] = set()

    def press(self, action: str, tap: bool = True) -> None:
        """`action`'s key went down; `tap`: its press counts for the next frame even if
        released before it (False where nothing would move: a key pressed then must not
        act later, on whatever is selected by then)."""
        self.down.add(action)
        if tap:
            self._tapped.add(action)

    def release(self, action: str) -> None:
        self.down.discard(action)

    def active(self) -> bool:
        """Whether the next `take` has anything: a key held, or pressed since."""
        return bool(self.down or self._tapped)

    def take(self) -> set[str]:
        """The actions for this frame: held now, or pressed since the last frame."""
        active = self.down | self._tapped
        self._tapped.clear()
        return active

    def clear(self) -> None:
        self.down.clear()
        self._tapped.clear()


def held_direction(actions: set[str]) -> tuple[int, int]:
    """The (x, y) step direction of the held `actions`, each -1, 0 or +1: of two opposite
    keys the first of H (left) over L (right), J (down) over K (up) wins."""
    direction = [0, 0]
    for axis, (first, second) in enumerate(_OPPOSITES):
        winner = first if first in actions else second if second in actions else None
        if winner is not None:
            direction[axis] = 1 if MOVES[winner][axis] > 0 else -1
    return direction[0], direction[1]


def apply_held(node, actions: set[str], reverse_turn: bool = False) -> None:
    """Move / turn `node` (a scene Node) by one frame's worth of the held `actions`."""
    dx, dy = held_direction(actions)
    if dx or dy:
        node.translate((dx * MOVE_STEP, dy * MOVE_STEP, 0.0))
    if "turn" in actions:
        node.rotate((0.0, 0.0, 1.0), -TURN_STEP if reverse_turn else TURN_STEP)


def key_table_markdown() -> str:
    """`MOUSE_HELP` and `KEY_HELP` as the Markdown table the README and docs/viewer.md
    carry word for word (tests/test_docs_match.py holds them to it)."""
    rows = ["| input | action |", "|---|---|"]
    rows += [f"| {key} | {what} |" for key, what in MOUSE_HELP + KEY_HELP]
    return "\n".join(rows)
