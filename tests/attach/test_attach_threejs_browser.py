"""The three.js publisher on a real page in a real browser: tests/attach/threejs_page.py's
page (a skinned arm played by an AnimationMixer, an InstancedMesh and a BatchedMesh,
nested groups, an object added, one removed, one re-parented with ``attach()`` and left
with ``matrixAutoUpdate`` off) runs in Debian's chromium (Playwright, WebGL through
SwiftShader), imports clients/threejs/sgview-publish.js and three from
clients/threejs/node_modules, served from 127.0.0.1, and records every object's
``matrixWorld`` in each frame itself. The oracle is three: every world sgview holds equals
three's in every frame, and the objects added are there in the frame they were added.

Twice: against sgview's own listener and mirror in this process (the code ``sgview
listen`` runs), which keep each frame's worlds; and against a real ``sgview listen
--headless --log --dump-world``, whose log names per frame what three recomputed and whose
dump holds three's last worlds. With CI=true a missing chromium, Playwright or
node_modules fails the run."""

from __future__ import annotations

import re

import numpy as np
import pytest
import threejs_page
from bench_modules import load_bench
from browser_pages import chromium, listened, run_page, watched

pytestmark = pytest.mark.browser

FRAMES = threejs_page.FRAMES
#: Every object of the page, in the frames it is in (Drone and Rotor from ADDED on,
#: Doomed until REMOVED).
ALWAYS = (  # fmt: skip
    "Scene",
    "Ambient",
    "Sun",
    "Rig",
    "Arm",
    "Bone0",
    "Bone1",
    "Bone2",
    "Outer",
    "Middle",
    "O0",
    "O1",
    "O2",
    "M0",
    "M1",
    "M2",
    "Inner",
    "I0",
    "I1",
    "I2",
    "Traveler",
    "Passenger",
    "CrowdHolder",
    "Crowd",
    "Batch",
    "Skewed",
)


@pytest.fixture(scope="module")
def bench():
    return load_bench("threejs_examples")


@pytest.fixture(scope="module")
def browser(bench):
    with chromium(
        bench.PINNED_THREE / "build" / "three.module.js",
        "needs clients/threejs/node_modules (cd clients/threejs && npm ci)",
    ) as launched:
        yield launched


def _run_page(bench, browser, ws_url: str) -> list[dict]:
    """Load the page publishing to ``ws_url``; returns its record once it closed its link."""
    return run_page(
        bench,
        browser,
        threejs_page.page_html(ws_url, bench.RECORDER_JS),
        {"/build/": bench.PINNED_THREE / "build", "/sgview/": bench.CLIENT},
        FRAMES,
    )


@pytest.fixture(scope="module")
def in_process(bench, browser):
    """(the page's record, what sgview's mirror held after each frame)."""
    return watched(bench, lambda url: _run_page(bench, browser, url), FRAMES)


@pytest.fixture(scope="module")
def headless(bench, browser, tmp_path_factory):
    """(the page's record, ``sgview listen --headless``'s log by frame, its dump)."""
    dump = tmp_path_factory.mktemp("threejs-browser") / "world.json"
    return listened(lambda url: _run_page(bench, browser, url), FRAMES, dump)


def _names_in(log_lines: list[str], kind: str) -> set[str]:
    marks = {"local": r"\*Update Local : (.+)\*", "world": "=Update World : (.+)=",
             "stale": "!Stale World : (.+)!"}  # fmt: skip
    return {m[1] for line in log_lines if (m := re.fullmatch(marks[kind], line))}


def _present(k: int) -> set[str]:
    names = set(ALWAYS)
    if k >= threejs_page.ADDED:
        names |= {"Drone", "Rotor"}
    if k < threejs_page.REMOVED:
        names.add("Doomed")
    return names


def test_the_page_does_what_it_says(in_process):
    """The oracle's own checks: the scene changes where the page says, and three leaves
    exactly Traveler's world stale once attach() sheared its matrix."""
    recorded, _ = in_process
    for entry in recorded:
        assert len(entry["ids"]) == len(_present(entry["frame"]))
        stale = len(entry["stale"])
        assert stale == (1 if entry["frame"] >= threejs_page.ATTACHED else 0), entry["frame"]


def test_every_world_in_every_frame_is_threes(bench, in_process):
    recorded, seen = in_process
    result = bench.compare(recorded, seen)
    assert result.problems == []
    assert result.frames == FRAMES and result.merged == 0
    assert result.objects == len(ALWAYS) + 3  # Drone and Rotor in while Doomed is still
    assert result.max_diff <= bench.TOLERANCE, result
    # Drone and Rotor: in sgview's mirror in the very frame the page added them
    assert (result.added, result.added_on_time) == (2, 2)


def test_stale_worlds_are_threes_and_flagged(bench, in_process):
    """Traveler's world is three's sheared one (not parent · local), Passenger's is
    three's too, and sgview flags Traveler stale from the frame it was attached."""
    recorded, seen = in_process
    result = bench.compare(recorded, seen)
    assert result.stale == 1
    assert result.stale_diff <= bench.TOLERANCE, result
    for k in range(1, FRAMES + 1):
        assert len(seen[k].stale) == (1 if k >= threejs_page.ATTACHED else 0), k


def test_headless_listen_logs_what_three_recomputed(headless):
    """Each frame's log: three composed every auto-updated object's local matrix and
    recomputed every world (the scene root forces them all); after attach() Traveler and
    Passenger, no longer auto-updated, are only forced. Added objects are logged in the
    frame they were added; the removed one no more after its frame."""
    _, log, _ = headless
    assert sorted(log) == list(range(1, FRAMES + 1))
    for k, lines in log.items():
        present = _present(k)
        assert _names_in(lines, "world") == present, k
        manual = {"Traveler", "Passenger"} if k > threejs_page.ATTACHED else set()
        assert _names_in(lines, "local") == present - manual, k
    assert {"Drone", "Rotor"} <= _names_in(log[threejs_page.ADDED], "world")
    assert "Doomed" not in _names_in(log[threejs_page.REMOVED], "world")


def _dump_off(headless) -> dict[str, float]:
    """Per object: how far the dumped world is from three's in the last frame."""
    recorded, _, dumped = headless
    last = recorded[-1]
    worlds = np.asarray(last["worlds"], dtype=np.float64).reshape(-1, 4, 4).transpose(0, 2, 1)
    assert sorted(dumped) == sorted(last["names"]) == sorted(_present(FRAMES))
    off = {}
    for name, theirs in zip(last["names"], worlds, strict=True):
        scale = max(float(np.abs(theirs).max()), 1.0)
        off[name] = float(np.abs(np.asarray(dumped[name]) - theirs).max()) / scale
    return off


def test_headless_listen_dumps_threes_worlds(bench, headless):
    off = _dump_off(headless)
    consistent = {n: d for n, d in off.items() if n not in threejs_page.MOVED}
    assert max(consistent.values()) <= bench.TOLERANCE, consistent


def test_headless_listen_dumps_and_logs_the_stale_world(bench, headless):
    """The dump holds three's sheared world for Traveler and the world three computed
    from it for Passenger; the log names Traveler stale in the frame attach() made it so."""
    off = _dump_off(headless)
    assert max(off[n] for n in threejs_page.MOVED) <= bench.TOLERANCE, off
    _, log, _ = headless
    flagged = {k for k, lines in log.items() if _names_in(lines, "stale")}
    assert threejs_page.ATTACHED in flagged
    assert _names_in(log[threejs_page.ATTACHED], "stale") == set(threejs_page.STALE)


def test_the_comparison_sees_what_it_is_for(bench):
    """bench.compare on made-up frames: a world off by more than the tolerance, an object
    sgview lacks in the frame it was added, a stale node sgview did not flag and a frame
    that never arrived each fail; equal ones pass."""
    eye = np.eye(4)
    moved = eye.copy()
    moved[0, 3] = 2.0  # a translation: column 3 of the rows, elements 12 of three's
    three_moved = moved.T.reshape(16).tolist()

    def entry(frame, ids, parents, stale=()):
        worlds = [*eye.reshape(16).tolist(), *three_moved * (len(ids) - 1)]
        return {"frame": frame, "ids": ids, "parents": parents, "worlds": worlds,
                "stale": list(stale)}  # fmt: skip

    def seen(ids, parents, worlds, stale=()):
        return bench.Seen(np.array(ids), np.array(parents), np.array(worlds), 1, frozenset(stale))

    recorded = [entry(1, [1, 2], [-1, 1]), entry(2, [1, 2, 3], [-1, 1, 1], stale=[3])]
    good = {
        1: seen([1, 2], [-1, 1], [eye, moved]),
        2: seen([1, 2, 3], [-1, 1, 1], [eye, moved, moved], stale=[3]),
    }
    result = bench.compare(recorded, good)
    assert result.passed and (result.added, result.added_on_time, result.stale) == (1, 1, 1)

    off = moved.copy()
    off[1, 3] = 1e-5
    late = {1: good[1], 2: seen([1, 2], [-1, 1], [eye, off])}
    result = bench.compare(recorded, late)
    assert not result.passed and result.added_on_time == 0
    assert result.max_diff == pytest.approx(1e-5 / 2)
    assert any("stale" in p for p in result.problems)
    assert not bench.compare(recorded, {1: good[1]}).passed  # frame 2 never came
