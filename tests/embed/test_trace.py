"""`--trace`: a valid Chrome Trace Event file whose counters equal the frame reports.

The counters are checked against an independent replay: the same scene stepped by a bare
`Session` (no GL) with the headless clock gives the reports the run must have had.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from viewer.cli.main import main
from viewer.io import load_scene
from viewer.keys.script import parse_keys
from viewer.session.session import Session
from viewer.trace import COUNTERS, NODE_EVENTS_PER_FRAME
from viewer.window.runner import RunOptions, run

REPO = Path(__file__).resolve().parents[2]
TREE10 = str(REPO / "scenes" / "tree10.toml")  # still, but for two scripted touches
SOLAR = str(REPO / "scenes" / "solar_system.toml")  # moves every frame
PHASES = {"motions", "on_frame", "keys", "update", "upload", "draw", "overlay"}


def validate(doc) -> list[dict]:
    """Check `doc` against the Trace Event format (JSON object form); return its events."""
    assert isinstance(doc, dict) and isinstance(doc["traceEvents"], list)
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    last = -1.0
    for e in doc["traceEvents"]:
        assert isinstance(e["name"], str) and e["name"]
        assert e["ph"] in ("X", "C", "i", "M"), e
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0
        assert e["ts"] >= last, f"timestamps go back at {e}"
        last = e["ts"]
        if e["ph"] == "X":
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0
        if e["ph"] == "C":
            assert e["args"] and all(isinstance(v, (int, float)) for v in e["args"].values())
        if e["ph"] == "i":
            assert e["s"] in ("g", "p", "t")
        if "args" in e:
            assert isinstance(e["args"], dict)
    return doc["traceEvents"]


def frames_of(events) -> list[dict]:
    """Per simulated frame: {"frame": n, "span": event, "phases": {...}, "counters": {...},
    "nodes": [...]}, in order."""
    out = []
    for e in events:
        if e["ph"] == "X" and e["cat"] == "frame":
            out.append({"span": e, "phases": {}, "counters": {}, "nodes": []})
        elif e["ph"] == "X":
            out[-1]["phases"][e["name"]] = e
        elif e["ph"] == "C":
            out[-1]["counters"].update(e["args"])
        elif e["ph"] == "i":
            out[-1]["nodes"].append(e)
    for f in out:  # every phase lies inside its frame's span
        span = f["span"]
        for p in f["phases"].values():
            assert span["ts"] <= p["ts"] and p["ts"] + p["dur"] <= span["ts"] + span["dur"] + 1e-3
    return out


def replay(path: str, frames: int) -> list:
    """The reports of `frames` headless frames of the scene at `path`, without GL."""
    session = Session(load_scene(path), fixed_step=1.0 / 60.0)
    return [session.step(1.0 / 60.0).report for _ in range(frames)]


def expected_counters(report) -> dict:
    return {
        "local": report.local_updated.size,
        "world": report.world_updated.size,
        "executed": report.executed.size,
        "products": report.products,
        "naive products": report.naive_products,
        "suppressed": report.suppressed,
    }


@pytest.mark.parametrize("scene, changing", [(TREE10, 2), (SOLAR, 120)])
def test_trace_is_valid_and_its_counters_equal_the_frame_reports(egl, tmp_path, scene, changing):
    out = tmp_path / "t.json"
    assert main([scene, "--headless", "--frames", "120", "--size", "160x90",
                 "--trace", str(out)]) == 0  # fmt: skip
    frames = frames_of(validate(json.loads(out.read_text())))
    reports = replay(scene, 120)
    assert len(frames) == 120
    moving = 0
    for n, (f, report) in enumerate(zip(frames, reports), start=1):
        assert f["span"]["name"] == f"frame {n}" and f["span"]["args"]["frame"] == n
        assert {"motions", "update", "upload"} <= set(f["phases"]) <= PHASES
        # the trace records the run as it goes without it: headless, only the last
        # frame's picture is kept, so only it is drawn (test_a_recorded_run_... below)
        assert ("draw" in f["phases"]) == (n == 120), n
        got = dict(f["counters"])
        assert set(got) == {name for name, _ in COUNTERS}
        assert got.pop("bytes uploaded") >= 0
        assert got == expected_counters(report)
        names = [e["name"] for e in f["nodes"]]
        assert names == [report.name(i) for i in report.world_updated.tolist()]
        causes = [e["args"]["cause"] for e in f["nodes"]]
        assert causes == [report.name(i) for i in report.cause.tolist()]
        moving += bool(names)
    assert moving == changing  # frames that recomputed something: not all empty


def test_a_recorded_run_traces_the_drawing_of_every_frame(egl, tmp_path):
    """Every recorded frame is drawn, so each has its draw phase in the trace."""
    out = tmp_path / "t.json"
    assert main([SOLAR, "--headless", "--frames", "20", "--size", "160x90",
                 "--record", str(tmp_path / "r.gif"), "--trace", str(out)]) == 0  # fmt: skip
    frames = frames_of(validate(json.loads(out.read_text())))
    assert len(frames) == 20
    for f in frames:
        assert {"motions", "update", "upload", "draw"} <= set(f["phases"]) <= PHASES


def test_bytes_paused_redraws_node_cap_and_on_frame(egl, tmp_path):
    """Bytes equal the panel's; a paused redraw has no counters; the per-node events stop
    at the cap with a count of those left out; the user's callback is a phase."""
    from viewer.io import generate_scene

    scene = generate_scene("chain:400")  # 400 nodes: a root change recomputes them all
    out = tmp_path / "t.json"
    root = scene.graph.node(int(scene.graph.alive_ids()[0]))

    def nudge(graph, frame, t):
        root.translate((0.01, 0.0, 0.0))

    options = RunOptions(size=(160, 90), frames=4, samples=0, trace=out, on_frame=[nudge],
                         script=parse_keys("Space@2,.@3"))  # fmt: skip
    app = run(scene, options, headless=True)
    events = validate(json.loads(out.read_text()))
    spans = [e for e in events if e["ph"] == "X" and e["cat"] == "frame"]
    assert [s["name"] for s in spans] == ["frame 1", "paused", "frame 2", "paused"]
    frames = frames_of(events)
    simulated = [f for f in frames if f["counters"]]
    assert len(simulated) == 2 and not frames[1]["counters"] and not frames[1]["nodes"]
    for f in simulated:
        assert "on_frame" in f["phases"]
        entry = app.overlay.timeline.find(f["span"]["args"]["frame"])
        assert f["counters"]["bytes uploaded"] == entry.stats.bytes_uploaded > 0
        assert f["counters"]["world"] == 400
        listed = [e for e in f["nodes"] if e["name"] != "nodes left out"]
        assert len(listed) == NODE_EVENTS_PER_FRAME
        (left,) = [e for e in f["nodes"] if e["name"] == "nodes left out"]
        assert left["args"]["count"] == 400 - NODE_EVENTS_PER_FRAME


@pytest.mark.parametrize("spec", ["Q@1", "L@3"])
def test_bad_keys_exit_2_in_one_line(egl, capsys, spec):
    assert main([TREE10, "--headless", "--frames", "2", "--keys", spec]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("sgview: --keys")
