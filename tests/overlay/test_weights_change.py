"""A morph-weights change shows in the overlay as its own kind of change: the node glows
as changed though no matrix moved, and the frame's log block says "Weights"."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gltf_geometry import morph_quad  # noqa: E402

from viewer.io import load_scene  # noqa: E402
from viewer.overlay.timeline_records import FrameRecords  # noqa: E402


def test_the_panel_log_says_weights_for_the_frame(drive, tmp_path):
    channel = ("STEP", [0.0, 0.04, 1.0], [[0.0], [1.0], [1.0]])
    scene = load_scene(morph_quad(tmp_path / "m.gltf", channel=channel))
    d = drive(scene)
    d.frame(4)
    ov = d.app.overlay
    entry = ov.timeline.find(3)
    assert entry.weights == ("Morph",)
    assert entry.log == ["# frame 3", "~Weights      : Morph~"]
    assert ov.timeline.find(2).weights == () and ov.timeline.find(4).weights == ()
    glow, morph = d.app.renderer.glow, scene.graph["Morph"].id
    assert glow.kind_of(morph) == -1 and glow.frame_of[morph] == 3  # red, from frame 3


def test_a_frame_that_moved_nothing_keeps_its_weights_lines():
    from viewer.overlay.stats import FrameStats
    from viewer.scene import SceneGraph

    g = SceneGraph()
    g.add("A")
    g.update()
    report = g.update()  # nothing recomputed
    stats = FrameStats.of_report(7, report, bytes_uploaded=0, update_ms=0.0,
                                 upload_ms=0.0)  # fmt: skip
    entry = FrameRecords().add(7, report, stats, weights=["A\nB"])
    assert entry.log == ["# frame 7", "~Weights      : A\\nB~"]  # names made printable
