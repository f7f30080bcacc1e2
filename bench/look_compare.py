"""sgview beside three.js on one glTF file per material feature (bench/look_cases.py).

Both draw each file through its camera at the same size, without antialiasing, with the
same environment (sgview's room, handed to three.js as an equirectangular float image that
its PMREMGenerator prefilters; or with --three-room three.js's own RoomEnvironment), the
same tone mapping and exposure, sRGB output. Per feature: the mean CIEDE2000 difference
inside both silhouettes (bench/colour_difference.py) and the silhouettes' IoU. Targets:
mean Delta E at most 5 per core feature, at most 1 for unlit and for each extension's case.
`--cases NAME ...` compares only those (one per material extension among them:
KHR_materials_ior, ...).

three.js runs in Debian's chromium (/usr/bin/chromium, driven by Playwright, never a
browser it downloads; WebGL 2 through SwiftShader), `three` installed by `npm ci` from
bench/threejs_looks/package-lock.json into a cache folder. Run:

    PYTHONPATH=$PWD python bench/look_compare.py [--size 256] [--out DIR] [--three-room]
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import io
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
from colour_difference import image_difference
from look_cases import CASES, DOC_MODELS, write_case, write_model
from PIL import Image

from viewer.io import load_scene
from viewer.render.camera import Camera
from viewer.render.context import Target, create_headless_context
from viewer.render.environment import room_radiance
from viewer.render.file_view import view_of
from viewer.render.frame_view import FrameViews, ViewSettings
from viewer.render.lights import Lighting
from viewer.render.renderer import Renderer

HERE = Path(__file__).resolve().parent
PAGE = HERE / "threejs_looks"
CHROMIUM = Path("/usr/bin/chromium")
#: SwiftShader's WebGL 2 (the machine has no GPU; --disable-gpu would turn WebGL off).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--use-angle=swiftshader",
                 "--enable-unsafe-swiftshader"]  # fmt: skip
ENV_SIZE = (1024, 512)
TARGETS = {"unlit": 1.0}
TARGET = 5.0
#: The cases of glTF extensions (KHR_materials_ior, ...): drawn as three.js draws them.
EXTENSION_TARGET = 1.0


def target_of(name: str) -> float:
    """The mean Delta E that case `name` should stay within."""
    return TARGETS.get(name, EXTENSION_TARGET if name.startswith("KHR_") else TARGET)


def install_three(cache: Path) -> Path:
    """`npm ci` of the pinned three.js into `cache` (once); returns the folder."""
    cache.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(PAGE / name, cache / name)
    if not (cache / "node_modules" / "three" / "package.json").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                       cwd=cache, check=True, timeout=300)  # fmt: skip
    return cache


def equirect_room(width: int, height: int) -> np.ndarray:
    """sgview's room as three.js reads an equirectangular image: texel (row, col) is the
    direction with u = atan2(z, x) / 2 pi + 0.5, v = asin(y) / pi + 0.5, row 0 at v = 0."""
    u = (np.arange(width) + 0.5) / width
    v = (np.arange(height) + 0.5) / height
    theta, phi = (u[None, :] - 0.5) * 2.0 * np.pi, (v[:, None] - 0.5) * np.pi
    d = np.stack(np.broadcast_arrays(np.cos(theta) * np.cos(phi), np.sin(phi),
                                     np.sin(theta) * np.cos(phi)), axis=-1)  # fmt: skip
    grey = room_radiance(d.reshape(-1, 3)).reshape(height, width, 1)
    return np.concatenate([np.repeat(grey, 3, axis=2), np.ones_like(grey)], axis=2)


def sgview_picture(ctx, path: Path, size: int, look: Lighting, framed: dict | None = None):
    """(picture [size, size, 3], silhouette [size, size], the background alone) through
    the file's camera, or
    without `framed` None through sgview's own framing, which `framed` then receives (eye,
    target, vertical field of view in degrees) for three.js."""
    scene = load_scene(path)
    scene.graph.update()
    r = Renderer(ctx, scene, look)
    plain = ViewSettings(show_grid=False, show_axes=False, show_links=False)
    cam = Camera()
    if framed is None:
        cam.look_through(view_of(scene.cameras, 0, scene.graph.world_matrices()))
    else:
        r.bounds.frame_camera(cam)
        framed |= {"eye": [float(v) for v in cam.eye], "fov": float(cam.fov),
                   "target": [float(v) for v in cam.target]}  # fmt: skip
    target = Target(ctx, (size, size), samples=0)
    r.draw(FrameViews().extract(r.graph, plain, target.fbo, (size, size)), cam)
    picture = target.read()[..., :3].copy()
    vp = np.ascontiguousarray(cam.view_projection((size, size)).astype(np.float32).T)
    r.backdrop.draw(target.fbo, (size, size), vp.tobytes(), False)  # the background alone
    background = target.read()[..., :3]
    target.release()
    r.release()
    return picture, np.any(picture != background, axis=-1), background.copy()


class ThreePage:
    """The page in chromium, served from a temporary folder with three.js beside it."""

    def __init__(self, three_dir: Path, folder: Path) -> None:
        from playwright.sync_api import sync_playwright

        shutil.copyfile(PAGE / "page.html", folder / "page.html")
        (folder / "node_modules").symlink_to(three_dir / "node_modules")
        handler = functools.partial(_QuietHandler, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.pw = sync_playwright().start()
        self.browser = self.pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                               args=CHROMIUM_ARGS)  # fmt: skip
        self.page = self.browser.new_page()
        self.page.goto(f"http://127.0.0.1:{self.server.server_address[1]}/page.html")
        self.page.wait_for_function("window.pageReady === true", timeout=60_000)

    def picture(self, name: str, size: int, look: Lighting, environment: dict, framed=None,
                backdrop: np.ndarray | None = None):  # fmt: skip
        """three.js's (picture, silhouette); with `backdrop` (sgview's background, sRGB) that
        picture drawn in front of it, so that glass shows the same thing behind it."""
        options = {"file": name, "width": size, "height": size, "environment": environment,
                   "toneMapping": look.tone_mapping, "exposure": look.exposure,
                   "tonemapUnlit": False, "camera": framed, "backdrop": None}  # fmt: skip
        if backdrop is not None:
            png = io.BytesIO()
            Image.fromarray(backdrop).save(png, format="PNG")
            options["backdrop"] = (
                "data:image/png;base64," + base64.b64encode(png.getvalue()).decode()
            )
        urls = self.page.evaluate("o => window.renderFile(o)", options)
        shown, plain = (urls, urls) if isinstance(urls, str) else urls
        colours, alpha = (np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
                          for url in (shown, plain))  # fmt: skip
        return colours[..., :3].copy(), alpha[..., 3] > 0

    def close(self) -> None:
        self.browser.close()
        self.pw.stop()
        self.server.shutdown()


def _linked(source: Path, folder: Path) -> Path:
    """A user's file served beside the page (a link: it is read, never copied)."""
    link = folder / source.name
    if not link.exists():
        link.symlink_to(source)
    return link


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def compare(size: int, out: Path | None, three_room: bool, look: Lighting, cache: Path,
            models: bool = False, files=(), only=()) -> dict:  # fmt: skip
    """Per case (or per docs model with `models`, or per file of `files`, framed by
    sgview): (mean Delta E inside both silhouettes, IoU); side-by-side PNGs (sgview left,
    three.js right) in `out`."""
    ctx = create_headless_context()
    names, write = (DOC_MODELS, write_model) if models else (CASES, write_case)
    if files:
        given = {Path(f).name: Path(f).resolve() for f in files}
        names, write = given, lambda name, folder: _linked(given[name], folder)
    if only:
        names = {name: names[name] for name in only}
    results = {}
    with tempfile.TemporaryDirectory(prefix="sgview-looks-") as tmp:
        folder = Path(tmp)
        equirect_room(*ENV_SIZE).astype(np.float32).tofile(folder / "room.f32")
        environment = ({"kind": "three-room"} if three_room else
                       {"kind": "equirect", "url": "room.f32", "width": ENV_SIZE[0],
                        "height": ENV_SIZE[1]})  # fmt: skip
        page = ThreePage(install_three(cache), folder)
        try:
            for name in names:
                path = write(name, folder)
                framed = {} if files else None
                ours, our_mask, backdrop = sgview_picture(ctx, path, size, look, framed)
                # A user's file may hold glass with nothing behind it but the background:
                # three.js then sees sgview's background through it, not a transparent canvas.
                theirs, their_mask = page.picture(path.name, size, look, environment, framed,
                                                  backdrop if files else None)  # fmt: skip
                both = our_mask & their_mask
                delta = image_difference(ours, theirs)
                union = (our_mask | their_mask).sum()
                results[name] = (float(delta[both].mean()) if both.any() else float("nan"),
                                 float(both.sum() / max(union, 1)))  # fmt: skip
                if out is not None:
                    out.mkdir(parents=True, exist_ok=True)
                    side = np.concatenate([ours, theirs], axis=1)
                    prefix = "look-" if models else ""
                    Image.fromarray(side).save(out / f"{prefix}{path.stem}.png")
        finally:
            page.close()
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--out", type=Path, help="write sgview | three.js pictures here")
    parser.add_argument(
        "--three-room",
        action="store_true",
        help="three.js lights with its own RoomEnvironment, not sgview's room",
    )
    parser.add_argument(
        "--models",
        action="store_true",
        help="the docs' models (a duck, a helmet, a metal sphere) instead of "
        "the features; with --out docs/images: their pictures",
    )
    parser.add_argument("--tone-mapping", default="neutral", choices=("neutral", "aces", "none"))
    parser.add_argument("--exposure", type=float, default=1.0)
    parser.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache" / "sgview-bench" / "looks"
    )
    parser.add_argument("--cases", nargs="+", default=(), metavar="NAME", help="only these cases")
    parser.add_argument(
        "--saved",
        action="store_true",
        help="the bundled scenes saved to .glb by sgview, in three.js and sgview, against "
        "sgview's view of their .toml (bench/look_saved.py)",
    )
    parser.add_argument(
        "--files",
        nargs="+",
        default=(),
        metavar="GLTF",
        help="compare these files (their own resources beside them: a .glb "
        "or a .gltf with data URIs), framed by sgview's orbit camera",
    )
    args = parser.parse_args(argv)
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"no such case: {', '.join(unknown)} (cases: {', '.join(CASES)})")
    if not CHROMIUM.exists():
        print(f"skipped: no chromium at {CHROMIUM}")
        return 0
    look = Lighting(args.tone_mapping, args.exposure, "room")
    if args.saved:
        from look_saved import compare_saved, report

        three = install_three(args.cache)
        saved = compare_saved(args.size, args.out, args.three_room, look, three)
        print("\n".join(report(saved, args.size)))
        return 0
    results = compare(args.size, args.out, args.three_room, look, args.cache, args.models,
                      args.files, args.cases)  # fmt: skip
    env = "three.js RoomEnvironment" if args.three_room else "sgview's room for both"
    print(
        f"sgview vs three.js, {args.size} px, {env}, {look.tone_mapping}, exposure {look.exposure}"
    )
    print(f"{'feature':24} {'mean dE2000':>12} {'IoU':>6} {'target':>7}")
    ok = True
    for name, (delta, iou) in results.items():
        target = target_of(name)
        ok &= delta <= target
        print(f"{name:24} {delta:12.2f} {iou:6.3f} {target:7.1f}")
    print("all within target" if ok else "some above target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
