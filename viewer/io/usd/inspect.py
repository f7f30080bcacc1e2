"""The inspector's rows for the nodes of a USD scene, read from the stage when shown.

Reading every prim's ``xformOpOrder`` at load would cost about as much as the rest of
the walk together; the panel shows one node at a time, so its rows are read from the
(still open) stage when it asks: the prim path, its type, its ``xformOpOrder`` as
authored (``!resetXformStack!`` and ``!invert!`` included), how its local matrix is held
and the stage's up axis and units.
"""

from __future__ import annotations

__all__ = ["PrimInspector"]

_TRS = "position, rotation, scale (exact)"
_SHEARED = "sheared: exact as the [shear] node above times this node's rotation"
_OUTER = "position, U and Σ of the prim's M = T·U·Σ·Vᵀ (Vᵀ: the prim's node)"
_RESET = "!resetXformStack!: hangs from the stage, not from its parent prim"


#: Ops whose values the inspector lists, at most.
MAX_OPS = 8


def _op_values(prim) -> list[tuple[str, str]]:
    """One row per op of the stack: its name and value at the stage's start (animated
    ones say so; an !invert! op names the op it undoes)."""
    from pxr import UsdGeom

    stage = prim.GetStage()
    start = stage.GetStartTimeCode()
    rows = []
    ops = UsdGeom.Xformable(prim).GetOrderedXformOps()
    for k, op in enumerate(ops[:MAX_OPS], start=1):
        name = op.GetName().removeprefix("xformOp:")
        if op.IsInverseOp():
            rows.append((f"op {k}", f"!invert! {name}"))
            continue
        text = f"{name} {_number_text(op.Get(start))}"
        if op.MightBeTimeVarying():
            text += f" at {start:g}, animated"
        rows.append((f"op {k}", text))
    if len(ops) > MAX_OPS:
        rows.append(("ops", f"... {len(ops) - MAX_OPS} more"))
    return rows


def _number_text(value) -> str:
    try:
        import numpy as np

        flat = np.asarray(value, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        return str(value)[:80]
    if flat.size == 16:
        return "matrix (" + ", ".join(f"{v:.3g}" for v in flat[:12]) + ", ...)"
    if flat.size == 1:
        return f"{flat[0]:.4g}"
    return "(" + ", ".join(f"{v:.4g}" for v in flat) + ")"


class PrimInspector:
    """Callable: node id -> (label, value) rows, for `Scene.describe_node`."""

    def __init__(self, stage, paths: dict[int, str], root_line: str) -> None:
        self.stage = stage
        self.paths = paths  # the scene's node_paths (kept current by live edits)
        self.root_line = root_line

    def __call__(self, node_id: int) -> tuple[tuple[str, str], ...]:
        from viewer.io.usd.xforms import op_stack_text

        key = self.paths.get(int(node_id))
        if key is None:
            return ()
        if key == "/":
            return (("stage", self.root_line),)
        if key.endswith("[shear]"):
            return (("shear of", key.removesuffix("[shear]")), ("holds", _OUTER))
        prim = self.stage.GetPrimAtPath(key)
        if not prim:
            return (("prim", key), ("state", "no longer on the stage"))
        stack = op_stack_text(prim)
        sheared = key + "[shear]" in self.paths.values()
        rows = [
            ("prim", key),
            ("type", str(prim.GetTypeName()) or "(untyped)"),
            ("xformOpOrder", stack),
            *_op_values(prim),
            ("matrix", _SHEARED if sheared else _TRS),
        ]
        if stack.startswith("!resetXformStack!"):
            rows.append(("parent", _RESET))
        if prim.IsInstanceProxy():
            rows.append(("instance of", str(prim.GetPrimInPrototype().GetPath())))
        rows.append(("stage", self.root_line))
        return tuple(rows)
