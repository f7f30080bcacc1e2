"""`AttachedSession` without a window: the first program connected is shown, its frames
come through `advance` as the program's reports, the panel's rows list every program,
a click shows another, edits are refused, and a program that left is dropped once it is
not shown."""

from __future__ import annotations

import io
import time

from attach_helpers import tree10

import viewer
from viewer.attach.adapter import NO_FILES, READ_ONLY, AttachedSession
from viewer.attach.server import Listener
from viewer.content.scene import Scene
from viewer.scene.graph import SceneGraph
from viewer.session.commands import Delete


def _wait(check, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def test_programs_are_listed_shown_switched_and_dropped():
    listener = Listener("127.0.0.1", 0, err=io.StringIO())
    host, port = listener.start()
    out = io.StringIO()
    session = AttachedSession(Scene(SceneGraph(), title="waiting"), listener=listener,
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
        scene = session.poll_files(prepare=prepared.append)
        assert scene is not None and prepared == [scene] and session.graph is scene.graph
        frame = session.advance(1 / 60)
        assert frame.report.log_lines() == expected and frame.number == first.frame
        assert out.getvalue() == f"# frame {first.frame}\n" + "\n".join(expected) + "\n"
        second.touch("Solo")
        second.update()
        _wait(lambda: len(listener.programs) == 2 and listener.programs[1].pending())
        rows = session.programs()
        assert [shown for _, shown in rows] == [True, False]
        label, counts = rows[0][0].split("\n")  # the counts on a line of their own
        assert label.startswith("first (127.0.0.1:") and counts.strip() == "1 frames, 0 merged"
        session.show_program(1)
        assert session.poll_files() is not None and [n.name for n in session.graph] == ["Solo"]
        session.editing.run(Delete(0))
        assert session.messages.edit == READ_ONLY and len(session.graph) == 1
        session.messages.edit = None
        session.editing.select(0)
        session.touch_selected()
        assert session.messages.edit == READ_ONLY and not session.graph.peek.flags().pending.size
        session.messages.edit = None
        session.files.request_open("elsewhere.toml")
        session.poll_files()
        assert session.messages.open == NO_FILES and [n.name for n in session.graph] == ["Solo"]
        links[0].close()
        _wait(lambda: not listener.programs[0].connected)
        session.poll_files()
        assert [text.split(" (")[0] for text, _ in session.programs()] == ["second"]
    finally:
        for link in links:
            link.close()
        listener.close()
