"""The Babylon.js publisher on a real page in a real browser: tests/attach/babylonjs_page.py's
page (a real ``Engine`` on a canvas, WebGL through SwiftShader; an animated rig, a
parented chain, a frozen node under a moving parent, a billboard, a node added and one
disposed, a mesh's thin instances moved, added and dropped) runs in Debian's chromium
(Playwright), imports clients/babylonjs/sgview-publish.js and @babylonjs/core's ES modules
from clients/babylonjs/node_modules, served from 127.0.0.1, publishes with the browser's own
WebSocket, and records per frame what Babylon recomputed (its observables; for thin
instances, its own calls) and every node's cached world matrix itself. The oracle is
Babylon: converted by docs/babylonjs.md's rule (Babylon's ``m`` read column by column, then
``S · M · S`` with ``S = diag(1, 1, -1, 1)`` for its left-handed scene, written again
here), every world sgview holds equals Babylon's.

Twice: against sgview's own listener and mirror in this process (the code ``sgview
listen`` runs), which keep each frame's worlds; and against a real ``sgview listen
--headless --log --dump-world``, whose log names per frame what Babylon recomputed and
which nodes it holds (frozen, billboard), and whose dump holds Babylon's last worlds. With
CI=true a missing chromium, Playwright or node_modules fails the run."""

from __future__ import annotations

import re

import babylonjs_page
import numpy as np
import pytest
from attach_helpers import ROOT
from bench_modules import load_bench
from browser_pages import chromium, listened, run_page, watched

pytestmark = pytest.mark.browser

FRAMES = babylonjs_page.FRAMES
CLIENT = ROOT / "clients" / "babylonjs"
CORE = CLIENT / "node_modules" / "@babylonjs" / "core"
TOLERANCE = 1e-6
S = np.diag([1.0, 1.0, -1.0, 1.0])


def _sgview_world(m: list[float]) -> np.ndarray:
    """Babylon's 16 numbers (row vectors, left-handed) as sgview's column-vector,
    right-handed matrix, rows first."""
    return S @ np.asarray(m, dtype=np.float64).reshape(4, 4).T @ S


def _off(mine: np.ndarray, theirs: np.ndarray) -> float:
    return float(np.abs(mine - theirs).max()) / max(float(np.abs(theirs).max()), 1.0)


@pytest.fixture(scope="module")
def bench():
    return load_bench("threejs_examples")


@pytest.fixture(scope="module")
def browser(bench):
    with chromium(
        CORE / "index.js", "needs clients/babylonjs/node_modules (cd clients/babylonjs && npm ci)"
    ) as launched:
        yield launched


def _run_page(bench, browser, ws_url: str) -> list[dict]:
    """Load the page publishing to ``ws_url``; returns its record once it closed its link."""
    return run_page(
        bench,
        browser,
        babylonjs_page.page_html(ws_url),
        {"/babylon/": CORE, "/sgview/": CLIENT},
        FRAMES,
    )


@pytest.fixture(scope="module")
def in_process(bench, browser):
    """(the page's record, what sgview's mirror held after each frame)."""
    return watched(bench, lambda url: _run_page(bench, browser, url), FRAMES)


@pytest.fixture(scope="module")
def headless(bench, browser, tmp_path_factory):
    """(the page's record, ``sgview listen --headless``'s log by frame, its dump)."""
    dump = tmp_path_factory.mktemp("babylonjs-browser") / "world.json"
    return listened(lambda url: _run_page(bench, browser, url), FRAMES, dump)


def _names_in(log_lines: list[str], kind: str) -> set[str]:
    marks = {"world": "=Update World : (.+)=", "stale": "!Stale World : (.+)!",
             "held": "!Held World : (.+)!"}  # fmt: skip
    return {m[1] for line in log_lines if (m := re.fullmatch(marks[kind], line))}


def test_the_page_does_what_it_says(in_process):
    """The oracle's own checks: Babylon holds the statue frozen once its parent moved after
    it froze (and no longer recomputes it), turns the sign every frame, leaves nothing
    stale, computes the added node in the frame it came, and the node tree changes where
    the page says."""
    recorded, _ = in_process
    for entry in recorded:
        k = entry["step"]
        held = {"Sign (billboard)"} | ({"Statue (frozen)"} if k > babylonjs_page.FROZEN else set())
        assert set(entry["held"]) == held, k
        assert entry["stale"] == [], k
        assert ("Late" in entry["names"]) == (k >= babylonjs_page.ADDED), k
        assert ("Doomed" in entry["names"]) == (k < babylonjs_page.REMOVED), k
        assert ("Statue" in entry["recomputed"]) == (k <= babylonjs_page.FROZEN), k
        assert ("Late" in entry["recomputed"]) == (k == babylonjs_page.ADDED), k
        assert {"Rig", "Arm", "Hand", "Link2", "Carrier", "Sign"} <= set(entry["recomputed"])
        thin = [name for name in entry["names"] if name.startswith("Swarm#thin ")]
        grown = 2 if k >= babylonjs_page.THIN_ADDED else 0
        assert len(thin) == 12 + grown - (3 if k >= babylonjs_page.THIN_DROPPED else 0), k
        moved = {name for name in entry["recomputed"] if name.startswith("Swarm#thin ")}
        everything = k % 5 == 0 or k == babylonjs_page.THIN_BUFFER
        assert moved == set(thin) if everything else 1 <= len(moved) <= 3, k


def _thin_ids(got) -> dict[tuple[int, int], int]:
    """(mesh id, K) -> the id the publisher gave thin instance K of that mesh: its
    children numbered from 2^31 (the publisher's thin instances), in their order."""
    out: dict[tuple[int, int], int] = {}
    count: dict[int, int] = {}
    for node, parent in zip(got.ids.tolist(), got.parents.tolist(), strict=True):
        if node >= 2**31:
            out[parent, count.get(parent, 0)] = node
            count[parent] = count.get(parent, 0) + 1
    return out


def test_every_world_in_every_frame_is_babylons(in_process):
    """sgview's mirror after each frame holds exactly Babylon's nodes, each with Babylon's
    cached world converted (the frozen statue's and the turned sign's included)."""
    recorded, seen = in_process
    worst: dict[str, float] = {}
    for entry in recorded:
        got = seen[entry["frame"]]
        assert got.merged == 1, entry["frame"]
        thin_ids = _thin_ids(got)
        ids = [thin_ids.get(tuple(thin or ()), node) for node, thin in zip(entry["ids"],
               entry["thin"], strict=True)]  # fmt: skip
        assert sorted(got.ids.tolist()) == sorted(ids), entry["frame"]
        index = {node: i for i, node in enumerate(got.ids.tolist())}
        for node, name, m in zip(ids, entry["names"], entry["worlds"], strict=True):
            off = _off(got.worlds[index[node]], _sgview_world(m))
            worst[name] = max(worst.get(name, 0.0), off)
        assert got.stale == frozenset(), entry["frame"]  # held nodes are not stale
    assert max(worst.values()) <= TOLERANCE, worst
    assert {"Statue", "Sign", "Late", "Doomed", "Hand", "Link2", "Swarm#thin 13"} <= set(worst)


def test_headless_listen_logs_what_babylon_recomputed_and_holds(headless):
    """Each frame's log names exactly the nodes Babylon's observables said it recomputed,
    holds the statue (frozen) and the sign (billboard) where Babylon does, and calls
    nothing stale."""
    recorded, log, _ = headless
    assert sorted(log) == list(range(1, FRAMES + 1))
    for entry in recorded:
        lines = log[entry["frame"]]
        assert _names_in(lines, "world") == set(entry["recomputed"]), entry["frame"]
        assert _names_in(lines, "held") == set(entry["held"]), entry["frame"]
        assert _names_in(lines, "stale") == set(entry["stale"]) == set(), entry["frame"]
    held = set().union(*(_names_in(lines, "held") for lines in log.values()))
    assert held == {"Statue (frozen)", "Sign (billboard)"}


def test_headless_listen_dumps_babylons_worlds(headless):
    recorded, _, dumped = headless
    last = recorded[-1]
    assert sorted(dumped) == sorted(last["names"])
    off = {
        name: _off(np.asarray(dumped[name], dtype=np.float64), _sgview_world(m))
        for name, m in zip(last["names"], last["worlds"], strict=True)
    }
    assert max(off.values()) <= TOLERANCE, off


def test_the_conversion_is_the_documented_rule():
    """Babylon's translation (m[12..14]) lands in column 3 with z negated, and a turn about
    Babylon's y axis reads as the opposite turn about sgview's."""
    a = 0.3
    c, s = np.cos(a), np.sin(a)
    # Babylon's RotationY(a) then translation (1, 2, 3), row-vector layout
    babylon = [c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 1, 2, 3, 1]
    mine = _sgview_world(babylon)
    np.testing.assert_allclose(mine[:3, 3], [1, 2, -3])
    np.testing.assert_allclose(mine[:3, :3], [[c, 0, -s], [0, 1, 0], [s, 0, c]], atol=1e-15)
