"""Errors of the core. Each names the nodes involved; none leaves the graph half-changed."""

from __future__ import annotations

from ..errors import SgviewError


class HierarchyError(SgviewError, ValueError):
    """A structural request that would break the tree: self-parenting, a cycle, a node
    from another graph, a removed node, or a duplicate name."""


class ShearError(HierarchyError):
    """``keep_world=True`` refused: the world pose would need shear. The message is the
    `reason` and, in brackets, the `remedy`: by default the Python argument that accepts
    the nearest pose; a caller where the edit came from (the window's drop) names its
    own way out with `with_remedy`, keeping the reason's words as they are."""

    def __init__(self, reason: str, remedy: str = "keep_world='lossy' accepts that") -> None:
        super().__init__(f"{reason} ({remedy})")
        self.reason = reason
        self.remedy = remedy

    def with_remedy(self, remedy: str) -> ShearError:
        """The same refusal with another way out."""
        return ShearError(self.reason, remedy)

    def __reduce__(self):  # pickled (across processes): both parts, not the message
        return (ShearError, (self.reason, self.remedy))
