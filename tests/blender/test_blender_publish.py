"""`viewer.blender.publish` against a real `sgview listen --headless`: a scene built in code
with ``bpy`` (blender_scene.py: a parented chain with parent inverse matrices, a VERTEX
parent, a 12-bone rig with IK and a bone-parented object, a Copy Location constraint, a
driver, keyframes, an object added, re-parented and removed, an edit) played for 120
frames in the Python that has ``bpy`` (SGVIEW_BLENDER_PYTHON, default
.venv-blender/bin/python; .ci/run makes it). The oracle is what Blender said, recorded by
the scene script's own handler: the viewer's --log names, frame by frame, exactly the
objects Blender's ``depsgraph.updates`` marked ``is_updated_transform`` and the bones of
the armatures it updated; its --dump-world holds Blender's matrices at the end; and a
second viewer (the viewer's own `Listener` and `Mirror`, in this process) holds them at
every frame, to 1e-6 relative, with the causes Blender's drivers, constraints and
parents give."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from needs import missing, need_gl

from viewer.attach.mirror import Mirror
from viewer.attach.server import Listener

ROOT = Path(__file__).parents[2]
SCRIPT = Path(__file__).parent / "blender_scene.py"
FRAMES = 120
RELATIVE = 1e-6


def blender_python() -> str:
    """The Python that has bpy (with numpy < 2, beside this one's numpy 2), else `missing`."""
    python = os.environ.get("SGVIEW_BLENDER_PYTHON") or str(ROOT / ".venv-blender/bin/python")
    if not Path(python).is_file():
        missing(f"needs a Python with bpy at {python} (SGVIEW_BLENDER_PYTHON; .ci/run makes it)")
    probe = subprocess.run([python, "-c", "import bpy"], capture_output=True, text=True,
                           timeout=120)  # fmt: skip
    if probe.returncode != 0:
        missing(f"{python} cannot import bpy: {probe.stderr.strip().splitlines()[-1:]}")
    return python


def close_enough(mine: np.ndarray, blender: np.ndarray) -> bool:
    scale = max(float(np.abs(blender).max()), 1.0)
    return bool(np.abs(mine - blender).max() <= RELATIVE * scale)


def expected_frames(recorded: list[dict]) -> list[dict]:
    """The evaluations the publisher sends: every frame change, and each edit that
    re-evaluated a transform or a pose or changed the hierarchy."""
    out, tree = [], None
    for event in recorded:
        shape = (sorted(event["worlds"]), event["bones"])
        if event["kind"] == "frame" or event["moved"] or event["posed"] or shape != tree:
            out.append(event)
        tree = shape
    return out


def recomputed(event: dict) -> set[str]:
    names = set(event["moved"])
    for armature in event["posed"]:
        names.update(event["bones"][armature])
    return names


def logged_frames(log: str) -> dict[int, set[str]]:
    frames: dict[int, set[str]] = {}
    current = None
    for line in log.splitlines():
        if line.startswith("# frame "):
            current = frames.setdefault(int(line.removeprefix("# frame ")), set())
        elif line.startswith("=Update World : ") and current is not None:
            current.add(line.removeprefix("=Update World : ").removesuffix("="))
    return frames


class SecondViewer:
    """The viewer's receiving side in this process: every frame applied to a `Mirror`,
    and the mirror's world matrices and the frame's causes kept per frame."""

    def __init__(self) -> None:
        self.listener = Listener("127.0.0.1", 0)
        host, port = self.listener.start()
        self.address = f"{host}:{port}"
        self.worlds: dict[int, dict[str, np.ndarray]] = {}
        self.causes: dict[int, dict[str, str]] = {}
        self.merged: list[int] = []
        self.stale: list[tuple[int, list[str]]] = []
        #: The held reasons Blender's publisher gave, as the viewer holds them at the end.
        self.reasons: dict[str, str] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        if not self.listener.wait_program(120):
            return
        program, mirror = self.listener.programs[0], Mirror("blender")
        while not self.done.is_set() or program.pending():
            frame = program.take(wait=0.05)
            if frame is None:
                continue
            report = mirror.apply(frame)
            graph = mirror.graph
            name = graph.name_of
            world = graph.world_matrices()
            self.worlds[frame.frame] = {
                name(i): world[i].copy() for i in graph.alive_ids().tolist()
            }
            self.causes[frame.frame] = {
                name(i): name(c)
                for i, c in zip(report.world_updated.tolist(), report.cause.tolist())
            }
            self.merged.append(frame.merged)
            stale = getattr(report, "stale", np.zeros(0, dtype=np.int64))
            if stale.size:
                self.stale.append((frame.frame, [name(i) for i in stale.tolist()]))
            self.reasons = {
                name(i): why
                for i in graph.alive_ids().tolist()
                if (why := mirror.given_reason(i)) is not None
            }

    def close(self) -> None:
        self.done.set()
        self.thread.join(60)
        self.listener.close()


def test_blender_frames_reach_sgview_as_blender_computed_them(tmp_path):
    python = blender_python()
    need_gl().release()
    dump, out = tmp_path / "world.json", tmp_path / "blender.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    viewer_proc = subprocess.Popen(
        [sys.executable, "-m", "viewer", "listen", "127.0.0.1:0", "--headless", "--size",
         "320x200", "--samples", "0", "--frames", "100000", "--log", "--dump-world", str(dump)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    first = viewer_proc.stderr.readline().strip()
    assert first.startswith("sgview: listening on 127.0.0.1:"), first
    address = first.removeprefix("sgview: listening on ")
    second = SecondViewer()
    try:
        blender = subprocess.run(
            [python, str(SCRIPT), str(out), str(FRAMES), address, second.address],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert blender.returncode == 0, blender.stderr[-3000:]
        log, err = viewer_proc.communicate(timeout=120)
        assert viewer_proc.returncode == 0, err
    finally:
        if viewer_proc.poll() is None:
            viewer_proc.kill()
        second.close()
    result = json.loads(out.read_text())
    events = expected_frames(result["frames"])
    assert result["sent"] == [len(events)] * 2
    assert sum(e["kind"] == "frame" for e in events) == FRAMES
    assert any(e["kind"] == "edit" for e in events)

    # The log: per frame, the names Blender's update lists give (frames with none: no block).
    want = {k: recomputed(e) for k, e in enumerate(events, start=1) if recomputed(e)}
    got = logged_frames(log)
    assert got == want, [
        (k, got.get(k, set()) ^ want.get(k, set()))
        for k in set(got) | set(want)
        if got.get(k) != want.get(k)
    ]
    played = [recomputed(e) for e in events if e["kind"] == "frame"]
    assert all({"Base", "bone11", "OnBone", "Follower"} <= names for names in played)
    assert all("Still" not in names for names in played)  # never re-evaluated while played

    # The dump at the end: Blender's last matrices, every node.
    dumped = {name: np.array(m) for name, m in json.loads(dump.read_text()).items()}
    final = events[-1]["worlds"]
    assert sorted(dumped) == sorted(final)
    for name, world in final.items():
        assert close_enough(dumped[name], np.array(world)), name

    # Every frame, in the second viewer: Blender's matrices, one message per frame.
    assert second.merged == [1] * len(events)
    for k, event in enumerate(events, start=1):
        mine = second.worlds[k]
        assert sorted(mine) == sorted(event["worlds"]), k
        for name, world in event["worlds"].items():
            assert close_enough(mine[name], np.array(world)), (k, name, event["blender_frame"])
    assert second.stale == []  # no shear in this scene: each world is parent · local
    # Held reasons: the IK chain (bone11 and the four above it) and the constrained object;
    # nothing else (a driver sets channels, which parent · local composes).
    ik_chain = {f"bone{k}": "ik" for k in range(7, 12)}
    assert second.reasons == {**ik_chain, "Follower": "constraint"}

    # The hierarchy changed on the way: added, re-parented, removed.
    seen = [set(e["worlds"]) for e in events]
    assert any("Newcomer" in names for names in seen) and "Newcomer" not in seen[-1]
    assert "Tip" in seen[0] and "Tip renamed" in seen[-1] and "Still renamed" in seen[-1]

    # Causes: the driver's target, the constraint's, the parent's, the node itself.
    at = {e["blender_frame"]: k for k, e in enumerate(events, start=1) if e["kind"] == "frame"}
    early, late = second.causes[at[20]], second.causes[at[100]]
    assert early["Driven"] == "Base" and late["Driven"] == "Base"  # driver on Base's x
    assert early["Follower"] == "Base"  # Copy Location of Base
    assert early["bone11"] == "IKTarget" and early["bone7"] == "IKTarget"  # the IK chain
    assert early["bone0"] == "bone0"  # keyframed until frame 90
    assert early["Tip"] == "Arm2" and late["Tip"] == "Base"  # Arm2's keys end at frame 80
    assert early["Arm1"] == "Base" and early["Base"] == "Base"


@pytest.mark.parametrize("count", [1, 7])
def test_derived_locals_compose_to_the_worlds(count):
    """The publisher's compiled split of ``inverse(parent world) · world`` against the
    core's own decomposition and numpy's inverse, mirrors included."""
    from viewer.blender.nodes import PublishedNodes
    from viewer.scene.math import decompose, trs_matrix

    rng = np.random.default_rng(count)
    nodes = PublishedNodes()
    ids = np.array([nodes.new_id(f"n{k}") for k in range(count + 1)])
    parents = np.array([-1, *range(count)])  # a chain
    nodes.set_structure(ids, parents, [f"n{k}" for k in ids])
    worlds = []
    for _ in ids:
        q = rng.normal(size=4)
        scale = rng.uniform(0.5, 2.0) * np.array([rng.choice([-1, 1]), 1.0, 1.0])
        worlds.append(trs_matrix(rng.normal(size=3), q / np.linalg.norm(q), scale))
    nodes.set_worlds(ids, np.array(worlds))
    nodes.derive_locals(ids)
    pos, rot, scl = nodes.local_values()
    for k in ids.tolist():
        local = worlds[k] if k == 0 else np.linalg.inv(worlds[k - 1]) @ worlds[k]
        np.testing.assert_allclose(trs_matrix(pos[k], rot[k], scl[k]), local, atol=1e-9)
        _, q, s = decompose(local)
        np.testing.assert_allclose(scl[k], s, atol=1e-9)
        np.testing.assert_allclose(abs(rot[k] @ q), 1.0, atol=1e-9)


ADDON_RUN = """
import sys
import bpy
import viewer.blender.addon as addon

addon.register()
scene = bpy.context.scene
scene.sgview.address, scene.sgview.program = sys.argv[1], "add-on test"
assert bpy.ops.sgview.publish() == {"FINISHED"}
link = addon._published[0]
assert link.wait_connected(60)
cube = bpy.data.objects["Cube"]
cube.keyframe_insert("location", frame=1)
cube.location.x = 3.0
cube.keyframe_insert("location", frame=5)
for frame in range(1, 6):
    scene.frame_set(frame)
link.flush(30)
assert bpy.ops.sgview.stop() == {"FINISHED"} and not addon._published
addon.unregister()
"""


def test_the_addon_publishes_from_its_operator(tmp_path):
    """The add-on as Blender runs it: registered, its operator started from the scene's
    settings, frames in the viewer's log under the name given, stopped, unregistered."""
    python = blender_python()
    need_gl().release()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    viewer_proc = subprocess.Popen(
        [sys.executable, "-m", "viewer", "listen", "127.0.0.1:0", "--headless", "--size",
         "320x200", "--samples", "0", "--frames", "1000", "--log"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        first = viewer_proc.stderr.readline().strip()
        address = first.removeprefix("sgview: listening on ")
        run = subprocess.run([python, "-c", ADDON_RUN, address], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=300)  # fmt: skip
        assert run.returncode == 0, run.stderr[-3000:]
        log, err = viewer_proc.communicate(timeout=120)
    finally:
        if viewer_proc.poll() is None:
            viewer_proc.kill()
    assert "sgview: add-on test left after 5 frames" in err
    assert logged_frames(log) == {k: {"Cube"} for k in range(1, 6)}
