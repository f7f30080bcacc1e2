"""The nodes' names over the 3D view: where they go (`labels.py`, kept while the view
stands), coloured by what the frame did to each node (red: its own change, orange: it
followed one), outlined so the glow never washes them out, and written into ImGui's
background draw list, under every window."""

from __future__ import annotations

import numpy as np
from imgui_bundle import imgui
from moderngl_window.context.base import BaseWindow

import viewer.gizmo as gizmo
from viewer.session.source import SceneOnShow
from viewer.text import printable

from . import labels
from .host import OverlayCamera, OverlayCanvas
from .name_candidates import NameCandidates
from .widgets import Color

#: The names drawn, most important first, with their colours (ImGui's packed colour).
NamesDrawn = list[tuple[str, int]]
#: Where each name was written: (left, top, right, bottom) pixels.
NameBoxes = list[tuple[float, float, float, float]]

NAME_COLOR = (0.92, 0.93, 0.96, 1.0)
#: Round each name: a dark outline (RGBA bytes), so glow never washes the letters out.
NAME_OUTLINE = (10, 12, 16, 235)
_OUTLINE_OFFSETS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]


def draw_names(
    host: SceneOnShow,
    canvas: OverlayCanvas,
    camera: OverlayCamera,
    wnd: BaseWindow,
    placements: labels.Placements,
    quiet: bool,
    colors_local_world: tuple[Color, Color],
    glow_in_view: bool,
    candidates: NameCandidates | None = None,
    keep_off: gizmo.Outline | None = None,
) -> tuple[NamesDrawn, NameBoxes] | None:
    """Draw the names that fit; returns (the names drawn, most important first, with
    their colours; where each was written: (left, top, right, bottom) pixels), or None
    when no node speaks. `quiet`: nodes that draw nothing get names too;
    `glow_in_view` False: every name in one colour (red there means something else);
    `candidates`: the kept grid that bounds the nodes looked at when the view moves;
    `keep_off`: what the gizmo draws (window pixels), which names stay off where they can."""
    graph, size, selected = host.graph, wnd.buffer_size, host.selected
    peek = graph.peek  # a watcher's read of the graph
    view_proj = camera.view_projection(size)
    glowing = canvas.glow.glowing()[0]  # what the frame shown changed: it keeps its names
    key = (
        view_proj.tobytes(),
        size,
        graph,
        canvas,
        canvas.version,
        selected,
        quiet,
        len(graph),
        glowing.tobytes(),
    )
    near = NameCandidates() if candidates is None else candidates
    scene = (graph, canvas, canvas.version, quiet, len(graph))  # what the grid stands for
    right = camera.view_matrix()[0, :3]
    ids, centres, index, xy = placements.get(
        key,
        lambda: near.place(
            scene,
            peek.alive_ids,
            lambda i: canvas.speaks(i, quiet),
            selected,
            canvas.bounds.label_spheres,
            view_proj,
            size,
            right,
            glowing,
        ),
    )
    if ids.size == 0:
        return None
    ratio = wnd.size[0] / max(size[0], 1)
    line_h = imgui.get_text_line_height()
    node_ids = ids[index]
    names = [printable(peek.name_of(int(i))) for i in node_ids.tolist()]
    kinds = canvas.glow.kinds(node_ids).tolist()
    ranks = [labels.rank_of(kind, int(i) == selected) for i, kind in zip(node_ids, kinds)]
    widths = [float(imgui.calc_text_size(name).x) for name in names]
    origins = labels.project_xy(centres[index], view_proj, size) * ratio
    keep, anchors = labels.declutter(
        xy * ratio,
        np.asarray(widths, dtype=np.float64),
        line_h,
        np.asarray(ranks, dtype=np.int64),
        origins,
        keep_off=keep_off,
        area=(float(wnd.size[0]), float(wnd.size[1])),
    )
    draw_list = imgui.get_background_draw_list()
    outline = imgui.IM_COL32(*NAME_OUTLINE)
    colors = {0: imgui.get_color_u32(imgui.ImVec4(*NAME_COLOR))}
    for kind, rgb in zip((-1, 1), colors_local_world):
        colors[kind] = imgui.get_color_u32(imgui.ImVec4(*rgb))
    if not glow_in_view:
        # No glow in the view (the collision demo: red there means overlap): the names
        # must not speak of own changes and followers in red and orange either.
        colors = dict.fromkeys(colors, colors[0])
    drawn: NamesDrawn = [(names[k], colors[kinds[k]]) for k in keep.tolist()]
    boxes: NameBoxes = [
        (x, y - 0.5 * line_h, x + widths[k], y + 0.5 * line_h)
        for k, (x, y) in zip(keep.tolist(), anchors.tolist())
    ]
    for k, (x, y) in zip(keep.tolist()[::-1], anchors[::-1].tolist()):
        y -= 0.5 * line_h  # the most important drawn last, on top
        # A dark outline all round the letters: readable over the glow and the grid,
        # while hiding no more of the scene than the letters do.
        for dx, dy in _OUTLINE_OFFSETS:
            draw_list.add_text(imgui.ImVec2(x + dx, y + dy), outline, names[k])
        draw_list.add_text(imgui.ImVec2(x, y), colors[kinds[k]], names[k])
    return drawn, boxes
