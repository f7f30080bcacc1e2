"""three.js's own examples in a real browser, watched by sgview: every object's world matrix
in the viewer against three's ``matrixWorld`` in the page, frame by frame.

    PYTHONPATH=$PWD .venv/bin/python bench/threejs_examples.py --three DIR [--frames 60] [NAME ...]

DIR is a local copy of three.js's repository, or of the part the examples need: its
``examples/*.html`` and the models they load; ``build/three.module.js`` and
``examples/jsm`` are taken from DIR when it has them, else from the three.js pinned in
clients/threejs/node_modules (``npm ci`` there). The examples are fetched, never committed:
the bench serves DIR as it is from 127.0.0.1 and changes nothing in it.

For each example the bench serves the page with its import map pointed at the served
three.js and one module added before the example's own: it imports three and the publisher
(clients/threejs/sgview-publish.js), and hooks ``Scene.updateMatrixWorld``, which every
renderer (WebGL, CSS2D, CSS3D) calls first in ``render``: the first scene updated is
published, and once the viewer welcomed the page each of its updates sends one frame
(``link.frame()``) and records, in the page, every object's id, parent and
``matrixWorld``, independently of the publisher, with whether three left that world
differing from ``parent.matrixWorld * compose(decompose(matrix))`` (stale, as sgview
defines it). The page runs in Debian's chromium (Playwright; WebGL through SwiftShader).
The viewer's side is sgview's own listener and mirror (`viewer.attach`), the code ``sgview
listen`` shows and dumps, taking every frame the page sent and keeping each frame's world
matrices. The table: objects, frames compared, the largest world difference (relative to
the matrix's largest element, at least 1) on nodes three keeps consistent and on stale
nodes and their subtrees, the stale count, objects added while running that sgview had in
the frame they were added, and PASS / FAIL.

The pieces (`serve`, `Watch`, `RECORDER_JS`, `compare`) are shared with
tests/attach/test_attach_threejs_browser.py.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "clients" / "threejs"
PINNED_THREE = CLIENT / "node_modules" / "three"
#: A world matrix equals three's when every element is within this share of the matrix's
#: largest element (at least 1).
TOLERANCE = 1e-6

#: Seconds the server waits before answering for a model (``examples/models/``), as a
#: network would: a page that loads one adds it to its scene while it is watched, so the
#: objects added mid-run are checked in the frame they join.
MODEL_DELAY = 0.25
#: The examples run by default: skinned and animated hierarchies, mixers, instanced and
#: batched meshes, CSS labels and objects, cameras, LODs, many objects.
EXAMPLES = (
    "webgl_animation_skinning_blending",
    "webgl_animation_keyframes",
    "webgl_loader_bvh",
    "misc_animation_groups",
    "webgl_instancing_raycast",
    "webgl_instancing_dynamic",
    "webgl_instancing_performance",
    "webgl_mesh_batch",
    "css2d_label",
    "webgl_camera",
    "webgl_geometry_hierarchy",
    "webgl_geometries",
    "webgl_math_orientation_transform",
    "misc_lookat",
    "webgl_interactive_cubes",
    "webgl_lod",
)

#: The page's side, independent of the publisher: `window.sgviewRecord(scene, frame)`
#: keeps, per frame, every object of `scene` in pre-order: id, name, parent id (-1: none),
#: matrixWorld's 16 elements (column by column), and the ids of the stale ones.
RECORDER_JS = r"""
(() => {
  const frames = [];
  let scratch = null;
  function stale(THREE, object) {
    scratch ??= { p: new THREE.Vector3(), q: new THREE.Quaternion(), s: new THREE.Vector3(),
      local: new THREE.Matrix4(), world: new THREE.Matrix4() };
    const { p, q, s, local, world } = scratch;
    object.matrix.decompose(p, q, s);
    local.compose(p, q, s);
    if (object.parent) world.multiplyMatrices(object.parent.matrixWorld, local);
    else world.copy(local);
    const mine = object.matrixWorld.elements;
    let big = 1; // sgview's tolerance: relative to parent * local's largest element
    for (const v of world.elements) big = Math.max(big, Math.abs(v));
    for (let i = 0; i < 16; i++) {
      if (!(Math.abs(world.elements[i] - mine[i]) <= TOLERANCE * big)) return true;
    }
    return false;
  }
  window.sgviewRecord = (THREE, scene, frame) => {
    const ids = [], names = [], parents = [], worlds = [], stales = [];
    scene.traverse((o) => {
      ids.push(o.id);
      names.push(o.name);
      parents.push(o === scene || !o.parent ? -1 : o.parent.id);
      for (const v of o.matrixWorld.elements) worlds.push(v);
      if (stale(THREE, o)) stales.push(o.id);
    });
    frames.push({ frame, ids, names, parents, worlds, stale: stales });
  };
  window.sgviewRecorded = () => frames;
})();
""".replace("TOLERANCE", repr(TOLERANCE))


# -- serving -------------------------------------------------------------------------------
class _Handler(http.server.SimpleHTTPRequestHandler):
    """Files under the roots by URL prefix, and pages held in memory; nothing logged."""

    def __init__(
        self,
        *args,
        roots: Mapping[str, Path],
        pages: Mapping[str, bytes],
        slow: tuple[str, float],
        **kw,
    ):
        self.roots, self.pages, self.slow = roots, pages, slow
        super().__init__(*args, **kw)

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        for prefix in sorted(self.roots, key=len, reverse=True):
            if path.startswith(prefix):
                rest = path[len(prefix) :]
                target = (self.roots[prefix] / rest).resolve()
                base = self.roots[prefix].resolve()
                if target == base or base in target.parents:
                    return str(target)
        return str(Path("/nonexistent"))

    def do_GET(self) -> None:
        page = self.pages.get(self.path.split("?", 1)[0])
        if self.slow[0] and self.path.startswith(self.slow[0]):
            time.sleep(self.slow[1])
        if page is None:
            super().do_GET()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def guess_type(self, path) -> str:
        if str(path).endswith((".js", ".mjs")):
            return "text/javascript"  # module scripts need a JavaScript type
        return super().guess_type(path)

    def log_message(self, format, *args) -> None:  # noqa: A002 - the base class's name
        pass


@contextmanager
def serve(
    roots: Mapping[str, Path], pages: Mapping[str, bytes], slow: tuple[str, float] = ("", 0.0)
) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 (a free port) on a thread: ``roots`` maps URL prefixes
    (``/build/``) to folders, ``pages`` paths to HTML held in memory; what starts with
    ``slow[0]`` is answered ``slow[1]`` seconds late. Yields the base URL."""
    handler = functools.partial(_Handler, roots=dict(roots), pages=dict(pages), slow=slow)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="threejs-pages", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# -- the viewer's side -----------------------------------------------------------------------
@dataclass
class Seen:
    """One program frame as sgview's mirror held it once applied."""

    ids: np.ndarray  # the program's ids, in the structure's pre-order
    parents: np.ndarray  # the program's parent id per node (-1: a root)
    worlds: np.ndarray  # (n, 4, 4) the mirror's world matrices (rows: column vectors)
    merged: int  # program frames this message stood for
    stale: frozenset[int]  # the program's ids of the nodes stale after this frame


@dataclass
class Watch:
    """sgview's listener and mirror on a thread: every frame of the first program that
    connects is applied to a `Mirror` (as ``sgview listen`` applies each), and the mirror's
    world matrices kept per program frame number."""

    frames: dict[int, Seen] = field(default_factory=dict)
    address: str = ""
    name: str = ""
    error: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        from viewer.attach.server import Listener

        self._listener = Listener("127.0.0.1", 0)
        host, port = self._listener.start()
        self.address = f"{host}:{port}"
        self._thread = threading.Thread(target=self._run, name="sgview-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from viewer.attach.mirror import Mirror

        try:
            while not self._listener.wait_program(0.2):
                if self._stop.is_set():
                    return
            program = self._listener.programs[0]
            self.name = program.name
            mirror = Mirror(program.name)
            ids = parents = np.zeros(0, dtype=np.int64)
            while True:
                frame = program.take(0.1)
                if frame is None:
                    if self._stop.is_set() or not (program.connected or program.pending()):
                        return
                    continue
                if frame.structure is not None:
                    ids, parents = frame.structure.ids.copy(), frame.structure.parents.copy()
                report = mirror.apply(frame)
                mine = mirror.ids(ids)
                worlds = np.array(mirror.graph.world_matrices()[mine])
                program_id = dict(zip(mine.tolist(), ids.tolist(), strict=True))
                stale = frozenset(program_id[i] for i in report.stale.tolist())
                self.frames[frame.frame] = Seen(ids, parents, worlds, frame.merged, stale)
        except Exception as exc:  # reported by `close`
            self.error = f"{type(exc).__name__}: {exc}"

    def wait_frame(self, frame: int, timeout: float) -> bool:
        """Whether program frame ``frame`` (or a later one) arrived within ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.frames and max(self.frames) >= frame:
                return True
            time.sleep(0.02)
        return False

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self._listener.close()
        if self.error:
            raise RuntimeError(f"sgview's mirror failed: {self.error}")


# -- the comparison --------------------------------------------------------------------------
@dataclass
class Result:
    objects: int = 0  # the most objects in one frame
    frames: int = 0  # frames compared
    merged: int = 0  # frames the publisher merged into later ones (not seen alone)
    missing_frames: int = 0  # frames recorded in the page that sgview never got
    max_diff: float = 0.0  # on nodes three keeps consistent (no stale node above them)
    stale_diff: float = 0.0  # on stale nodes and their subtrees
    stale: int = 0  # stale nodes (the most in one frame)
    stale_flagged: int = 0  # nodes sgview flagged stale (the most in one frame)
    added: int = 0  # objects added while running
    added_on_time: int = 0  # of which sgview had them in the frame they were added
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return (
            not self.problems
            and self.frames > 0
            and self.max_diff <= TOLERANCE
            and self.stale_diff <= TOLERANCE
            and self.added_on_time == self.added
        )


def _below(ids: list[int], parents: list[int], marked: set[int]) -> set[int]:
    """``marked`` and every node under one (ids in pre-order)."""
    out = set()
    for node, parent in zip(ids, parents):
        if node in marked or parent in out:
            out.add(node)
    return out


def compare(recorded: list[dict], seen: Mapping[int, Seen]) -> Result:
    """The page's record of each frame against what sgview's mirror held for it."""
    result = Result()
    before: set[int] | None = None
    for entry in recorded:
        k = int(entry["frame"])
        ids = [int(i) for i in entry["ids"]]
        parents = [int(p) for p in entry["parents"]]
        result.objects = max(result.objects, len(ids))
        new = set() if before is None else set(ids) - before
        before = set(ids)
        result.added += len(new)
        mine = seen.get(k)
        if mine is None:
            if any(j > k and k > j - seen[j].merged for j in seen):
                result.merged += 1
            else:
                result.missing_frames += 1
            continue
        result.frames += 1
        where = {int(i): n for n, i in enumerate(mine.ids.tolist())}
        absent = [i for i in ids if i not in where]
        extra = len(where) - (len(ids) - len(absent))
        if absent or extra:
            result.problems.append(f"frame {k}: {len(absent)} objects absent, {extra} extra")
        result.added_on_time += len(new - set(absent))
        present = [n for n, i in enumerate(ids) if i in where]
        rows = np.array([where[ids[n]] for n in present], dtype=np.int64)
        if [int(mine.parents[r]) for r in rows] != [parents[n] for n in present]:
            result.problems.append(f"frame {k}: parents differ")
        theirs = np.asarray(entry["worlds"], dtype=np.float64).reshape(-1, 4, 4)
        theirs = theirs[present].transpose(0, 2, 1)  # three's columns as rows of columns
        scale = np.maximum(np.abs(theirs).max(axis=(1, 2)), 1.0)
        diff = np.abs(mine.worlds[rows] - theirs).max(axis=(1, 2)) / scale
        stale = {int(i) for i in entry["stale"]}
        result.stale = max(result.stale, len(stale))
        result.stale_flagged = max(result.stale_flagged, len(mine.stale))
        if stale != mine.stale:
            result.problems.append(
                f"frame {k}: stale in the page {sorted(stale)}, in sgview {sorted(mine.stale)}"
            )
        affected = _below(ids, parents, stale)
        hit = np.array([ids[n] in affected for n in present], dtype=bool)
        if (~hit).any():
            result.max_diff = max(result.max_diff, float(diff[~hit].max()))
        if hit.any():
            result.stale_diff = max(result.stale_diff, float(diff[hit].max()))
    if result.missing_frames:
        result.problems.append(f"{result.missing_frames} frames never reached sgview")
    return result


# -- the examples --------------------------------------------------------------------------
def import_map() -> str:
    """The import map every served example gets: three and its addons from the served copy."""
    return (
        '<script type="importmap">{"imports": {'
        '"three": "/build/three.module.js", "three/addons/": "/examples/jsm/", '
        '"three/webgpu": "/build/three.webgpu.js", "three/tsl": "/build/three.tsl.js"'
        "}}</script>"
    )


def hook_module(ws_url: str, name: str, frames: int) -> str:
    """The module run before the example's own: publish the first scene rendered and record
    each frame sent, ``frames`` of them; then close the link (``window.sgviewDone``)."""
    return f"""<script>{RECORDER_JS}</script>
<script type="module">
import * as THREE from "three";
import {{ publish }} from "/sgview/sgview-publish.js";
const LIMIT = {frames};
let scene = null, link = null, frame = 0;
window.sgviewDone = false;
window.sgviewErrors = [];
window.addEventListener("error", (e) => window.sgviewErrors.push(String(e.message)));
window.addEventListener("unhandledrejection", (e) => window.sgviewErrors.push(String(e.reason)));
function after(rendered) {{
  if (window.sgviewDone || !rendered || !rendered.isScene) return;
  if (scene === null) {{
    scene = rendered;
    link = publish(scene, {ws_url!r}, {{ name: {name!r} }});
    return;
  }}
  if (rendered !== scene || !link.connected) return;
  link.frame();
  frame += 1;
  window.sgviewRecord(THREE, scene, frame);
  if (frame >= LIMIT) {{ window.sgviewDone = true; link.close(); }}
}}
// Every renderer (WebGL, CSS2D, CSS3D) starts a frame with scene.updateMatrixWorld():
// right after it, the worlds are what this frame draws.
const update = THREE.Scene.prototype.updateMatrixWorld;
THREE.Scene.prototype.updateMatrixWorld = function (...args) {{
  const out = update.apply(this, args);
  if (!this.parent) after(this);
  return out;
}};
</script>
"""


def prepared_page(html: str, ws_url: str, name: str, frames: int) -> str:
    """The example's page with the import map replaced by ours and the hook before its
    first script; paths such as ``../build/three.module.js`` stay (served where they say)."""
    html = re.sub(r'<script type="importmap">.*?</script>', "", html, flags=re.S)
    head = import_map() + hook_module(ws_url, name, frames)
    at = html.find("<script")
    return html[:at] + head + html[at:] if at >= 0 else html + head


def roots_for(three: Path) -> dict[str, Path]:
    """URL prefixes to folders: the examples from ``three``, the build and addons from it
    when it has them (else the pinned copy), the publisher."""
    build = three / "build" if (three / "build" / "three.module.js").is_file() else None
    jsm = three / "examples" / "jsm" if (three / "examples" / "jsm").is_dir() else None
    return {
        "/examples/jsm/": jsm or PINNED_THREE / "examples" / "jsm",
        "/examples/": three / "examples",
        "/build/": build or PINNED_THREE / "build",
        "/sgview/": CLIENT,
    }


def run_example(
    browser, three: Path, example: str, frames: int, timeout: float
) -> tuple[Result, list[str]]:
    """One example: served, published, compared. Returns the result and the page's errors."""
    source = (three / "examples" / f"{example}.html").read_text(encoding="utf-8")
    watch = Watch()
    url = f"ws://{watch.address}"
    path = f"/examples/{example}.html"
    pages = {path: prepared_page(source, url, example, frames).encode()}
    try:
        with serve(roots_for(three), pages, ("/examples/models/", MODEL_DELAY)) as base:
            page = browser.new_page(viewport={"width": 640, "height": 360})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(base + path)
            try:
                page.wait_for_function("window.sgviewDone === true", timeout=timeout * 1000)
            except Exception:
                errors.append(f"fewer than {frames} frames in {timeout:.0f} s")
            recorded = page.evaluate("window.sgviewRecorded ? window.sgviewRecorded() : []")
            errors += page.evaluate("window.sgviewErrors || []")
            page.close()
        if recorded:
            watch.wait_frame(int(recorded[-1]["frame"]), 10.0)
    finally:
        watch.close()
    return compare(recorded, watch.frames), errors


def _row(example: str, result: Result, errors: list[str]) -> str:
    verdict = "PASS" if result.passed and result.frames else "FAIL"
    added = f"{result.added_on_time}/{result.added}"
    stale = f"{result.stale} ({result.stale_flagged} flagged)"
    note = "; ".join([*result.problems, *errors])[:160]
    return (
        f"| {example} | {result.objects} | {result.frames} | {result.max_diff:.1e} | "
        f"{result.stale_diff:.1e} | {stale} | {added} | {verdict} | {note} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--three", type=Path, required=True, help="a three.js checkout")
    parser.add_argument("--frames", type=int, default=60, help="frames per example")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per example")
    parser.add_argument("examples", nargs="*", help=f"default: {', '.join(EXAMPLES)}")
    args = parser.parse_args(argv)
    from lab_server import launch_chromium
    from playwright.sync_api import sync_playwright

    print(
        "| example | objects | frames | max world diff | on stale subtrees | stale "
        "(sgview flagged) | added on time | result | notes |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    failed = 0
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for example in args.examples or EXAMPLES:
                if not (args.three / "examples" / f"{example}.html").is_file():
                    print(f"| {example} | | | | | | | SKIP | not in {args.three}/examples |")
                    continue
                result, errors = run_example(
                    browser, args.three, example, args.frames, args.timeout
                )
                failed += not result.passed
                print(_row(example, result, errors), flush=True)
        finally:
            browser.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
