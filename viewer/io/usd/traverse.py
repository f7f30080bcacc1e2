"""Which prims become nodes, and under which node each one hangs.

One node per active, defined, non-abstract Xformable prim of the default prim's tree (the
pseudo-root's without one), prims inside instances included (instance proxies,
``Usd.TraverseInstanceProxies``). Not nodes: prims of guide or proxy purpose and their
subtrees; a PointInstancer's subtree (its prototypes are drawn through its instances);
non-Xformable prims (Scope, untyped ``def``), whose Xformable children hang from the
nearest Xformable ancestor, as USD composes them (a non-Xformable prim adds no transform).
A prim whose stack starts with ``!resetXformStack!`` ignores its ancestors' transforms:
its node is a root of the stage (under the stage's up-axis node when there is one).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pxr import Usd, UsdGeom

from viewer.io.errors import SceneError
from viewer.io.limits import Limits

__all__ = ["PrimRows", "Visibility", "walk_prims"]

_SKIPPED_PURPOSES = (UsdGeom.Tokens.guide, UsdGeom.Tokens.proxy)


@dataclass
class PrimRows:
    """The node prims in pre-order: each one's prim, path and name, its parent row (-1:
    none), its local matrix (pxr's, row vectors) and whether its stack resets the
    ancestors' transforms."""

    prims: list = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)
    locals: list = field(default_factory=list)
    resets: list[bool] = field(default_factory=list)
    #: The rows of the prims that may draw something (gprims, instancers).
    drawn: list[int] = field(default_factory=list)
    #: The rows of the cameras.
    cameras: list[int] = field(default_factory=list)
    #: Prims left out for their purpose, by purpose ("guide": 3).
    skipped: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.prims)


def _roots(stage: Usd.Stage) -> list:
    default = stage.GetDefaultPrim()
    if default and default.IsValid():
        return [default]
    return list(stage.GetPseudoRoot().GetChildren())


def walk_prims(
    stage: Usd.Stage, display: str, limits: Limits, cache, roots: list | None = None
) -> PrimRows:
    """The node prims of `stage` in pre-order (see the module notes), or of the subtrees
    of `roots` (their top prims get parent -1), with their local matrices as USD computes
    them through `cache` (a `UsdGeom.XformCache` at the time wanted); `SceneError`
    beyond ``limits.max_nodes``."""
    rows = PrimRows()
    local = cache.GetLocalTransformation
    kinds: dict[str, tuple[bool, bool, bool, bool]] = {}  # type name -> `_kind_of`
    predicate = Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)
    attach: dict = {}  # prim path -> the row its children hang from (-1: none)
    cap = limits.max_nodes
    for root in _roots(stage) if roots is None else roots:
        if not predicate(root):  # an inactive or abstract default prim: nothing below
            continue
        walk = iter(Usd.PrimRange(root, predicate))
        for prim in walk:
            path = prim.GetPath()
            parent_row = attach.get(path.GetParentPath(), -1)
            type_name = prim.GetTypeName()
            kind = kinds.get(type_name)
            if kind is None:
                kind = kinds[type_name] = _kind_of(prim)
            imageable, xformable, boundable, instancer = kind
            purpose = _authored_purpose(prim) if imageable else None
            if purpose is not None and purpose in _SKIPPED_PURPOSES:
                rows.skipped[purpose] = rows.skipped.get(purpose, 0) + 1
                walk.PruneChildren()
                continue
            if not xformable:
                attach[path] = parent_row
                continue
            row = len(rows.prims)
            if row >= cap:
                raise SceneError(
                    f"the stage has more than {cap:,} nodes, the limit "
                    f"(--max-nodes {cap}), references and payloads counted",
                    file=display,
                )
            matrix, reset = local(prim)
            rows.prims.append(prim)
            rows.paths.append(str(path))
            rows.names.append(path.name)
            rows.locals.append(matrix)
            rows.resets.append(reset)
            rows.parents.append(-1 if reset else parent_row)
            attach[path] = row
            if boundable:  # a gprim or an instancer: it may draw something
                rows.drawn.append(row)
                if instancer:
                    walk.PruneChildren()
            elif type_name == "Camera":
                rows.cameras.append(row)
    return rows


def _kind_of(prim) -> tuple[bool, bool, bool, bool]:
    """Whether `prim` is Imageable, Xformable, Boundable, a PointInstancer. `IsA` asks
    the prim's typed schema, which its type name fixes on one stage (fallback types are
    the stage's, per type name): asked once per type name, not once per prim."""
    return (
        prim.IsA(UsdGeom.Imageable),
        prim.IsA(UsdGeom.Xformable),
        prim.IsA(UsdGeom.Boundable),
        prim.IsA(UsdGeom.PointInstancer),
    )


def _authored_purpose(prim) -> str | None:
    """The Imageable prim's own authored purpose (a skipped purpose prunes the whole
    subtree, so the inherited one never needs computing)."""
    attr = prim.GetAttribute("purpose")
    if attr and attr.IsAuthored():
        return attr.Get()
    return None


class Visibility:
    """Whether prims are invisible at time code `time`, as USD inherits it: a prim whose
    own ``visibility`` is ``invisible`` hides its whole subtree. Each path is looked up
    once (memoised), climbing only as far as the first ancestor already known, so asking
    for every gprim costs one attribute read per distinct ancestor."""

    def __init__(self, time) -> None:
        self.time = time
        self._hidden: dict = {}  # prim path -> hidden

    def hidden(self, prim) -> bool:
        climb = []
        while prim and not prim.IsPseudoRoot() and prim.GetPath() not in self._hidden:
            climb.append(prim)
            prim = prim.GetParent()
        above = self._hidden.get(prim.GetPath(), False) if prim else False
        for p in reversed(climb):  # from the top down
            own = False
            if p.IsA(UsdGeom.Imageable):
                attr = p.GetAttribute("visibility")
                own = bool(attr) and attr.Get(self.time) == UsdGeom.Tokens.invisible
            above = above or own
            self._hidden[p.GetPath()] = above
        return above
