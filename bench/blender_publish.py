"""What publishing a Blender scene to sgview costs Blender (`viewer.blender.publish`,
docs/blender.md), run in the Python that has ``bpy``:

    PYTHONPATH=$PWD .venv-blender/bin/python bench/blender_publish.py [--frames 240]

A rig of 100 bones (ten chains of ten under one root bone, every bone keyframed, the
armature object moving, an IK constraint on one chain) plays at 24 frames a second through
``scene.frame_set``, in rounds that alternate without and with the publisher (the same
frames each round). Printed, medians over the frames of all rounds:

1. Blender's frame time (``frame_set``, the publisher's handler included when publishing)
   without and with the publisher, and their ratio. Target: at most 1.2. Also the
   publisher's handler alone (between two handlers of the bench's own, one before it and
   one after): what it costs Blender's thread directly; the rest of the difference is its
   threads' share of the cores and caches.
2. From the end of ``frame_set`` to the viewer's mirror holding that frame (the viewer in a
   child process: a `Listener` whose frames are applied to a `Mirror` as ``sgview listen``
   does, minus the drawing; a mirror per round's connection). Target: under 100 ms.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import machine_lines  # noqa: E402

CHAINS, LENGTH = 10, 10  # 1 root bone + 10 x 10 = 101 bones, 100 of them keyframed
FPS = 24.0


def build_rig(frames: int) -> object:
    import bpy

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    data = bpy.data.armatures.new("BenchRigData")
    rig = bpy.data.objects.new("BenchRig", data)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    root = data.edit_bones.new("root")
    root.head, root.tail = (0.0, 0.0, 0.0), (0.0, 0.0, 0.5)
    for c in range(CHAINS):
        angle = 2 * math.pi * c / CHAINS
        previous = root
        for k in range(LENGTH):
            bone = data.edit_bones.new(f"c{c}b{k}")
            start = previous.tail if k else (0.0, 0.0, 0.5)
            bone.head = start
            bone.tail = (start[0] + 0.3 * math.cos(angle), start[1] + 0.3 * math.sin(angle),
                         start[2] + 0.2)  # fmt: skip
            bone.parent, bone.use_connect = previous, k > 0
            previous = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    for c in range(CHAINS):
        for k in range(LENGTH):
            pose = rig.pose.bones[f"c{c}b{k}"]
            pose.rotation_mode = "XYZ"
            for frame, sign in ((1, 0.0), (frames // 2, 1.0), (frames, -1.0)):
                pose.rotation_euler = (0.1 * sign, 0.05 * sign * (k % 3), 0.02 * c * sign)
                pose.keyframe_insert("rotation_euler", frame=frame)
    for frame, x in ((1, 0.0), (frames, 2.0)):
        rig.location = (x, 0.0, 0.0)
        rig.keyframe_insert("location", frame=frame)
    target = bpy.data.objects.new("BenchTarget", None)
    scene.collection.objects.link(target)
    for frame, z in ((1, 1.0), (frames, 3.0)):
        target.location = (2.0, 0.0, z)
        target.keyframe_insert("location", frame=frame)
    ik = rig.pose.bones[f"c0b{LENGTH - 1}"].constraints.new("IK")
    ik.target, ik.chain_count = target, 4
    bpy.context.view_layer.update()
    return scene


def play(scene: object, frames: int, on_frame=None) -> list[float]:
    """Each frame's ``frame_set`` time, frames paced at 24 a second."""
    times = []
    start = time.perf_counter()
    for k in range(frames):
        began = time.perf_counter()
        scene.frame_set(1 + k)  # type: ignore[attr-defined]
        ended = time.perf_counter()
        times.append(ended - began)
        if on_frame is not None:
            on_frame(ended)
        time.sleep(max(0.0, start + (k + 1) / FPS - time.perf_counter()))
    return times


def viewer_process(conn) -> None:
    """The viewer: listen, apply each connection's frames to a mirror of its own, note when
    each frame was applied, as (round, frame number): time."""
    from viewer.attach.mirror import Mirror
    from viewer.attach.server import Listener
    from viewer.scene.coldstart import exercise

    exercise()  # the compiled loops loaded before any frame, as after sgview's first launch
    listener = Listener("127.0.0.1", 0)
    conn.send(listener.start()[1])
    mirrors: dict[int, tuple[int, Mirror]] = {}
    applied: dict[tuple[int, int], float] = {}
    while not conn.poll():
        for program in list(listener.programs):
            if id(program) not in mirrors:
                mirrors[id(program)] = (len(mirrors), Mirror("bench"))
            round_, mirror = mirrors[id(program)]
            while (frame := program.take(wait=0.001)) is not None:
                mirror.apply(frame)
                applied[round_, frame.frame] = time.perf_counter()
        time.sleep(0.0005)
    conn.recv()
    conn.send(applied)
    listener.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=240, help="frames a round (24 a second)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each kind")
    args = parser.parse_args()

    import bpy

    import viewer.blender

    scene = build_rig(args.frames)
    play(scene, 24)  # Blender's first evaluations (caches) before anything is timed
    context = mp.get_context("spawn")
    conn, child_conn = context.Pipe()
    child = context.Process(target=viewer_process, args=(child_conn,), daemon=True)
    child.start()
    port = conn.recv()
    without: list[float] = []
    with_publisher: list[float] = []
    handler: list[float] = []  # the publisher's handler
    empty: list[float] = []  # the same two stamps with nothing between them
    sink = [empty]
    stamps: list[float] = []

    def before(scene: object, depsgraph: object = None) -> None:
        stamps[:] = [time.perf_counter()]  # a frame's own: none left from a frame unpaired

    def after(scene: object, depsgraph: object = None) -> None:
        if stamps:
            sink[0].append(time.perf_counter() - stamps.pop())

    handlers = bpy.app.handlers.frame_change_post
    handlers.insert(0, before)
    ended: dict[tuple[int, int], float] = {}
    for round_ in range(args.rounds):
        handlers.append(after)
        sink[0] = empty
        without += play(scene, args.frames)
        handlers.remove(after)
        sink[0] = handler
        link = viewer.blender.publish(f"127.0.0.1:{port}", name="bench rig")
        handlers.append(after)  # after the publisher's handler
        if not link.wait_connected(60):
            sys.exit("the viewer did not welcome the publisher")

        def note(at: float, link=link, round_=round_) -> None:
            ended[round_, link.frames] = at

        with_publisher += play(scene, args.frames, note)
        handlers.remove(after)
        link.flush(30)
        link.close()
        time.sleep(0.5)
    conn.send("stop")
    applied = conn.recv()
    child.join(30)
    latency = sorted(applied[f] - ended[f] for f in ended if f in applied)
    bones = len(scene.objects["BenchRig"].pose.bones)  # type: ignore[attr-defined]

    def ms(values: list[float]) -> str:
        return f"{1000 * statistics.median(values):.3f} ms"

    ratio = statistics.median(with_publisher) / statistics.median(without)
    for line in machine_lines():
        print(line)
    print(f"rig: {bones} bones, {args.frames} frames a round at {FPS:.0f} fps, "
          f"{args.rounds} rounds of each")  # fmt: skip
    print(f"1. frame_set without the publisher: median {ms(without)}")
    print(f"   frame_set with the publisher:    median {ms(with_publisher)}")
    print(f"   the publisher's handler alone:   median {ms(handler)} (the two stamps around "
          f"it, nothing between: {ms(empty)})")  # fmt: skip
    print(f"   ratio {ratio:.3f} (target <= 1.2): {'PASS' if ratio <= 1.2 else 'FAIL'}")
    p90 = latency[int(0.9 * (len(latency) - 1))]
    verdict = "PASS" if statistics.median(latency) < 0.1 else "FAIL"
    print(f"2. frame_set end to the viewer's mirror: median {ms(latency)}, 90th percentile "
          f"{1000 * p90:.3f} ms, most {1000 * latency[-1]:.3f} ms over {len(latency)} frames "
          f"(target < 100 ms): {verdict}")  # fmt: skip


if __name__ == "__main__":
    main()
