"""What sgview writes looks as it showed: every bundled scene (scenes/*.toml) saved to .glb
by sgview's own writer (`save_gltf`, what `sgview X.toml --save X.glb` runs), and per
scene three pictures through one camera (sgview's framing of the .toml), at the same
size, without antialiasing:

- sgview's view of the .toml (what the user saw before saving);
- three.js's view of the .glb (what another tool shows of the file), as
  look_compare.py draws a file (Debian's chromium, SwiftShader, sgview's room as the
  environment, the same tone mapping and exposure, sRGB output);
- sgview's own view of the .glb (the round trip TOML -> glTF -> sgview).

Per scene: the mean CIEDE2000 difference (bench/colour_difference.py) inside both
silhouettes between the .toml's picture and each .glb picture, and the silhouettes' IoU.
The .toml is drawn with sgview's built-in look (Blinn-Phong, one light, in display
values) and the .glb with the glTF material model lit by the room, so the two differ by
shading even where every colour and face is written right; a colour written as sRGB into
the linear base colour (washed out) or a flat shape written single-sided (Saturn's
rings gone from above) shows as a far larger difference, or a lower IoU.

Run (look_compare.py's requirements):

    PYTHONPATH=$PWD python bench/look_compare.py --saved [--size 256] [--out DIR]
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from colour_difference import image_difference
from PIL import Image

from viewer.io import load_scene
from viewer.io.gltf_write.export import save_gltf
from viewer.render.camera import Camera
from viewer.render.context import Target, create_headless_context
from viewer.render.frame_view import FrameViews, ViewSettings
from viewer.render.lights import Lighting
from viewer.render.renderer import Renderer

#: Per scene: (Delta E, IoU) of three.js's .glb against sgview's .toml, of sgview's .glb
#: against its .toml, and of three.js's .glb against sgview's .glb.
Scores = dict[str, tuple[float, float, float, float, float, float]]
#: The bundled scenes: every one is saved and compared.
SCENES = Path(__file__).resolve().parents[1] / "scenes"


def saved_scenes() -> dict[str, Path]:
    """The bundled scenes by name (scenes/NAME.toml)."""
    return {path.stem: path for path in sorted(SCENES.glob("*.toml"))}


def write_saved(source: Path, folder: Path) -> Path:
    """`source` (a .toml) saved as `folder`/NAME.glb by sgview's glTF writer."""
    out = folder / f"{source.stem}.glb"
    save_gltf(load_scene(source), out)
    return out


def sgview_view(ctx, path: Path, size: int, look: Lighting, camera: Camera | None = None):
    """(picture [size, size, 3], silhouette [size, size], the camera) of the scene file at
    `path` drawn by sgview as look_compare draws one (no grid, axes or lines), through
    `camera`, or without one through sgview's own framing of it."""
    scene = load_scene(path)
    scene.graph.update()
    r = Renderer(ctx, scene, look)
    if camera is None:
        camera = Camera()
        r.bounds.frame_camera(camera)
    plain = ViewSettings(show_grid=False, show_axes=False, show_links=False)
    target = Target(ctx, (size, size), samples=0)
    r.draw(FrameViews().extract(r.graph, plain, target.fbo, (size, size)), camera)
    picture = target.read()[..., :3].copy()
    vp = np.ascontiguousarray(camera.view_projection((size, size)).astype(np.float32).T)
    r.backdrop.draw(target.fbo, (size, size), vp.tobytes(), False)  # the background alone
    background = target.read()[..., :3]
    target.release()
    r.release()
    return picture, np.any(picture != background, axis=-1), camera


def _scores(ours, our_mask, theirs, their_mask) -> tuple[float, float]:
    """(mean Delta E 2000 inside both silhouettes, IoU of the silhouettes)."""
    both = our_mask & their_mask
    union = (our_mask | their_mask).sum()
    delta = image_difference(ours, theirs)
    mean = float(delta[both].mean()) if both.any() else float("nan")
    return mean, float(both.sum() / max(union, 1))


def compare_saved(
    size: int, out: Path | None, three_room: bool, look: Lighting, three_dir: Path, only=()
) -> Scores:
    """Per bundled scene (or those named in `only`): `Scores`; with `out` side-by-side
    PNGs there (sgview .toml | three.js .glb | sgview .glb). `three_dir`: a folder whose
    node_modules holds three.js (`look_compare.install_three`)."""
    from look_compare import ENV_SIZE, ThreePage, equirect_room

    scenes = saved_scenes()
    if only:
        scenes = {name: scenes[name] for name in only}
    ctx = create_headless_context()
    results: Scores = {}
    with tempfile.TemporaryDirectory(prefix="sgview-saved-") as tmp:
        folder = Path(tmp)
        equirect_room(*ENV_SIZE).astype(np.float32).tofile(folder / "room.f32")
        environment = (
            {"kind": "three-room"}
            if three_room
            else {"kind": "equirect", "url": "room.f32", "width": ENV_SIZE[0],
                  "height": ENV_SIZE[1]}
        )  # fmt: skip
        page = ThreePage(three_dir.resolve(), folder)  # linked from a temporary folder
        try:
            for name, source in scenes.items():
                glb = write_saved(source, folder)
                shown, shown_mask, camera = sgview_view(ctx, source, size, look)
                framed = {"eye": [float(v) for v in camera.eye], "fov": float(camera.fov),
                          "target": [float(v) for v in camera.target]}  # fmt: skip
                theirs, their_mask = page.picture(glb.name, size, look, environment, framed)
                again, again_mask, _ = sgview_view(ctx, glb, size, look, camera)
                results[name] = (
                    *_scores(shown, shown_mask, theirs, their_mask),
                    *_scores(shown, shown_mask, again, again_mask),
                    *_scores(again, again_mask, theirs, their_mask),
                )
                if out is not None:
                    out.mkdir(parents=True, exist_ok=True)
                    side = np.concatenate([shown, theirs, again], axis=1)
                    Image.fromarray(side).save(out / f"saved-{name}.png")
        finally:
            page.close()
    return results


def report(results: Scores, size: int) -> list[str]:
    """The table look_compare prints for the saved scenes."""
    lines = [
        f"bundled scenes saved to .glb by sgview, {size} px, mean dE2000 inside both "
        "silhouettes (IoU)",
        f"{'scene':16} {'.toml / three.js':>18} {'.toml / sgview .glb':>20} "
        f"{'three.js / sgview .glb':>23}",
    ]
    for name, (a, a_iou, b, b_iou, c, c_iou) in results.items():
        lines.append(
            f"{name:16} {a:10.2f} ({a_iou:5.3f}) {b:12.2f} ({b_iou:5.3f}) {c:15.2f} ({c_iou:5.3f})"
        )
    return lines
