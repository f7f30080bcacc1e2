"""Reloads that outlive nodes (issue 36), through the session, headless: a scene file
emptied (in any of the ways a file can hold no node) reloads as the empty scene, and the
run's references by name (``--touch B@F``, ``--select B``, ``--camera NAME``) are looked
up again in the reloaded scene, each one whose node is gone dropped with one note while
the run goes on.

Generated: random node sets, a random subset kept by the save (none included), touches
and a selection on random names; the expectation is computed from the kept set alone.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st
from test_session_reload import Clock

from viewer.frames.runner import swap
from viewer.io import SceneWatcher, load_scene
from viewer.keys.references import camera_name, carry_camera
from viewer.session.session import Session

NAMES = ["A", "B", "C", "D", "E", "F"]
#: Files that hold no node: what an emptied scene file can look like.
EMPTY = ["", "\n", "# nothing left\n", '[scene]\ntitle = "live"\n', "   \n\t\n"]


def _poll(session, prepare=None):
    """One redraw's scene swap without a window (`viewer.frames.runner.swap`): the scene
    swapped in, or None; `prepare` stands for the window's GPU set-up of the candidate."""
    swapped = swap(session, prepare or (lambda scene: None))
    return None if swapped is None else swapped.candidate.scene


def _toml(names: list[str]) -> str:
    parts = ['[scene]\ntitle = "live"\n']
    for k, name in enumerate(names):
        parent = f'parent = "{names[k - 1]}"\n' if k else ""
        parts.append(f'[[node]]\nname = "{name}"\n{parent}mesh = "cube"\n')
    return "\n".join(parts)


@settings(max_examples=30, deadline=None)
@given(
    names=st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True),
    keep=st.sets(st.sampled_from(NAMES)),
    touches=st.lists(st.tuples(st.integers(0, 5), st.integers(2, 6)), max_size=5),
    select=st.integers(0, 5),
    empty=st.sampled_from(EMPTY),
)
def test_reload_keeps_the_references_whose_node_is_still_there(
    tmp_path_factory, names, keep, touches, select, empty
):
    path = tmp_path_factory.mktemp("live") / "live.toml"
    path.write_text(_toml(names), encoding="utf-8")
    scene = load_scene(path)
    asked: dict[int, list[str]] = {}
    for k, frame in touches:
        asked.setdefault(frame, []).append(names[k % len(names)])
    out, err = io.StringIO(), io.StringIO()
    session = Session(scene, touches=asked, out=out, err=err)
    chosen = names[select % len(names)]
    session.select(scene.graph[chosen].id)
    assert session.advance(1 / 60) is not None  # frame 1: before the save
    clock = Clock()
    session.files.watcher = SceneWatcher(path, clock=clock, seen=scene.source_stamp)

    kept = [n for n in names if n in keep]  # the chain order stays valid: parents first
    path.write_text(_toml(kept) if kept else empty, encoding="utf-8")
    clock.t += 1.0
    assert _poll(session) is None  # the change noted; read once it held
    clock.t += 1.0
    new = _poll(session)
    assert session.messages.reload is None, session.messages.reload
    assert new is session.scene and len(new.graph) == len(kept)

    want = {f: [n for n in ns if n in keep] for f, ns in sorted(asked.items())}
    assert session.touches == {f: ns for f, ns in want.items() if ns}
    dropped = sum(len(ns) for ns in asked.values()) - sum(len(ns) for ns in want.values())
    notes = [line for line in err.getvalue().splitlines() if "note:" in line]
    if chosen in keep:
        assert session.selected == new.graph[chosen].id
    else:
        assert session.selected is None
        dropped += 1
        assert any("cleared the selection" in n and repr(chosen) in n for n in notes)
    assert len(notes) == dropped, notes
    for _ in range(6):  # the run goes on through the touched frames
        session.advance(1 / 60)
    assert "Traceback" not in err.getvalue()


@dataclass
class Cam:
    name: str


@given(
    before=st.lists(st.sampled_from(["front", "side", "top", ""]), max_size=4),
    after=st.lists(st.sampled_from(["front", "side", "top", ""]), max_size=4),
    index=st.integers(0, 4),
)
def test_a_chosen_camera_is_found_again_by_name(before, after, index):
    name = camera_name([Cam(n) for n in before], index)
    assert name == (before[index] if index < len(before) else None)
    got, notes = carry_camera([Cam(n) for n in after], name)
    if name is None:
        assert (got, notes) == (None, [])
    elif name in after:
        assert got == after.index(name) and notes == []
    else:
        assert got is None and len(notes) == 1 and repr(name) in notes[0]
