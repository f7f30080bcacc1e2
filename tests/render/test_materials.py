"""glTF materials: the base colour texture (coordinates, wrap and filter modes), vertex
colours times the base colour factor, and the glow still on top. Files built in code."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image
from render_helpers import draw, light

from viewer.io import SceneError, load_scene
from viewer.palette import GLOW_LOCAL
from viewer.render.camera import Camera
from viewer.render.frame_view import ViewSettings
from viewer.render.renderer import Renderer

SIZE = (200, 200)
RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)
CLAMP, MIRROR, REPEAT = 33071, 33648, 10497


def _uri(raw: bytes) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


def _png() -> str:
    img = Image.fromarray(np.array([[RED, GREEN], [BLUE, WHITE]], dtype=np.uint8))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def quad_gltf(path, *, uv_scale=1.0, wrap=REPEAT, colors=None, factor=(1, 1, 1, 1),
              texture=True):  # fmt: skip
    """A 2 x 2 quad in the XY plane, corners (0, 0)..(2, 2), seen from +Z."""
    pos = np.array([[0, 0, 0], [2, 0, 0], [2, 2, 0], [0, 2, 0]], np.float32)
    uv = np.array([[0, 1], [1, 1], [1, 0], [0, 0]], np.float32) * uv_scale  # v = 0 at top
    idx = np.array([0, 1, 2, 0, 2, 3], np.uint16)
    arrays = [pos, idx, uv] + ([np.asarray(colors, np.float32)] if colors is not None else [])
    blob, views, accessors = b"", [], []
    kinds = [("VEC3", 5126), ("SCALAR", 5123), ("VEC2", 5126), ("VEC3", 5126)]
    for arr, (kind, ctype) in zip(arrays, kinds, strict=False):
        blob += b"\0" * (-len(blob) % 4)
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": arr.nbytes})
        accessors.append({"bufferView": len(views) - 1, "componentType": ctype, "type": kind,
                          "count": len(arr)})  # fmt: skip
        blob += arr.tobytes()
    attrs = {"POSITION": 0, "TEXCOORD_0": 2}
    if colors is not None:
        attrs["COLOR_0"] = 3
    pbr = {"baseColorFactor": list(factor)}
    doc = {
        "asset": {"version": "2.0"},
        "nodes": [{"name": "Quad", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": attrs, "indices": 1, "material": 0}]}],
        "materials": [{"pbrMetallicRoughness": pbr}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob), "uri": _uri(blob)}],
    }
    if texture:
        pbr["baseColorTexture"] = {"index": 0}
        doc["textures"] = [{"source": 0, "sampler": 0}]
        doc["images"] = [{"uri": _png()}]
        doc["samplers"] = [{"magFilter": 9728, "minFilter": 9728, "wrapS": wrap, "wrapT": wrap}]
    path.write_text(json.dumps(doc))
    return path


def _picture(gl_ctx, target, scene, highlight=None):
    scene.graph.update()
    r = Renderer(gl_ctx, scene)
    view = ViewSettings(unlit=True, show_grid=False, show_axes=False, show_links=False)
    if highlight is not None:
        light(r, {0: highlight}, view)
    cam = Camera()
    cam.frame(np.array([1.0, 1.0, 0.0]), 1.2)
    draw(r, target.fbo, cam, SIZE, view)
    img = target.read()
    r.release()

    def at(x, y):  # a point of the quad, in its own units
        px, py, _ = cam.project([(x, y, 0.0)], SIZE)[0]
        return tuple(int(c) for c in img[int(py), int(px)])

    return at


def _near(got, want, tol=3):
    return all(abs(a - b) <= tol for a, b in zip(got, want, strict=True))


def test_texture_lands_the_right_way_up(gl_ctx, target, tmp_path):
    at = _picture(gl_ctx, target, load_scene(quad_gltf(tmp_path / "q.gltf")))
    assert _near(at(0.5, 1.5), RED) and _near(at(1.5, 1.5), GREEN)  # the image's top row
    assert _near(at(0.5, 0.5), BLUE) and _near(at(1.5, 0.5), WHITE)


@pytest.mark.parametrize(("wrap", "right"), [(REPEAT, RED), (CLAMP, GREEN), (MIRROR, GREEN)])
def test_wrap_modes(gl_ctx, target, tmp_path, wrap, right):
    """u from 0 to 2: at u = 1.25 repeat shows u = 0.25 (red), clamp u = 1 (green),
    mirror u = 0.75 (green); at u = 1.75 repeat is green, clamp green, mirror red."""
    at = _picture(
        gl_ctx, target, load_scene(quad_gltf(tmp_path / "q.gltf", uv_scale=2.0, wrap=wrap))
    )
    assert _near(at(0.25, 1.75), RED)  # u = 0.25, v = 0.25
    assert _near(at(1.25, 1.75), right)  # u = 1.25
    far = {REPEAT: GREEN, CLAMP: GREEN, MIRROR: RED}[wrap]
    assert _near(at(1.75, 1.75), far)  # u = 1.75


def test_nearest_and_linear_filters_differ_between_texels(gl_ctx, target, tmp_path):
    path = quad_gltf(tmp_path / "q.gltf")
    nearest = _picture(gl_ctx, target, load_scene(path))(0.95, 1.5)
    doc = json.loads(path.read_text())
    doc["samplers"][0]["magFilter"] = 9729
    path.write_text(json.dumps(doc))
    linear = _picture(gl_ctx, target, load_scene(path))(0.95, 1.5)
    assert _near(nearest, RED) and linear[1] > 60  # linear blends in some green


def srgb(linear: float) -> int:
    """The sRGB encoding of a linear value (IEC 61966-2-1), as an 8-bit value."""
    c = linear * 12.92 if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055
    return round(255 * c)


def test_vertex_colours_times_the_factor(gl_ctx, target, tmp_path):
    colors = [[1, 0, 0], [0, 0, 1], [0, 0, 1], [1, 0, 0]]  # red on the left, blue right
    path = quad_gltf(tmp_path / "q.gltf", colors=colors, factor=(1, 1, 0.5, 1), texture=False)
    scene = load_scene(path)
    part = next(iter(scene.surfaces.values())).parts[0]
    assert part.material.base_color_texture is None
    at = _picture(gl_ctx, target, scene)
    # linear colours, blended linearly, written sRGB-encoded
    for x in (0.02, 1.0, 1.98):  # red fades to blue times 0.5 from x = 0 to 2
        f = x / 2.0
        got = at(x, 1.0)
        assert _near(got, (srgb(1.0 - f), 0, srgb(0.5 * f)), 4), (x, got)


def test_the_glow_reads_on_top_of_a_texture(gl_ctx, target, tmp_path):
    at = _picture(gl_ctx, target, load_scene(quad_gltf(tmp_path / "q.gltf")), highlight=-1.0)
    glow = tuple(round(255 * c) for c in GLOW_LOCAL)
    for point in ((0.5, 1.5), (1.5, 1.5), (0.5, 0.5), (1.5, 0.5)):
        assert _near(at(*point), glow, 4), at(*point)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d["images"][0].update(uri="data:image/png;base64,AAAA"), "PNG or JPEG"),
        (lambda d: d["samplers"][0].update(wrapS=1), "wrapS must be one of"),
        (lambda d: d["meshes"][0]["primitives"][0]["attributes"].pop("TEXCOORD_0"),
         "needs TEXCOORD_0"),
        (lambda d: d["images"][0].update(uri="../x.png"), "own folder"),
    ],
)  # fmt: skip
def test_bad_textures_give_one_line(tmp_path, change, needle):
    path = quad_gltf(tmp_path / "q.gltf")
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(SceneError) as err:
        load_scene(path)
    assert needle in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_a_huge_image_is_refused_before_decoding(tmp_path):
    img = Image.new("L", (9000, 10))
    out = io.BytesIO()
    img.save(out, format="PNG")
    path = quad_gltf(tmp_path / "q.gltf")
    doc = json.loads(path.read_text())
    doc["images"][0]["uri"] = "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()
    path.write_text(json.dumps(doc))
    with pytest.raises(SceneError, match="9000x10 pixels; sides up to 8192"):
        load_scene(path)
