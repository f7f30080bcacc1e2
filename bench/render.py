"""Render benchmark: our renderer against a bare moderngl instanced draw, headless.

    .venv/bin/python bench/render.py [--quick] [--size 1280x720] [--samples 4] [--out FILE]

For balanced trees of 1k and 10k nodes (`generate_scene("balanced:N")`, motions off) each
frame sets new rotations on 1 % of the nodes (random, fixed seed), ends the frame with
`graph.update()`, then draws and waits for the GPU (`ctx.finish()`):

- ours: `renderer.sync(report, dt)` uploads the report's pre-order ranges (matrices, glow
  stamps, line ends) in merged runs, then `renderer.draw()` (background, grid, instanced
  meshes lit with the glow on as the overlay shows it, halos, lit and plain parent-child
  lines, axes);
- bare: the same change and update, then one `buffer.write` of every world matrix per mesh
  kind and one instanced draw per kind with a minimal shader: no grid, lines or lighting.

Both draw the same meshes and matrices into the same framebuffer in the same run. The
table gives medians, our overhead as a ratio (target <= 1.25), and the bytes we upload per
frame against the target 1.25 x (64 + 8) bytes x executed nodes (a world matrix and
its glow stamp). `--quick` is a smoke test.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from benchutil import machine_lines, markdown_table, measure, others_busy_percent, timed  # noqa: E402

from viewer.io import generate_scene  # noqa: E402
from viewer.render import Camera, Renderer  # noqa: E402
from viewer.render.context import Target, create_headless_context  # noqa: E402
from viewer.render.frame_view import FrameViews, ViewSettings  # noqa: E402
from viewer.render.glow import STAMP_BYTES, STAMP_FORMAT  # noqa: E402
from viewer.render.instances import MATRIX_BYTES  # noqa: E402

RATIO_TARGET = 1.25
BYTES_TARGET = 1.25 * (MATRIX_BYTES + STAMP_BYTES)


class Bare:
    """The floor: a full upload and one instanced draw per mesh kind, nothing else.

    Same meshes, same matrices, same shader program and vertex layout as ours (so both
    pay the same per-vertex and per-pixel cost); it simply rewrites every matrix each frame
    and draws nothing but the instances on a cleared framebuffer.
    """

    def __init__(self, ctx, renderer: Renderer):
        self.ctx = ctx
        self.graph = renderer.graph
        self.prog = renderer.programs["instanced"]
        self.draws = []
        for batch in renderer.instances.batches:
            mesh = renderer.meshes[batch.kind]
            ids = batch.ids.copy()
            mats = ctx.buffer(reserve=len(ids) * MATRIX_BYTES, dynamic=True)
            looks = ctx.buffer(batch.looks.read())  # the same colours and sizes
            stamps = ctx.buffer(batch.stamps.read())  # the same stamps: no glow at start
            vao = ctx.vertex_array(
                self.prog,
                [
                    (mesh.vbo, "3f 3f 4f", "in_position", "in_normal", "in_vcolor"),
                    (mats, "16f/i", "in_world"),
                    (looks, "3f 3f/i", "in_color", "in_size"),
                    (stamps, STAMP_FORMAT, "in_stamp"),
                ],
                index_buffer=mesh.ibo,
                index_element_size=4,
            )
            self.draws.append((ids, mats, vao))

    def frame(self, fbo, camera: Camera, size) -> None:
        import moderngl

        world = self.graph.world_matrices()
        fbo.use()
        vp = camera.view_projection(size).astype(np.float32)
        self.prog["u_view_proj"].write(np.ascontiguousarray(vp.T).tobytes())
        self.ctx.clear(0.1, 0.1, 0.12, 1.0, depth=1.0)
        self.ctx.enable(moderngl.DEPTH_TEST)
        for ids, mats, vao in self.draws:
            data = np.ascontiguousarray(np.transpose(world[ids], (0, 2, 1)), dtype=np.float32)
            mats.write(data.tobytes())
            vao.render(moderngl.TRIANGLES, instances=len(ids))
        self.ctx.disable(moderngl.DEPTH_TEST)


def run_case(ctx, n: int, size, samples: int, budget: float, glow: bool = True) -> dict:
    scene = generate_scene(f"balanced:{n}")
    scene.motions = []
    g = scene.graph
    g.update()
    renderer = Renderer(ctx, scene)
    view = ViewSettings(glow_on=glow)  # as the overlay shows it
    views = FrameViews()
    camera = Camera()
    renderer.bounds.frame_camera(camera)
    bare = Bare(ctx, renderer)
    target = Target(ctx, size, samples=samples)
    alive = g.alive_ids()
    k = max(1, len(alive) // 100)
    rng = np.random.default_rng(1)
    stats = {"bytes": 0, "executed": 0, "frames": 0}

    def change(step: int):
        ids = rng.choice(alive, size=k, replace=False)
        angle = np.radians(step % 360) / 2.0
        quats = np.zeros((k, 4))
        quats[:, 1], quats[:, 3] = np.sin(angle), np.cos(angle)
        g.set_locals(ids, rotations=quats)

    def ours(step: int, decorations: bool = True) -> float:
        view.show_grid = view.show_links = view.show_axes = decorations

        def frame():
            change(step)
            report = g.update()
            renderer.sync(report, 1 / 60)
            renderer.draw(views.extract(g, view, target.fbo, size), camera)
            ctx.finish()
            stats["bytes"] += renderer.bytes_last
            stats["executed"] += len(report.executed)
            stats["frames"] += 1

        return timed(frame)

    def bare_frame(step: int) -> float:
        def frame():
            change(step)
            g.update()
            bare.frame(target.fbo, camera, size)
            ctx.finish()

        return timed(frame)

    # Alternate in rounds so that drift in the machine's load hits all three alike.
    times = {"ours": [], "meshes": [], "bare": []}
    runs = {"ours": ours, "meshes": lambda step: ours(step, False), "bare": bare_frame}
    for _ in range(3):
        for name, run in runs.items():
            times[name] += measure(run, warmup=2, min_repeats=5, budget_s=budget / 9).times_ms
    target.release()
    renderer.release()
    frames = max(stats["frames"], 1)
    return {
        "n": n,
        "changed": k,
        "executed": stats["executed"] / frames,
        "ours_ms": float(np.median(times["ours"])),
        "meshes_ms": float(np.median(times["meshes"])),
        "bare_ms": float(np.median(times["bare"])),
        "bytes": stats["bytes"] / frames,
        "bytes_per_exec": stats["bytes"] / max(stats["executed"], 1),
    }


def table(rows: list[dict], size, samples: int) -> list[str]:
    headings = (
        "nodes",
        "changed",
        "executed",
        "ours ms (fps)",
        "ours, no grid/lines ms",
        "bare ms (fps)",
        "ours / bare",
        "bytes / frame",
        "bytes / executed node",
    )
    cells = [
        (
            f"{r['n']:,}",
            r["changed"],
            f"{r['executed']:.0f}",
            f"{r['ours_ms']:.1f} ({1000 / r['ours_ms']:.1f})",
            f"{r['meshes_ms']:.1f}",
            f"{r['bare_ms']:.1f} ({1000 / r['bare_ms']:.1f})",
            f"{r['ours_ms'] / r['bare_ms']:.2f}",
            f"{r['bytes']:,.0f}",
            f"{r['bytes_per_exec']:.1f}",
        )
        for r in rows
    ]
    return [
        f"Headless (EGL, llvmpipe) at {size[0]}x{size[1]}, {samples}x multisampling; "
        "medians per frame, 1 % of nodes changed per frame.",
        "",
        *markdown_table(headings, cells, "rrrrrrrrr"),
    ]


def verdicts(rows: list[dict]) -> list[str]:
    lines = []
    for r in rows:
        ratio = r["ours_ms"] / r["bare_ms"]
        ok = "PASS" if ratio <= RATIO_TARGET else "FAIL"
        lines.append(f"- {ok}: {r['n']:,} nodes, overhead {ratio:.2f}x (target <= {RATIO_TARGET})")
        ok = "PASS" if r["bytes_per_exec"] <= BYTES_TARGET else "FAIL"
        lines.append(
            f"- {ok}: {r['n']:,} nodes, {r['bytes_per_exec']:.1f} bytes per executed node "
            f"(target <= {BYTES_TARGET:.0f})"
        )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--out", type=Path, help="also write the markdown here")
    parser.add_argument("--no-glow", action="store_true", help="draw without the glow")
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    counts, budget = ((200,), 0.3) if args.quick else ((1_000, 10_000), 6.0)
    if args.quick:
        size = (320, 180)
    busy_at_start = None if args.quick else others_busy_percent()
    ctx = create_headless_context("egl")
    rows = [run_case(ctx, n, size, args.samples, budget, not args.no_glow) for n in counts]
    lines = ["## Rendering", "", *table(rows, size, args.samples), ""]
    if not args.quick:
        lines += [*verdicts(rows), ""]
    lines.append(f"- renderer: {ctx.info['GL_RENDERER']}")
    if not args.quick:  # the machine description samples the load for a second
        machine = machine_lines(busy_at_start=busy_at_start)
        lines += [line for line in machine if not line.startswith("- node")]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
