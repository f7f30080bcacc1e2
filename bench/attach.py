"""What publishing a graph to sgview costs the program (`viewer.publish`, docs/attach.md).

The viewer runs in a child process (its own interpreter, so it takes no time from the
program's thread): a `Listener` whose frames are applied to a `Mirror` as
`sgview listen` does, minus the drawing. On the program's side, the publisher's share of
each `update()` is timed exactly, between two `on_update` listeners registered around the
link's own, with the timed frames 5 ms apart. Printed, each a median over the frames of
this run:

1. 100k nodes, 1 % of them (leaves) moved per frame: the publisher's cost against copying
   that frame's changed world matrices once (the baseline, timed on the same ids in the
   same run). Target: at most 2x the baseline + 50 us.
2. 1M nodes, one leaf moved per frame: the publisher's cost. Target: at most 50 us.
3. From the end of the program's `update()` to the viewer's mirror holding that frame
   (same machine), at 100k nodes. Target: median at most 50 ms.
   Also its 90th percentile, and the sending thread's CPU time while the program
   publishes at 50 frames a second and once it is idle (it polls the queue every 2 ms
   while frames come, rather than being woken by the program per frame).
4. The viewer stops reading (a debugger pause), 1M nodes, 1 % moved: the publisher's
   cost per frame against the same form of target as 1. (2x the copy + 50 us, "no time
   beyond the targets above"), and what it holds: its queue's bytes against its bound.
5. No viewer listening: the publisher's cost per frame ("nothing") and how often it
   tries to connect (target: at most once a second), against a port that accepts and
   closes every connection.
6. The drawing viewer: ``sgview listen --headless --size 640x360 --log``'s frame source
   and window app in the child (uploads, panels and timeline each redraw; the picture
   drawn at the end, as that command draws it; then again with every redraw drawn, as a
   window draws them), watching a 100k-node program that moves 1 % of its nodes per
   frame at 60 frames a second: from the end of each ``update()`` to the end of the
   redraw that showed it (a redraw shows every frame that came since the last one,
   folded). Targets: median at most 250 ms, the last frame shown within 1 s. Also the
   redraws a second and the most frames the inbox held at a redraw's start.

    python bench/attach.py            # the sizes above
    python bench/attach.py --quick    # 10x fewer nodes (a shared machine, a smoke run)
    python bench/attach.py --drawing  # only 6.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import signal
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchutil import machine_lines, others_busy_percent  # noqa: E402

from viewer.attach.mirror import Mirror  # noqa: E402
from viewer.attach.protocol import ProgramLimits  # noqa: E402
from viewer.attach.publisher import publish  # noqa: E402
from viewer.attach.server import Listener  # noqa: E402
from viewer.scene.coldstart import exercise  # noqa: E402
from viewer.scene.graph import SceneGraph  # noqa: E402

#: Seconds between the timed frames: a program drawing at up to 200 frames a second, so
#: the publisher's sending thread (which shares the interpreter) is not always busy.
PACE = 0.005


def viewer_process(conn, max_nodes: int) -> None:
    """The viewer: listen, apply every frame to a mirror, note when each was applied."""
    exercise()  # the compiled loops loaded before any frame, as after sgview's first launch
    listener = Listener("127.0.0.1", 0, limits=ProgramLimits(max_nodes, 1 << 30))
    conn.send(listener.start()[1])
    listener.wait_program(60)
    program, mirror, applied, reading = listener.programs[0], Mirror("bench"), {}, True
    while True:
        if conn.poll():
            command = conn.recv()
            if command == "stop":
                break
            if command == "last":
                conn.send(max(applied, default=0))
                continue
            reading = command == "read"
        frame = program.take(wait=0.01) if reading else None
        if frame is None:
            if not reading:
                time.sleep(0.01)
            continue
        mirror.apply(frame)
        applied[frame.frame] = time.perf_counter()
    conn.send(applied)
    listener.close()


def drawing_viewer_process(conn, size: tuple[int, int], every: bool) -> None:
    """The drawing viewer: `ProgramSource` in a headless window app, its ``--log`` written
    to /dev/null, until the program leaves; only the last redraw drawn, as in
    ``sgview listen --headless --frames N`` (``every``: every redraw drawn, as a window
    draws them). Sends back each redraw's end with the newest frame it showed, and the
    inbox's depth at each redraw's start."""
    from viewer.attach.program_source import ProgramSource
    from viewer.content.scene import Scene
    from viewer.window.runner import RunOptions, run

    exercise()
    listener = Listener("127.0.0.1", 0, limits=ProgramLimits(1 << 21, 1 << 28))
    conn.send(listener.start()[1])
    shown: list[tuple[float, int]] = []  # (the redraw's end, the newest frame it showed)
    depths: list[int] = []

    class Timed(ProgramSource):
        newest: int | None = None

        def poll(self):
            self._shown()  # the previous redraw is over: its picture is drawn
            return super().poll()

        def advance(self, dt):
            if self.shown is not None:
                depths.append(self.shown.pending())
            frame = super().advance(dt)
            self.newest = None if frame is None else frame.number
            return frame

        def _shown(self) -> None:
            if self.newest is not None:
                shown.append((time.perf_counter(), self.newest))
                self.newest = None
                if len(shown) == 1:
                    conn.send("shown")  # the snapshot is on screen: the program starts

    sources: list[Timed] = []

    def source(fixed_step):
        sources.append(Timed(scene, listener=listener, wait=True, log=True, out=log))
        return sources[-1]

    scene = Scene(SceneGraph(), title="bench")
    # The run ends as the program leaves (`ProgramSource.ended`); a redraw limit (never
    # reached) draws only the last picture, none draws every one.
    limit = None if every else 1 << 40
    with open(os.devnull, "w") as log:
        run(scene, RunOptions(size=size, frames=limit), headless=True, source=source)
    sources[0]._shown()  # the last redraw
    conn.send((shown, depths))
    listener.close()


def drawing(nodes: int, frames: int, rng, every: bool = False) -> None:
    """Case 6 (see the module notes); ``every``: every redraw drawn."""
    ctx = mp.get_context("spawn")
    here, there = ctx.Pipe()
    child = ctx.Process(target=drawing_viewer_process, args=(there, (640, 360), every), daemon=True)
    child.start()
    port = here.recv()
    graph, leaves = balanced(nodes)
    # Spread out, as a real scene is: nodes piled on one point would make llvmpipe paint
    # every one over the whole picture, which times the rasteriser, not the viewer.
    graph.set_locals(np.arange(nodes), positions=rng.normal(scale=2.0, size=(nodes, 3)))
    graph.update()
    ends: dict[int, float] = {}
    graph.on_update(lambda report: ends.__setitem__(report.frame, time.perf_counter()))
    link = publish(graph, f"127.0.0.1:{port}", name="bench")
    if not link.wait_connected(60):
        raise SystemExit("bench: the viewer process did not accept the connection")
    graph.touch(graph.node(0))
    graph.update()  # the snapshot
    link.flush(120)
    waited = time.monotonic()
    while not here.poll(1.0):
        if not child.is_alive() or time.monotonic() - waited > 600:
            raise SystemExit("bench: the drawing viewer did not show the snapshot")
    if here.recv() != "shown":
        raise SystemExit("bench: the drawing viewer did not show the snapshot")
    first = graph.frame + 1
    moved = max(1, nodes // 100)
    start = time.perf_counter()
    for k in range(frames):  # 60 frames a second, on the program's own clock
        ids = np.sort(rng.choice(leaves, moved, replace=False))
        graph.set_locals(ids, positions=rng.normal(size=(moved, 3)))
        graph.update()
        time.sleep(max(0.0, start + (k + 1) / 60 - time.perf_counter()))
    link.close(timeout=60)
    shown, depths = here.recv()
    child.join(60)
    shown_at, newest = np.array([t for t, _ in shown]), np.array([f for _, f in shown])
    lags = []
    for f in range(first, graph.frame + 1):
        k = int(np.searchsorted(newest, f))  # the first redraw that showed frame f
        lags.append(shown_at[k] - ends[f] if k < newest.size else float("inf"))
    lag, worst, last = statistics.median(lags), max(lags), lags[-1]
    redraws = int(((shown_at > ends[first]) & (shown_at <= shown_at[-1])).sum())
    elapsed = shown_at[-1] - ends[first]
    print(
        f"{nodes:>9,} nodes, 1 % moved at 60 frames/s, {frames} frames, the drawing viewer "
        f"(640x360, {'every redraw' if every else 'the last redraw'} drawn): update() to "
        f"shown: median {lag * 1e3:.0f} ms (ratio to the 250 ms "
        f"target {lag / 0.25:.2f}: {verdict(lag <= 0.25)}), last frame {last * 1e3:.0f} ms "
        f"(ratio to 1 s {last:.2f}: {verdict(last <= 1.0)}), worst {worst * 1e3:.0f} ms"
    )
    print(
        f"    {redraws} redraws in {elapsed:.1f} s ({redraws / elapsed:.1f} a second, "
        f"{frames / max(redraws, 1):.1f} frames each); inbox at a redraw's start: median "
        f"{statistics.median(depths) if depths else 0:.0f}, most {max(depths, default=0)} "
        "frames"
    )


def balanced(count: int) -> tuple[SceneGraph, np.ndarray]:
    """A tree of `count` nodes, branching 8, and its leaves."""
    ids = np.arange(count)
    parents = np.where(ids == 0, -1, (ids - 1) // 8)
    graph = SceneGraph(capacity=count)
    graph.add_many(None, parents)
    graph.update()
    leaves = np.setdiff1d(ids, parents[parents >= 0])
    return graph, leaves


class Timer:
    """The publisher's time in each update, between listeners before and after the link's,
    and the baseline: copying that frame's changed world matrices once, timed before the
    link on even frames and after it on odd ones (so that neither gets the rows already
    in the cache more often than the other)."""

    def __init__(self, graph: SceneGraph) -> None:
        self.graph = graph
        self.costs: list[float] = []
        self.copies: list[float] = []
        self.ends: dict[int, float] = {}
        self._start = 0.0
        graph.on_update(self._before)

    def after_link(self, graph: SceneGraph) -> None:
        graph.on_update(self._after)

    def clear(self) -> None:
        self.costs.clear()
        self.copies.clear()

    def _copy(self, report) -> None:
        world = self.graph.world_matrices()
        start = time.perf_counter()
        np.take(world, report.world_updated, axis=0)  # the fastest copy numpy has
        self.copies.append(time.perf_counter() - start)

    def _before(self, report) -> None:
        if report.frame % 2 == 0:
            self._copy(report)
        self._start = time.perf_counter()

    def _after(self, report) -> None:
        now = time.perf_counter()
        self.costs.append(now - self._start)
        self.ends[report.frame] = now
        if report.frame % 2:
            self._copy(report)


def connect(graph: SceneGraph, port: int, timer: Timer, **queue):
    link = publish(graph, f"127.0.0.1:{port}", name="bench", **queue)
    timer.after_link(graph)
    if not link.wait_connected(60):
        raise SystemExit("bench: the viewer process did not accept the connection")
    graph.touch(graph.node(0))
    graph.update()  # the snapshot: not a timed frame
    link.flush(120)
    return link


def caught_up(viewer, last: int, timeout: float = 120.0) -> None:
    """Wait until the viewer process applied frame `last` (its backlog done)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        viewer.send("last")
        if viewer.recv() >= last:
            return
        time.sleep(0.05)
    raise SystemExit(f"bench: the viewer did not catch up with frame {last}")


def sender_cpu() -> float:
    """CPU seconds the publisher's sending thread used so far (Linux's schedstat; NaN
    where it cannot be read)."""
    for thread in threading.enumerate():
        if thread.name == "sgview-publish":
            try:
                with open(f"/proc/self/task/{thread.native_id}/schedstat") as stat:
                    return int(stat.read().split()[0]) / 1e9
            except OSError:
                break
    return float("nan")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def us(seconds: float) -> str:
    return f"{seconds * 1e6:9.1f} us"


def moving(graph, leaves, count: int, frames: int, rng, pause: float = 0.0) -> None:
    """`frames` updates, each moving `count` random leaves."""
    for _ in range(frames):
        ids = np.sort(rng.choice(leaves, count, replace=False))
        graph.set_locals(ids, positions=rng.normal(size=(count, 3)))
        graph.update()
        if pause:
            time.sleep(pause)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x fewer nodes")
    parser.add_argument(
        "--frames", type=int, default=200, help="program frames per case (6: at 60 a second)"
    )
    parser.add_argument("--drawing", action="store_true", help="only the drawing viewer")
    args = parser.parse_args()
    exercise()
    busy = others_busy_percent()
    scale = 10 if args.quick else 1
    big, huge = 100_000 // scale, 1_000_000 // scale
    rng = np.random.default_rng(7)
    if args.drawing:
        drawing(big, args.frames, rng)
        drawing(big, args.frames, rng, every=True)
        print("\n".join(machine_lines(busy_at_start=busy)))
        return
    ctx = mp.get_context("spawn")

    for nodes, moved, label in ((big, big // 100, "1 %"), (huge, 1, "one leaf")):
        here, there = ctx.Pipe()
        child = ctx.Process(target=viewer_process, args=(there, huge + 1), daemon=True)
        child.start()
        port = here.recv()
        graph, leaves = balanced(nodes)
        timer = Timer(graph)
        link = connect(graph, port, timer)
        caught_up(here, graph.frame)  # the snapshot is in the viewer: timing starts now
        timer.clear()
        moving(graph, leaves, moved, args.frames, rng, pause=PACE)
        cost, copy = statistics.median(timer.costs), statistics.median(timer.copies)
        print(
            f"{nodes:>9,} nodes, {label} moved: publishing {us(cost)} per frame "
            f"(median of {len(timer.costs)}), copying the changed world matrices "
            f"{us(copy)}"
        )
        if moved > 1:
            target = 2 * copy + 50e-6
            print(
                f"    ratio to the copy {cost / copy:.2f}; target <= 2x copy + 50 us = "
                f"{us(target)}: {verdict(cost <= target)}"
            )
            caught_up(here, graph.frame)
            timer.ends.clear()
            busy = sender_cpu()
            started = time.perf_counter()
            moving(graph, leaves, moved, 100, rng, pause=0.02)
            busy = (sender_cpu() - busy) / (time.perf_counter() - started)
            link.flush(60)
            time.sleep(1.5)  # past the sender's second without frames: it sleeps
            idle = sender_cpu()
            time.sleep(3.0)
            idle = (sender_cpu() - idle) / 3.0
            here.send("read")
            here.send("stop")
            applied = here.recv()
            lags = sorted(applied[f] - t for f, t in timer.ends.items() if f in applied)
            lag, p90 = statistics.median(lags), lags[int(0.9 * (len(lags) - 1))]
            print(
                f"    update() to the viewer's mirror: median {lag * 1e3:.1f} ms, 90th "
                f"percentile {p90 * 1e3:.1f} ms over {len(lags)} frames; target median "
                f"<= 50 ms: {verdict(lag <= 0.05)}"
            )
            print(
                f"    sending thread's CPU: {busy * 100:.2f} % of a core while publishing "
                f"50 frames/s, {idle * 100:.3f} % idle (no target)"
            )
        else:
            print(f"    target <= 50 us: {verdict(cost <= 50e-6)}")
            os.kill(child.pid, signal.SIGSTOP)  # the viewer stops, as in a debugger
            timer.clear()
            moving(graph, leaves, max(1, nodes // 100), args.frames, rng, pause=PACE)
            stalled, copy = statistics.median(timer.costs), statistics.median(timer.copies)
            slow = sum(c > 1e-3 for c in timer.costs)
            target = 2 * copy + 50e-6
            held = link.queued_bytes
            print(
                f"    viewer stopped, 1 % moved: publishing {us(stalled)} per frame "
                f"({slow} of {len(timer.costs)} frames over 1 ms, max {us(max(timer.costs))}), "
                f"copying the changed world matrices {us(copy)}; target <= 2x copy + 50 us "
                f"= {us(target)}: {verdict(stalled <= target)}"
            )
            print(
                f"    held: {held / 2**20:.1f} MiB queued, bound {link.queue_bytes / 2**20:.0f} "
                f"MiB: {verdict(held <= link.queue_bytes)} ({link.frames_merged} frames "
                "merged so far)"
            )
            os.kill(child.pid, signal.SIGCONT)
            here.send("stop")
            here.recv()
        link.close()
        child.join(30)
    no_viewer(big, rng)
    drawing(big, args.frames, rng)
    drawing(big, args.frames, rng, every=True)
    print("\n".join(machine_lines(busy_at_start=busy)))


def no_viewer(nodes: int, rng) -> None:
    """Publishing to a port that accepts and closes every connection: the program's cost
    per frame, and the connection attempts over 3.5 s."""
    graph, leaves = balanced(nodes)
    attempts: list[float] = []

    def accepting(server: socket.socket) -> None:
        while True:
            try:
                connection = server.accept()[0]
            except OSError:
                return  # closed: the measurement is over
            attempts.append(time.monotonic())
            connection.close()

    with socket.create_server(("127.0.0.1", 0)) as server:
        threading.Thread(target=accepting, args=(server,), daemon=True).start()
        timer = Timer(graph)
        started = time.monotonic()
        link = publish(graph, f"127.0.0.1:{server.getsockname()[1]}", name="bench")
        timer.after_link(graph)
        while time.monotonic() - started < 3.5:
            moving(graph, leaves, max(1, nodes // 100), 5, rng, pause=PACE)
        link.close()
        elapsed = time.monotonic() - started
        server.shutdown(socket.SHUT_RDWR)
    cost = statistics.median(timer.costs)
    # Counted, not the gaps between accepts: those also hold how long each attempt waited
    # for the GIL on a busy machine, while the publisher spaces the attempts' starts.
    allowed = int(elapsed) + 1
    gap = min(np.diff(attempts), default=float("inf"))
    print(
        f"{nodes:>9,} nodes, no viewer, 1 % moved: publishing {us(cost)} per frame (median "
        f"of {len(timer.costs)}); {len(attempts)} connection attempts in {elapsed:.2f} s "
        f"(accepted at least {gap:.2f} s apart): target at most one a second, so at most "
        f"{allowed}: {verdict(len(attempts) <= allowed)}"
    )


if __name__ == "__main__":
    main()
