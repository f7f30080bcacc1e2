"""Traces and recordings stream to disk (issue 26): the memory a `TraceWriter` or a GIF
`Recorder` holds does not grow with the length of the run, and the finished files are
complete and valid. Measured with tracemalloc at two run lengths (the peak resident size
of whole runs at two lengths is bench/growth.py's)."""

from __future__ import annotations

import gc
import json
import tracemalloc

import numpy as np
from PIL import Image

from viewer.io import generate_scene
from viewer.render.offscreen import Recorder
from viewer.trace import NODE_EVENTS_PER_FRAME, TraceWriter

#: Growth allowed per frame once warm (the old trace kept ~150 kB per frame at 3,000
#: nodes, the old GIF ~55 kB at 320x180).
BYTES_PER_FRAME = 512


def _held_bytes(step, counts):
    """Traced memory after each of `counts` calls of `step` in a row (after a warm-up),
    garbage collected first: what is held, not what a gc pass has yet to free (Pillow's
    GIF writer makes a class per frame, freed only by the cycle collector, so without
    it the reading swung with the collector's timing, 400 to 770 bytes a frame)."""
    tracemalloc.start()
    try:
        held = []
        done = 0
        for count in counts:
            while done < count:
                step(done)
                done += 1
            gc.collect()
            held.append(tracemalloc.get_traced_memory()[0])
        return held
    finally:
        tracemalloc.stop()


def test_a_long_trace_holds_no_more_memory_than_a_short_one(tmp_path):
    scene = generate_scene("balanced:3000")
    graph = scene.graph
    graph.update()
    path = tmp_path / "t.json"
    writer = TraceWriter(path)
    root = graph.node(int(graph.alive_ids()[0]))

    def redraw(k):
        graph.touch(root)  # every node's world recomputed: the most a frame can list
        report = graph.update()
        writer.redraw(k + 1, 0.001 * k, 0.001 * k + 0.0005, [("update", 0.001 * k, 0.001 * k
                      + 0.0004)], frame=k + 1, report=report, bytes_uploaded=3000 * 64)  # fmt: skip

    short, long = 60, 260
    held = _held_bytes(redraw, [short, long])
    growth = (held[1] - held[0]) / (long - short)
    assert growth < BYTES_PER_FRAME, f"{growth:.0f} bytes per frame"
    writer.close()
    doc = json.loads(path.read_text())
    events = doc["traceEvents"]
    per_frame = 2 + 7 + NODE_EVENTS_PER_FRAME + 1  # span, phase, counters, nodes, left out
    assert len(events) == 2 + long * per_frame and doc["displayTimeUnit"] == "ms"
    assert sum(e["name"] == "nodes left out" for e in events) == long
    print(f"trace: {growth:.0f} bytes/frame held, file {path.stat().st_size / long:.0f} B/frame")


def test_a_long_gif_recording_holds_no_more_memory_than_a_short_one(tmp_path):
    size = (160, 90)
    path = tmp_path / "r.gif"
    recorder = Recorder(path, size)
    yy, xx = np.mgrid[0 : size[1], 0 : size[0]]

    def frame(k):
        rgb = np.stack([(xx + 3 * k) % 256, (yy + k) % 256, (xx ^ yy) % 256], axis=2)
        recorder.add(rgb.astype(np.uint8))  # every frame different: none folds

    short, long = 40, 200
    held = _held_bytes(frame, [short, long])
    growth = (held[1] - held[0]) / (long - short)
    assert growth < BYTES_PER_FRAME, f"{growth:.0f} bytes per frame"
    recorder.close()
    with Image.open(path) as gif:
        assert gif.size == size and gif.n_frames == long // 2  # 30 of 60 frames a second
        total = 0
        for k in range(gif.n_frames):
            gif.seek(k)
            total += gif.info["duration"]
        assert total == round(100 * (long // 2) / 30) * 10  # exact to the hundredth
    print(f"gif: {growth:.0f} bytes/frame held, file {path.stat().st_size / long:.0f} B/frame")


def test_identical_gif_frames_fold_into_one_with_their_time(tmp_path):
    path = tmp_path / "still.gif"
    recorder = Recorder(path, (32, 16))
    still = np.full((16, 32, 3), 90, np.uint8)
    for k in range(12):
        recorder.add(still if k < 8 else still + 50)
    recorder.close()
    with Image.open(path) as gif:
        delays = []
        for k in range(gif.n_frames):
            gif.seek(k)
            delays.append(gif.info["duration"])
    assert delays == [130, 70]  # 4 kept frames of the first picture, 2 of the second
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary left behind
