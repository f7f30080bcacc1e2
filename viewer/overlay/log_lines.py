"""A frame's log block, as ``--log`` prints it and the Frames panel's Log shows it:
``# frame N`` and the report's lines, cut for a frame that recomputed very many nodes.
Made from the frame's report when first asked for (the timeline records keep the blocks made).
"""

from __future__ import annotations

import numpy as np

from viewer.scene.report import FrameReport

#: Log lines kept per frame; a bigger frame's block ends with a line saying how many more.
BLOCK_LINES = 500


def log_block(frame: int, report: FrameReport, limit: int = BLOCK_LINES) -> list[str]:
    """The ``--log`` block of a frame: ``# frame N`` and the report's log lines, or [] when
    the frame recomputed nothing (docs/semantics.md section 3: such a frame prints nothing).

    A frame with more than `limit` recomputed worlds keeps the lines of the first `limit`
    and ends with ``... N more world updates`` (names are made only for what is kept).
    """
    world = report.world_updated
    if world.size == 0:
        return []
    if world.size <= limit:
        return [f"# frame {frame}", *report.log_lines()]
    head = world[:limit]
    local = np.isin(head, report.local_updated)
    lines = [f"# frame {frame}"]
    for name, is_local in zip(report.shown_names(head.tolist()), local.tolist(), strict=True):
        if is_local:
            lines.append(f"*Update Local : {name}*")
        lines.append(f"=Update World : {name}=")
    lines.append(f"... {world.size - limit:,} more world updates")
    return lines
