"""`ProgramSource` without a window: the first program connected is shown, its frames
come through `advance` as the program's reports, the panel's rows list every program,
a click shows another, it offers no editing, touches, restart or files (the keys that would
ask for them change nothing, and the panel says why), and a program that left is dropped
once it is not shown."""

from __future__ import annotations

import io
import time

from attach_helpers import tree10

import viewer
from viewer.attach.program_source import READ_ONLY, ProgramSource
from viewer.attach.server import Listener
from viewer.content.scene import Scene
from viewer.frames.runner import swap
from viewer.scene.graph import SceneGraph
from viewer.window.input import ACTIONS, NO_FILES, WindowInput


def _wait(check, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def _poll(source, prepare=None):
    """One redraw's scene swap without a window: the scene swapped in, or None."""
    swapped = swap(source, prepare or (lambda scene: None))
    return None if swapped is None else swapped.candidate.scene


class _App:
    """What `WindowInput`'s actions read, with no window: the source and no overlay."""

    def __init__(self, source):
        self.session, self.overlay = source, None


def _act(source, action: str) -> None:
    """The key table's `action` as a key press does it (`viewer.window.input.ACTIONS`)."""
    inp = WindowInput.__new__(WindowInput)
    inp.app = _App(source)
    ACTIONS[action](inp)


def test_programs_are_listed_shown_switched_and_dropped():
    listener = Listener("127.0.0.1", 0, err=io.StringIO())
    host, port = listener.start()
    out = io.StringIO()
    session = ProgramSource(Scene(SceneGraph(), title="waiting"), listener=listener,
                            log=True, out=out)  # fmt: skip
    first, second = tree10(), SceneGraph()
    second.add("Solo")
    second.update()
    links = [viewer.publish(first, f"{host}:{port}", name="first")]
    try:
        assert links[0].wait_connected(10)  # connected first: listed first
        links.append(viewer.publish(second, f"{host}:{port}", name="second"))
        first.touch("Obj3")
        expected = first.update().log_lines()
        _wait(lambda: listener.programs and listener.programs[0].pending())
        assert links[1].wait_connected(10)
        prepared = []
        scene = _poll(session, prepared.append)
        assert scene is not None and prepared == [scene] and session.graph is scene.graph
        frame = session.advance(1 / 60)
        assert frame.report.log_lines() == expected and frame.number == first.frame
        assert out.getvalue() == f"# frame {first.frame}\n" + "\n".join(expected) + "\n"
        second.touch("Solo")
        second.update()
        _wait(lambda: len(listener.programs) == 2 and listener.programs[1].pending())
        rows = session.programs.program_rows()
        assert [shown for _, shown in rows] == [True, False]
        label, counts = rows[0][0].split("\n")  # the counts on a line of their own
        assert label.startswith("first (127.0.0.1:") and counts.strip() == "1 frames, 0 merged"
        session.programs.show_program(1)
        assert _poll(session) is not None and [n.name for n in session.graph] == ["Solo"]
        # No editing room, touches, restart or files: what would ask for them changes nothing.
        assert session.editing is None and session.controls is None
        assert session.file_actions is None and session.messages.edit == READ_ONLY
        session.select(0)
        for action in ("undo", "redo", "touch", "motion", "save", "gizmo mode"):
            _act(session, action)
        assert len(session.graph) == 1 and not session.graph.peek.flags().pending.size
        assert session.messages.edit == READ_ONLY and session.selected == 0
        inp = WindowInput.__new__(WindowInput)
        inp.app = _App(session)
        inp.files_dropped(0, 0, ["elsewhere.toml"])
        _poll(session)
        assert session.messages.open == NO_FILES and [n.name for n in session.graph] == ["Solo"]
        links[0].close()
        _wait(lambda: not listener.programs[0].connected)
        _poll(session)
        rows = session.programs.program_rows()
        assert [text.split(" (")[0] for text, _ in rows] == ["second"]
    finally:
        for link in links:
            link.close()
        listener.close()
