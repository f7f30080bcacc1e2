"""The ways glow shows: fill tints the whole node, rim keeps the node's own colour inside
and lights its outline, heat colours every node by its value on the heat ramp."""

import numpy as np
from render_helpers import FakeReport, draw, light, tree10

from viewer.palette import GLOW_LOCAL
from viewer.render.camera import Camera
from viewer.render.frame_view import ViewSettings
from viewer.render.renderer import GLOW_STYLES, Renderer

SIZE = (320, 240)


def _draw(gl_ctx, target, style, values):
    scene = tree10()
    scene.graph.update()
    r = Renderer(gl_ctx, scene)
    cam = Camera()
    r.bounds.frame_camera(cam)
    view = ViewSettings(glow_style=style)
    g = scene.graph
    if style == "heat":  # `values` are shares of the frames: recompute them that often
        view.glow_on = True
        for frame in range(240):
            ids = [g[n].id for n, share in values.items() if frame % round(1 / share) == 0]
            r.glow.record(FakeReport(ids), g.parents(), 1 / 60)
        r.instances.write_stamps(r.glow)
    else:
        light(r, {g[name].id: value for name, value in values.items()}, view)
    draw(r, target.fbo, cam, SIZE, view)
    world = scene.graph.world_matrices()
    px = {n.name: cam.project([world[n.id, :3, 3]], SIZE)[0] for n in scene.graph}
    return target.read().copy(), px  # read() reuses its buffer


def _at(img, xy, dx=0):
    return img[int(xy[1]), int(xy[0]) + dx].astype(int)


def _redness(rgb) -> float:
    """How close a colour's direction is to the local glow's red."""
    c = np.asarray(rgb, dtype=float)
    red = np.asarray(GLOW_LOCAL, dtype=float)
    return float(c @ red / (np.linalg.norm(c) * np.linalg.norm(red) + 1e-9))


def test_styles_are_named():
    assert GLOW_STYLES == ("fill", "rim", "heat")


def test_rim_keeps_the_nodes_colour_inside_and_lights_its_edge(gl_ctx, target):
    plain, px = _draw(gl_ctx, target, "fill", {})
    fill, _ = _draw(gl_ctx, target, "fill", {"Obj2": -1.0})  # a blue sphere
    rim, _ = _draw(gl_ctx, target, "rim", {"Obj2": -1.0})
    centre = px["Obj2"]
    assert _redness(_at(fill, centre)) > 0.97  # fill: the middle turns red
    assert np.abs(_at(rim, centre) - _at(plain, centre)).max() <= 3  # rim: own colour
    # Within 30 px of the sphere (nothing red there without glow), the rim is red at the
    # silhouette.
    x0, y0 = int(centre[0]), int(centre[1])
    near = (slice(y0 - 30, y0 + 30), slice(x0 - 30, x0 + 30))

    def red_pixels(img):
        patch = img[near].reshape(-1, 3)
        return sum(_redness(p) > 0.97 and p.max() > 120 for p in patch)

    assert red_pixels(rim) >= 20 and red_pixels(plain) == 0


def test_heat_colours_every_node_by_its_heat(gl_ctx, target):
    img, px = _draw(gl_ctx, target, "heat", {"Obj1": 1.0, "Obj2": 0.5})
    hot, warm, cold = (_at(img, px[n]) for n in ("Obj1", "Obj2", "Obj3"))
    assert cold[2] > cold[0]  # never recomputed: the ramp's slate blue
    assert warm[0] > warm[1] and warm[0] > warm[2]  # half the frames: violet to orange
    assert hot[2] < 0.7 * min(hot[0], hot[1])  # every frame: the ramp's yellow end
