"""The viewer's keys and mouse, written once: `--help`, the README, docs/viewer.md and the
panel's Keys section all list `KEY_HELP` and `MOUSE_HELP`.

Most keys act once when pressed (`viewer.window.app.SgviewApp.on_key_event`). The movement keys
act on every simulated frame while held: `HeldKeys` tracks them, and `apply_held` moves or
turns the selected node by `MOVE_STEP` / `TURN_STEP` per frame. A tap shorter than a frame
still moves one step. Opposite keys held together do not cancel: H wins over L and J over
K, as in the classic collision demo.
"""

from __future__ import annotations

#: Keys, as (key name, what it does).
KEY_HELP = (
    ("Space", "pause / resume the simulation (the glow stays while paused)"),
    (".", "step one frame while paused"),
    ("T", "touch the selected node (see it glow, in the panel and in --log)"),
    (
        "H J K L",
        "move the selected node left / down / up / right, 0.05 per frame (held; H wins "
        "over L, J over K); collision scene: the disk",
    ),
    (
        "R, Shift+R",
        "turn the selected node +1 / -1 degree per frame about Z (held); "
        "collision scene: the rectangle",
    ),
    (
        "Ctrl+Z, Ctrl+Shift+Z",
        "undo / redo the last edit (a gizmo drag, a held move, a typed value, a re-parent "
        "or reorder, a deletion, a duplicate, a new child; touches are not edits); the "
        "panel lists them",
    ),
    (
        "Ctrl+S",
        "save the edited scene to the file it came from (.toml, .gltf, .glb: the format's "
        "own writer)",
    ),
    (
        "Ctrl+O",
        "open a scene file (the system's file dialog: zenity or kdialog on Linux; without "
        "one, a file browser in the window); or drop a .toml, .gltf or .glb on the window; "
        "the Edit section lists the recent ones",
    ),
    ("X", "gizmo axes: the world's / the selected node's own"),
    ("E", "gizmo mode: move and turn / scale"),
    ("S", "start / stop the scene's motion"),
    ("M", "collision scene: switch the rectangle between oscillating and revolving"),
    ("?, F1", "show / hide the help: every key and mouse input in one window"),
    (
        "[ ]",
        "timeline: show the frame of the event (touch, edit, reload, clip change) before / "
        "after the one shown; after the last, back to live",
    ),
    (
        "V",
        "replay the frame shown slowly: its recomputed nodes light one by one in the order "
        "update() ran them, each with its log lines (the Frames panel sets the speed); "
        "again: stop",
    ),
    (
        "0",
        "restart the scene from frame 0 (its first pose, motions and clip): its scripted "
        "events and --touch touches play again",
    ),
    ("Tab", "show / hide the panels"),
    ("G", "show / hide the ground grid"),
    ("N", "show / hide the node names"),
    ("B", "show / hide the parent-child lines"),
    ("A", "show / hide the world axes: a dashed tripod beside the scene (X pink, Y green, Z blue)"),
    ("F", "frame the whole scene"),
    ("Home", "reset the camera"),
    ("O", "switch between perspective and orthographic projection"),
    ("C", "look through the glTF file's cameras in turn, then the orbit camera again"),
    ("P", "save a screenshot sgview-NNNN.png in the working folder and print its path"),
    ("Esc", "quit"),
)
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

    def __init__(self):
        self.down: set[str] = set()
        self._tapped: set[str] = set()

    def press(self, action: str) -> None:
        self.down.add(action)
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
